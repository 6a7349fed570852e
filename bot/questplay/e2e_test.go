package questplay_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/quest"
)

// Ensure a corpus quest is played to its ending by pressing buttons, across a restart of the
// transport, with every press answered and the screens left as transcript.
func TestPlayCorpusQuest(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedDir(t), "quests", "dagazbot", "test.qmm")
	e := newEnv(t)
	stop := e.start(t)
	e.Bot.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann", LanguageCode: "ru"})
	id := e.addScript(t, "Test", "test", file, "ru", 500, 1000)
	e.Send(t, 7, fmt.Sprintf("/play %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, 7); return ok })
	n := e.playToEnd(t, 7, loadQuest(t, file), 2, stop)
	if n < 3 {
		t.Errorf("the quest ended after %d presses, want a real game", n)
	}
	e.WaitFor(t, "every press answered", func() bool { return e.Bot.UnansweredCallbacks() == 0 })
	var wins, launches int
	var credits int64
	if err := e.Pool.QueryRow(context.Background(), `SELECT wins, launches, credits FROM user_stats WHERE user_id = 7`).
		Scan(&wins, &launches, &credits); err != nil {
		t.Fatal(err)
	}
	if wins != 1 || launches != 1 {
		t.Errorf("wins %d, launches %d; want 1 and 1", wins, launches)
	}
	var msgs []tgemu.Message
	e.WaitFor(t, "the congratulation", func() bool {
		msgs = e.Bot.Messages(7)
		return strings.Contains(msgs[len(msgs)-1].Text, "🏆 Вы прошли квест!")
	})
	last := msgs[len(msgs)-1]
	if got := labels(last); !strings.Contains(last.Text, "🏆 Вы прошли квест!") ||
		!slices.EqualFunc(got, [][]string{{"🔁 Сыграть ещё раз"}, {"📚 Другой квест"}}, slices.Equal) {
		t.Errorf("last message %q with keyboard %v, want the congratulation offering the quest again and another",
			last.Text, got)
	}
	kept, chosen := 0, 0
	for _, m := range msgs[:len(msgs)-1] {
		if m.FromBot && len(m.Keyboard) != 0 {
			t.Errorf("message %d %q kept its buttons", m.ID, m.Text)
		}
		if m.FromBot {
			kept++
		}
		if m.FromBot && strings.Contains(m.Text, "\n\n➤ ") {
			chosen++
		}
	}
	if kept == 0 || chosen == 0 {
		t.Errorf("%d messages left in the chat, %d with the choice made", kept, chosen)
	}
}

// Ensure the shipped quest plays in both languages, /retry repeats the screen without applying
// anything and makes the screen shown before stale (its press refused with nothing changed), and
// the language switch continues the same game.
func TestShippedQuestStaleRetrySwitch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	e.Bot.AddUser(tgbotapi.User{ID: 8, FirstName: "Bob", LanguageCode: "en"})
	var en, ru int64
	ctx := context.Background()
	if err := e.Pool.QueryRow(ctx, `SELECT id FROM script WHERE common_name = 'cargo-run' AND language = 'en'`).Scan(&en); err != nil {
		t.Fatal(err)
	}
	if err := e.Pool.QueryRow(ctx, `SELECT id FROM script WHERE common_name = 'cargo-run' AND language = 'ru'`).Scan(&ru); err != nil {
		t.Fatal(err)
	}
	e.Send(t, 8, fmt.Sprintf("/play %d", en))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, 8); return ok })
	g, _ := e.game(t, 8)
	e.press(t, 8, g, quest.JumpIAgree)
	g, _ = e.game(t, 8)
	first := dataOf(g, 2) // "Undock and set off"
	e.WaitFor(t, "the station screen", func() bool { return e.button(8, first) != 0 })
	e.Send(t, 8, "/retry")
	var again gameRow
	e.WaitFor(t, "the retry", func() bool { again, _ = e.game(t, 8); return again.step == g.step+1 })
	if !statesEqual(again.state, g.state) {
		t.Fatal("/retry changed the game's state")
	}
	// The screen shown again is the one that plays: the old one's button is stale.
	fresh := dataOf(again, 2)
	e.WaitFor(t, "the repeated screen", func() bool { return e.button(8, fresh) != 0 })
	if _, err := e.Bot.Press(8, e.button(8, first), first); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the stale press answered", func() bool { return e.Bot.UnansweredCallbacks() == 0 })
	e.WaitIdle(t)
	if n, _ := e.game(t, 8); n.step != again.step || !statesEqual(n.state, again.state) {
		t.Errorf("a press of the screen shown before /retry changed the game: step %d → %d", again.step, n.step)
	}
	if _, err := e.Bot.Press(8, e.button(8, fresh), fresh); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the step", func() bool { n, _ := e.game(t, 8); return n.step == again.step+1 })
	after, _ := e.game(t, 8)

	// The Russian version continues the same game.
	e.Send(t, 8, "/lang ru")
	e.WaitFor(t, "the switch", func() bool { n, _ := e.game(t, 8); return n.script == ru })
	n, _ := e.game(t, 8)
	if !statesEqual(n.state, after.state) {
		t.Error("the language switch changed the game's state")
	}
	e.WaitFor(t, "the Russian screen", func() bool {
		msgs := e.Bot.Messages(8)
		return strings.Contains(msgs[len(msgs)-1].Text, "пояс")
	})
}
