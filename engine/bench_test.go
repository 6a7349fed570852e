package engine

import (
	"bytes"
	"context"
	"testing"
)

// Benchmarks. Perft uses bulk counting on one goroutine and reports leaf
// nodes per second; Apply must not allocate; Search reports the nodes per
// second of each AI. Keep runs short: go test ./engine -run XXX -bench . -benchtime 3x

var benchPerft = []struct {
	name, variant, pos string
	depth              int
}{
	{"russian", "russian", "", 7},
	{"international", "international", "", 6},
	{"brazilian", "brazilian", "", 7},
	{"turkish", "turkish", "", 6},
	{"english", "english", "", 8},
	{"chess", "chess", "", 5},
	{"kiwipete", "chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -", 4},
	{"chase", "chase", "", 3},
	{"foxgeese13", "foxgeese13", "", 8},
}

func BenchmarkPerft(b *testing.B) {
	for _, bc := range benchPerft {
		b.Run(bc.name, func(b *testing.B) {
			var opts []Option
			if bc.pos != "" {
				opts = append(opts, WithPosition(bc.pos))
			}
			g := mustGame(b, bc.variant, opts...)
			p := newPerfter(g.r)
			s := g.State()
			var n uint64
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuSeconds()
			for i := 0; i < b.N; i++ {
				n += p.count(&s, bc.depth)
			}
			cpu = cpuSeconds() - cpu
			b.ReportMetric(float64(n)/b.Elapsed().Seconds()/1e6, "Mnodes/s")
			if cpu > 0 {
				b.ReportMetric(float64(n)/cpu/1e6, "Mnodes/cpu-s")
			}
		})
	}
}

func BenchmarkApply(b *testing.B) {
	for _, v := range []string{"russian", "chess", "chase"} {
		b.Run(v, func(b *testing.B) {
			g := mustGame(b, v)
			s := g.State()
			ms := g.r.generate(&s, g.r.newCtx(), nil)
			child := new(State)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				*child = s
				g.r.apply(child, &ms[i%len(ms)])
			}
		})
	}
}

func BenchmarkSearch(b *testing.B) {
	for _, v := range []string{"russian", "international", "turkish", "chess", "chase", "foxgeese13"} {
		for _, alg := range []Algorithm{AlphaBeta, MCTS} {
			b.Run(v+"/"+alg.String(), func(b *testing.B) {
				benchSearch(b, []*Game{mustGame(b, v)}, Limits{Nodes: 200_000, Algorithm: alg, Seed: 1})
			})
		}
	}
	// The refined chess search (the strong level) in middlegame positions,
	// where most of its nodes are in the quiescence search.
	b.Run("chess/refined", func(b *testing.B) {
		games := make([]*Game, len(benchMiddlegames))
		for i, pos := range benchMiddlegames {
			games[i] = mustGame(b, "chess", WithPosition(pos))
		}
		benchSearch(b, games, Limits{Nodes: 200_000, Refine: true, Seed: 1})
	})
}

// benchSearch searches each of games with lim b.N times and reports the
// nodes visited a second, of the wall clock and of the process's CPU time.
func benchSearch(b *testing.B, games []*Game, lim Limits) {
	var nodes int64
	cpu := cpuSeconds()
	for i := 0; i < b.N; i++ {
		for _, g := range games {
			_, info, err := g.BestMove(context.Background(), lim)
			if err != nil {
				b.Fatal(err)
			}
			nodes += info.Nodes
		}
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds()/1e3, "knodes/s")
	if cpu = cpuSeconds() - cpu; cpu > 0 {
		b.ReportMetric(float64(nodes)/cpu/1e3, "knodes/cpu-s")
	}
}

// benchMiddlegames are the positions of the refined chess search's
// benchmark: a Queen's Gambit, a closed Ruy Lopez and a symmetrical
// English, each with its pieces developed and captures available.
var benchMiddlegames = []string{
	"r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8",
	"r2qr1k1/1b1nbppp/p2p1n2/1pp1p3/4P3/1BPP1N1P/PP1N1PP1/R1BQR1K1 w - - 0 12",
	"2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB1QBPPP/2R2RK1 b - - 3 11",
}

// BenchmarkGameApply measures the public Apply (with its legality and
// notation checks) followed by Undo, for each game; it must not allocate.
func BenchmarkGameApply(b *testing.B) {
	for _, v := range []string{"russian", "international", "chess", "chase", "foxgeese13"} {
		b.Run(v, func(b *testing.B) {
			g := mustGame(b, v)
			ms := g.LegalMoves()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := g.Apply(ms[i%len(ms)]); err != nil {
					b.Fatal(err)
				}
				if err := g.Undo(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkImage measures drawing a picture (render) and encoding it as a
// PNG (WritePNG, drawing included) for each game, in the positions of the
// picture tests.
func BenchmarkImage(b *testing.B) {
	for _, pg := range pictureGames {
		var opts []Option
		if pg.pos != "" {
			opts = append(opts, WithPosition(pg.pos))
		}
		g := mustGame(b, pg.variant, opts...)
		mustPlay(b, g, pg.moves...)
		b.Run(pg.name+"/Render", func(b *testing.B) {
			g.render(ImageOptions{}) // the sprites are drawn on first use
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuSeconds()
			for i := 0; i < b.N; i++ {
				g.render(ImageOptions{Viewer: Player(i & 1)})
			}
			reportCPU(b, cpu)
		})
		b.Run(pg.name+"/WritePNG", func(b *testing.B) {
			var buf bytes.Buffer
			g.render(ImageOptions{})
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuSeconds()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := g.WritePNG(&buf, First); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(buf.Len()), "bytes")
		})
	}
}

// reportCPU reports the process CPU time per operation since cpu (the
// benchmark's own work plus the garbage collector's), which a busy
// machine inflates less than the wall-clock time.
func reportCPU(b *testing.B, cpu float64) {
	if cpu = cpuSeconds() - cpu; cpu > 0 {
		b.ReportMetric(cpu*1e3/float64(b.N), "cpu-ms/op")
	}
}
