package tournamentpg

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions/tournament"
)

// Ensure the record numbers a tournament's events in order, announces each transaction's last
// event of each tournament at the commit (nothing for a rolled back one), reads what a reader
// missed tournament by tournament, and goes with its tournament.
func TestTournamentEventRecord(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	var service int
	if err := pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('t') RETURNING id`).Scan(&service); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id) VALUES (1, 1)`); err != nil {
		t.Fatal(err)
	}
	var ids [2]int64
	for i := range ids {
		tt := &tournament.Tournament{Service: service, Variant: "russian", Control: "5+3", System: tournament.Swiss, Rounds: 3,
			MaxPlayers: 8, StartsAt: t0.Add(time.Hour), State: tournament.Created, Creator: 1, Created: t0}
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return New(tx).Create(ctx, tt) }); err != nil {
			t.Fatal(err)
		}
		ids[i] = tt.ID
	}
	listener, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Release()
	if _, err := listener.Exec(ctx, "LISTEN "+EventChannel); err != nil {
		t.Fatal(err)
	}
	appendRows := func(rows []EventRow) []EventRow {
		t.Helper()
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return New(tx).AppendEvents(ctx, rows) }); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	row := func(id int64, kind string) EventRow {
		return EventRow{Tournament: id, Kind: kind, Data: json.RawMessage(fmt.Sprintf(`{"kind":%q}`, kind)), At: t0}
	}
	first := appendRows([]EventRow{row(ids[0], "joined"), row(ids[1], "joined"), row(ids[0], "left")})
	if !(first[0].ID < first[1].ID && first[1].ID < first[2].ID) {
		t.Fatalf("numbers %d %d %d, want increasing", first[0].ID, first[1].ID, first[2].ID)
	}
	// A rolled back transaction announces nothing.
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := New(tx).AppendEvents(ctx, []EventRow{row(ids[1], "left")}); err != nil {
			return err
		}
		return fmt.Errorf("rolled back")
	})
	if err == nil {
		t.Fatal("the transaction committed")
	}
	second := appendRows([]EventRow{row(ids[1], "started")})
	waitCtx, cancel := context.WithTimeout(ctx, time.Minute) // bounds a hang only
	defer cancel()
	var got []string
	for len(got) < 3 {
		n, err := listener.Conn().WaitForNotification(waitCtx)
		if err != nil {
			t.Fatalf("notifications %v: %v", got, err)
		}
		got = append(got, n.Payload)
	}
	want := []string{fmt.Sprintf("%d:%d", ids[0], first[2].ID), fmt.Sprintf("%d:%d", ids[1], first[1].ID),
		fmt.Sprintf("%d:%d", ids[1], second[0].ID)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("notifications %v, want %v", got, want)
	}
	for _, p := range got {
		if tid, last, err := ParseEventPayload(p); err != nil || tid == 0 || last == 0 {
			t.Fatalf("ParseEventPayload(%q) = %d, %d, %v", p, tid, last, err)
		}
	}
	if _, _, err := ParseEventPayload("7"); err == nil {
		t.Fatal("a payload without a number was read")
	}

	// What a reader of both missed: the first's after its join, the second's from the start.
	evs, err := EventsAfter(ctx, pool, map[int64]int64{ids[0]: first[0].ID, ids[1]: 0}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	for _, e := range evs {
		read = append(read, fmt.Sprintf("%d:%d:%s:%s", e.ID, e.Tournament, e.Kind, e.Data))
	}
	wantRead := []string{
		fmt.Sprintf(`%d:%d:joined:{"kind": "joined"}`, first[1].ID, ids[1]),
		fmt.Sprintf(`%d:%d:left:{"kind": "left"}`, first[2].ID, ids[0]),
		fmt.Sprintf(`%d:%d:started:{"kind": "started"}`, second[0].ID, ids[1]),
	}
	if fmt.Sprint(read) != fmt.Sprint(wantRead) {
		t.Fatalf("EventsAfter: %v, want %v", read, wantRead)
	}
	if evs, err := EventsAfter(ctx, pool, map[int64]int64{ids[1]: 0}, 1); err != nil || len(evs) != 1 || evs[0].ID != first[1].ID {
		t.Fatalf("EventsAfter with a limit of 1: %v, %v", evs, err)
	}
	for i, want := range []int64{first[2].ID, second[0].ID} {
		if last, err := LastEvent(ctx, pool, ids[i]); err != nil || last != want {
			t.Fatalf("LastEvent of tournament %d = %d, %v; want %d", ids[i], last, err, want)
		}
	}
	// The events go with their tournament.
	if _, err := pool.Exec(ctx, `DELETE FROM tournament WHERE id = $1`, ids[0]); err != nil {
		t.Fatal(err)
	}
	if last, err := LastEvent(ctx, pool, ids[0]); err != nil || last != 0 {
		t.Fatalf("LastEvent of a deleted tournament = %d, %v", last, err)
	}
}
