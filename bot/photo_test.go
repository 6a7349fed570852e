package bot_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// writePNG writes a w×h picture to path.
func writePNG(t *testing.T, path string, w, h int) {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Ensure a photo sent under a ref is edited in place by ref: a new picture (uploaded the first
// time, then sent by its file_id), its caption and keyboard, or the caption and keyboard alone.
func TestEditPhotoByRef(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	writePNG(t, a, 30, 20)
	writePNG(t, b, 20, 30)
	kb := bot.Keyboard{{{Text: "ok", Data: "ok"}}}
	e.start(t, bot.Config{Limits: &bot.NoLimits, Handler: func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if u.Message == nil {
			return nil
		}
		var req bot.Request
		var err error
		switch u.Message.Text {
		case "send":
			req, err = bot.SendPhoto(1, a, "<b>first</b>", kb)
			req.Ref = "board"
		case "b":
			req, err = bot.EditPhotoRef(1, "board", b, "<b>second</b>", nil)
		case "a":
			req, err = bot.EditPhotoRef(1, "board", a, "third", kb)
		case "caption":
			req, err = bot.EditCaptionRef(1, "board", "<i>fourth</i>", kb)
		}
		if err != nil {
			return err
		}
		return tx.Send(ctx, req)
	}})
	e.User(1, "Ann", "en")
	photo := func(what string, ok func(m tgemu.Message) bool) tgemu.Message {
		t.Helper()
		var m tgemu.Message
		wait.For(t, wait.Hang, what, func() bool {
			msgs := e.BotMessages(1)
			if len(msgs) != 1 {
				return false
			}
			m = msgs[0]
			return ok(m)
		})
		return m
	}
	e.Send(t, 1, "send")
	first := photo("the photo", func(m tgemu.Message) bool { return m.Photo != "" })
	e.Send(t, 1, "b")
	second := photo("the second picture", func(m tgemu.Message) bool { return m.Text == "<b>second</b>" })
	if second.ID != first.ID || second.Photo == first.Photo || second.PhotoWidth != 20 || len(second.Keyboard) != 0 {
		t.Errorf("after the edit: %+v (first %+v)", second, first)
	}
	e.Send(t, 1, "a")
	third := photo("the first picture again", func(m tgemu.Message) bool { return m.Text == "third" })
	if third.Photo != first.Photo || len(third.Keyboard) != 1 {
		t.Errorf("the first picture was not sent by its file_id: %+v (first %+v)", third, first)
	}
	e.Send(t, 1, "caption")
	fourth := photo("the caption", func(m tgemu.Message) bool { return m.Text == "<i>fourth</i>" })
	if fourth.Photo != first.Photo || fourth.ID != first.ID {
		t.Errorf("the caption's edit changed the picture: %+v", fourth)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM tg_file`); n != 2 {
		t.Errorf("%d files known to Telegram, want 2", n)
	}
	// The same edit again (as after a restart between sending it and recording it): Telegram
	// answers that nothing changed, and the edit counts as delivered, not as a failure.
	e.Send(t, 1, "caption")
	wait.For(t, wait.Hang, "the repeated edit answered", func() bool { return e.Bot.Count("400") == 1 })
	e.WaitIdle(t)
	if n := e.QueryInt(t, `SELECT count(*) FROM outbox`); n != 0 {
		t.Errorf("%d rows left in the outbox after an edit that changed nothing, want none", n)
	}
	if strings.Contains(e.Logs.String(), "Telegram rejected a request") {
		t.Errorf("an edit that changed nothing was logged as a rejection:\n%s", e.Logs)
	}
}

// Ensure a photo that a proxy in front of the Bot API server refuses for good (an HTML page with
// 413, as a proxy that takes no body as big as a photo answers) fails at once: it is not tried
// again, its OnFailure message is sent in its place, and the text after it in the chat goes out
// without waiting behind retries.
func TestPhotoRefusedByProxy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	photo := filepath.Join(t.TempDir(), "board.png")
	writePNG(t, photo, 30, 20)
	e.start(t, bot.Config{Limits: &bot.NoLimits, Handler: func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if u.Message == nil {
			return nil
		}
		if u.Message.Text != "photo" {
			reqs, err := bot.SendHTML(1, "pong", nil)
			if err != nil {
				return err
			}
			return tx.Send(ctx, reqs...)
		}
		req, err := bot.SendPhoto(1, photo, "the board", nil)
		if err != nil {
			return err
		}
		if req.OnFailure, err = bot.SendHTML(1, "The picture could not be sent.", nil); err != nil {
			return err
		}
		return tx.Send(ctx, req)
	}})
	e.User(1, "Ann", "en")
	e.Bot.InjectFault(tgemu.Fault{Method: "sendPhoto", ChatID: 1, Code: 413, Page: true, Times: 100})
	e.Send(t, 1, "photo")
	e.Send(t, 1, "ping")
	wait.For(t, wait.Hang, "the notice and the answer", func() bool {
		texts := e.botTexts(1)
		return len(texts) == 2
	})
	// The notice is queued when the photo fails, after what the chat had queued by then.
	if got := strings.Join(e.botTexts(1), "|"); got != "The picture could not be sent.|pong" && got != "pong|The picture could not be sent." {
		t.Errorf("the chat holds %q, want the notice and the answer", got)
	}
	e.WaitIdle(t)
	if n := e.Bot.Count("413"); n != 1 {
		t.Errorf("the photo was tried %d times, want once", n)
	}
	if !strings.Contains(e.Logs.String(), "HTTP 413") {
		t.Errorf("the refusal is not logged with its status:\n%s", e.Logs)
	}
}

// Ensure what is sent in place of a request that failed for good keeps its refs: a message sent
// under a Ref is known by it afterwards (an edit by ref changes it), and a request with a
// TargetRef acts on that ref's messages (here deletes the message the new one replaces).
func TestOnFailureKeepsRefs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	photo := filepath.Join(t.TempDir(), "board.png")
	writePNG(t, photo, 30, 20)
	e.start(t, bot.Config{Limits: &bot.NoLimits, Handler: func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if u.Message == nil {
			return nil
		}
		var reqs []bot.Request
		var err error
		switch u.Message.Text {
		case "old":
			reqs, err = bot.SendHTML(1, "the old board", nil)
			reqs = bot.WithRef("old", reqs...)
		case "photo":
			var req bot.Request
			if req, err = bot.SendPhoto(1, photo, "the new board", nil); err != nil {
				return err
			}
			req.Ref = "board"
			notice, err := bot.SendHTML(1, "the new board, as text", nil)
			if err != nil {
				return err
			}
			req.OnFailure = append([]bot.Request{bot.DeleteRef(1, "old")}, bot.WithRef("board", notice...)...)
			reqs = []bot.Request{req}
		case "edit":
			var req bot.Request
			req, err = bot.EditHTMLRef(1, "board", "the new board, edited", nil)
			reqs = []bot.Request{req}
		}
		if err != nil {
			return err
		}
		return tx.Send(ctx, reqs...)
	}})
	e.User(1, "Ann", "en")
	e.Bot.InjectFault(tgemu.Fault{Method: "sendPhoto", ChatID: 1, Code: 400})
	e.Send(t, 1, "old")
	wait.For(t, wait.Hang, "the old board", func() bool { return len(e.botTexts(1)) == 1 })
	e.Send(t, 1, "photo")
	wait.For(t, wait.Hang, "the text in place of the photo", func() bool {
		return strings.Join(e.botTexts(1), "|") == "the new board, as text"
	})
	e.Send(t, 1, "edit")
	wait.For(t, wait.Hang, "the edit of the text by its ref", func() bool {
		return strings.Join(e.botTexts(1), "|") == "the new board, edited"
	})
}

// Ensure a picture's edit that the server keeps failing (a 5xx to every editMessageMedia, as an
// independent Bot API server answered) ends in the fallback it carries, its caption edited as
// text, after three tries, not after minutes of retries; a request without a fallback is still
// tried ten times. The clock moves on to each retry at once.
func TestFailingPictureFallsBack(t *testing.T) {
	t.Parallel()
	clock := bot.NewFakeClock(time.Now())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go clock.Drive(ctx)
	e := newEnv(t, tgemu.Options{})
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	writePNG(t, a, 30, 20)
	writePNG(t, b, 20, 30)
	e.start(t, bot.Config{Limits: &bot.NoLimits, Clock: clock, Handler: func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if u.Message == nil {
			return nil
		}
		var req bot.Request
		var err error
		switch u.Message.Text {
		case "send":
			req, err = bot.SendPhoto(1, a, "first", nil)
			req.Ref = "board"
		case "edit":
			req, err = bot.EditPhotoRef(1, "board", b, "second", nil)
			if err == nil {
				var text bot.Request
				text, err = bot.EditCaptionRef(1, "board", "second, as text", nil)
				req.OnFailure = []bot.Request{text}
			}
		case "plain":
			req, err = bot.EditPhotoRef(1, "board", b, "third", nil)
		}
		if err != nil {
			return err
		}
		return tx.Send(ctx, req)
	}})
	e.User(1, "Ann", "en")
	e.Send(t, 1, "send")
	e.WaitFor(t, "the photo", func() bool { return len(e.BotMessages(1)) == 1 })
	e.Bot.InjectFault(tgemu.Fault{Method: "editMessageMedia", Code: 500, Times: 1000})
	e.Send(t, 1, "edit")
	e.WaitFor(t, "the fallback", func() bool {
		msgs := e.BotMessages(1)
		return len(msgs) == 1 && msgs[0].Text == "second, as text"
	})
	if n := e.Bot.Count("5xx"); n != 3 {
		t.Errorf("the picture was tried %d times before its fallback, want 3", n)
	}
	e.Send(t, 1, "plain")
	e.WaitFor(t, "the edit without a fallback given up", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'failed' AND params->>'media' LIKE '%third%'`) == 1
	})
	if n := e.Bot.Count("5xx"); n != 3+10 {
		t.Errorf("%d tries in all, want 3 and then 10 for the edit without a fallback", n)
	}
}
