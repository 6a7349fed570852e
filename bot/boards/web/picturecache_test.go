package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards/web"
)

// Ensure each picture is encoded once per version and format, however often and by whom it is
// fetched (a board's picture as its seat sees it, the shared message's with its key, PNG and
// JPEG), and that the fetches with the key are limited per client address on the server's
// clock: past the burst an address is answered 429 with Retry-After, another address is not,
// and the first is let through again when its time has come.
func TestPictureCacheAndLimit(t *testing.T) {
	t.Parallel()
	proxies, err := web.ParseProxies("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, web.Config{PictureRate: 1, PictureBurst: 3, TrustedProxies: proxies})
	ann := e.login(t, 1, "Ann")
	bob := e.login(t, 2, "Bob")
	var g struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr3d"}, http.StatusCreated, &g)
	bob.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/join", g.ID), nil, http.StatusOK, nil)
	e.Exec(t, `INSERT INTO board_shared (board_id, chat_id, invite, picture) VALUES ($1, -100, 'code-1', true)`, g.ID)
	e.clock.frozen.Store(e.clock.now().UnixNano())
	address := func() string {
		t.Helper()
		u, err := e.app.Boards.SharedPictureURL(e.board(t, g.ID), "code-1")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimPrefix(u, e.srv.URL)
	}
	encodes := e.web.PictureEncodes
	fetch := func(c *client, path string, want int) []byte {
		t.Helper()
		code, hdr, body := c.call(t, "GET", path, nil)
		if code != want {
			t.Fatalf("GET %s: %d %v %.100s, want %d", path, code, hdr, body, want)
		}
		if code == http.StatusTooManyRequests && hdr.Get("Retry-After") != "1" {
			t.Fatalf("GET %s: Retry-After %q", path, hdr.Get("Retry-After"))
		}
		return body
	}
	telegram := (&client{e: e}).from("X-Forwarded-For", "203.0.113.7")
	other := (&client{e: e}).from("X-Forwarded-For", "198.51.100.9")

	jpg := address()
	first := fetch(telegram, jpg, http.StatusOK)
	if encodes() != 1 {
		t.Fatalf("%d encodes after the first fetch", encodes())
	}
	for range 2 {
		if again := fetch(telegram, jpg, http.StatusOK); !bytes.Equal(again, first) {
			t.Fatal("the picture fetched again differs")
		}
	}
	// The burst is spent: this address waits, another one does not.
	fetch(telegram, jpg, http.StatusTooManyRequests)
	fetch(other, jpg, http.StatusOK)
	png := strings.Replace(jpg, "/picture.jpg?", "/picture.png?", 1)
	fetch(other, png, http.StatusOK)
	if encodes() != 2 {
		t.Fatalf("%d encodes after the JPEG and the PNG, want 2", encodes())
	}
	// The same picture as a player sees it (White's, seat 0) is the same PNG; Black's is another.
	for range 3 {
		fetch(ann, fmt.Sprintf("/api/v1/games/%d/picture.png?seat=0", g.ID), http.StatusOK)
	}
	if encodes() != 2 {
		t.Fatalf("%d encodes after seat 0's PNG, want 2", encodes())
	}
	fetch(ann, fmt.Sprintf("/api/v1/games/%d/picture.png?seat=1", g.ID), http.StatusOK)
	fetch(bob, fmt.Sprintf("/api/v1/games/%d/picture.png?seat=1", g.ID), http.StatusOK)
	if encodes() != 3 {
		t.Fatalf("%d encodes after seat 1's PNG, want 3", encodes())
	}
	// A second later the first address may fetch one more.
	e.clock.frozen.Add(int64(time.Second))
	fetch(telegram, jpg, http.StatusOK)
	fetch(telegram, jpg, http.StatusTooManyRequests)
	if encodes() != 3 {
		t.Fatalf("%d encodes, want 3", encodes())
	}
	// A move makes a new picture, encoded once.
	white := ann
	if st := ann.state(t, g.ID); st.Seat != 0 {
		white = bob
	}
	st := white.state(t, g.ID)
	white.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", g.ID), map[string]any{"move": st.Legal[0].Text, "ply": st.Ply},
		http.StatusOK, nil)
	moved := address()
	if moved == jpg {
		t.Fatal("the address did not change with the move")
	}
	if pic := fetch(other, moved, http.StatusOK); bytes.Equal(pic, first) {
		t.Fatal("the picture after the move is the one before")
	}
	fetch(other, moved, http.StatusOK)
	if encodes() != 4 {
		t.Fatalf("%d encodes after the move's picture, want 4", encodes())
	}
}
