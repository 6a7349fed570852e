package texts

import (
	"fmt"
	"strings"
	"testing"

	"github.com/questbot/questbot/sessions/board"
)

// Ensure a level is named with its measured rating where there is one ("strong (≈2000)", the
// bot as a player "Bot (strong, ≈2000)"), in each language, and by its word alone elsewhere.
func TestLevelWithRating(t *testing.T) {
	for _, lang := range languages {
		c := For(lang)
		for _, variant := range []string{"chess", "russian", "chase", "no such game"} {
			for _, l := range []board.BotLevel{board.BotEasy, board.BotNormal, board.BotStrong} {
				word := c.Board.Levels[l.String()]
				got := c.Level(variant, l)
				want := word
				if r, ok := l.Rating(variant); ok {
					want = fmt.Sprintf("%s (≈%d)", word, r)
				}
				if got != want || !strings.HasPrefix(got, word) || word == "" {
					t.Errorf("%s %s %s: %q, want %q", lang, variant, l, got, want)
				}
				name := fmt.Sprintf(c.Board.Bot, word)
				if r, ok := l.Rating(variant); ok {
					name = fmt.Sprintf(c.Board.Bot, fmt.Sprintf("%s, ≈%d", word, r))
				}
				if got := c.BotName(variant, l); got != name {
					t.Errorf("%s %s %s: the bot named %q, want %q", lang, variant, l, got, name)
				}
			}
		}
		if got := c.Level("chess", board.BotStrong); !strings.Contains(got, "(≈") {
			t.Errorf("%s: the strong chess level is %q, without its rating", lang, got)
		}
	}
}

// Ensure the buttons that choose a level read as the /games menu always read ("Easy",
// "Лёгкий"), with the measured rating after the word where there is one ("Strong ≈2000").
func TestLevelChoice(t *testing.T) {
	words := map[string][]string{"en": {"Easy", "Normal", "Strong"}, "ru": {"Лёгкий", "Средний", "Сильный"}}
	for _, lang := range languages {
		c := For(lang)
		for _, variant := range []string{"chess", "russian", "no such game"} {
			for i, l := range []board.BotLevel{board.BotEasy, board.BotNormal, board.BotStrong} {
				want := words[lang][i]
				if r, ok := l.Rating(variant); ok {
					want = fmt.Sprintf("%s ≈%d", want, r)
				}
				if got := c.LevelChoice(variant, l); got != want {
					t.Errorf("%s %s %s: %q, want %q", lang, variant, l, got, want)
				}
			}
		}
		if got := c.LevelChoice("chess", board.BotStrong); !strings.Contains(got, " ≈") {
			t.Errorf("%s: the strong chess level's button is %q, without its rating", lang, got)
		}
	}
}
