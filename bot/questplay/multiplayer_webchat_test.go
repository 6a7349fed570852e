package questplay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/emulator/webchat"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// webUser is a user of the web chat, driven through the page's own JSON API.
type webUser struct {
	t   *testing.T
	url string
	ID  int64 `json:"id"`
}

func post(t *testing.T, url string, in, out any) {
	t.Helper()
	raw, _ := json.Marshal(in)
	resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

func addWebUser(t *testing.T, url, name, lang string) *webUser {
	t.Helper()
	u := &webUser{t: t, url: url}
	post(t, url+"/api/users", map[string]string{"name": name, "language": lang}, u)
	return u
}

func (u *webUser) send(text string) {
	post(u.t, u.url+"/api/send", map[string]any{"user": u.ID, "text": text}, nil)
}

// messages is the user's chat as the page first receives it: the snapshot event of its stream.
func (u *webUser) messages() []tgemu.Message {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait.Hang)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.url+"/api/events?user="+jsonInt(u.ID), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type     string          `json:"type"`
			Messages []tgemu.Message `json:"messages"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			u.t.Fatal(err)
		}
		if ev.Type == "snapshot" {
			return ev.Messages
		}
	}
	u.t.Fatalf("no snapshot for user %d: %v", u.ID, sc.Err())
	return nil
}

func jsonInt(n int64) string { raw, _ := json.Marshal(n); return string(raw) }

// has reports whether a bot message of the chat contains text.
func (u *webUser) has(text string) bool { return u.count(text) > 0 }

// count is the number of bot messages of the chat that contain text.
func (u *webUser) count(text string) int {
	n := 0
	for _, m := range u.messages() {
		if m.FromBot && strings.Contains(m.Text, text) {
			n++
		}
	}
	return n
}

// choose waits until the newest message with buttons has one labelled label, and presses it.
func (u *webUser) choose(label string) {
	u.t.Helper()
	wait.For(u.t, bottest.Timeout, "a button "+label, func() bool { return u.press(label) })
}

// press presses the first of labels on the newest message with buttons, if any, and reports
// whether it did.
func (u *webUser) press(labels ...string) bool {
	msgs := u.messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if len(msgs[i].Keyboard) == 0 {
			continue
		}
		for _, label := range labels {
			for _, row := range msgs[i].Keyboard {
				for _, b := range row {
					if b.Text == label {
						post(u.t, u.url+"/api/press", map[string]any{"user": u.ID, "message_id": msgs[i].ID, "data": b.Data}, nil)
						wait.For(u.t, bottest.Timeout, "the bot's answer", func() bool {
							m := u.messages()
							return len(m) > 0 && m[len(m)-1].ID > msgs[i].ID
						})
						return true
					}
				}
			}
		}
		return false
	}
	return false
}

// Ensure two users side by side in the web chat play the shipped duel against each other, one
// in Russian and one in English: both choose it from /quest, the first waits for the second,
// and the one who always fires the laser at the other's missile wins in two rounds; the other's
// ship is destroyed.
func TestWebChatDuel(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	chat := webchat.New(s.Emu, s.Bot)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/bot") || strings.HasPrefix(r.URL.Path, "/file/bot") {
			s.Emu.ServeHTTP(w, r)
			return
		}
		chat.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.Srv = srv
	s.start(t)

	ira := addWebUser(t, srv.URL, "Ира", "ru")
	jim := addWebUser(t, srv.URL, "Jim", "en")
	ira.send("/quest")
	jim.send("/quest")
	s.WaitFor(t, "the catalogues", func() bool { return ira.has("Выберите квест") && jim.has("Choose a quest") })
	ira.choose("Дуэль на орбите")
	jim.choose("Orbital duel")
	s.WaitFor(t, "the tasks", func() bool { return ira.has("Орбитальная арена") && jim.has("Gaal Orbital Arena") })
	ira.choose("Я берусь за это задание")
	ira.choose("Принять вызов")
	s.WaitFor(t, "Ира waiting", func() bool { return ira.has("Ждём соперника") })
	jim.choose("I agree")
	jim.choose("Accept the duel")
	s.WaitFor(t, "the first round", func() bool {
		return ira.has("Раунд: выберите оружие") && jim.has("Round: choose your weapon")
	})
	for round := 1; round <= 2; round++ {
		ira.choose("Лазер")
		jim.choose("Missile")
		s.WaitFor(t, "the hit", func() bool {
			return ira.count("Лазер игрока Ира сжигает ракету игрока Jim") == round &&
				jim.count("Ира's laser burns Jim's missile") == round
		})
		ira.choose("Дальше")
		jim.choose("Go on")
	}
	s.WaitFor(t, "the ends", func() bool {
		return ira.has("Дуэль выиграна") && jim.has("your ship breaks apart")
	})
	ira.choose("Вернуться на корабль")
	s.WaitFor(t, "the prize", func() bool { return ira.has("Приз в 300 cr ваш") })
	s.WaitFor(t, "the session to go", func() bool { return len(s.sessions(t)) == 0 })
}
