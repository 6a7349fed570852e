package migrations_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/migrations"
)

// Ensure migration 041 parts board_message into the Telegram view's sent times
// (board_telegram_message) and the players' last actions on the web (board_web_presence): each
// mark a row had moves to its table with its seat, a row without a mark of a kind leaves none
// there, board_message is gone, and the new rows go with their board.
func TestSeatMarksParted(t *testing.T) {
	ctx := context.Background()
	conn := emptyDatabase(t, "seat_marks_parted")
	if err := migrations.MigrateTo(ctx, conn, 40); err != nil {
		t.Fatal(err)
	}
	sent := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	web := sent.Add(time.Hour)
	var svc int
	if err := conn.QueryRow(ctx, `INSERT INTO service (username) VALUES ('board_bot') RETURNING id`).Scan(&svc); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES (1, 1, 'A')`); err != nil {
		t.Fatal(err)
	}
	var a, b int64
	for _, id := range []*int64{&a, &b} {
		err := conn.QueryRow(ctx, `
			INSERT INTO board_session (service_id, variant, seed, clock_mode, status, created_by, created_at,
				start_position, position, to_move)
			VALUES ($1, 'russian', 1, 'none', 'active', 1, now(), 'start', 'start', 0) RETURNING id`, svc).Scan(id)
		if err != nil {
			t.Fatal(err)
		}
	}
	// Board a: seat 0 sent and on the web, seat 1 sent only; board b: seat 1 on the web only.
	_, err := conn.Exec(ctx, `
		INSERT INTO board_message (board_id, seat, sent_at, web_at) VALUES
			($1, 0, $3, $4), ($1, 1, $3, NULL), ($2, 1, NULL, $4)`, a, b, sent, web)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrations.MigrateTo(ctx, conn, 41); err != nil {
		t.Fatal(err)
	}

	type mark struct {
		board int64
		seat  int
		at    time.Time
	}
	read := func(sql string) []mark {
		t.Helper()
		rows, _ := conn.Query(ctx, sql)
		list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (mark, error) {
			var m mark
			err := r.Scan(&m.board, &m.seat, &m.at)
			m.at = m.at.UTC()
			return m, err
		})
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	same := func(what string, got, want []mark) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
			return
		}
		for i := range got {
			if got[i].board != want[i].board || got[i].seat != want[i].seat || !got[i].at.Equal(want[i].at) {
				t.Errorf("%s: %v, want %v", what, got, want)
				return
			}
		}
	}
	same("the Telegram sent times",
		read(`SELECT board_id, seat, sent_at FROM board_telegram_message ORDER BY board_id, seat`),
		[]mark{{a, 0, sent}, {a, 1, sent}})
	same("the players on the web",
		read(`SELECT board_id, seat, acted_at FROM board_web_presence ORDER BY board_id, seat`),
		[]mark{{a, 0, web}, {b, 1, web}})
	var left *string
	if err := conn.QueryRow(ctx, `SELECT to_regclass('board_message')::text`).Scan(&left); err != nil || left != nil {
		t.Errorf("board_message after migration 041: %v, %v", left, err)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM board_session WHERE id = $1`, a); err != nil {
		t.Fatal(err)
	}
	var n int
	err = conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM board_telegram_message) + (SELECT count(*) FROM board_web_presence WHERE board_id = $1)`, a).Scan(&n)
	if err != nil || n != 0 {
		t.Errorf("%d marks of a removed board left: %v", n, err)
	}
}
