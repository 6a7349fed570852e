package bot_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// Ensure a request whose file is drawn when it is sent (Request.Draw) gets the file its drawer
// draws, uploaded and then sent by its file_id with no second drawing; that of the photos of
// one state queued before they are sent only the newest is drawn; and that a drawing that fails
// is retried and then replaced by the request's OnFailure, like a drawer the process does not
// know, without a panic or a silent drop.
func TestDrawAtSend(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{})
	dir := t.TempDir()
	// The drawer of this test: the key is the picture's width; "fail" fails.
	const name = "draw-at-send-test"
	var drawn atomic.Int64
	var keys []string
	keysDone := make(chan string, 100)
	err := bot.RegisterDrawer(name, func(ctx context.Context, key, path string) error {
		keysDone <- key
		if key == "fail" {
			return errors.New("no ink")
		}
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		w, err := strconv.Atoi(key)
		if err != nil {
			return err
		}
		drawn.Add(1)
		var buf bytes.Buffer
		if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, 10))); err != nil {
			return err
		}
		return os.WriteFile(path, buf.Bytes(), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.RegisterDrawer("", nil); err == nil {
		t.Error("a drawer without a name was registered")
	}
	photo := func(key, drawer string, edit bool) (bot.Request, error) {
		path := filepath.Join(dir, key+".png")
		req, err := bot.SendPhoto(1, path, "width "+key, nil)
		req.Ref = "picture"
		if edit {
			req, err = bot.EditPhotoRef(1, "picture", path, "width "+key, nil)
		}
		if err != nil {
			return req, err
		}
		req.Draw, req.State = &bot.Drawing{Drawer: drawer, Key: key}, "picture"
		req.OnFailure, err = bot.SendHTML(1, "no picture "+key, nil)
		return req, err
	}
	e.start(t, bot.Config{Limits: &bot.NoLimits, Handler: func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if u.Message == nil {
			return nil
		}
		var reqs []bot.Request
		words := strings.Fields(u.Message.Text)
		for _, w := range words[1:] {
			drawer := name
			if words[0] == "unknown" {
				drawer = "nobody-draws-this"
			}
			req, err := photo(w, drawer, words[0] == "edits")
			if err != nil {
				return err
			}
			reqs = append(reqs, req)
		}
		return tx.Send(ctx, reqs...)
	}})
	e.User(1, "Ann", "en")
	waitText := func(what, text string) tgemu.Message {
		t.Helper()
		var m tgemu.Message
		wait.For(t, wait.Hang, what, func() bool {
			for _, bm := range e.BotMessages(1) {
				if bm.Text == text {
					m = bm
					return true
				}
			}
			return false
		})
		return m
	}
	e.Send(t, 1, "send 30")
	first := waitText("the drawn photo", "width 30")
	if first.Photo == "" || first.PhotoWidth != 30 || drawn.Load() != 1 {
		t.Fatalf("the drawn photo: %+v, %d drawn", first, drawn.Load())
	}
	e.Send(t, 1, "send 30")
	e.WaitIdle(t)
	if msgs := e.BotMessages(1); len(msgs) != 2 || msgs[1].Photo != first.Photo || drawn.Load() != 1 {
		t.Errorf("the same picture again: %d messages, %d drawn", len(msgs), drawn.Load())
	}

	// Three edits of the photo queued at once: the newest supersedes the others before they are
	// sent, and only it is drawn.
	for len(keysDone) > 0 {
		<-keysDone
	}
	e.Send(t, 1, "edits 41 42 43")
	waitText("the newest state", "width 43")
	e.WaitIdle(t)
	for len(keysDone) > 0 {
		keys = append(keys, <-keysDone)
	}
	if strings.Join(keys, ",") != "43" {
		t.Errorf("drawn for the state: %v, want only the newest (43)", keys)
	}

	// A failing drawing: retried, then the fallback; an unknown drawer: the fallback at once.
	e.Send(t, 1, "send fail")
	waitText("the fallback of a failed drawing", "no picture fail")
	e.Send(t, 1, "unknown 50")
	waitText("the fallback of an unknown drawer", "no picture 50")
	e.WaitIdle(t)
	if !strings.Contains(e.Logs.String(), "no ink") || !strings.Contains(e.Logs.String(), "nobody-draws-this") {
		t.Errorf("the failed drawings are not logged:\n%s", e.Logs)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'failed'`); n != 2 {
		t.Errorf("%d requests failed for good, want 2 (the failed drawing, the unknown drawer)", n)
	}
}
