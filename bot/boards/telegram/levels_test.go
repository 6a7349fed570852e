package telegram_test

import (
	"regexp"
	"slices"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure /games offers the bot's levels of the chosen game with their measured ratings: chess's
// three levels each with a figure after the word ("Strong ≈2000"), and Russian draughts' (on
// its own ladder's scale), a game without figures with the words alone, in the user's
// language; and that the level pressed is the bot's level of the game that starts.
func TestGamesLevelMenu(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	rated := regexp.MustCompile(`^(\S+) ≈[0-9]{3,4}$`)
	levels := []board.BotLevel{board.BotEasy, board.BotNormal, board.BotStrong}
	for i, tc := range []struct {
		lang, variant string
		words         []string
		figures       bool
		press         board.BotLevel
	}{
		{"en", "chess", []string{"Easy", "Normal", "Strong"}, true, board.BotStrong},
		{"ru", "chess", []string{"Лёгкий", "Средний", "Сильный"}, true, board.BotEasy},
		{"en", "russian", []string{"Easy", "Normal", "Strong"}, true, board.BotNormal},
		{"ru", "russian", []string{"Лёгкий", "Средний", "Сильный"}, true, board.BotStrong},
		{"en", "chase", []string{"Easy", "Normal", "Strong"}, false, board.BotEasy},
	} {
		user := int64(70 + i)
		e.user(t, user, "Player", tc.lang)
		c := texts.For(tc.lang)
		prompt, withBot := "Choose the bot's strength:", "🤖 Play the bot"
		if tc.lang == "ru" {
			prompt, withBot = "Выберите силу бота:", "🤖 Играть с ботом"
		}
		after := e.LastID(user)
		e.menu(t, user, "/games", c.Game(tc.variant), withBot)
		m := e.WaitMessage(t, user, after, "the level menu", func(m tgemu.Message) bool { return m.Text == prompt })
		got := labels(m)
		if len(got) != len(tc.words) {
			t.Fatalf("%s %s: the levels %q, want %d", tc.lang, tc.variant, got, len(tc.words))
		}
		for j, label := range got {
			word := label
			if sub := rated.FindStringSubmatch(label); sub != nil {
				word = sub[1]
			} else if tc.figures {
				t.Errorf("%s %s: %q has no measured rating", tc.lang, tc.variant, label)
			}
			if tc.figures != (word != label) || word != tc.words[j] {
				t.Errorf("%s %s: the levels %q, want the words %q, with figures: %v", tc.lang, tc.variant, got, tc.words, tc.figures)
				break
			}
		}

		label := got[slices.Index(levels, tc.press)]
		e.Press(t, user, m, label)
		e.waitCaption(t, user, c.Game(tc.variant))
		bd := e.board(t, e.lastBoard(t, user))
		seat, err := bd.SeatOf(user)
		if err != nil {
			t.Fatal(err)
		}
		if bd.Variant != tc.variant || bd.Seats[1-seat].Bot != tc.press || bd.Seats[seat].Bot != board.NoBot {
			t.Errorf("%s: pressed %q, the game %s against %v, want %s against %v",
				tc.lang, label, bd.Variant, bd.Seats[1-seat].Bot, tc.variant, tc.press)
		}
	}
}
