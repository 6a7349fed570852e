package qms_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/questbot/questbot/qms"
)

// Ensure each kind of error is reported at its place with its message.
func TestQmsErrors(t *testing.T) {
	t.Parallel()
	site := "#site:s #default\nText\n"
	tests := []struct {
		name, src string
		want      string // "line:col: message" prefix of the first error
	}{
		{"unclosed macro", "#macro:m\n  #site:x\n", "1:1: #macro is not closed"},
		{"unclosed for", site + "  #for:i:1..3\n", "3:3: #for is not closed"},
		{"unclosed if", site + "#if:1\n", "3:1: #if is not closed"},
		{"end without block", site + "#end\n", "3:1: #end without an open #macro, #for or #if"},
		{"else without block", site + "#else\n", "3:1: #else without an open #macro, #for or #if"},
		{"second else", site + "#for:i:1..0\n#else\n#else\n#end\n", "5:1: a second #else in one #for"},
		{"bad range", site + "#for:i:1..xy\n#end\n", "3:1: bad range \"1..xy\""},
		{"reversed characters", site + "#for:i:z..a\n#end\n", "3:1: bad character range z..a"},
		{"huge range", site + "#for:i:1..1000000\n#end\n", "3:1: range 1..1000000 has more than"},
		{"bad if", site + "#if:1+\n#end\n", "3:1: cannot compute #if condition"},
		{"macro recursion", site + "#macro:m\n#m\n#end\n#m\n", "4:1: macro calls nested deeper than 32: m → m"},
		{"counter", site + "#global:N:abc\n#macro:m\n#end:N\n#m\n", "6:1: counter N holds \"abc\""},
		{"bad global", site + "#global:N\n", "3:1: bad #global"},
		{"macro without name", site + "#macro\n#end\n", "3:1: macro without a name"},
		{"bad for", site + "#for:i\n#end\n", "3:1: bad #for"},
		{"if without condition", site + "#if\n#end\n", "3:1: #if without a condition"},
		{"bad compatible", "#compatible:maybe\n" + site, "1:1: bad #compatible mode \"maybe\""},
		{"text outside var", site + "#text:0..1 'x'\n", "3:1: #text outside a #var"},
		{"message outside var", site + "#message:+0 #death\n", "3:1: #message outside a #var"},
		{"case outside site", "#case:s 'Go'\n" + site, "1:1: #case outside a #site"},
		{"return outside site", "#return\n" + site, "1:1: #return outside a #site"},
		{"page outside site", "#page:2\n" + site, "1:1: #page outside a #site"},
		{"bad page", site + "#page:x\n", "3:1: bad page number \"x\""},
		{"change outside site", "$x=1\n" + site, "1:1: parameter change outside a #site"},
		{"no site", "#var:x\n", "1:1: no site"},
		{"bad raw", site + "#raw:plain\n", "3:1: bad #raw"},
		{"raw outside block", "#raw:\"x\"\n" + site, "1:1: #raw outside a block"},
		{"bad quoted text", site + "#raw:\"x\n", "3:6: bad double-quoted text"},
		{"bad quest", site + "#quest:hardness\n", "3:1: bad #quest"},
		{"unknown quest field", site + "#quest:colour \"red\"\n", "3:1: unknown #quest field \"colour\""},
		{"bad magic", site + "#quest:magic \"QM_9\"\n", "3:1: unknown magic \"QM_9\""},
		{"bad number field", site + "#quest:hardness \"hard\"\n", "3:1: #quest:hardness needs a whole number"},
		{"cond outside case", site + "#cond:x:0..1\n", "3:1: #cond outside a #case"},
		{"bad cond", site + "#case:s\n#cond:x:0\n", "4:1: bad #cond"},
		{"bad cond kind", site + "#case:s\n#cond:x:0..1:is:1\n", "4:1: bad #cond list kind \"is\""},
		{"bad cond value", site + "#case:s\n#cond:x:0..1:eq:a\n", "4:1: bad #cond value \"a\""},
		{"unknown cond variable", site + "#case:s\n#cond:x:0..1\n", "4:1: unknown variable \"x\""},
		{"crit outside", "#crit:x \"t\"\n" + site, "1:1: #crit outside a #site or #case"},
		{"location id twice", site + "#site:t #id:1\n", "3:1: location id 1 given twice"},
		{"include in a single source", "#include:lib\n" + site, "1:1: cannot include \"lib\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := qms.CompileSource("q.qms", []byte(tt.src))
			var list qms.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("got %v, want an error list", err)
			}
			if got := list[0].Error(); !strings.HasPrefix(got, "q.qms:"+tt.want) {
				t.Fatalf("got %q, want q.qms:%s…", got, tt.want)
			}
		})
	}
}

// Ensure includes resolve with or without .qms, and that cycles, depth and missing files are
// errors naming the chain.
func TestQmsIncludes(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"main.qms":  {Data: []byte("#include:lib\n#include:lib2.qms\n#site:s #default\n#greet:world\n")},
		"lib.qms":   {Data: []byte("#macro:greet:who\nHello, [$who]!\n#end\n")},
		"lib2.qms":  {Data: []byte("// nothing\n")},
		"a.qms":     {Data: []byte("#include:b\n")},
		"b.qms":     {Data: []byte("\n#include:a\n")},
		"miss.qms":  {Data: []byte("#site:s #default\n  #include:nothere\n")},
		"deep0.qms": {Data: []byte("#include:deep0\n")},
	}
	q, err := qms.Compile(fsys, "main.qms")
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Locations[0].Texts[0].Text; got != "Hello, world!\n" {
		t.Errorf("text %q", got)
	}
	for name, want := range map[string]string{
		"a.qms":    "b.qms:2:1: include cycle: a.qms → b.qms → a.qms",
		"miss.qms": `miss.qms:2:3: file "nothere" not found`,
	} {
		_, err := qms.Compile(fsys, name)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %s…", name, err, want)
		}
	}
	deep := fstest.MapFS{}
	for i := 0; i < 40; i++ {
		deep[name(i)] = &fstest.MapFile{Data: []byte("#include:" + name(i+1) + "\n")}
	}
	deep[name(40)] = &fstest.MapFile{Data: []byte("#site:s #default\n")}
	_, err = qms.Compile(deep, name(0))
	if err == nil || !strings.Contains(err.Error(), "includes nested deeper than 32: d0.qms → d1.qms") {
		t.Errorf("deep includes: %v", err)
	}
}

func name(i int) string { return "d" + strings.Repeat("", 0) + itoa(i) + ".qms" }

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// Ensure every error of a source is reported, not only the first, up to the cap.
func TestQmsAllErrors(t *testing.T) {
	t.Parallel()
	src := strings.Repeat("#text:0..1 'x'\n", 80) + "#site:s #default\n"
	_, err := qms.CompileSource("q.qms", []byte(src))
	var list qms.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v", err)
	}
	if len(list) != qms.MaxErrors+1 || !strings.Contains(list[qms.MaxErrors].Msg, "too many errors") {
		t.Fatalf("%d errors, last %v", len(list), list[len(list)-1])
	}
	if list[1].Line != 2 || list[1].Col != 1 {
		t.Errorf("second error at %d:%d", list[1].Line, list[1].Col)
	}
}
