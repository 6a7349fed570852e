package app_test

import (
	"context"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/testkit/bottest"
)

// startBot runs the whole bot, as questbot serve assembles it, on a fresh Env.
func startBot(t *testing.T, username string) (*bottest.Env, *bottest.Process) {
	t.Helper()
	e := bottest.New(t, bottest.Options{Username: username})
	b := app.New(app.Config{UploadsDir: "../../uploads", Log: e.Log(), TreeCheck: -1})
	return e, e.Start(t, bot.Config{Handler: b.Handle, Limits: &bot.NoLimits})
}

// Ensure that in a group the bot minds only what is meant for it: commands without an addressee
// or addressed to it (in any case), and replies to its own messages. Talk between the members,
// commands addressed to another bot, replies to members, and a forged command entity that does
// not fit its text get no answer there; a command addressed to another bot gets none in a
// private chat either.
func TestGroupChat(t *testing.T) {
	t.Parallel()
	e, _ := startBot(t, "quest_group_bot")
	const ann, bob, grp = 1, 2, -1001
	e.User(ann, "Ann", "en")
	e.User(bob, "Bob", "en")
	if err := e.Bot.AddGroup(grp, "Rangers", ann, bob); err != nil {
		t.Fatal(err)
	}
	say := func(user int64, text string) int {
		t.Helper()
		id, err := e.Bot.SendGroupText(grp, user, text)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	forged := func(user int64, text string, length int) {
		t.Helper()
		ents := []tgbotapi.MessageEntity{{Type: "bot_command", Offset: 0, Length: length}}
		if _, err := e.Bot.SendEntities(grp, user, text, ents); err != nil {
			t.Fatal(err)
		}
	}

	hello := say(ann, "hello everyone")
	say(bob, "/help@OtherBot")
	say(bob, "/start@OtherBot 12")
	forged(ann, "/help@OtherBot", 5) // an entity that stops before the addressee
	forged(ann, "/help", 40)         // an entity longer than the text
	forged(ann, "/help me", 8)       // an entity over a space
	if _, err := e.Bot.SendGroupReply(grp, bob, hello, "hi Ann"); err != nil {
		t.Fatal(err)
	}
	say(bob, "/help@Quest_Group_Bot")
	first := e.WaitTextAfter(t, grp, 0, "choose a quest")
	say(ann, "/help")
	second := e.WaitTextAfter(t, grp, first.ID, "choose a quest")
	if _, err := e.Bot.SendGroupReply(grp, ann, second.ID, "thanks"); err != nil {
		t.Fatal(err)
	}
	e.WaitTextAfter(t, grp, second.ID, "Send /quest")
	e.WaitHandled(t)
	e.WaitIdle(t)
	var got []string
	for _, m := range e.BotMessages(grp) {
		got = append(got, m.Text)
	}
	if len(got) != 3 || !strings.Contains(got[0], "choose a quest") || !strings.Contains(got[1], "choose a quest") ||
		!strings.HasPrefix(got[2], "Send /quest") {
		t.Errorf("the bot said in the group:\n%s\nwant the help twice, then the hint", strings.Join(got, "\n---\n"))
	}

	// In a private chat too, a command for another bot is not ours; the next one is answered.
	e.Send(t, ann, "/help@OtherBot")
	e.Send(t, ann, "/help")
	e.WaitTextAfter(t, ann, 0, "choose a quest")
	e.WaitHandled(t)
	e.WaitIdle(t)
	if n := len(e.BotMessages(ann)); n != 1 {
		t.Errorf("Ann's private chat has %d bot messages, want only the help", n)
	}
	// The members are known users, but nothing was relayed or stored for the group's talk.
	if n := e.QueryInt(t, `SELECT count(*) FROM relay_message`); n != 0 {
		t.Errorf("%d messages relayed from the group", n)
	}
	var failed int
	e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE status = 'failed'`).Scan(&failed)
	if failed != 0 {
		t.Errorf("%d sends failed", failed)
	}
}
