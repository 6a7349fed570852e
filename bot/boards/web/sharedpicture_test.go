package web_test

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
)

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// jpegMagic starts every JPEG file.
var jpegMagic = []byte("\xff\xd8\xff")

// Ensure the picture of a board played in a shared message is served to anyone, without a
// session, at the address the bot gives Telegram: with its key, a JPEG of the position now (a PNG
// at the same address ending in .png), for
// good to be cached under an address that changes with every move, however often it is fetched;
// with a wrong key, or for a board played in its players' chats, as a game that does not exist,
// and rate limited. The start picture of a game offered is public, of its size; a game not
// offered has none.
func TestSharedPicture(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	anon := &client{e: e}
	var g, other struct{ ID int64 }
	bob := e.login(t, 2, "Bob")
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr3d"}, http.StatusCreated, &g)
	bob.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/join", g.ID), nil, http.StatusOK, nil)
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "bot": "easy"}, http.StatusCreated, &other)
	e.Exec(t, `INSERT INTO board_shared (board_id, chat_id, invite, picture) VALUES ($1, -100, 'code-1', true)`, g.ID)

	address := func() string {
		t.Helper()
		u, err := e.app.Boards.SharedPictureURL(e.board(t, g.ID), "code-1")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(u, e.srv.URL+"/") {
			t.Fatalf("the address %q is not the web server's", u)
		}
		return strings.TrimPrefix(u, e.srv.URL)
	}
	first := address()
	code, hdr, pic := anon.call(t, "GET", first, nil)
	if code != http.StatusOK || !bytes.HasPrefix(pic, jpegMagic) || hdr.Get("Content-Type") != "image/jpeg" ||
		!strings.Contains(hdr.Get("Cache-Control"), "immutable") {
		t.Fatalf("the shared picture: %d %v %.20q", code, hdr, pic)
	}
	asPNG := strings.Replace(first, "/picture.jpg?", "/picture.png?", 1)
	if code, hdr, p := anon.call(t, "GET", asPNG, nil); code != http.StatusOK || !bytes.HasPrefix(p, pngMagic) ||
		hdr.Get("Content-Type") != "image/png" {
		t.Fatalf("the shared picture as PNG: %d %v %.20q", code, hdr, p)
	}

	white := ann
	if st := ann.state(t, g.ID); st.Seat != 0 {
		white = bob
	}
	st := white.state(t, g.ID)
	white.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", g.ID), map[string]any{"move": st.Legal[0].Text, "ply": st.Ply},
		http.StatusOK, nil)
	second := address()
	if second == first {
		t.Fatalf("the address %q did not change with the position", second)
	}
	code, _, moved := anon.call(t, "GET", second, nil)
	if code != http.StatusOK || !bytes.HasPrefix(moved, jpegMagic) || bytes.Equal(moved, pic) {
		t.Fatalf("the picture after the moves: %d, changed %v", code, !bytes.Equal(moved, pic))
	}
	// An old address is answered with the picture of now, not to be kept.
	if code, hdr, _ := anon.call(t, "GET", first, nil); code != http.StatusOK || hdr.Get("Cache-Control") != "no-cache" {
		t.Errorf("an old address: %d, Cache-Control %q", code, hdr.Get("Cache-Control"))
	}

	missingCode, _, missingBody := anon.call(t, "GET", "/api/v1/games/999999/picture.png?k=x", nil)
	wrong := strings.Replace(second, "k="+boards.SharedPictureKey("code-1"), "k="+boards.SharedPictureKey("code-2"), 1)
	for name, path := range map[string]string{
		"a wrong key":                    wrong,
		"the key of another board":       strings.Replace(second, fmt.Sprintf("/games/%d/", g.ID), fmt.Sprintf("/games/%d/", other.ID), 1),
		"a board nobody's chat is shown": fmt.Sprintf("/api/v1/games/%d/picture.png?k=%s", other.ID, url.QueryEscape(boards.SharedPictureKey(""))),
	} {
		if code, _, body := anon.call(t, "GET", path, nil); code != missingCode || !bytes.Equal(body, missingBody) {
			t.Errorf("%s: %d %s; a missing game: %d %s", name, code, body, missingCode, missingBody)
		}
	}

	start, w, h, err := e.app.Boards.StartPictureURL("chess")
	if err != nil {
		t.Fatal(err)
	}
	code, hdr, startPic := anon.call(t, "GET", strings.TrimPrefix(start, e.srv.URL), nil)
	if code != http.StatusOK || !bytes.HasPrefix(startPic, jpegMagic) || !strings.Contains(hdr.Get("Cache-Control"), "immutable") {
		t.Errorf("the start picture of chess: %d %v", code, hdr)
	}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(startPic)); err != nil || cfg.Width != w || cfg.Height != h || w == 0 {
		t.Errorf("the start picture is %+v (%v), StartPictureURL says %d×%d", cfg, err, w, h)
	}
	anon.refused(t, "GET", "/api/v1/variants/nothing/picture.png", nil, http.StatusNotFound, "not_found")

	// Telegram's fetches with the key are not rate limited; guesses of a key are. The server's
	// clock stands still from here, so that no bucket fills again while a slow machine makes
	// the requests: the limit is judged by the count of requests, not by their speed.
	e.clock.frozen.Store(e.clock.now().UnixNano())
	for i := range web.DefaultBurst + 20 {
		if code, _, _ := anon.call(t, "GET", second, nil); code != http.StatusOK {
			t.Fatalf("fetch %d with the key: %d", i, code)
		}
	}
	limited := false
	for range web.DefaultBurst + 20 {
		if code, _, _ := anon.call(t, "GET", wrong, nil); code == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Error("guesses of a key are not rate limited")
	}
}
