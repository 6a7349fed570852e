package tgemu

import (
	"bytes"
	"image/color"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// site is a web server of pictures for the photos given by URL: /a.png and /b.png (two PNGs),
// /page (an HTML page), /changing.png (a new PNG at every fetch, fetches counting them), and
// nothing else (404).
type site struct {
	*httptest.Server
	a, b    []byte
	fetches atomic.Int32
}

func photoSite(t *testing.T) *site {
	t.Helper()
	s := &site{a: pngOf(t, 40, 30, color.RGBA{R: 200, A: 255}), b: pngOf(t, 30, 40, color.RGBA{B: 200, A: 255})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(s.a)
		case "/b.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(s.b)
		case "/changing.png":
			n := s.fetches.Add(1)
			w.Header().Set("Content-Type", "image/png")
			w.Write(pngOf(t, 10, 10, color.RGBA{G: uint8(n * 40), A: 255}))
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<html><body>not a picture</body></html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// Ensure photos by URL as Telegram takes them: a photo result is fetched when it is posted and
// the message carries the photo (its file_id, its size, the URL it came from, the same bytes);
// a cached photo result posts a photo the bot has, and a file_id the bot has not is refused; an
// inline message's media changes by URL and by file_id, uploads refused; a URL that fails or
// serves no image is refused with Telegram's words, and nothing changes; a URL is fetched once,
// so an edit to the same URL changes nothing of the photo.
func TestPhotoByURL(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "questbot")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	b.AddUser(tgbotapi.User{ID: 8, FirstName: "Bob"})
	if err := b.AddGroup(-50, "Club", 7, 8); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	pics := photoSite(t)
	emu.AllowLocal(pics.URL) // the picture site is on this machine, as a local trial's PUBLIC_URL
	kb := `{"inline_keyboard":[[{"text":"Join","callback_data":"gi:j"}]]}`
	sent := message(t)(multipartCall(t, srv, "1:T", "sendPhoto", map[string]string{"chat_id": "7"},
		map[string][]byte{"photo": pngOf(t, 20, 20, color.White)}))
	doc := message(t)(multipartCall(t, srv, "1:T", "sendDocument", map[string]string{"chat_id": "7"},
		map[string][]byte{"document": []byte("text")}))

	qid, err := b.InlineQuery(7, -50, "")
	if err != nil {
		t.Fatal(err)
	}
	photo := func(id, u string) string {
		return `{"type":"photo","id":"` + id + `","photo_url":"` + u + `","thumbnail_url":"` + u +
			`","caption":"<b>challenge</b>","parse_mode":"HTML","reply_markup":` + kb + `}`
	}
	for _, c := range []struct{ name, results, desc string }{
		{"no thumbnail", `[{"type":"photo","id":"p","photo_url":"` + pics.URL + `/a.png"}]`, "THUMB_URL_INVALID"},
		{"a file_id the bot has not", `[{"type":"photo","id":"c","photo_file_id":"nope"}]`, "wrong file identifier/HTTP URL specified"},
		{"a document as a photo", `[{"type":"photo","id":"c","photo_file_id":"` + doc.Document.FileID + `"}]`, "can't use file of type Document as Photo"},
	} {
		code, resp := call(t, srv, "1:T", "answerInlineQuery", url.Values{"inline_query_id": {qid}, "results": {c.results}})
		wantError(t, c.name, code, resp, c.desc)
	}
	results := "[" + photo("a", pics.URL+"/a.png") + "," + photo("missing", pics.URL+"/nothing.png") + "," +
		photo("page", pics.URL+"/page") + `,{"type":"photo","id":"cached","photo_file_id":"` + largest(sent) +
		`","caption":"cached","reply_markup":` + kb + `}]`
	if code, resp := call(t, srv, "1:T", "answerInlineQuery", url.Values{"inline_query_id": {qid}, "results": {results}}); code != 200 {
		t.Fatalf("the answer: %d %s", code, resp.Description)
	}
	before := len(b.Messages(-50))
	for id, want := range map[string]string{"missing": "failed to get HTTP URL content", "page": "wrong type of the web page content"} {
		if _, _, err := b.ChooseInlineResult(qid, id); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("result %q chosen: %v, want %q", id, err, want)
		}
	}
	if n := len(b.Messages(-50)); n != before {
		t.Fatalf("a refused result posted %d messages", n-before)
	}
	inlineID, _, err := b.ChooseInlineResult(qid, "a")
	if err != nil {
		t.Fatal(err)
	}
	m, ok := b.InlineMessage(inlineID)
	if !ok || m.Photo == "" || m.PhotoURL != pics.URL+"/a.png" || m.PhotoWidth != 40 || m.PhotoHeight != 30 ||
		m.Text != "<b>challenge</b>" || !m.ViaBot {
		t.Fatalf("the posted photo: %+v", m)
	}
	if data, _, _, ok := emu.FileData(m.Photo); !ok || !bytes.Equal(data, pics.a) {
		t.Errorf("the photo's file is not the picture fetched")
	}
	cachedID, _, err := b.ChooseInlineResult(qid, "cached")
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := b.InlineMessage(cachedID); c.Photo != largest(sent) || c.Text != "cached" || c.PhotoURL != "" {
		t.Errorf("the cached photo posted: %+v", c)
	}

	edit := func(media string) (int, tgbotapi.APIResponse) {
		return call(t, srv, "1:T", "editMessageMedia", url.Values{"inline_message_id": {inlineID}, "media": {media}, "reply_markup": {kb}})
	}
	byURL := func(path, caption string) string {
		return `{"type":"photo","media":"` + pics.URL + path + `","caption":"` + caption + `"}`
	}
	if code, resp := edit(byURL("/b.png", "move 1")); code != 200 || string(resp.Result) != "true" {
		t.Fatalf("media by URL: %d %s", code, resp.Description)
	}
	m, _ = b.InlineMessage(inlineID)
	if data, _, _, _ := emu.FileData(m.Photo); !bytes.Equal(data, pics.b) || m.PhotoURL != pics.URL+"/b.png" || m.Text != "move 1" || !m.Edited {
		t.Errorf("after the edit by URL: %+v", m)
	}
	if code, resp := edit(byURL("/b.png", "move 1")); code != 400 || !strings.Contains(resp.Description, "message is not modified") {
		t.Errorf("the same edit again: %d %q", code, resp.Description)
	}
	for name, c := range map[string]struct{ media, desc string }{
		"a URL that fails":    {byURL("/nothing.png", "x"), "failed to get HTTP URL content"},
		"a URL of a page":     {byURL("/page", "x"), "wrong type of the web page content"},
		"an upload":           {`{"type":"photo","media":"attach://photo"}`, "can't upload files to inline messages: use a URL or a file_id"},
		"an unknown file_id":  {`{"type":"photo","media":"nope"}`, "wrong file identifier/HTTP URL specified"},
		"a document as photo": {`{"type":"photo","media":"` + doc.Document.FileID + `"}`, "can't use file of type Document as Photo"},
	} {
		code, resp := edit(c.media)
		wantError(t, name, code, resp, c.desc)
	}
	if code, resp := multipartCall(t, srv, "1:T", "editMessageMedia", map[string]string{"inline_message_id": inlineID,
		"media": `{"type":"photo","media":"attach://photo"}`}, map[string][]byte{"photo": pics.a}); code != 400 ||
		!strings.Contains(resp.Description, "upload") {
		t.Errorf("an uploaded file: %d %q", code, resp.Description)
	}
	if after, _ := b.InlineMessage(inlineID); after.Photo != m.Photo || after.Text != "move 1" {
		t.Errorf("a refused edit changed the message: %+v", after)
	}
	if code, resp := edit(`{"type":"photo","media":"` + largest(sent) + `","caption":"by id"}`); code != 200 {
		t.Errorf("media by file_id: %d %q", code, resp.Description)
	}

	// A URL is fetched once: its content changing later changes nothing.
	if code, resp := edit(byURL("/changing.png", "first")); code != 200 {
		t.Fatalf("the changing picture: %d %q", code, resp.Description)
	}
	first, _ := b.InlineMessage(inlineID)
	if code, resp := edit(byURL("/changing.png", "second")); code != 200 {
		t.Fatalf("the changing picture again: %d %q", code, resp.Description)
	}
	second, _ := b.InlineMessage(inlineID)
	if second.Photo != first.Photo || second.Text != "second" || pics.fetches.Load() != 1 {
		t.Errorf("a URL fetched %d times; photos %q then %q", pics.fetches.Load(), first.Photo, second.Photo)
	}
}

// Ensure an address Telegram cannot reach is refused as Telegram refuses it, though the emulator
// could fetch it: a photo result on a loopback, private or link-local address, or named
// localhost, with WEBDOCUMENT_URL_INVALID, and the same address as the media of an inline
// message's edit with "wrong file identifier/HTTP URL specified", nothing fetched or changed;
// the address of Options.LocalURL (a local trial's PUBLIC_URL) is fetched, in both.
func TestPhotoURLOnLocalAddress(t *testing.T) {
	t.Parallel()
	pics := photoSite(t)
	for _, allowed := range []bool{false, true} {
		opts := Options{}
		if allowed {
			opts.LocalURL = pics.URL
		}
		emu := New(opts)
		b := emu.AddBot("1:T", "questbot")
		b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
		srv := httptest.NewServer(emu)
		defer srv.Close()
		photo := func(id, u string) string {
			return `[{"type":"photo","id":"` + id + `","photo_url":"` + u + `","thumbnail_url":"` + u +
				`","caption":"x","reply_markup":{"inline_keyboard":[[{"text":"Join","callback_data":"j"}]]}}]`
		}
		answer := func(u string) (int, tgbotapi.APIResponse) {
			qid, err := b.InlineQuery(7, 7, "")
			if err != nil {
				t.Fatal(err)
			}
			return call(t, srv, "1:T", "answerInlineQuery", url.Values{"inline_query_id": {qid}, "results": {photo("p", u)}})
		}
		_, port, _ := strings.Cut(strings.TrimPrefix(pics.URL, "http://"), ":")
		for _, u := range []string{"http://localhost:" + port + "/a.png", "http://[::1]:" + port + "/a.png",
			"http://10.1.2.3/a.png", "http://192.168.0.5:8080/a.png", "https://172.16.0.1/a.png", "http://169.254.1.1/a.png",
			"http://0.0.0.0:" + port + "/a.png"} {
			code, resp := answer(u)
			wantError(t, u, code, resp, "WEBDOCUMENT_URL_INVALID")
		}
		code, resp := answer(pics.URL + "/a.png")
		if !allowed {
			wantError(t, "the loopback site", code, resp, "WEBDOCUMENT_URL_INVALID")
		} else if code != 200 {
			t.Fatalf("the allowed site: %d %s", code, resp.Description)
		}

		// An inline message to edit: a text result chosen.
		qid, _ := b.InlineQuery(7, 7, "")
		if code, resp := call(t, srv, "1:T", "answerInlineQuery", url.Values{"inline_query_id": {qid}, "results": {
			`[{"type":"article","id":"a","title":"t","input_message_content":{"message_text":"x"},` +
				`"reply_markup":{"inline_keyboard":[[{"text":"Join","callback_data":"j"}]]}}]`}}); code != 200 {
			t.Fatalf("the text answer: %d %s", code, resp.Description)
		}
		inlineID, _, err := b.ChooseInlineResult(qid, "a")
		if err != nil {
			t.Fatal(err)
		}
		code, resp = call(t, srv, "1:T", "editMessageMedia", url.Values{"inline_message_id": {inlineID},
			"media": {`{"type":"photo","media":"` + pics.URL + `/b.png","caption":"y"}`}})
		m, _ := b.InlineMessage(inlineID)
		if !allowed {
			wantError(t, "the edit to the loopback site", code, resp, "wrong file identifier/HTTP URL specified")
			if m.Photo != "" || m.Text != "x" {
				t.Errorf("a refused edit changed the message: %+v", m)
			}
		} else if code != 200 || m.PhotoURL != pics.URL+"/b.png" {
			t.Errorf("the edit to the allowed site: %d %s; %+v", code, resp.Description, m)
		}
	}
}
