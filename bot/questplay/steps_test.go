package questplay_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/questplay"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/quest"
)

// currentScreen waits for the screen of the user's running game at its current step and returns
// it with the data of its first choice; ok is false when no game runs (an ending).
func (e *env) currentScreen(t *testing.T, user int64) (m tgemu.Message, data string, ok bool) {
	t.Helper()
	g, running := e.game(t, user)
	if !running {
		return tgemu.Message{}, "", false
	}
	prefix := "q:" + strconv.FormatInt(g.id, 36) + ":" + strconv.Itoa(g.step) + ":"
	e.WaitFor(t, "the screen of step "+strconv.Itoa(g.step), func() bool {
		for _, msg := range e.Bot.Messages(user) {
			for _, row := range msg.Keyboard {
				for _, b := range row {
					if strings.HasPrefix(b.Data, prefix) && data == "" {
						m, data = msg, b.Data
					}
				}
			}
		}
		return data != ""
	})
	return m, data, true
}

// Ensure a classic quest played in the reference dialect, whose locations are almost all marked
// empty, keeps its story: after 20 steps every screen the player saw is still in the chat, none
// deleted, each one left without its buttons, and the task screen shows the choice made.
func TestStoryStays(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedDir(t), "quests", "dagazbot", "prison.qmm")
	e := newEnv(t)
	e.start(t)
	const user = 51
	e.Bot.AddUser(tgbotapi.User{ID: user, FirstName: "Ann", LanguageCode: "ru"})
	id := e.addScript(t, "Prison", "prison", file, "ru", 0, 0)
	events, done := e.Bot.Subscribe(user)
	defer done()
	e.Send(t, user, fmt.Sprintf("/play %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, user); return ok })
	steps := 0
	for steps < 20 {
		m, data, ok := e.currentScreen(t, user)
		if !ok {
			e.Send(t, user, fmt.Sprintf("/play %d", id))
			e.WaitFor(t, "the game again", func() bool { _, ok := e.game(t, user); return ok })
			continue
		}
		g, _ := e.game(t, user)
		if _, err := e.Bot.Press(user, m.ID, data); err != nil {
			t.Fatal(err)
		}
		e.WaitFor(t, "the step after "+data, func() bool {
			n, ok := e.game(t, user)
			return !ok || n.step != g.step
		})
		// A player reads before pressing again: the screen left is updated meanwhile (a press
		// that came before would drop the update, as the next step's supersedes it).
		e.WaitFor(t, "the screen left without its buttons", func() bool {
			for _, msg := range e.Bot.Messages(user) {
				if msg.ID == m.ID {
					return len(msg.Keyboard) == 0
				}
			}
			return false
		})
		steps++
	}
	e.WaitIdle(t)
	var seen []int
	for len(events) > 0 {
		if ev := <-events; ev.Type == "message" && ev.Message.FromBot {
			seen = append(seen, ev.Message.ID)
		}
	}
	if deleted := e.Bot.Deleted(user); len(deleted) != 0 {
		t.Errorf("messages %v of the story were deleted", deleted)
	}
	msgs := e.BotMessages(user)
	kept := map[int]tgemu.Message{}
	for _, m := range msgs {
		kept[m.ID] = m
	}
	for _, id := range seen {
		if _, ok := kept[id]; !ok {
			t.Errorf("message %d the player saw is gone from the chat", id)
		}
	}
	if len(seen) < 21 {
		t.Errorf("the player saw %d messages in 20 steps, want at least 21", len(seen))
	}
	for _, m := range msgs[:len(msgs)-1] {
		if len(m.Keyboard) != 0 {
			t.Errorf("screen %d left kept its buttons", m.ID)
		}
	}
	if first := msgs[0]; !strings.Contains(first.Text, "\n\n➤ ") {
		t.Errorf("the task screen %q does not show the choice made", first.Text)
	}
}

// Ensure a step's new screen does not wait for the update of the screen left: while Telegram
// holds the edit of the old screen, the new screen still reaches the chat.
func TestNewScreenFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const user = 52
	seen := make(chan struct{})
	held := make(chan bool, 1)
	hook := func(row *bot.OutboxRow) bool {
		if row.Chat.Chat != user || !strings.HasPrefix(row.Request.Method, "edit") {
			return false
		}
		// Hold the old screen's update until the new screen is in the chat (bounded, so that a
		// transport that sends them in the other order fails the test instead of hanging it).
		select {
		case <-seen:
			held <- true
		case <-time.After(bottest.Timeout):
			held <- false
		}
		return false
	}
	b := app.New(app.Config{UploadsDir: uploadsDir, Log: slog.New(slog.DiscardHandler)})
	testCommands(b)
	p := e.Start(t, bot.Config{Handler: b.Handle, Log: slog.New(slog.DiscardHandler), Limits: &bot.NoLimits,
		Rescan: 50 * time.Millisecond, Hooks: bot.Hooks{BeforeSend: hook}})
	e.service = p.Service
	e.Bot.AddUser(tgbotapi.User{ID: user, FirstName: "Bob", LanguageCode: "en"})
	var id int64
	e.Pool.QueryRow(t.Context(), `SELECT id FROM script WHERE common_name = 'cargo-run' AND language = 'en'`).Scan(&id)
	e.Send(t, user, fmt.Sprintf("/play %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, user); return ok })
	m, data, _ := e.currentScreen(t, user)
	if _, err := e.Bot.Press(user, m.ID, data); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the new screen", func() bool {
		msgs := e.BotMessages(user)
		return len(msgs) > 1 && msgs[len(msgs)-1].ID != m.ID && len(msgs[len(msgs)-1].Keyboard) > 0
	})
	close(seen)
	if !<-held {
		t.Fatal("the old screen's update was sent before the new screen")
	}
	e.WaitFor(t, "the old screen without its buttons", func() bool {
		for _, msg := range e.BotMessages(user) {
			if msg.ID == m.ID {
				return len(msg.Keyboard) == 0
			}
		}
		return false
	})
}

// pictureQuest is the shipped quest with pictures: dock.png at the dock (location 1) and in the
// asteroid belt (2), rocks.png among the rocks (3).
func pictureQuest(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(uploadsDir, "src", "cargo-run_en.json"))
	if err != nil {
		t.Fatal(err)
	}
	var q map[string]any
	if err := json.Unmarshal(src, &q); err != nil {
		t.Fatal(err)
	}
	for i, img := range []string{"dock.png", "dock.png", "rocks.png"} {
		loc := q["locations"].([]any)[i].(map[string]any)
		loc["texts"].([]any)[0].(map[string]any)["media"] = map[string]any{"img": img}
	}
	src, err = json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	data, err := questplay.BuildQuest(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "pictures.qmm")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	for _, name := range []string{"dock.png", "rocks.png"} {
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return file
}

// Ensure a screen with a picture is one message, the photo with the text as its caption and the
// buttons under it; that a screen whose picture is the one shown just before comes without it;
// and that a photo screen left keeps its caption, with the choice made under it.
func TestScreenPicture(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	const user = 53
	e.Bot.AddUser(tgbotapi.User{ID: user, FirstName: "Cid", LanguageCode: "en"})
	id := e.addScript(t, "Pictures", "pictures", pictureQuest(t), "en", 0, 0)
	e.Send(t, user, fmt.Sprintf("/play %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, user); return ok })
	g, _ := e.game(t, user)
	e.press(t, user, g, quest.JumpIAgree)
	dock, _, _ := e.currentScreen(t, user)
	if dock.Photo == "" || !strings.Contains(dock.Text, "You are docked") {
		t.Fatalf("the dock screen is %+v, want one photo with the text as its caption", dock)
	}
	g, _ = e.game(t, user)
	e.press(t, user, g, 2) // undock: the belt has the dock's picture too
	belt, _, _ := e.currentScreen(t, user)
	if belt.Photo != "" || !strings.Contains(belt.Text, "asteroid belt") {
		t.Errorf("the belt screen is %+v, want its text alone (its picture is the one shown just before)", belt)
	}
	g, _ = e.game(t, user)
	e.press(t, user, g, 3) // through the belt: the rocks have a picture of their own
	rocks, _, _ := e.currentScreen(t, user)
	if rocks.Photo == "" || !strings.Contains(rocks.Text, "Rocks tumble") || len(rocks.Keyboard) == 0 {
		t.Errorf("the rocks screen is %+v, want one photo with its caption and buttons", rocks)
	}
	e.WaitIdle(t)
	photos := 0
	for _, m := range e.BotMessages(user) {
		if m.Photo != "" {
			photos++
		}
		if m.ID == dock.ID && (len(m.Keyboard) != 0 || !strings.Contains(m.Text, "You are docked") || !strings.Contains(m.Text, "\n\n➤ ")) {
			t.Errorf("the dock screen left is %q with keyboard %v, want its caption with the choice made", m.Text, labels(m))
		}
	}
	if photos != 2 {
		t.Errorf("%d photos in the chat, want 2 (the dock, the rocks)", photos)
	}
	if !slices.ContainsFunc(e.BotMessages(user), func(m tgemu.Message) bool { return m.ID == belt.ID }) {
		t.Error("the belt screen is gone")
	}
}

// Ensure the parameters are shown apart from the story: a screen shows the lines that changed in
// its step, with a button for all of them, which shows them on the screen and changes nothing;
// a screen left keeps its text and the choice made, without the parameters.
func TestQuietParameters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	const user = 54
	e.Bot.AddUser(tgbotapi.User{ID: user, FirstName: "Dan", LanguageCode: "en"})
	var id int64
	if err := e.Pool.QueryRow(t.Context(), `SELECT id FROM script WHERE common_name = 'cargo-run' AND language = 'en'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	e.Send(t, user, fmt.Sprintf("/play %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, user); return ok })
	g, _ := e.game(t, user)
	e.press(t, user, g, quest.JumpIAgree)
	dock, _, _ := e.currentScreen(t, user)
	g, _ = e.game(t, user)
	e.press(t, user, g, 2) // undock: fuel is spent, the money stays
	belt, _, _ := e.currentScreen(t, user)
	if !strings.Contains(belt.Text, "Fuel:") || strings.Contains(belt.Text, "Money:") {
		t.Fatalf("the belt screen is %q, want the fuel spent and not the money, which did not change", belt.Text)
	}
	rows := labels(belt)
	if got := rows[len(rows)-1]; !slices.Equal(got, []string{"📊 Parameters"}) {
		t.Fatalf("the belt screen's buttons are %v, want the parameters button last", rows)
	}
	e.Press(t, user, belt, "📊 Parameters")
	e.WaitFor(t, "all the parameters on the belt screen", func() bool {
		for _, m := range e.BotMessages(user) {
			if m.ID == belt.ID {
				return strings.Contains(m.Text, "Money:") && strings.Contains(m.Text, "Fuel:")
			}
		}
		return false
	})
	e.WaitIdle(t)
	for _, m := range e.BotMessages(user) {
		if m.ID == belt.ID && (len(m.Keyboard) != len(belt.Keyboard)-1 || slices.ContainsFunc(labels(m), func(r []string) bool { return slices.Contains(r, "📊 Parameters") })) {
			t.Errorf("the belt screen with all the parameters has buttons %v, want its choices alone", labels(m))
		}
		if m.ID == dock.ID && (strings.Contains(m.Text, "Fuel:") || !strings.Contains(m.Text, "\n\n➤ Undock")) {
			t.Errorf("the dock screen left is %q, want its text and the choice made, without the parameters", m.Text)
		}
	}
	if n, ok := e.game(t, user); !ok || n.step != g.step+1 {
		t.Errorf("the parameters button changed the game: step %d, want %d", n.step, g.step+1)
	}
}
