package telegram_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/sessions/board"
)

// jpegMagic starts every JPEG file: the pictures of inline messages are JPEG, as Telegram asks.
var jpegMagic = []byte("\xff\xd8\xff")

// withWeb gives the bot a web game server on a real HTTP listener (its PublicURL), serving once
// the bot has started (serveWeb).
func (e *env) withWeb(t *testing.T) *webServer {
	t.Helper()
	w := &webServer{}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		h := w.handler.Load()
		if h == nil {
			http.Error(rw, "not started", http.StatusServiceUnavailable)
			return
		}
		(*h).ServeHTTP(rw, r)
	}))
	t.Cleanup(w.srv.Close)
	e.boards.PublicURL = w.srv.URL
	// A trial on one machine: the emulator fetches from this address, as Telegram would from a
	// public one.
	e.Emu.AllowLocal(w.srv.URL)
	return w
}

// webServer is the web game server of an env's bot.
type webServer struct {
	srv     *httptest.Server
	handler atomic.Pointer[http.Handler]
}

// serve serves the web game server of the env's running bot.
func (w *webServer) serve(e *env) {
	h, _ := e.app.Web(e.Pool, e.proc.Transport, app.WebConfig{})
	w.handler.Store(&h)
}

// fetch gets a picture's address as Telegram does, without a session, and returns the JPEG.
func fetch(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !bytes.HasPrefix(data, jpegMagic) || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("GET %s: %s %.40q", u, resp.Status, data)
	}
	return data
}

// Ensure an inline game of a bot with a web game server is its picture: "@bot chess" lists
// photos of the start position (by the server's address) captioned with the challenge; the
// chosen one is a photo message; once joined, every move edits that message's photo to the
// address of the position now (which changes with every move, and serves, to anyone without a
// session, the JPEG Telegram fetched), with the caption and keyboard, and posts nothing; a
// stranger's press changes nothing; the end shows the result and no buttons.
func TestInlinePicture(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	web := e.withWeb(t)
	const ann, bob, eve, group = 51, 52, 53, -600
	e.user(t, ann, "Ann", "en")
	e.user(t, bob, "Bob", "en")
	e.user(t, eve, "Eve", "en")
	e.start(t)
	web.serve(e)
	if err := e.Bot.AddGroup(group, "Club", ann, bob, eve); err != nil {
		t.Fatal(err)
	}

	qid, err := e.Bot.InlineQuery(ann, group, "chess")
	if err != nil {
		t.Fatal(err)
	}
	var results []tgemu.InlineResult
	e.WaitFor(t, "the answer to the inline query", func() bool {
		var ok bool
		results, ok = e.Bot.InlineAnswer(qid)
		return ok
	})
	startURL := web.srv.URL + "/api/v1/variants/chess/picture.jpg?v="
	if len(results) == 0 || results[0].Type != "photo" || results[0].ID != "chess.none.pic" ||
		!strings.HasPrefix(results[0].PhotoURL, startURL) || !strings.Contains(results[0].Text, "<b>Ann</b> wants to play <b>Chess</b>") ||
		results[0].Title != "Chess · no clock" {
		t.Fatalf("results = %+v", results)
	}
	start := fetch(t, results[0].PhotoURL)

	inlineID, _, err := e.Bot.ChooseInlineResult(qid, "chess.none.pic")
	if err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the challenge recorded", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM board_shared WHERE inline_message_id = $1 AND picture`, inlineID) == 1
	})
	s := &shared{e: e, chat: group, inlineID: inlineID}
	if m := s.message(t); m.Photo == "" || m.PhotoURL != results[0].PhotoURL || !strings.Contains(m.Text, "wants to play") {
		t.Fatalf("the challenge: %+v", m)
	}
	posted := len(e.Bot.Messages(group))

	// shown checks the message's photo: the address of the position at ply, a JPEG served to
	// anyone, the very picture Telegram fetched, another than the one before.
	last := start
	var lastURL string
	shown := func(m tgemu.Message, id int64, ply int) {
		t.Helper()
		prefix := fmt.Sprintf("%s/api/v1/games/%d/picture.jpg?", web.srv.URL, id)
		if !strings.HasPrefix(m.PhotoURL, prefix) || !strings.Contains(m.PhotoURL, fmt.Sprintf("ply=%d&", ply)) ||
			m.PhotoURL == lastURL || strings.Contains(m.Text, "<pre>") {
			t.Fatalf("the message at ply %d: %+v", ply, m)
		}
		pic := fetch(t, m.PhotoURL)
		if got, _, _, ok := e.Emu.FileData(m.Photo); !ok || !bytes.Equal(got, pic) {
			t.Errorf("the photo at ply %d is not the picture its address serves", ply)
		}
		if bytes.Equal(pic, last) && ply > 0 {
			t.Errorf("the picture at ply %d is the one before", ply)
		}
		last, lastURL = pic, m.PhotoURL
	}

	m := s.tap(t, bob, "✅ Join")
	id := e.lastBoard(t, bob)
	bd := e.board(t, id)
	if bd.Status != board.Active {
		t.Fatalf("board %d is %v", id, bd.Status)
	}
	shown(m, id, 0)
	white, black := bd.Seats[0].User, bd.Seats[1].User
	name := map[int64]string{ann: "Ann", bob: "Bob"}
	if !strings.Contains(m.Text, name[white]+" to move") || m.Button("f2") == "" {
		t.Fatalf("the board at the start:\n%s\n%v", m.Text, m.Keyboard)
	}
	if got := s.refused(t, eve, "f2"); !strings.HasPrefix(got, "This game is between") {
		t.Errorf("Eve's press answered %q", got)
	}

	ply := 0
	for _, mv := range []struct {
		who      int64
		from, to string
	}{{white, "f2", "f3"}, {black, "e7", "e5"}, {white, "g2", "g4"}, {black, "d8", "h4"}} {
		m = s.move(t, mv.who, mv.from, mv.to)
		ply++
		e.WaitFor(t, fmt.Sprintf("the picture of ply %d", ply), func() bool {
			m = s.message(t)
			return strings.Contains(m.PhotoURL, fmt.Sprintf("ply=%d&", ply))
		})
		shown(m, id, ply)
	}
	e.WaitFor(t, "the game over", func() bool {
		m = s.message(t)
		return e.board(t, id).Status == board.Finished && strings.Contains(m.Text, "wins")
	})
	if !strings.Contains(m.Text, "<b>"+name[black]+" wins</b>") || len(m.Keyboard) != 0 || m.PhotoURL != lastURL {
		t.Errorf("the end:\n%s\n%v %s", m.Text, m.Keyboard, m.PhotoURL)
	}
	if n := len(e.Bot.Messages(group)); n != posted {
		t.Errorf("%d messages posted in the group during the game", n-posted)
	}
	for _, u := range []int64{ann, bob, eve} {
		if msgs := e.BotMessages(u); len(msgs) != 0 {
			t.Errorf("user %d got %d messages in their chat: %+v", u, len(msgs), msgs)
		}
	}
}

// Ensure an inline picture the bot can no longer change stops nothing: when Telegram cannot
// fetch the new picture's address (the web game server is down), the move's edit is replaced by
// the caption's and the keyboard's, and the game goes on; a bot restarted without PUBLIC_URL
// keeps the message a photo and edits its caption.
func TestInlinePictureFallback(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.allow("Telegram rejected a request")
	web := e.withWeb(t)
	const ann, bob, group = 61, 62, -700
	e.user(t, ann, "Ann", "en")
	e.user(t, bob, "Bob", "en")
	p := e.start(t)
	web.serve(e)
	if err := e.Bot.AddGroup(group, "Club", ann, bob); err != nil {
		t.Fatal(err)
	}
	qid, err := e.Bot.InlineQuery(ann, group, "chess")
	if err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the answer", func() bool { _, ok := e.Bot.InlineAnswer(qid); return ok })
	inlineID, _, err := e.Bot.ChooseInlineResult(qid, "chess.none.pic")
	if err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the challenge recorded", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM board_shared WHERE inline_message_id = $1`, inlineID) == 1
	})
	s := &shared{e: e, chat: group, inlineID: inlineID}
	joined := s.tap(t, bob, "✅ Join")
	id := e.lastBoard(t, bob)
	bd := e.board(t, id)
	white, black := bd.Seats[0].User, bd.Seats[1].User
	name := map[int64]string{ann: "Ann", bob: "Bob"}

	web.handler.Store(nil) // the web game server is down: its addresses answer 503
	m := s.move(t, white, "e2", "e4")
	e.WaitFor(t, "the caption of the move", func() bool {
		m = s.message(t)
		return strings.Contains(m.Text, name[black]+" to move")
	})
	if m.Photo != joined.Photo || m.PhotoURL != joined.PhotoURL || m.Button("e7") == "" {
		t.Errorf("after a picture Telegram could not fetch: %+v", m)
	}

	p.Stop()
	e.noPublic = true
	e.start(t)
	m = s.move(t, black, "e7", "e5")
	e.WaitFor(t, "the caption of the next move", func() bool {
		m = s.message(t)
		return strings.Contains(m.Text, name[white]+" to move")
	})
	if m.Photo != joined.Photo || strings.Contains(m.Text, "<pre>") || e.board(t, id).Ply() != 2 {
		t.Errorf("after a restart without PUBLIC_URL: %+v", m)
	}
}
