package sessionpg_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/sessionpg"
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
func (c *clock) rules() *sessions.QuestSessions {
	return &sessions.QuestSessions{Now: c.now}
}

// fixture is a database with a bot, users 1..n, a session type and a quest using it; each user
// gets a running game of the quest (game), as the quest player would start it.
type fixture struct {
	pool    *pgxpool.Pool
	service int
	script  int64
	typ     int
	games   map[int]int64
}

func newFixture(t *testing.T, users, minPlayers, maxPlayers int) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{pool: pgtest.New(t), games: map[int]int64{}}
	err := f.pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('mp_bot') RETURNING id`).Scan(&f.service)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) SELECT n, n, 'U' || n FROM generate_series(1, $1) n`, users); err != nil {
		t.Fatal(err)
	}
	err = f.pool.QueryRow(ctx, `INSERT INTO session_type (name, min_players, max_players, index_param, start_param, param_count)
		VALUES ('t', $1, $2, 1, 2, 1) RETURNING id`, minPlayers, maxPlayers).Scan(&f.typ)
	if err != nil {
		t.Fatal(err)
	}
	err = f.pool.QueryRow(ctx, `INSERT INTO script (name, common_name, file, language, session_type_id)
		VALUES ('Q', 'q', 'q.qmm', 'en', $1) RETURNING id`, f.typ).Scan(&f.script)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= users; n++ {
		f.game(t, n, false)
	}
	return f
}

// in runs fn in a transaction.
func (f *fixture) in(t *testing.T, fn func(tx pgx.Tx) error) {
	t.Helper()
	if err := pgx.BeginFunc(context.Background(), f.pool, fn); err != nil {
		t.Fatal(err)
	}
}

// game starts a new game of the quest for user n (replacing their running one).
func (f *fixture) game(t *testing.T, n int, sandbox bool) {
	t.Helper()
	store := questpg.New()
	g := &questpg.Game{Service: f.service, User: int64(n), Script: questpg.Script{ID: f.script}, MoneyParam: -1,
		State: quest.State{Phase: quest.PhaseLocation, Params: make([]int, 8), Shown: make(quest.Flags, 8)}}
	f.in(t, func(tx pgx.Tx) error {
		if sandbox {
			return store.StartSandbox(context.Background(), tx, g)
		}
		return store.Launch(context.Background(), tx, g, func(int64) int64 { return 0 })
	})
	f.games[n] = g.ID
}

// end ends user n's game, as a win, a cancel or a replacement would.
func (f *fixture) end(t *testing.T, n int) {
	t.Helper()
	f.in(t, func(tx pgx.Tx) error { return questpg.New().Abandon(context.Background(), tx, f.service, int64(n)) })
}

// member is user n playing their game.
func (f *fixture) member(n int) sessions.Member {
	return sessions.Member{Service: f.service, User: int64(n), Chat: int64(n), Game: f.games[n], Name: fmt.Sprintf("U%d", n), Lang: "en"}
}

func (f *fixture) quest(sandbox bool) sessions.Quest {
	return sessions.Quest{Script: f.script, Type: f.typ, Name: "q", Params: 8, Sandbox: sandbox}
}

func (f *fixture) join(t *testing.T, m *sessions.QuestSessions, n int, sandbox bool) sessions.QuestOutcome {
	t.Helper()
	var out sessions.QuestOutcome
	f.in(t, func(tx pgx.Tx) (err error) {
		out, err = m.Join(context.Background(), sessionpg.NewQuests(tx), f.member(n), f.quest(sandbox),
			sessions.Point{Kind: sessions.Join, Timeout: 10 * time.Second})
		return err
	})
	return out
}

func (f *fixture) post(t *testing.T, m *sessions.QuestSessions, n, move int) sessions.QuestOutcome {
	t.Helper()
	var out sessions.QuestOutcome
	f.in(t, func(tx pgx.Tx) (err error) {
		out, err = m.Post(context.Background(), sessionpg.NewQuests(tx), f.member(n), f.quest(false),
			sessions.Point{Kind: sessions.Barrier, Timeout: 5 * time.Second}, []int{n, move, 0, 0, 0, 0, 0, 0})
		return err
	})
	return out
}

// tick settles every due session, each in a transaction of its own, as the quest player's timer
// job does, and returns the players to resume.
func (f *fixture) tick(t *testing.T, m *sessions.QuestSessions) []sessions.Resume {
	t.Helper()
	ctx := context.Background()
	due, err := sessionpg.DueQuestSessions(ctx, f.pool, m.Now(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var rs []sessions.Resume
	for _, d := range due {
		f.in(t, func(tx pgx.Tx) error {
			st := sessionpg.NewQuests(tx)
			s, err := st.LockQuestSession(ctx, d.ID)
			if err != nil || s == nil {
				return err
			}
			r, err := m.Settle(ctx, st, s)
			rs = append(rs, r...)
			return err
		})
	}
	return rs
}

// list returns the bot's sessions.
func (f *fixture) list(t *testing.T) []*sessions.QuestSession {
	t.Helper()
	list, err := sessionpg.QuestSessionsOf(context.Background(), f.pool, f.service)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// Ensure a developer's sandbox game never meets a counted game of the same quest, and sandbox
// games meet each other.
func TestSandboxSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 3, 2, 2)
	f.game(t, 2, true)
	f.game(t, 3, true)
	m := newClock().rules()
	if a := f.join(t, m, 1, false); a.Proceed {
		t.Fatalf("the counted game proceeded alone: %+v", a)
	}
	if b := f.join(t, m, 2, true); b.Proceed || b.Wait == nil {
		t.Fatalf("the sandbox game joined the counted one: %+v", b)
	}
	c := f.join(t, m, 3, true)
	if !c.Proceed || len(c.Resume) != 1 || c.Resume[0].Game != f.games[2] {
		t.Fatalf("the second sandbox game: %+v, want it to fill the first's session", c)
	}
	var open, sandboxes int
	for _, s := range f.list(t) {
		if s.Status == sessions.QuestOpen && !s.Sandbox {
			open++
		}
		if s.Status == sessions.QuestPlaying && s.Sandbox {
			sandboxes++
		}
	}
	if open != 1 || sandboxes != 1 {
		t.Errorf("sessions: %d open counted, %d playing sandbox; want 1 and 1", open, sandboxes)
	}
}

// Ensure two players join one session, the second starts it and the first is resumed with its
// number; a round completes when both have posted, with every block in every slot; showing a
// point again changes nothing; and all of it is stored.
func TestJoinAndRound(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2, 2, 2)
	c := newClock()
	m := c.rules()
	a := f.join(t, m, 1, false)
	if a.Proceed || a.Wait == nil || a.Wait.Kind != sessions.Join || !slices.Equal(a.Wait.Joined, []string{"U1"}) || a.Wait.Need != 2 {
		t.Fatalf("first join: %+v (wait %+v)", a, a.Wait)
	}
	if !a.Wait.Deadline.Equal(c.now().Add(10 * time.Second)) {
		t.Errorf("join deadline %v, want 10 s from now", a.Wait.Deadline)
	}
	if again := f.join(t, m, 1, false); again.Proceed || again.Wait == nil || again.Wait.Ref != a.Wait.Ref {
		t.Errorf("joining again: %+v, want the same wait", again)
	}
	b := f.join(t, m, 2, false)
	if !b.Proceed || b.Set[0] != 2 || len(b.Resume) != 1 {
		t.Fatalf("second join: %+v", b)
	}
	if r := b.Resume[0]; r.Game != f.games[1] || r.Kind != sessions.Join || r.Set[0] != 1 || r.Ref != a.Wait.Ref {
		t.Errorf("resume of the first: %+v", r)
	}
	if again := f.join(t, m, 1, false); !again.Proceed || again.Set[0] != 1 {
		t.Errorf("the first at its !session again: %+v", again)
	}
	p1 := f.post(t, m, 1, 3)
	if p1.Proceed || p1.Wait == nil || p1.Wait.Kind != sessions.Barrier || !slices.Equal(p1.Wait.For, []string{"U2"}) {
		t.Fatalf("first post: %+v (wait %+v)", p1, p1.Wait)
	}
	if !p1.Wait.Deadline.Equal(c.now().Add(5 * time.Second)) {
		t.Errorf("round deadline %v, want 5 s from now", p1.Wait.Deadline)
	}
	if again := f.post(t, m, 1, 1); again.Proceed || again.Wait.Ref != p1.Wait.Ref {
		t.Errorf("posting again: %+v", again)
	}
	var w *sessions.Waiting
	f.in(t, func(tx pgx.Tx) (err error) {
		w, err = m.Waiting(context.Background(), sessionpg.NewQuests(tx), f.games[1])
		return err
	})
	if w == nil || !slices.Equal(w.For, []string{"U2"}) {
		t.Errorf("Waiting = %+v", w)
	}
	p2 := f.post(t, m, 2, 1)
	want := fmt.Sprint(sessions.Values{2: 3, 3: 1}) // p3 = player 1's block, p4 = player 2's
	if !p2.Proceed || fmt.Sprint(p2.Set) != want || len(p2.Resume) != 1 {
		t.Fatalf("second post: %+v, want set %v", p2, want)
	}
	if r := p2.Resume[0]; r.Game != f.games[1] || r.Kind != sessions.Barrier || fmt.Sprint(r.Set) != want {
		t.Errorf("resume of the first: %+v", r)
	}
	if p2.Seed == "" || p2.Resume[0].Seed != p2.Seed {
		t.Errorf("seeds %q and %q, want one shared seed", p2.Seed, p2.Resume[0].Seed)
	}
	// The next round starts empty, without a deadline.
	list := f.list(t)
	if len(list) != 1 || list[0].Round != 2 || !list[0].Deadline.IsZero() || len(list[0].Blocks) != 0 {
		t.Errorf("after the round: %+v", list)
	}
	var names []string
	f.in(t, func(tx pgx.Tx) (err error) {
		names, err = m.Names(context.Background(), sessionpg.NewQuests(tx), f.games[2])
		return err
	})
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
			m := newClock().rules()
			var wg sync.WaitGroup
			start := make(chan struct{})
			errs := make(chan error, tc.players)
			for n := 1; n <= tc.players; n++ {
				wg.Go(func() {
					<-start
					errs <- pgx.BeginFunc(context.Background(), f.pool, func(tx pgx.Tx) error {
						_, err := m.Join(context.Background(), sessionpg.NewQuests(tx), f.member(n), f.quest(false),
							sessions.Point{Kind: sessions.Join})
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
			full, total := 0, 0
			for _, s := range f.list(t) {
				if len(s.Players) > tc.max {
					t.Errorf("session with %d players, max %d", len(s.Players), tc.max)
				}
				for i, p := range s.Players {
					if p.Num != i+1 {
						t.Errorf("numbers %+v", s.Players)
					}
				}
				if s.Status == sessions.QuestPlaying {
					full++
				} else if len(s.Players) == tc.max {
					t.Errorf("a full session is %s", s.Status)
				}
				total += len(s.Players)
			}
			if total != tc.players || full != tc.players/tc.max {
				t.Errorf("%d players in sessions, %d full; want %d and %d", total, full, tc.players, tc.players/tc.max)
			}
			// The stored counter agrees, and the database refuses an overfull session itself.
			var bad int
			if err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM quest_session s
				WHERE s.players <> (SELECT count(*) FROM quest_session_player p WHERE p.session_id = s.id)`).Scan(&bad); err != nil || bad != 0 {
				t.Errorf("%d sessions whose counter is off (%v)", bad, err)
			}
		})
	}
}

// Ensure the deadlines: a session nobody else joins falls back to the bot when its joining ends;
// a round one player misses ends the session, the player who posted goes on against the bot at
// once (index and slots 0, told who was late), and the late player gets the same, with their own
// notice, when they reach the barrier.
func TestDeadlines(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 3, 2, 2)
	c := newClock()
	m := c.rules()
	f.join(t, m, 1, false)
	f.join(t, m, 2, false)
	f.join(t, m, 3, false) // alone in a second session
	f.post(t, m, 1, 2)
	if rs := f.tick(t, m); len(rs) != 0 {
		t.Fatalf("a tick before any deadline: %+v", rs)
	}
	c.advance(6 * time.Second) // past the round's deadline, not yet past the joining's
	fallback := fmt.Sprint(sessions.Values{0: 0, 2: 0, 3: 0})
	rs := f.tick(t, m)
	if len(rs) != 1 || rs[0].Game != f.games[1] || rs[0].Kind != sessions.Barrier || fmt.Sprint(rs[0].Set) != fallback ||
		*rs[0].Notice != (sessions.Notice{Reason: sessions.ReasonTimeout, By: "U2"}) {
		t.Fatalf("after the round's deadline: %+v", rs)
	}
	late := f.post(t, m, 2, 1)
	if !late.Proceed || fmt.Sprint(late.Set) != fallback ||
		*late.Notice != (sessions.Notice{Reason: sessions.ReasonTimeout, By: "U2", Self: true}) {
		t.Fatalf("the late player: %+v", late)
	}
	// The late player was the last of the session: it is gone.
	if list := f.list(t); len(list) != 1 || list[0].Status != sessions.QuestOpen {
		t.Fatalf("sessions %+v, want the open one", list)
	}
	c.advance(5 * time.Second) // past the joining's deadline
	rs = f.tick(t, m)
	if len(rs) != 1 || rs[0].Game != f.games[3] || rs[0].Kind != sessions.Join || fmt.Sprint(rs[0].Set) != fmt.Sprint(sessions.Values{0: 0}) ||
		rs[0].Notice.Reason != sessions.ReasonAlone {
		t.Fatalf("after the joining's deadline: %+v", rs)
	}
	if list := f.list(t); len(list) != 0 {
		t.Errorf("%d sessions left", len(list))
	}
	// A barrier outside any session plays the bot.
	if out := f.post(t, m, 3, 1); !out.Proceed || out.Notice != nil || out.Set[0] != 0 {
		t.Errorf("a barrier outside a session: %+v", out)
	}
}

// Ensure a three-player type starts at its joining deadline with its minimum, and that the end of
// a player's game (its row deleted) takes the player out of its session: from an open one, the
// later players move up a number; from one being played, the waiting player goes on alone.
func TestMinimumAndLeaving(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 3, 2, 3)
	c := newClock()
	m := c.rules()
	f.join(t, m, 1, false)
	f.join(t, m, 2, false)
	f.end(t, 1)
	f.tick(t, m)
	list := f.list(t)
	if len(list) != 1 || len(list[0].Players) != 1 || list[0].Players[0].Game != f.games[2] || list[0].Players[0].Num != 1 {
		t.Fatalf("after the first left: %+v", list)
	}
	f.join(t, m, 3, false)
	c.advance(11 * time.Second)
	rs := f.tick(t, m)
	slices.SortFunc(rs, func(a, b sessions.Resume) int { return int(a.Game - b.Game) })
	if len(rs) != 2 || rs[0].Game != f.games[2] || rs[0].Set[0] != 1 || rs[1].Game != f.games[3] || rs[1].Set[0] != 2 ||
		rs[0].Notice != nil {
		t.Fatalf("at the deadline with two of three: %+v", rs)
	}
	f.post(t, m, 2, 1)
	f.end(t, 3)
	rs = f.tick(t, m)
	if len(rs) != 1 || rs[0].Game != f.games[2] || *rs[0].Notice != (sessions.Notice{Reason: sessions.ReasonLeft, By: "U3"}) {
		t.Fatalf("after a player left: %+v", rs)
	}
}

// Ensure two processes settling the same due sessions at once settle each exactly once: a
// session one holds is skipped by the other.
func TestSettleOnce(t *testing.T) {
	t.Parallel()
	const players = 20
	f := newFixture(t, players, 2, 2)
	c := newClock()
	m := c.rules()
	for n := 1; n <= players; n++ {
		f.join(t, m, n, false)
	}
	for n := 1; n <= players; n += 2 {
		f.post(t, m, n, 1) // one of each pair posts; the other misses the round
	}
	c.advance(time.Minute)
	ctx := context.Background()
	due, err := sessionpg.DueQuestSessions(ctx, f.pool, c.now(), 100)
	if err != nil || len(due) != players/2 {
		t.Fatalf("%d due sessions (%v), want %d", len(due), err, players/2)
	}
	var settled atomic.Int32
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for _, d := range due {
				err := pgx.BeginFunc(ctx, f.pool, func(tx pgx.Tx) error {
					st := sessionpg.NewQuests(tx)
					s, err := st.LockQuestSession(ctx, d.ID)
					if err != nil || s == nil {
						return err
					}
					rs, err := m.Settle(ctx, st, s)
					settled.Add(int32(len(rs)))
					// Hold the lock a little, as a job that moves games on does.
					time.Sleep(time.Millisecond)
					return err
				})
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if n := settled.Load(); n != players/2 {
		t.Errorf("%d players resumed, want %d: each session settled once", n, players/2)
	}
	if rs := f.tick(t, m); len(rs) != 0 {
		t.Errorf("a later tick settled again: %+v", rs)
	}
}
