package main

import (
	"strings"
	"testing"

	"github.com/questbot/questbot/engine"
)

// Ensure a game is adjudicated only when both players agree for long enough: in chess, won for
// the side both judge far ahead, drawn late in a level game; in the other games, won only when
// both found the win, never drawn; and never on one player's word or without judgements.
func TestAdjudicator(t *testing.T) {
	type ply struct {
		score int // for the side to move
		ok    bool
	}
	cases := []struct {
		name    string
		variant string
		from    int
		plies   []ply
		want    float64
		over    bool
	}{
		{"White far ahead", "chess", 20, []ply{{1200, true}, {-1500, true}, {1100, true}, {-1300, true}, {1000, true}, {-mateScore, true}}, 1, true},
		{"Black far ahead", "chess", 20, []ply{{-1200, true}, {1500, true}, {-1100, true}, {1300, true}, {-1000, true}, {mateScore, true}}, 0, true},
		{"too short", "chess", 20, []ply{{1200, true}, {-1500, true}, {1100, true}, {-1300, true}, {1000, true}}, 0, false},
		{"one player disagrees", "chess", 20, []ply{{1200, true}, {-1500, true}, {1100, true}, {300, true}, {1000, true}, {-1300, true}}, 0, false},
		{"a player without judgement", "chess", 20, []ply{{1200, true}, {0, false}, {1100, true}, {-1300, true}, {1000, true}, {-1300, true}}, 0, false},
		{"level, late", "chess", adjudgeDrawFrom, []ply{{5, true}, {-3, true}, {0, true}, {10, true}, {-15, true}, {2, true}, {0, true}, {1, true}, {-1, true}, {4, true}, {3, true}, {0, true}}, 0.5, true},
		{"draughts: far ahead is no win", "russian", 20, []ply{{1200, true}, {-1500, true}, {1100, true}, {-1300, true}, {1000, true}, {-1300, true}, {1200, true}}, 0, false},
		{"draughts: a win found by both", "russian", 20, []ply{{mateScore, true}, {-mateScore - 5, true}, {mateScore + 9, true}, {-mateScore, true}, {mateScore, true}, {-mateScore, true}}, 1, true},
		{"draughts: level late is no draw", "russian", adjudgeDrawFrom, []ply{{5, true}, {-3, true}, {0, true}, {10, true}, {-15, true}, {2, true}, {0, true}, {1, true}, {-1, true}, {4, true}, {3, true}, {0, true}, {0, true}}, 0, false},
		{"level, early", "chess", 10, []ply{{5, true}, {-3, true}, {0, true}, {10, true}, {-15, true}, {2, true}, {0, true}, {1, true}, {-1, true}, {4, true}, {3, true}, {0, true}}, 0, false},
	}
	for _, tc := range cases {
		a := newAdjudicator(tc.variant)
		var got float64
		var reason string
		over := false
		for i, p := range tc.plies {
			mover := engine.Player(i % 2)
			if got, reason, over = a.add(tc.from+i, mover, judgement(p)); over {
				if i != len(tc.plies)-1 {
					t.Errorf("%s: adjudicated at ply %d of %d", tc.name, i+1, len(tc.plies))
				}
				break
			}
		}
		if over != tc.over || got != tc.want {
			t.Errorf("%s: over %v score %v (%s), want over %v score %v", tc.name, over, got, reason, tc.over, tc.want)
		}
		if over && !strings.HasPrefix(reason, "adjudicated") {
			t.Errorf("%s: reason %q", tc.name, reason)
		}
	}
}

// Ensure the scores of UCI info lines are read, mates as ±mateScore, and lines without one are
// passed over.
func TestUCIScore(t *testing.T) {
	for line, want := range map[string]judgement{
		"info depth 10 seldepth 14 multipv 1 score cp -35 nodes 1000 pv e2e4": {-35, true},
		"info depth 12 score mate 3 pv d1h5":                                  {mateScore, true},
		"info depth 12 score mate -2 pv d1h5":                                 {-mateScore, true},
		"info depth 7 score cp 20 upperbound":                                 {20, true},
		"info string NNUE evaluation enabled":                                 {},
	} {
		got, ok := uciScore(strings.Fields(line))
		if got != want || ok != want.ok {
			t.Errorf("%q: %+v %v, want %+v", line, got, ok, want)
		}
	}
}
