package board

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/questbot/questbot/engine"
)

// aiRandom sets how many games per game and level TestBotLevelsBeatRandomPlay plays; 0 keeps
// the quick check. The figures of docs/performance.md: go test ./sessions/board -run BotLevels
// -airandom 20 -v
var aiRandom = flag.Int("airandom", 0, "play this many games of each bot level against random play, in each game added as a description, and log the figures")

// aiLevels names the levels -airandom plays (the strong level's 400,000 nodes a move take
// minutes a game on a busy machine).
var aiLevels = flag.String("ailevels", "easy,normal,strong", "the bot levels -airandom plays, separated by commas")

// levelGames are the games added as descriptions (and Othello), whose AI is measured against
// random play.
var levelGames = []string{"othello", "breakthrough", "canadian", "pool", "czech", "spanish", "italian", "thai", "armenian",
	"atarigo", "gardner", "chess960", "frisian"}

// Ensure the bot, at its levels' own search limits (BotLevel.Limits), beats a player who picks
// uniformly among the legal moves, and never plays an illegal move: it plays each side in
// turn, each game from its own seed (Chess960's start among them). By default two games of the
// easy level per game; with -airandom N, N games of every level (or of those -ailevels names),
// and the wins, draws and losses are logged per game and level. The AI must win at least three games in four.
func TestBotLevelsBeatRandomPlay(t *testing.T) {
	games, levels := 2, []BotLevel{BotEasy}
	if *aiRandom > 0 {
		games, levels = *aiRandom, nil
		for _, name := range strings.Split(*aiLevels, ",") {
			level, err := ParseBotLevel(strings.TrimSpace(name))
			if err != nil {
				t.Fatal(err)
			}
			levels = append(levels, level)
		}
	}
	for vi, variant := range levelGames {
		t.Run(variant, func(t *testing.T) {
			t.Parallel()
			var report []string
			for _, level := range levels {
				rng := rand.New(rand.NewPCG(uint64(vi), uint64(level)+1))
				won, drawn, lost := 0, 0, 0
				for i := 0; i < games; i++ {
					switch playRandom(t, variant, level, i%2, uint64(1000*vi+i+1), rng) {
					case 1:
						won++
					case 0:
						drawn++
					default:
						lost++
					}
				}
				report = append(report, fmt.Sprintf("%s %d-%d-%d", level, won, drawn, lost))
				if won < games*3/4 {
					t.Errorf("%s, %s: the bot won %d, drew %d and lost %d of %d games against random play", variant, level, won, drawn, lost, games)
				}
			}
			t.Logf("%s (won-drawn-lost of %d): %s", variant, games, strings.Join(report, ", "))
		})
	}
}

// playRandom plays one game of the bot at level on seat ai against random moves, and returns
// 1 if the bot won, 0 for a draw, -1 if it lost.
func playRandom(t *testing.T, variant string, level BotLevel, ai int, seed uint64, rng *rand.Rand) int {
	t.Helper()
	g, err := Options{}.newGame(variant, seed)
	if err != nil {
		t.Fatal(err)
	}
	for g.Status().Result == engine.Ongoing {
		var text string
		if int(g.ToMove()) == ai {
			mv, _, err := g.BestMove(context.Background(), level.Limits(variant))
			if err != nil {
				t.Fatalf("%s, %s: %v", variant, level, err)
			}
			text = mv.String()
		} else {
			ms := g.LegalMoves()
			text = ms[rng.IntN(len(ms))].String()
		}
		// Played by its text, as a typed move would be: a move the AI gives must be legal.
		if _, err := g.Play(text); err != nil {
			t.Fatalf("%s, %s, after %v: %q: %v", variant, level, g.History(), text, err)
		}
	}
	st := g.Status()
	switch {
	case st.Result == engine.Draw:
		return 0
	case int(st.Winner) == ai:
		return 1
	}
	return -1
}
