package web

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot/boards"
)

// PictureEncodes counts the pictures the server has read and encoded: the misses of its
// pictures' cache.
func (s *Server) PictureEncodes() int64 { return s.pics.encodes.Load() }

// AppendEvent appends an event of kind to a board's record in tx, numbered, and announces it at
// the commit, as the service's store does (a view's tests reach no store, so the SQL is
// written here); the caller holds the board's row lock. It returns the event, its time aside.
func AppendEvent(t *testing.T, tx pgx.Tx, board int64, kind string, seat, actor, ply int, d boards.EventData) boards.Event {
	t.Helper()
	ctx := context.Background()
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	e := boards.Event{Board: board, Kind: kind, Seat: seat, Actor: actor, By: "web", Ply: ply, Heard: [2]string{"unheard", "unheard"}, Data: d}
	if err := tx.QueryRow(ctx, `
		INSERT INTO board_event (board_id, kind, seat, actor, source, ply, heard, data, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		board, kind, seat, actor, e.By, ply, e.Heard[:], data, time.Now()).Scan(&e.ID); err != nil {
		t.Fatal(err)
	}
	// The channel of the record's announcements, "<board>:<its last event>" (the feed reads it).
	if _, err := tx.Exec(ctx, `SELECT pg_notify('board_event', $1)`, fmt.Sprintf("%d:%d", board, e.ID)); err != nil {
		t.Fatal(err)
	}
	return e
}
