package engine

import (
	"reflect"
	"testing"
)

// Ensure chess moves are written for people in standard algebraic notation, checks and mates
// marked, and the other games in their own notation.
func TestRecord(t *testing.T) {
	for _, tc := range []struct {
		variant, pos string
		moves        []string
		want         []string
	}{
		{"chess", "", []string{"e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"},
			[]string{"e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"}},
		{"chess", "", []string{"e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5e5", "g1e2", "e5e2"},
			[]string{"e4", "d5", "exd5", "Qxd5", "Nc3", "Qe5+", "Nge2", "Qxe2+"}},
		{"chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", []string{"e1g1", "e8c8"}, []string{"O-O", "O-O-O"}},
		{"chess", "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", []string{"b7b8q"}, []string{"b8=Q+"}},
		{"chess", "4k3/8/8/8/8/8/4K3/R6R w - - 0 1", []string{"a1d1"}, []string{"Rad1"}},
		{"chess", "4k3/8/8/N7/8/8/8/N3K3 w - - 0 1", []string{"a1b3"}, []string{"N1b3"}},
		{"russian", "", []string{"c3-d4", "f6-g5"}, []string{"c3-d4", "f6-g5"}},
		{"international", "", []string{"32-28", "19-23"}, []string{"32-28", "19-23"}},
	} {
		var opts []Option
		if tc.pos != "" {
			opts = append(opts, WithPosition(tc.pos))
		}
		g := mustGame(t, tc.variant, opts...)
		var shown []string
		for _, m := range tc.moves {
			mv, err := g.ParseMove(m)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.variant, m, err)
			}
			shown = append(shown, g.Display(mv))
			if err := g.Apply(mv); err != nil {
				t.Fatal(err)
			}
		}
		if got := g.Record(); !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(shown, tc.want) {
			t.Errorf("%s %v: Record %v, Display %v; want %v", tc.variant, tc.moves, got, shown, tc.want)
		}
		for i, s := range g.Record() {
			// What is shown reads back as the move.
			r := mustGame(t, tc.variant, opts...)
			for _, m := range tc.moves[:i] {
				if _, err := r.Play(m); err != nil {
					t.Fatal(err)
				}
			}
			if m, err := r.ParseMove(s); err != nil || m.String() != tc.moves[i] {
				t.Errorf("%s: %q reads as %v, %v; want %s", tc.variant, s, m, err, tc.moves[i])
			}
		}
	}
}

// Ensure the last move is written as the move list writes it, in the bar above the board too:
// "O-O" where the engine's notation is "e1g1".
func TestLastDisplay(t *testing.T) {
	for _, tc := range []struct {
		variant, pos string
		moves        []string
		bar          string
	}{
		{"chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", []string{"e1g1"}, "1. O-O"},
		{"chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", []string{"e1g1", "e8c8"}, "1... O-O-O"},
		{"chess", "", []string{"e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"}, "4. Qxf7#"},
		{"chess", "4k3/8/8/N7/8/8/8/N3K3 w - - 0 1", []string{"a1b3"}, "1. N1b3"},
		{"russian", "", []string{"c3-d4", "f6-g5"}, "1... f6-g5"},
	} {
		var opts []Option
		if tc.pos != "" {
			opts = append(opts, WithPosition(tc.pos))
		}
		g := mustGame(t, tc.variant, opts...)
		if got := g.LastDisplay(); got != "" || g.barMove() != "" {
			t.Errorf("%s before a move: %q %q", tc.variant, got, g.barMove())
		}
		for _, m := range tc.moves {
			if _, err := g.Play(m); err != nil {
				t.Fatalf("%s %s: %v", tc.variant, m, err)
			}
			rec := g.Record()
			if got := g.LastDisplay(); got != rec[len(rec)-1] {
				t.Errorf("%s after %s: LastDisplay %q, Record %q", tc.variant, m, got, rec[len(rec)-1])
			}
		}
		if got := g.barMove(); got != tc.bar {
			t.Errorf("%s %v: bar %q, want %q", tc.variant, tc.moves, got, tc.bar)
		}
	}
}
