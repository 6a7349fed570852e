package telegram_test

import (
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// Ensure a command whose answer is a credential never posts it in a group: /web and an admin's
// /token sent in a group issue nothing, post no link or token, and say to ask in the private
// chat; the same /web in the private chat gives the link there.
func TestCredentialsNotInGroups(t *testing.T) {
	t.Parallel()
	e := newAccessEnv(t)
	const ann, bob, group = 1, 2, -900
	e.greet(t, ann, "Ann")
	e.greet(t, bob, "Boris")
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 1`)
	if err := e.Bot.AddGroup(group, "Club", ann, bob); err != nil {
		t.Fatal(err)
	}
	sent := e.sentTo(group)
	for _, cmd := range []string{"/web@boards_test_bot", "/web", "/token@boards_test_bot 2 arbiter", "/token revoke 1"} {
		if _, err := e.Bot.SendGroupText(group, ann, cmd); err != nil {
			t.Fatal(err)
		}
	}
	e.WaitFor(t, "the four answers in the group", func() bool { return len(e.BotMessages(group)) == 4 })
	e.WaitIdle(t)
	for i, m := range e.BotMessages(group) {
		want := "send /web in our private chat"
		if i >= 2 {
			want = "send /token in our private chat"
		}
		if !strings.Contains(m.Text, want) {
			t.Errorf("answer %d in the group: %q, want it to say %q", i, m.Text, want)
		}
	}
	for _, text := range sent() {
		if tokenRE.MatchString(text) || ticketRE.MatchString(text) {
			t.Errorf("a credential was sent to the group: %q", text)
		}
	}
	if n := e.QueryInt(t, `SELECT (SELECT count(*) FROM web_login_ticket) + (SELECT count(*) FROM web_api_token)`); n != 0 {
		t.Errorf("%d credentials issued from the group", n)
	}
	after := e.LastID(ann)
	e.Send(t, ann, "/web")
	e.WaitMessage(t, ann, after, "the link in the private chat", func(m tgemu.Message) bool { return ticketRE.MatchString(m.Text) })
}

// Ensure the /start greeting names the board games beside the quests, in both languages.
func TestGreetingNamesGames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	for _, c := range []struct {
		user       int64
		lang, want string
	}{{1, "en", "board games"}, {2, "ru", "настольные игры"}} {
		e.User(c.user, "Ann", c.lang)
		e.Send(t, c.user, "/start")
		m := e.WaitMessage(t, c.user, 0, "the greeting", func(m tgemu.Message) bool { return strings.Contains(m.Text, "<b>Ann</b>") })
		if !strings.Contains(m.Text, c.want) || !strings.Contains(m.Text, "/games") || !strings.Contains(m.Text, "/quest") {
			t.Errorf("the %s greeting: %q", c.lang, m.Text)
		}
	}
}
