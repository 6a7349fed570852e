package telegram

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot"
)

// Ensure board.levels lists the levels a game offers, weakest first, by their stable names,
// labelled in the user's language with the measured rating where there is one; and nothing for a
// game not offered, so that the menu asks nothing and board.bot refuses the game.
func TestLevelsBuiltin(t *testing.T) {
	t.Parallel()
	v := &View{}
	for _, tc := range []struct {
		lang, game string
		want       string
	}{
		{"en", "chase", "easy=Easy normal=Normal strong=Strong"},
		{"ru", "chase", "easy=Лёгкий normal=Средний strong=Сильный"},
		{"en", "russian", "easy=Easy ≈ normal=Normal ≈ strong=Strong ≈"},
		{"ru", "international", "easy=Лёгкий ≈ normal=Средний ≈ strong=Сильный ≈"},
		{"en", "chess", "easy=Easy ≈ normal=Normal ≈ strong=Strong ≈"},
		{"ru", "chess", "easy=Лёгкий ≈ normal=Средний ≈ strong=Сильный ≈"},
		{"en", "no such game", ""},
	} {
		u := &bot.Update{User: &bot.User{Language: tc.lang}}
		res, err := v.levels(context.Background(), nil, u, map[string]string{"game": tc.game})
		if err != nil || res.Code != "ok" {
			t.Fatalf("%s %s: %+v, %v", tc.lang, tc.game, res, err)
		}
		var list []item
		if err := json.Unmarshal(res.Fields["levels"], &list); err != nil || list == nil {
			t.Fatalf("%s %s: the list %s, %v", tc.lang, tc.game, res.Fields["levels"], err)
		}
		var got []string
		for _, it := range list {
			label := it.Label
			// The figures are the measured ones (sessions/board, strength.go); here only that
			// one follows the word.
			if word, figure, ok := strings.Cut(label, " ≈"); ok && len(figure) == 4 && strings.Trim(figure, "0123456789") == "" {
				label = word + " ≈"
			}
			got = append(got, it.Value+"="+label)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.lang, tc.game, got, tc.want)
		}
	}
}
