package web

import (
	"bufio"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/testkit/wait"
)

// get requests path from srv with the headers (name, value, ...), without the client's own
// transparent decompression, and returns the answer and its body as sent.
func get(t *testing.T, srv *httptest.Server, path string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Ensure the pages' scripts, style sheet and the JSON answers are compressed for a client that
// accepts gzip, with Vary: Accept-Encoding either way, and still revalidate with a 304; the
// pictures pass as they are.
func TestCompressAnswers(t *testing.T) {
	t.Parallel()
	set, err := loadPages()
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /static/", Pages())
	mux.HandleFunc("GET /api/v1/x", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"moves": strings.Repeat("e4 e5 Nf3 Nc6 ", 100)})
	})
	mux.HandleFunc("GET /picture.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte(strings.Repeat("P", 4000)))
	})
	srv := httptest.NewServer(compress(mux))
	t.Cleanup(srv.Close)

	js := set.static["play.js"]
	for _, tt := range []struct {
		path  string
		plain []byte
	}{
		{"/static/play.js?v=" + js.version, js.body},
		{"/static/style.css", set.static["style.css"].body},
		{"/static/words.js", set.static["words.js"].body},
	} {
		resp, body := get(t, srv, tt.path, "Accept-Encoding", "gzip, deflate, br")
		if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("GET %s: Content-Encoding %q, Vary %q", tt.path, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
		}
		if got := gunzip(t, body); string(got) != string(tt.plain) {
			t.Errorf("GET %s: the body unzipped differs (%d bytes, want %d)", tt.path, len(got), len(tt.plain))
		}
		if len(body)*2 > len(tt.plain) {
			t.Errorf("GET %s: %d bytes compressed of %d", tt.path, len(body), len(tt.plain))
		}
		tag := resp.Header.Get("ETag")
		if !strings.HasPrefix(tag, `W/"`) {
			t.Errorf("GET %s: compressed with the strong tag %q", tt.path, tag)
		}
		again, rest := get(t, srv, tt.path, "Accept-Encoding", "gzip", "If-None-Match", tag)
		if again.StatusCode != http.StatusNotModified || len(rest) != 0 || again.Header.Get("Content-Encoding") != "" {
			t.Errorf("GET %s with its tag: %d, %d bytes, Content-Encoding %q", tt.path, again.StatusCode, len(rest), again.Header.Get("Content-Encoding"))
		}
		plain, pbody := get(t, srv, tt.path)
		if plain.Header.Get("Content-Encoding") != "" || string(pbody) != string(tt.plain) || plain.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("GET %s without gzip: Content-Encoding %q, Vary %q, %d bytes", tt.path, plain.Header.Get("Content-Encoding"), plain.Header.Get("Vary"), len(pbody))
		}
		if plain.Header.Get("ETag") != `"`+strings.TrimSuffix(strings.TrimPrefix(tag, `W/"`), `"`)+`"` {
			t.Errorf("GET %s: tags %q plain, %q compressed", tt.path, plain.Header.Get("ETag"), tag)
		}
	}
	if _, body := get(t, srv, "/static/play.js", "Accept-Encoding", "gzip;q=0"); string(body) != string(js.body) {
		t.Error("compressed for a client that refuses gzip (q=0)")
	}
	// A range is not served of a compressed answer: the whole body comes.
	if resp, body := get(t, srv, "/static/play.js", "Accept-Encoding", "gzip", "Range", "bytes=0-9"); resp.StatusCode != 200 || string(gunzip(t, body)) != string(js.body) {
		t.Errorf("a range of a compressed answer: %d", resp.StatusCode)
	}

	resp, body := get(t, srv, "/api/v1/x", "Accept-Encoding", "gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(string(gunzip(t, body)), "Nf3 Nc6") {
		t.Errorf("JSON: %v, %d bytes", resp.Header, len(body))
	}
	resp, body = get(t, srv, "/picture.png", "Accept-Encoding", "gzip")
	if resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Vary") != "" || len(body) != 4000 {
		t.Errorf("a picture: %v, %d bytes", resp.Header, len(body))
	}
}

// Ensure an event stream passes uncompressed and each event reaches the client when it is
// written, while the stream goes on: nothing waits in a compressor's buffer.
func TestCompressLeavesStreams(t *testing.T) {
	t.Parallel()
	next := make(chan string)
	srv := httptest.NewServer(compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		if err := rc.Flush(); err != nil {
			t.Errorf("flush: %v", err)
			return
		}
		for {
			select {
			case <-r.Context().Done():
				return
			case ev := <-next:
				io.WriteString(w, "event: record\ndata: "+ev+"\n\n")
				if err := rc.Flush(); err != nil {
					t.Errorf("flush: %v", err)
					return
				}
			}
		}
	})))
	t.Cleanup(srv.Close)
	req, err := http.NewRequest("GET", srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ce := resp.Header.Get("Content-Encoding"); ce != "" {
		t.Fatalf("the stream is sent with Content-Encoding %q", ce)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				lines <- sc.Text()
			}
		}
		close(lines)
	}()
	for _, ev := range []string{"1", "2", "3"} {
		select {
		case next <- ev:
		case <-time.After(wait.Hang):
			t.Fatal("the handler does not take the event")
		}
		select {
		case got := <-lines:
			if got != "data: "+ev {
				t.Fatalf("read %q, want data: %s", got, ev)
			}
		case <-time.After(wait.Hang):
			t.Fatalf("event %s written and flushed but not received", ev)
		}
	}
}
