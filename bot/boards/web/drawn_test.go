package web_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
)

// Ensure a move posted to the web API draws no picture inside its request while both players'
// Telegram boards are live: the boards it changes are drawn by the sender, as their requests
// go, and every Telegram board still ends on its game's position, picture and last move.
func TestWebMoveDrawsNoPicture(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann, boris := e.login(t, 1, "Ann"), e.login(t, 2, "Boris")
	var created struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &created)
	boris.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &created)
	id := created.ID
	e.WaitIdle(t)
	clients := map[int64]*client{1: ann, 2: boris}
	for ply := range 6 {
		// Counted over the whole test binary: a picture drawn in any web request but a
		// picture's is a failure, whichever test made it.
		inRequests, atSend := boards.PicturesDrawn(boards.DrawnWebRequest), boards.PicturesDrawn(boards.DrawnAtSend)
		bd := e.board(t, id)
		mover := clients[bd.Seats[bd.ToMove].User]
		st := mover.state(t, id)
		if st.Ply != ply || len(st.Legal) == 0 {
			t.Fatalf("ply %d: the mover's state at ply %d with %d moves", ply, st.Ply, len(st.Legal))
		}
		var next web.GameState
		mover.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": st.Legal[0].Text, "ply": ply},
			http.StatusOK, &next)
		if n := boards.PicturesDrawn(boards.DrawnWebRequest) - inRequests; n != 0 {
			t.Fatalf("ply %d: %d pictures drawn inside web requests", ply, n)
		}
		e.WaitIdle(t)
		if boards.PicturesDrawn(boards.DrawnAtSend) == atSend {
			t.Errorf("ply %d: no picture drawn as the Telegram boards were sent", ply)
		}
		bd = e.board(t, id)
		for seat, s := range bd.Seats {
			checkFinalBoard(t, e, bd, seat, s.User)
		}
	}
	// The web answers the picture the sender drew, as it is: a version is drawn once.
	bd := e.board(t, id)
	for seat, s := range bd.Seats {
		path, _, err := e.app.Boards.PictureFile(context.Background(), bd, seat)
		if err != nil {
			t.Fatal(err)
		}
		before, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(path)
		st := clients[s.User].state(t, id)
		code, _, got := clients[s.User].call(t, "GET", st.Picture.URL, nil)
		if code != http.StatusOK || !bytes.Equal(got, want) {
			t.Errorf("seat %d: the web's picture (%d) is not the one sent to Telegram", seat, code)
		}
		if after, err := os.Stat(path); err != nil || !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("seat %d: the web drew the picture the sender drew again", seat)
		}
	}
}
