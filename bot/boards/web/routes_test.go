package web_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// ringPosition is an International draughts position where White's man on 43 takes 38 and then
// the ring 27, 17, 18, 28 either way round, ending on 32: two routes over the same pieces.
const ringPosition = "W:W43:B27,17,18,28,38,35"

// Ensure a capture chain sent along another route than the engine's notation over the same
// pieces is played, not refused as illegal.
func TestMoveAlongAnotherRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	bob := e.login(t, 2, "Bob")
	var created struct {
		ID int64 `json:"id"`
	}
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "international", "control": "corr1d"}, http.StatusCreated, &created)
	id := created.ID
	bob.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/join", id), map[string]any{}, http.StatusOK, nil)
	g, err := engine.NewGame("international", engine.WithPosition(ringPosition))
	if err != nil {
		t.Fatal(err)
	}
	opts := board.Options{Start: ringPosition}.String()
	e.Exec(t, `UPDATE board_session SET options = $2, start_position = $3, position = $3, to_move = 0 WHERE id = $1`,
		id, opts, g.Position())
	white := ann
	if bd := e.board(t, id); bd.Seats[0].User == 2 {
		white = bob
	}
	st := white.state(t, id)
	if len(st.Legal) != 1 {
		t.Fatalf("legal moves %+v, want the one capture", st.Legal)
	}
	var after web.GameState
	white.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": "43x32x23x12x21x32", "ply": 0},
		http.StatusOK, &after)
	if after.Ply != 1 || len(after.Moves) != 1 || after.Moves[0].Text != st.Legal[0].Text {
		t.Fatalf("after the move: ply %d, moves %+v; want %s played", after.Ply, after.Moves, st.Legal[0].Text)
	}
}
