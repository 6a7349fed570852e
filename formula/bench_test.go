package formula

import (
	"testing"

	"github.com/questbot/questbot/formula/alea"
)

type benchCase struct {
	e      *Expr
	params []int
}

// corpusExprs parses every corpus formula once; with ranges says whether to keep the formulas
// that draw (true) or only those that make no draw (false).
func corpusExprs(b *testing.B, withRanges bool) []benchCase {
	var out []benchCase
	for _, c := range readCases(b, "formula-corpus.jsonl.gz") {
		if !withRanges && len(c.Rnd) > 0 {
			continue
		}
		e, err := Parse(c.Expr)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, benchCase{e, c.params(b)})
	}
	return out
}

func benchmarkEval(b *testing.B, cases []benchCase) {
	rnd := alea.New("bench")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c := &cases[i%len(cases)]
		if _, err := c.e.Eval(c.params, rnd); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
}

// BenchmarkEvalCorpus evaluates all corpus formulas in turn, each parsed once.
func BenchmarkEvalCorpus(b *testing.B) { benchmarkEval(b, corpusExprs(b, true)) }

// BenchmarkEvalCorpusNoRanges evaluates the corpus formulas that make no random draw.
func BenchmarkEvalCorpusNoRanges(b *testing.B) { benchmarkEval(b, corpusExprs(b, false)) }

// BenchmarkParseCorpus parses all corpus formulas in turn.
func BenchmarkParseCorpus(b *testing.B) {
	cases := readCases(b, "formula-corpus.jsonl.gz")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Parse(cases[i%len(cases)].Expr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalTypical evaluates single formulas of the kinds quests use most: a condition, a
// change with a random term, and the long "Codebox" formula of the reference's tests.
func BenchmarkEvalTypical(b *testing.B) {
	params := []int{44, 4631, 7584, 3152, 8270, 72}
	for _, bc := range []struct{ name, src string }{
		{"condition", "[p1] > 0 and [p3] <= 10000"},
		{"change", "[p2] + [1..3] * 10"},
		{"codebox", `(-(([p4] div 1000) mod 10)*1000*(([p1] div 10)=1)-
			(([p4] div 100) mod 10)*100*(([p1] div 10)=2)-
			(([p4] div 10) mod 10)*10*(([p1] div 10)=3)-(([p4] div 1) mod 10)*1*(([p1] div 10)=4))`},
	} {
		e, err := Parse(bc.src)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			benchmarkEval(b, []benchCase{{e, params}})
		})
	}
}
