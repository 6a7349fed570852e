package bot_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// refs is a handler for the message references: "prompt R" sends a message under ref R, "long R"
// a text split in two parts under R, "del R" deletes by ref, "edit R" edits by ref, and "both R"
// sends under R and deletes by R in the same update. Each command but "prompt" and "long" is
// answered with "done ...", sent after it.
func refs(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	if u.Message == nil {
		return nil
	}
	chat := u.Message.Chat.ID
	verb, ref, _ := strings.Cut(u.Message.Text, " ")
	var reqs []bot.Request
	send := func(text string) {
		r, err := bot.SendHTML(chat, text, nil)
		if err != nil {
			panic(err)
		}
		reqs = append(reqs, r...)
	}
	switch verb {
	case "prompt", "both":
		r, err := bot.SendHTML(chat, "prompt "+ref, bot.Keyboard{{{Text: "x", Data: "x"}}})
		if err != nil {
			return err
		}
		reqs = append(reqs, bot.WithRef(ref, r...)...)
	case "long":
		r, err := bot.SendHTML(chat, strings.Repeat("a long line\n", 500), nil)
		if err != nil {
			return err
		}
		reqs = append(reqs, bot.WithRef(ref, r...)...)
	}
	switch verb {
	case "del", "both":
		reqs = append(reqs, bot.DeleteRef(chat, ref))
		send("done " + u.Message.Text)
	case "edit":
		r, err := bot.EditHTMLRef(chat, ref, "edited "+ref, nil)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
		send("done " + u.Message.Text)
	}
	return tx.Send(ctx, reqs...)
}

// lastText returns the text of the bot's last message in a chat.
func (e *env) lastText(chat int64) string {
	got := e.botTexts(chat)
	if len(got) == 0 {
		return ""
	}
	return got[len(got)-1]
}

// Ensure a message sent under a ref can be deleted and edited by its ref, also by a process
// started after it was sent; that a split text is deleted whole; and that a request whose ref is
// unknown is dropped without an error or a retry.
func TestMessageRefs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.User(1, "Ann", "en")
	stop := e.start(t, bot.Config{Handler: refs, Limits: &bot.NoLimits})

	e.Send(t, 1, "prompt a")
	wait.For(t, wait.Hang, "the prompt", func() bool { return e.lastText(1) == "prompt a" })
	prompt := e.Bot.Messages(1)[1].ID
	wait.For(t, wait.Hang, "the prompt's record", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM sent_ref WHERE ref = 'a'`) == 1
	})
	// A restart between the prompt and its deletion: the id is in the database.
	stop()
	e.start(t, bot.Config{Handler: refs, Limits: &bot.NoLimits})
	e.Send(t, 1, "del a")
	wait.For(t, wait.Hang, "the deletion", func() bool { return e.lastText(1) == "done del a" })
	if got := e.Bot.Deleted(1); !slices.Equal(got, []int{prompt}) {
		t.Errorf("deleted %v, want the prompt %d", got, prompt)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM sent_ref`); n != 0 {
		t.Errorf("%d refs left after the deletion, want none", n)
	}

	// A second deletion of the same ref, and one of a ref never used: dropped.
	e.Send(t, 1, "del a")
	e.Send(t, 1, "del ghost")
	wait.For(t, wait.Hang, "the answers", func() bool { return e.lastText(1) == "done del ghost" })
	if n := len(e.Bot.Deleted(1)); n != 1 {
		t.Errorf("%d deletions, want still 1", n)
	}
	if !strings.Contains(e.Logs.String(), "ref=ghost") {
		t.Errorf("the dropped request is not logged:\n%s", e.Logs)
	}

	// A split text: both parts go.
	before := len(e.Bot.Messages(1))
	e.Send(t, 1, "long b")
	wait.For(t, wait.Hang, "the long text", func() bool { return len(e.Bot.Messages(1)) == before+3 })
	e.Send(t, 1, "del b")
	wait.For(t, wait.Hang, "its deletion", func() bool { return e.lastText(1) == "done del b" })
	if n := len(e.Bot.Deleted(1)); n != 3 {
		t.Errorf("%d deletions, want 3: %v", n, e.Bot.Deleted(1))
	}
	if n := e.Bot.Count("deleteMessages"); n != 1 {
		t.Errorf("%d deleteMessages, want 1", n)
	}

	// An edit by ref.
	e.Send(t, 1, "prompt c")
	e.Send(t, 1, "edit c")
	wait.For(t, wait.Hang, "the edit", func() bool { return e.lastText(1) == "done edit c" })
	var edited []tgemu.Message
	for _, m := range e.Bot.Messages(1) {
		if m.Edited {
			edited = append(edited, m)
		}
	}
	if len(edited) != 1 || edited[0].Text != "edited c" || len(edited[0].Keyboard) != 0 {
		t.Errorf("edited messages: %+v", edited)
	}

	// The last row is removed just after Telegram has it.
	wait.For(t, wait.Hang, "an empty outbox (no failed rows)", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM outbox`) == 0
	})

	// The records of messages never deleted by ref expire.
	if n := e.QueryInt(t, `SELECT count(*) FROM sent_ref WHERE ref = 'c'`); n != 1 {
		t.Fatalf("%d records of ref c, want 1", n)
	}
	if err := botpg.New(e.Pool).Cleanup(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM sent_ref`); n != 0 {
		t.Errorf("%d records left after the cleanup, want none", n)
	}
}

// Ensure a deletion by ref queued in the same update as the message waits for it, across a crash
// before the message was sent.
func TestMessageRefCrash(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.User(1, "Ann", "en")
	var crashed atomic.Bool
	var stop func()
	stop = e.start(t, bot.Config{Handler: refs, Limits: &bot.NoLimits, Hooks: bot.Hooks{BeforeSend: func(*bot.OutboxRow) bool {
		if crashed.Swap(true) {
			return false
		}
		go stop()
		return true
	}}})
	e.Send(t, 1, "both x")
	wait.For(t, wait.Hang, "the crash", crashed.Load)
	stop()
	if n := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'pending'`); n != 3 {
		t.Fatalf("%d pending rows, want the prompt, its deletion and the answer", n)
	}
	e.start(t, bot.Config{Handler: refs, Limits: &bot.NoLimits})
	wait.For(t, wait.Hang, "the answer", func() bool { return e.lastText(1) == "done both x" })
	msgs := e.Bot.Messages(1)
	if len(msgs) != 2 || msgs[0].FromBot || len(e.Bot.Deleted(1)) != 1 {
		t.Errorf("messages %+v, deleted %v: want the user's, the answer, and the prompt deleted", msgs, e.Bot.Deleted(1))
	}
	wait.For(t, wait.Hang, "empty outbox and sent_ref", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM outbox`)+e.QueryInt(t, `SELECT count(*) FROM sent_ref`) == 0
	})
}
