package board

import (
	"testing"

	"github.com/questbot/questbot/engine"
)

// Ensure the table of measured strengths names real games and levels, holds figures a match can
// give (a positive error, games played), orders the levels of a game from easy to strong, and
// that Rating shows them rounded to 50 and nothing for what was not measured, and that the games
// measured have a figure for each level.
func TestLevelRatings(t *testing.T) {
	for variant, levels := range levelRatings {
		if _, err := engine.NewGame(variant); err != nil {
			t.Errorf("a rating for %q: %v", variant, err)
		}
		prev := -1 << 30
		for _, l := range []BotLevel{BotEasy, BotNormal, BotStrong} {
			r, ok := levels[l]
			if !ok {
				continue
			}
			if r.Err <= 0 || r.Games < 10 {
				t.Errorf("%s %s: %+v is not a measured figure", variant, l, r)
			}
			if r.Rating < prev {
				t.Errorf("%s: %s rated %d, below the level under it (%d)", variant, l, r.Rating, prev)
			}
			prev = r.Rating
			got, ok := l.Rating(variant)
			if !ok || got%50 != 0 || got-r.Rating > 25 || r.Rating-got > 25 {
				t.Errorf("%s %s: Rating %d %v for %d", variant, l, got, ok, r.Rating)
			}
		}
		if _, ok := NoBot.Rating(variant); ok {
			t.Errorf("%s: a rating for no bot", variant)
		}
	}
	// The games measured so far, each with all three levels: chess on Stockfish's scale, the
	// draughts on their ladders'.
	for _, variant := range []string{"chess", "russian", "international", "english"} {
		for _, l := range []BotLevel{BotEasy, BotNormal, BotStrong} {
			if _, ok := l.Rating(variant); !ok {
				t.Errorf("no measured figure for the %s level of %s", l, variant)
			}
		}
	}
	if _, ok := BotStrong.Rating("no such game"); ok {
		t.Errorf("a rating for an unknown game")
	}
}
