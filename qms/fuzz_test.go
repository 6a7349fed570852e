package qms_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/questbot/questbot/qms"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// fuzzLines bounds the lines one fuzzed source may expand to: the fuzzers easily find loops
// and macros that expand to the million lines a compilation allows, which take seconds each
// and stall the fuzzing, while the paths of the compiler are all reached with far fewer.
const fuzzLines = 20_000

// seeds adds the small sources of the corpus (read at run time) and a few snippets.
func seeds(f *testing.F) {
	for _, s := range []string{
		"#site:s #default\nHello *world* ^x^ {[1..3]}\n#case:s 'Again' {1}\n$x=$x+1\n",
		"#var:x #range:0..10 #default:5 #show\n  #text:0..10 'x = $'\n  #message:-10 #win:'Won'\n#site:a #default #show:x\n#page:2\nB\n#case:b #return:a\n#site:b #return\n",
		"#global:N:3\n#macro:m:a\n#site:s[$a] #default\n[$a*2] @x\n#end:K\n#for:i:1..[$N]\n#m:[$i]\n#end\n#if:0\nx\n#else\n#site:z\n#end\n",
		"#exact\n#quest:magic \"QM_4\"\n#site:L1 #id:1 #default #empty #pages:2 {\"[p1]\"}\n#raw:\"a//b\"\n#case:L1 #id:7 \"t\" #seq:0\n#cond:p1:0..1:eq:1;2:nmod:\n",
	} {
		f.Add([]byte(s))
	}
	if dir, ok := corpus.Optional(f); ok {
		files, _ := filepath.Glob(filepath.Join(dir, "quests", "dagazbot-qms", "*.qms"))
		for _, name := range files {
			if fi, err := os.Stat(name); err == nil && fi.Size() < 20_000 {
				if b, err := os.ReadFile(name); err == nil {
					f.Add(b)
				}
			}
		}
	}
}

// FuzzCompile: no input makes the compiler panic, and every error carries its place.
func FuzzCompile(f *testing.F) {
	f.Cleanup(qms.SetLineLimit(fuzzLines))
	seeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		q, err := qms.CompileSource("f.qms", src)
		if err == nil {
			if q == nil {
				t.Fatal("no quest and no error")
			}
			return
		}
		var list qms.ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error %v is not an error list", err)
		}
		for _, e := range list {
			if e.File != "f.qms" || e.Line < 1 || e.Col < 1 || e.Msg == "" {
				t.Fatalf("error without its place: %#v", e)
			}
		}
	})
}

// FuzzRoundTrip: a source that compiles decompiles into a source that compiles, and
// decompiling that gives the same source again.
func FuzzRoundTrip(f *testing.F) {
	f.Cleanup(qms.SetLineLimit(fuzzLines))
	seeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		q, err := qms.CompileSource("f.qms", src)
		if err != nil {
			return
		}
		once := qms.Decompile(q)
		q2, err := qms.CompileSource("d.qms", once)
		if err != nil {
			t.Fatalf("decompiled source does not compile: %v\n%s", err, once)
		}
		if twice := qms.Decompile(q2); !bytes.Equal(once, twice) {
			t.Fatalf("decompile is not stable:\n%s\n---\n%s", once, twice)
		}
	})
}
