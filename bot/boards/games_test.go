package boards_test

import (
	"testing"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
)

// Ensure every game the bot offers is a game of the engine, named in each language, and has its
// line in the inline results.
func TestGamesNamed(t *testing.T) {
	t.Parallel()
	for _, variant := range boards.Games {
		if _, err := engine.NewGame(variant); err != nil {
			t.Errorf("%s: %v", variant, err)
		}
		for _, lang := range []string{"en", "ru"} {
			c := texts.For(lang)
			if c.Game(variant) == variant {
				t.Errorf("%s has no name in %s", variant, lang)
			}
			if c.Shared.About[variant] == "" {
				t.Errorf("%s has no line in the inline results in %s", variant, lang)
			}
		}
	}
}
