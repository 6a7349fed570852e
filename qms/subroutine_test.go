package qms_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/qms"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// encoded is a quest as its file.
func encoded(t *testing.T, q *qmm.Quest) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := qmm.Encode(&b, q); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var (
	callRE   = regexp.MustCompile(`(?m)^#case:\S+ .*#return:\S+`)
	returnRE = regexp.MustCompile(`(?m)^#return\b`)
)

// checkSubroutines decompiles q, which has sub-routines, and requires the source to have them
// as #return sites and calls, without the stack arithmetic, and to compile to the same quest.
func checkSubroutines(t *testing.T, q *qmm.Quest, calls, returns int) {
	t.Helper()
	src := qms.Decompile(q)
	if got := len(callRE.FindAll(src, -1)); got != calls {
		t.Errorf("%d calls (#case … #return:SITE) in the source, want %d", got, calls)
	}
	if got := len(returnRE.FindAll(src, -1)); got != returns {
		t.Errorf("%d #return sites in the source, want %d", got, returns)
	}
	if bytes.Contains(src, []byte("*256+")) || bytes.Contains(src, []byte("div 256")) {
		t.Errorf("the source still has the stack arithmetic:\n%s", src)
	}
	back, err := qms.CompileSource("back.qms", src)
	if err != nil {
		t.Fatalf("the decompiled source does not compile: %v\n%s", err, src)
	}
	if !bytes.Equal(encoded(t, back), encoded(t, q)) {
		t.Errorf("the decompiled source compiles to another quest:\n%s", src)
	}
}

// TestDecompileSubroutines compiles a source with sub-routines (one called from two places,
// one called from inside another) and decompiles it: the source has its #return structure.
func TestDecompileSubroutines(t *testing.T) {
	t.Parallel()
	src := `#var:x #range:0..10 #show
#site:start #default
Start.
#case:sub 'Call' #return:again
#site:again
Back once, x is $x.
#case:sub 'Call again' #return:twice
#site:twice
Back twice.
#case:outer 'Nested' #return:done
#site:done #win
Done.
#site:sub
In the sub-routine.
$x=$x+1
#case:subend 'Return'
#site:subend
#return
#site:outer
Outer.
#case:sub 'Inner call' #return:outerend
#site:outerend
#return
`
	q, err := qms.CompileSource("sub.qms", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	checkSubroutines(t, q, 4, 2)
}

// TestDecompileSubroutinesCorpus compiles the corpus sources whose sub-routines the
// decompiler recovers, and decompiles the compiled quests of the corpus that have them.
func TestDecompileSubroutinesCorpus(t *testing.T) {
	t.Parallel()
	dir := corpus.Path(t, "quests", sourceSet)
	for _, c := range []struct {
		name           string
		calls, returns int
	}{{"lunolet_2.qms", 35, 4}, {"minesweeper.qms", 6, 4}} {
		t.Run("source/"+c.name, func(t *testing.T) {
			t.Parallel()
			q, err := qms.Compile(os.DirFS(dir), c.name)
			if err != nil {
				t.Fatal(err)
			}
			checkSubroutines(t, q, c.calls, c.returns)
		})
	}
	pairs := corpus.Path(t, "quests", pairSet)
	for _, c := range []struct {
		name           string
		calls, returns int
	}{{"lunolet_2.qmm", 35, 4}, {"test.qmm", 1, 1}} {
		t.Run("quest/"+c.name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(pairs, c.name))
			if err != nil {
				t.Fatal(err)
			}
			q, err := qmm.DecodeBytes(data)
			if err != nil {
				t.Fatal(err)
			}
			src := qms.Decompile(q)
			if got := len(callRE.FindAll(src, -1)); got != c.calls {
				t.Errorf("%d calls, want %d", got, c.calls)
			}
			if got := len(returnRE.FindAll(src, -1)); got != c.returns {
				t.Errorf("%d #return sites, want %d", got, c.returns)
			}
			if strings.Contains(string(src), "*256+") {
				t.Error("the source still pushes on the stack parameter")
			}
		})
	}
}
