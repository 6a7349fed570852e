package migrations_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/migrations"
)

// Ensure migration 028 carries the Elo ratings over as Glicko-2 ratings: a player with rated
// games keeps the Elo number as the rating, with RD 200, σ 0.06 and their last game's time; one
// without keeps 1500 ± 350; the results stay as they were.
func TestRatingsCarryOver(t *testing.T) {
	ctx := context.Background()
	conn := emptyDatabase(t, "ratings_carry_over")
	if err := migrations.MigrateTo(ctx, conn, 27); err != nil {
		t.Fatal(err)
	}
	last := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	var svc int
	if err := conn.QueryRow(ctx, `INSERT INTO service (username) VALUES ('elo_bot') RETURNING id`).Scan(&svc); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES (1, 1, 'A'), (2, 2, 'B'), (3, 3, 'C')`); err != nil {
		t.Fatal(err)
	}
	_, err := conn.Exec(ctx, `
		INSERT INTO board_stats (service_id, user_id, variant, played, won, lost, drawn, rated, rating, updated_at) VALUES
			($1, 1, 'chess', 12, 8, 3, 1, 10, 1687, $2),
			($1, 2, 'chess', 10, 3, 7, 0, 10, 1433, $2),
			($1, 3, 'chess', 4, 0, 4, 0, 0, 1500, $2)`, svc, last)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrations.MigrateTo(ctx, conn, 28); err != nil {
		t.Fatal(err)
	}
	type carried struct {
		played, rated int
		rating, rd    float64
		vol           float64
		ratedAt       *time.Time
	}
	want := map[int64]carried{
		1: {12, 10, 1687, 200, 0.06, &last},
		2: {10, 10, 1433, 200, 0.06, &last},
		3: {4, 0, 1500, 350, 0.06, nil},
	}
	rows, _ := conn.Query(ctx, `SELECT user_id, played, rated, rating, deviation, volatility, rated_at FROM board_stats ORDER BY user_id`)
	n := 0
	var user int64
	var got carried
	_, err = pgx.ForEachRow(rows, []any{&user, &got.played, &got.rated, &got.rating, &got.rd, &got.vol, &got.ratedAt}, func() error {
		n++
		w := want[user]
		sameTime := (w.ratedAt == nil) == (got.ratedAt == nil) && (w.ratedAt == nil || w.ratedAt.Equal(*got.ratedAt))
		if got.played != w.played || got.rated != w.rated || got.rating != w.rating || got.rd != w.rd || got.vol != w.vol || !sameTime {
			t.Errorf("user %d after 028: %+v (rated at %v), want %+v (rated at %v)", user, got, got.ratedAt, w, w.ratedAt)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("%d rows, %v", n, err)
	}
	var history int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM board_rating_history`).Scan(&history); err != nil || history != 0 {
		t.Errorf("history after the carry-over: %d rows, %v", history, err)
	}
	// The rest of the migrations still apply.
	if err := migrations.Apply(ctx, conn); err != nil {
		t.Fatal(err)
	}
}
