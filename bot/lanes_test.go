package bot_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// menus answers "/lang" with the chat's command menu and a text, "/ask" with a button, and any
// other text with "got TEXT".
func menus(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	if u.Message == nil {
		return nil // presses are answered by the dispatcher
	}
	chat := u.Message.Chat.ID
	var reqs []bot.Request
	switch u.Message.Text {
	case "/lang":
		menu, err := bot.SetChatCommands(chat, []bot.Command{{Command: "start", Description: "Start"}})
		if err != nil {
			return err
		}
		text, err := bot.SendHTML(chat, "menu set", nil)
		if err != nil {
			return err
		}
		reqs = append([]bot.Request{menu}, text...)
	case "/ask":
		r, err := bot.SendHTML(chat, "press", bot.Keyboard{{{Text: "ok", Data: "ok"}}})
		if err != nil {
			return err
		}
		reqs = r
	default:
		r, err := bot.SendHTML(chat, "got "+u.Message.Text, nil)
		if err != nil {
			return err
		}
		reqs = r
	}
	return tx.Send(ctx, reqs...)
}

// Ensure a failing command menu of a chat (setMyCommands answered 5xx) holds neither the chat's
// messages nor its button answers. The clock stands still: the menu waits for its retry all along.
func TestMenuDoesNotHoldChat(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	e.User(1, "Ann", "en")
	e.Bot.InjectFault(tgemu.Fault{Method: "setMyCommands", Code: 502, Times: 1000})
	e.start(t, bot.Config{Handler: menus, Limits: &bot.NoLimits, Clock: bot.NewFakeClock(time.Now())})
	e.Send(t, 1, "/lang")
	e.Send(t, 1, "/ask")
	ask := e.WaitText(t, 1, 0, "press")
	e.WaitText(t, 1, 0, "menu set")
	e.Press(t, 1, ask, "ok")
	e.WaitFor(t, "the press answered", func() bool { return e.Bot.UnansweredCallbacks() == 0 })
	e.Send(t, 1, "hello")
	e.WaitText(t, 1, 0, "got hello")
	// The menu failed once and waits for its retry: the clock stands still.
	e.WaitFor(t, "the menu's failure recorded", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM outbox WHERE method = 'setMyCommands' AND status = 'pending' AND attempts = 1`) == 1
	})
	if n := e.Bot.Count("5xx"); n != 1 {
		t.Errorf("the menu was tried %d times, want once", n)
	}
}

// Ensure a request that keeps failing (a document answered 5xx) holds the messages after it in
// its chat for GiveWayAfter at most, then gives way: it is retried aside while they go out.
func TestFailingRowGivesWay(t *testing.T) {
	t.Parallel()
	start := time.Now()
	clock := bot.NewFakeClock(start)
	e := newEnv(t, tgemu.Options{})
	e.User(1, "Ann", "en")
	e.Bot.InjectFault(tgemu.Fault{Method: "sendDocument", Code: 502, Times: 1000})
	doc := t.TempDir() + "/save.qsave"
	if err := os.WriteFile(doc, []byte("saved game"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.start(t, bot.Config{Limits: &bot.NoLimits, Clock: clock, Handler: func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if u.Message != nil && u.Message.Text == "/save" {
			r, err := bot.SendDocument(u.Chat, doc, "", nil)
			if err != nil {
				return err
			}
			return tx.Send(ctx, r)
		}
		return menus(ctx, tx, u)
	}})
	e.Send(t, 1, "/save")
	e.Send(t, 1, "hi")
	lane := func() bot.Lane {
		return bot.Lane(e.QueryInt(t, `SELECT lane FROM outbox WHERE method = 'sendDocument' AND status = 'pending'`))
	}
	tries := func() int { return e.Bot.Count("5xx") } // a faulty answer counts no method
	// When the document is due again, by the outbox.
	due := func() time.Time {
		var at time.Time
		if err := e.Pool.QueryRow(context.Background(), `SELECT not_before FROM outbox WHERE method = 'sendDocument'`).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	// Each try fails; the reply waits behind the document until the document gives way.
	e.WaitFor(t, "the first try", func() bool { return tries() == 1 })
	for {
		e.WaitFor(t, "the retry recorded", func() bool {
			return e.QueryInt(t, `SELECT attempts FROM outbox WHERE method = 'sendDocument'`) == tries()
		})
		if lane() != bot.LaneConversation {
			break
		}
		if n := e.CountText(1, "got hi"); n != 0 {
			t.Fatalf("the reply passed the document before it gave way")
		}
		next := due()
		if next.Sub(start) > 10*time.Second {
			t.Fatalf("the document holds its chat until its retry at %v, longer than GiveWayAfter", next.Sub(start))
		}
		n := tries()
		clock.AdvanceTo(next)
		e.WaitFor(t, "the retry", func() bool { return tries() == n+1 })
	}
	e.WaitText(t, 1, 0, "got hi")
	n := tries()
	if n < 2 || clock.Now().Sub(start) > 10*time.Second {
		t.Errorf("gave way after %d tries and %v, want a few tries within 10 s", n, clock.Now().Sub(start))
	}
	// Aside, the document is still retried.
	clock.AdvanceTo(due())
	e.WaitFor(t, "a retry aside", func() bool { return tries() == n+1 })
	if l := lane(); l != bot.LaneRetry {
		t.Errorf("the document is in lane %d, want the retry lane", l)
	}
}

// Ensure the answer to a button press is not retried once the press is too old to be answered.
func TestOldPressNotRetried(t *testing.T) {
	t.Parallel()
	clock := bot.NewFakeClock(time.Now())
	e := newEnv(t, tgemu.Options{})
	e.User(1, "Ann", "en")
	e.Bot.InjectFault(tgemu.Fault{Method: "answerCallbackQuery", Code: 500, Times: 1000})
	e.start(t, bot.Config{Handler: menus, Limits: &bot.NoLimits, Clock: clock})
	e.Send(t, 1, "/ask")
	e.Press(t, 1, e.WaitText(t, 1, 0, "press"), "ok")
	e.WaitFor(t, "the failed answer", func() bool { return e.Bot.Count("5xx") == 1 })
	clock.WaitPending(t, "the answer's retry", func(time.Time) bool { return true })
	clock.Advance(time.Hour)
	e.WaitFor(t, "the answer dropped", func() bool { return e.QueryInt(t, `SELECT count(*) FROM outbox`) == 0 })
	if n := e.Bot.Count("5xx"); n != 1 {
		t.Errorf("%d answers tried, want 1: the press is too old to retry", n)
	}
}

// Ensure an aside (bot.Request.Aside) yields the bot's overall slots to the conversations: queued
// while the slot is taken, it does not reserve the next one, which goes to the answer a user
// asked for after it; the aside follows. The clock moves only by hand.
func TestAsideYieldsGlobalSlot(t *testing.T) {
	t.Parallel()
	start := time.Now()
	clock := bot.NewFakeClock(start)
	e := newEnv(t, tgemu.Options{})
	for _, u := range []int64{1, 2, 3} {
		e.User(u, "U", "en")
	}
	p := e.Start(t, bot.Config{Limits: &bot.Limits{Global: 1}, Clock: clock, Handler: menus})
	e.Send(t, 1, "one")
	e.WaitText(t, 1, 0, "got one") // takes the slot of start: the next is a second later
	aside, err := bot.SendHTML(2, "aside", nil)
	if err != nil {
		t.Fatal(err)
	}
	aside[0].Aside = true
	if err := p.Transport.Send(context.Background(), p.Service, aside...); err != nil {
		t.Fatal(err)
	}
	second := start.Add(time.Second)
	clock.WaitPending(t, "the aside's wait", func(at time.Time) bool { return !at.Before(second) })
	e.Send(t, 3, "hi")
	clock.WaitPending(t, "the answer's wait", func(at time.Time) bool { return at.Equal(second) && e.CountText(3, "got hi") == 0 })
	clock.AdvanceTo(second)
	e.WaitText(t, 3, 0, "got hi")
	if n := e.CountText(2, "aside"); n != 0 {
		t.Fatal("the aside took the slot the answer waited for")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go clock.Drive(ctx)
	e.WaitText(t, 2, 0, "aside")
}
