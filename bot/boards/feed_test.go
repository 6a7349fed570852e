package boards_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/sessions/board/boardpg"
)

// feedBoard creates a board to record events of, and returns its id.
func feedBoard(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	ctx := context.Background()
	var service int
	if err := pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('feed_bot_' || (SELECT count(*) FROM service))
		RETURNING id`).Scan(&service); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES (101, 101, 'Ann') ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	var id int64
	err := pool.QueryRow(ctx, `
		INSERT INTO board_session (service_id, variant, seed, clock_mode, status, created_by, created_at,
			start_position, position, to_move)
		VALUES ($1, 'russian', 1, 'none', 'active', 101, now(), 'start', 'start', 0)
		RETURNING id`, service).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// appendEvents commits n events of a board, one transaction each, and returns their numbers.
func appendEvents(t *testing.T, pool *pgxpool.Pool, board int64, n int) []int64 {
	t.Helper()
	var ids []int64
	for i := range n {
		err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
			evs := []boardpg.EventRow{{Board: board, Kind: boards.EventKindMoved, Seat: i % 2, Actor: i % 2, Source: "web",
				Ply: i + 1, Heard: [2]string{"unheard", "now"}, Data: []byte(fmt.Sprintf(`{"move":"m%d","status":"active"}`, i)),
				At: time.Now()}}
			if err := boardpg.New(tx).AppendEvents(context.Background(), evs, nil); err != nil {
				return err
			}
			ids = append(ids, evs[0].ID)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// collect reads a subscription until it has returned the events numbered want, in order, and
// fails on anything else.
func collect(t *testing.T, pool *pgxpool.Pool, s *boards.Subscription, want []int64) {
	t.Helper()
	var got []int64
	deadline := time.After(listenLimit)
	for len(got) < len(want) {
		select {
		case <-s.C:
		case <-deadline:
			t.Fatalf("timed out: got %v, want %v", got, want)
		}
		evs, err := s.Next(context.Background(), pool)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			got = append(got, e.ID)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the events %v, want %v", got, want)
	}
}

// runFeed runs a feed on pool until the test ends and waits until it listens.
func runFeed(t *testing.T, pool *pgxpool.Pool) *boards.Feed {
	t.Helper()
	f := boards.NewFeed(pool, "", nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	wait.For(t, listenLimit, "the feed to listen", f.Listening)
	return f
}

// Ensure the feed hands each subscriber of a board the board's events committed after its
// start, in order, and none of another board's; a subscriber that reads nothing while many
// events commit never holds the others back, and gets every event it missed, once, in order,
// from the record.
func TestFeedHandsOutEvents(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	f := runFeed(t, pool)
	a, b := feedBoard(t, pool), feedBoard(t, pool)
	before := appendEvents(t, pool, a, 2)
	fast := f.Subscribe(a, before[1])
	defer fast.Close()
	slow := f.Subscribe(a, before[0])
	defer slow.Close()
	other := f.Subscribe(b, 0)
	defer other.Close()

	// More events than a subscription holds unread.
	const n = 300
	var ids []int64
	for range 3 {
		batch := appendEvents(t, pool, a, n/3)
		collect(t, pool, fast, batch)
		ids = append(ids, batch...)
	}
	collect(t, pool, slow, append([]int64{before[1]}, ids...))
	bs := appendEvents(t, pool, b, 1)
	collect(t, pool, other, bs)
}

// Ensure the feed catches up after its connection is lost: the events committed while it did
// not listen reach the subscribers once it listens again, in order, and the later ones after.
func TestFeedCatchesUp(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	f := runFeed(t, pool)
	id := feedBoard(t, pool)
	s := f.Subscribe(id, 0)
	defer s.Close()
	first := appendEvents(t, pool, id, 1)
	collect(t, pool, s, first)

	if cut(t, pool, boards.FeedName) != 1 {
		t.Fatal("the feed's connection was not found")
	}
	missed := appendEvents(t, pool, id, 3)
	wait.For(t, listenLimit, "the feed to listen again", func() bool { return len(listeners(t, pool, boards.FeedName)) == 1 && f.Listening() })
	later := appendEvents(t, pool, id, 1)
	collect(t, pool, s, append(missed, later...))
}
