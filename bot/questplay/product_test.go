package questplay_test

import (
	"path/filepath"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// lastWith returns the last bot message in the chat whose text contains want.
func (e *env) lastWith(chat int64, want string) (tgemu.Message, bool) {
	msgs := e.Bot.Messages(chat)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].FromBot && strings.Contains(msgs[i].Text, want) {
			return msgs[i], true
		}
	}
	return tgemu.Message{}, false
}

// Ensure the whole product path: /quest shows the catalogue of the command tree, a press
// launches a corpus quest, its buttons play it to the win across a restart of the bot, and
// /score then shows the win and the credits the win bonus added.
func TestQuestMenuToWin(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedDir(t), "quests", "dagazbot", "test.qmm")
	e := newEnv(t)
	e.product = true
	stop := e.start(t)
	e.Bot.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann", LanguageCode: "ru"})
	e.addScript(t, "Проверка", "check", file, "ru", 500, 1000)
	e.Send(t, 7, "/quest")
	var menu tgemu.Message
	e.WaitFor(t, "the catalogue", func() (ok bool) { menu, ok = e.lastWith(7, "Выберите квест"); return ok })
	var data string
	for _, row := range menu.Keyboard {
		for _, b := range row {
			if b.Text == "Проверка" {
				data = b.Data
			}
		}
	}
	if data == "" {
		t.Fatalf("the catalogue %+v lacks the quest", menu.Keyboard)
	}
	if _, err := e.Bot.Press(7, menu.ID, data); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, 7); return ok })
	if n := e.playToEnd(t, 7, loadQuest(t, file), 2, stop); n < 3 {
		t.Errorf("the quest ended after %d presses, want a real game", n)
	}
	e.WaitFor(t, "the congratulation", func() bool { _, ok := e.lastWith(7, "🏆 Вы прошли квест!"); return ok })
	e.Send(t, 7, "/score")
	var score tgemu.Message
	e.WaitFor(t, "the score", func() (ok bool) { score, ok = e.lastWith(7, "<pre>"); return ok })
	// One win of one launch; the stake came back and the bonus was added to the starting 10 000.
	for _, want := range []string{"Квест     Побед Провалов Гибелей Игр", "Проверка      1        0       0   1",
		"Кредиты: <b>10500</b>. Вначале их 10 000."} {
		if !strings.Contains(score.Text, want) {
			t.Errorf("score lacks %q:\n%s", want, score.Text)
		}
	}
	if e.Bot.UnansweredCallbacks() != 0 {
		t.Error("a press was left unanswered")
	}
	if games := e.Games(t, e.service); games != 0 {
		t.Errorf("%d games left after the win", games)
	}
}
