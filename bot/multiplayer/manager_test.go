package multiplayer

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/migrations/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// clock is a test clock that moves only when told.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }
func (c *clock) manager() *Manager       { return New(Config{Now: c.now}) }

// fixture is a database with a bot, users 1..n and a quest bound to a session type.
type fixture struct {
	pool    *pgxpool.Pool
	service int
	script  int64
}

// newFixture makes the database: a type for min..max players, [p1] the number, [p2] the block
// of one parameter, and a quest of 8 parameters using it.
func newFixture(t *testing.T, users, minPlayers, maxPlayers int) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{pool: pgtest.New(t)}
	err := f.pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('mp_bot') RETURNING id`).Scan(&f.service)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) SELECT n, n, 'U' || n FROM generate_series(1, $1) n`, users); err != nil {
		t.Fatal(err)
	}
	var typ int
	err = f.pool.QueryRow(ctx, `INSERT INTO session_type (name, min_players, max_players, index_param, start_param, param_count)
		VALUES ('t', $1, $2, 1, 2, 1) RETURNING id`, minPlayers, maxPlayers).Scan(&typ)
	if err != nil {
		t.Fatal(err)
	}
	err = f.pool.QueryRow(ctx, `INSERT INTO script (name, common_name, file, language, session_type_id)
		VALUES ('Q', 'q', 'q.qmm', 'en', $1) RETURNING id`, typ).Scan(&f.script)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// member is user n playing game 100+n.
func (f *fixture) member(n int) Member {
	return Member{Service: f.service, User: int64(n), Chat: int64(n), Game: int64(100 + n), Name: fmt.Sprintf("U%d", n), Lang: "en"}
}

func (f *fixture) quest() Quest { return Quest{Script: f.script, Params: 8} }

// game gives user n a game row (the job takes players without one for gone).
func (f *fixture) game(t *testing.T, n int) {
	t.Helper()
	_, err := f.pool.Exec(context.Background(), `INSERT INTO game (service_id, user_id, script_id, game_id, state)
		VALUES ($1, $2, $3, $4, '{}')`, f.service, n, f.script, 100+n)
	if err != nil {
		t.Fatal(err)
	}
}

// in runs fn in a transaction.
func (f *fixture) in(t *testing.T, fn func(tx pgx.Tx) error) {
	t.Helper()
	if err := pgx.BeginFunc(context.Background(), f.pool, fn); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) join(t *testing.T, m *Manager, n int) Outcome {
	t.Helper()
	return f.joinAs(t, m, n, f.quest())
}

func (f *fixture) joinAs(t *testing.T, m *Manager, n int, q Quest) Outcome {
	t.Helper()
	var out Outcome
	f.in(t, func(tx pgx.Tx) (err error) {
		out, err = m.Join(context.Background(), tx, f.member(n), q, Point{Kind: Join, Timeout: 10 * time.Second})
		return err
	})
	return out
}

// Ensure a developer's sandbox game never meets a counted game of the same quest, and sandbox
// games meet each other.
func TestSandboxSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 3, 2, 2)
	m := newClock().manager()
	sandbox := f.quest()
	sandbox.Sandbox = true
	if a := f.join(t, m, 1); a.Proceed {
		t.Fatalf("the counted game proceeded alone: %+v", a)
	}
	if b := f.joinAs(t, m, 2, sandbox); b.Proceed || b.Wait == nil {
		t.Fatalf("the sandbox game joined the counted one: %+v", b)
	}
	c := f.joinAs(t, m, 3, sandbox)
	if !c.Proceed || len(c.Resume) != 1 || c.Resume[0].Game != 102 {
		t.Fatalf("the second sandbox game: %+v, want it to fill the first's session", c)
	}
	var open, sandboxes int
	err := f.pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE state = 'open' AND NOT sandbox),
		count(*) FILTER (WHERE state = 'playing' AND sandbox) FROM quest_session`).Scan(&open, &sandboxes)
	if err != nil || open != 1 || sandboxes != 1 {
		t.Errorf("sessions: %d open counted, %d playing sandbox (%v); want 1 and 1", open, sandboxes, err)
	}
}

func (f *fixture) post(t *testing.T, m *Manager, n, move int) Outcome {
	t.Helper()
	var out Outcome
	f.in(t, func(tx pgx.Tx) (err error) {
		out, err = m.Post(context.Background(), tx, f.member(n), f.quest(), Point{Kind: Barrier, Timeout: 5 * time.Second},
			[]int{n, move, 0, 0, 0, 0, 0, 0})
		return err
	})
	return out
}

// recorder is a Resumer that notes what it is asked to resume.
type recorder struct {
	mu sync.Mutex
	rs []Resume
}

func (r *recorder) Resume(ctx context.Context, tx bot.Tx, rs []Resume) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rs = append(r.rs, rs...)
	return tx.Send(ctx, bot.DeleteRef(rs[0].Chat, rs[0].Ref))
}

func (r *recorder) take() []Resume {
	r.mu.Lock()
	defer r.mu.Unlock()
	rs := r.rs
	r.rs = nil
	return rs
}

func TestParsePoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want Point
		ok   bool
	}{
		{"!session 120000", Point{Join, 2 * time.Minute}, true},
		{"  !wait 30000 ", Point{Barrier, 30 * time.Second}, true},
		{"!session", Point{Join, 0}, true},
		{"!WAIT", Point{Barrier, 0}, true},
		{"!wait soon", Point{Barrier, 0}, true},
		{"!wait 10", Point{Barrier, MinTimeout}, true},
		{"!wait 999999999999", Point{Barrier, MaxTimeout}, true},
		{"!sessions 5", Point{}, false},
		{"!waiting", Point{}, false},
		{"wait 5", Point{}, false},
		{"", Point{}, false},
	} {
		got, ok := ParsePoint(tc.text)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParsePoint(%q) = %+v, %v; want %+v, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
}

// Ensure two players join one session, the second starts it and the first is resumed with its
// number; a round completes when both have posted, with every block in every slot; showing a
// point again changes nothing.
func TestJoinAndRound(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2, 2, 2)
	c := newClock()
	m := c.manager()
	a := f.join(t, m, 1)
	if a.Proceed || a.Wait == nil || a.Wait.Kind != Join || !slices.Equal(a.Wait.Joined, []string{"U1"}) || a.Wait.Need != 2 {
		t.Fatalf("first join: %+v (wait %+v)", a, a.Wait)
	}
	if !a.Wait.Deadline.Equal(c.now().Add(10 * time.Second)) {
		t.Errorf("join deadline %v, want 10 s from now", a.Wait.Deadline)
	}
	if again := f.join(t, m, 1); again.Proceed || again.Wait == nil || again.Wait.Ref != a.Wait.Ref {
		t.Errorf("joining again: %+v, want the same wait", again)
	}
	b := f.join(t, m, 2)
	if !b.Proceed || b.Set[0] != 2 || len(b.Resume) != 1 {
		t.Fatalf("second join: %+v", b)
	}
	if r := b.Resume[0]; r.Game != 101 || r.Kind != Join || r.Set[0] != 1 || r.Ref != a.Wait.Ref {
		t.Errorf("resume of the first: %+v", r)
	}
	if again := f.join(t, m, 1); !again.Proceed || again.Set[0] != 1 {
		t.Errorf("the first at its !session again: %+v", again)
	}

	p1 := f.post(t, m, 1, 3)
	if p1.Proceed || p1.Wait == nil || p1.Wait.Kind != Barrier || !slices.Equal(p1.Wait.For, []string{"U2"}) {
		t.Fatalf("first post: %+v (wait %+v)", p1, p1.Wait)
	}
	if !p1.Wait.Deadline.Equal(c.now().Add(5 * time.Second)) {
		t.Errorf("round deadline %v, want 5 s from now", p1.Wait.Deadline)
	}
	if again := f.post(t, m, 1, 1); again.Proceed || again.Wait.Ref != p1.Wait.Ref {
		t.Errorf("posting again: %+v", again)
	}
	var w *Waiting
	f.in(t, func(tx pgx.Tx) (err error) { w, err = m.Waiting(context.Background(), tx, 101); return err })
	if w == nil || w.Answer("en") != "Waiting for U2…" {
		t.Errorf("Waiting = %+v", w)
	}
	p2 := f.post(t, m, 2, 1)
	want := Values{2: 3, 3: 1} // p3 = player 1's block, p4 = player 2's
	if !p2.Proceed || fmt.Sprint(p2.Set) != fmt.Sprint(want) || len(p2.Resume) != 1 {
		t.Fatalf("second post: %+v, want set %v", p2, want)
	}
	if r := p2.Resume[0]; r.Game != 101 || r.Kind != Barrier || fmt.Sprint(r.Set) != fmt.Sprint(want) {
		t.Errorf("resume of the first: %+v", r)
	}
	if p2.Seed == "" || p2.Resume[0].Seed != p2.Seed {
		t.Errorf("seeds %q and %q, want one shared seed", p2.Seed, p2.Resume[0].Seed)
	}
	// The next round starts empty, without a deadline.
	var round int
	var deadline *time.Time
	if err := f.pool.QueryRow(context.Background(), `SELECT round, deadline FROM quest_session`).Scan(&round, &deadline); err != nil {
		t.Fatal(err)
	}
	if round != 2 || deadline != nil {
		t.Errorf("after the round: round %d, deadline %v", round, deadline)
	}
	var names []string
	f.in(t, func(tx pgx.Tx) (err error) { names, err = m.Names(context.Background(), tx, 102); return err })
	if !slices.Equal(names, []string{"U1", "U2"}) {
		t.Errorf("Names = %v", names)
	}
}

// Ensure many players joining at the same instant never overfill a session, and fill the
// sessions they can: 2n players of a two-player type make n full sessions; for a three-player
// type, sessions of three and one open with the rest.
func TestConcurrentJoins(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ players, max int }{{40, 2}, {31, 3}} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tc.players, tc.max, tc.max)
			m := newClock().manager()
			var wg sync.WaitGroup
			start := make(chan struct{})
			errs := make(chan error, tc.players)
			for n := 1; n <= tc.players; n++ {
				wg.Go(func() {
					<-start
					errs <- pgx.BeginFunc(context.Background(), f.pool, func(tx pgx.Tx) error {
						_, err := m.Join(context.Background(), tx, f.member(n), f.quest(), Point{Kind: Join})
						return err
					})
				})
			}
			close(start)
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			rows, err := f.pool.Query(context.Background(), `
				SELECT s.state, s.players, count(p.*), array_agg(p.num ORDER BY p.num)
				FROM quest_session s JOIN quest_session_player p ON p.session_id = s.id GROUP BY s.id`)
			if err != nil {
				t.Fatal(err)
			}
			full, total := 0, 0
			for rows.Next() {
				var state string
				var players, count int
				var nums []int32
				if err := rows.Scan(&state, &players, &count, &nums); err != nil {
					t.Fatal(err)
				}
				if count > tc.max || players != count {
					t.Errorf("session with %d players (counter %d), max %d", count, players, tc.max)
				}
				for i, n := range nums {
					if int(n) != i+1 {
						t.Errorf("numbers %v", nums)
					}
				}
				if state == statePlaying {
					full++
				} else if count == tc.max {
					t.Errorf("a full session is %s", state)
				}
				total += count
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if total != tc.players || full != tc.players/tc.max {
				t.Errorf("%d players in sessions, %d full; want %d and %d", total, full, tc.players, tc.players/tc.max)
			}
		})
	}
}

// Ensure the deadlines: a session nobody else joins falls back to the bot when its joining
// ends; a round one player misses ends the session, the player who posted goes on against the
// bot at once (index and slots 0, told who was late), and the late player gets the same, with
// their own notice, when they reach the barrier.
func TestDeadlines(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 3, 2, 2)
	c := newClock()
	m := c.manager()
	r := &recorder{}
	ctx := context.Background()
	for n := 1; n <= 3; n++ {
		f.game(t, n)
	}
	f.join(t, m, 1)
	f.join(t, m, 2)
	f.join(t, m, 3) // alone in a second session
	f.post(t, m, 1, 2)
	if n, err := m.Tick(ctx, f.pool, r); err != nil || n != 0 {
		t.Fatalf("Tick before any deadline: %d, %v", n, err)
	}
	c.advance(6 * time.Second) // past the round's deadline, not yet past the joining's
	if _, err := m.Tick(ctx, f.pool, r); err != nil {
		t.Fatal(err)
	}
	rs := r.take()
	if len(rs) != 1 || rs[0].Game != 101 || rs[0].Kind != Barrier || fmt.Sprint(rs[0].Set) != fmt.Sprint(Values{0: 0, 2: 0, 3: 0}) ||
		rs[0].Notice != "U2 did not move in time: you go on against the bot." {
		t.Fatalf("after the round's deadline: %+v", rs)
	}
	late := f.post(t, m, 2, 1)
	if !late.Proceed || fmt.Sprint(late.Set) != fmt.Sprint(Values{0: 0, 2: 0, 3: 0}) ||
		late.Notice != "You did not move in time: you go on against the bot." {
		t.Fatalf("the late player: %+v", late)
	}
	// The late player was the last of the session: it is gone.
	var sessions int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM quest_session`).Scan(&sessions); err != nil || sessions != 1 {
		t.Fatalf("%d sessions, want the open one (%v)", sessions, err)
	}
	c.advance(5 * time.Second) // past the joining's deadline
	if _, err := m.Tick(ctx, f.pool, r); err != nil {
		t.Fatal(err)
	}
	rs = r.take()
	if len(rs) != 1 || rs[0].Game != 103 || rs[0].Kind != Join || fmt.Sprint(rs[0].Set) != fmt.Sprint(Values{0: 0}) ||
		rs[0].Notice != "Nobody joined in time: you play against the bot." {
		t.Fatalf("after the joining's deadline: %+v", rs)
	}
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM quest_session`).Scan(&sessions); err != nil || sessions != 0 {
		t.Errorf("%d sessions left (%v)", sessions, err)
	}
	var outbox int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE target_ref IS NOT NULL`).Scan(&outbox); err != nil || outbox != 2 {
		t.Errorf("%d job requests in the outbox, want 2 (%v)", outbox, err)
	}
	// A barrier outside any session plays the bot.
	if out := f.post(t, m, 3, 1); !out.Proceed || out.Notice != "" || out.Set[0] != 0 {
		t.Errorf("a barrier outside a session: %+v", out)
	}
}

// Ensure a three-player type starts at its joining deadline with its minimum, and a player
// leaving an open session moves the later ones up a number.
func TestMinimumAndLeaving(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 3, 2, 3)
	c := newClock()
	m := c.manager()
	r := &recorder{}
	ctx := context.Background()
	for n := 1; n <= 3; n++ {
		f.game(t, n)
		f.join(t, m, n)
	}
	// Three joined: the session is full and started.
	var state string
	if err := f.pool.QueryRow(ctx, `SELECT state FROM quest_session`).Scan(&state); err != nil || state != statePlaying {
		t.Fatalf("state %q (%v)", state, err)
	}
	if _, err := f.pool.Exec(ctx, `DELETE FROM quest_session; DELETE FROM game WHERE user_id = 1`); err != nil {
		t.Fatal(err)
	}
	f.game(t, 1)
	f.join(t, m, 1)
	f.join(t, m, 2)
	if _, err := f.pool.Exec(ctx, `DELETE FROM game WHERE user_id = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Tick(ctx, f.pool, r); err != nil {
		t.Fatal(err)
	}
	var num int
	if err := f.pool.QueryRow(ctx, `SELECT num FROM quest_session_player WHERE game_id = 102`).Scan(&num); err != nil || num != 1 {
		t.Fatalf("the second player's number after the first left: %d (%v)", num, err)
	}
	f.join(t, m, 3)
	c.advance(11 * time.Second)
	if _, err := m.Tick(ctx, f.pool, r); err != nil {
		t.Fatal(err)
	}
	rs := r.take()
	slices.SortFunc(rs, func(a, b Resume) int { return int(a.Game - b.Game) })
	if len(rs) != 2 || rs[0].Game != 102 || rs[0].Set[0] != 1 || rs[1].Game != 103 || rs[1].Set[0] != 2 || rs[0].Notice != "" {
		t.Fatalf("at the deadline with two of three: %+v", rs)
	}
	// A player whose game ends leaves a session being played: the waiting one goes on alone.
	f.post(t, m, 2, 1)
	if _, err := f.pool.Exec(ctx, `DELETE FROM game WHERE user_id = 3`); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Tick(ctx, f.pool, r); err != nil {
		t.Fatal(err)
	}
	rs = r.take()
	if len(rs) != 1 || rs[0].Game != 102 || rs[0].Notice != "U3 has left the game: you go on against the bot." {
		t.Fatalf("after a player left: %+v", rs)
	}
}
