package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/questbot/questbot/bot/boards/web"
)

// Ensure the picture of a game at a past ply, as the review shows it: each ply has its own
// position, the last is the picture of the game now, the other seat's is the board the other
// way up, a ply past the game's is its position now, and a ply that is no number is refused.
func TestReviewPictures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	bob := e.login(t, 2, "Bob")
	id, _, _ := foolsMate(t, ann, bob, "corr1d")
	get := func(query string) []byte {
		t.Helper()
		code, hdr, body := ann.call(t, "GET", fmt.Sprintf("/api/v1/games/%d/picture.png?%s", id, query), nil)
		if code != http.StatusOK || hdr.Get("Content-Type") != "image/png" || len(body) == 0 {
			t.Fatalf("the picture ?%s: %d %s", query, code, hdr.Get("Content-Type"))
		}
		return body
	}
	now := get("seat=0")
	plies := map[int][]byte{}
	for ply := 0; ply <= 4; ply++ {
		plies[ply] = get(fmt.Sprintf("seat=0&ply=%d", ply))
		for before := range ply {
			if bytes.Equal(plies[before], plies[ply]) {
				t.Errorf("the pictures of plies %d and %d are the same", before, ply)
			}
		}
	}
	if !bytes.Equal(plies[4], now) || !bytes.Equal(get("seat=0&ply=9"), now) {
		t.Error("the picture of the last ply (or past it) is not the game's now")
	}
	if bytes.Equal(get("seat=1&ply=2"), plies[2]) {
		t.Error("the other seat's picture is the same")
	}
	ann.refused(t, "GET", fmt.Sprintf("/api/v1/games/%d/picture.png?ply=-1", id), nil, http.StatusBadRequest, "bad_request")
	ann.refused(t, "GET", fmt.Sprintf("/api/v1/games/%d/picture.png?ply=x", id), nil, http.StatusBadRequest, "bad_request")
}
