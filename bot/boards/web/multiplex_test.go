package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/sessions/tournament"
)

// muxed is an open multiplexed stream (GET /api/v1/events): its events as they come, closed
// when it ends.
type muxed struct {
	events chan sseEvent
	ended  chan struct{}
	hangUp func()
}

// mux opens the multiplexed stream with query (game=<id>[:<last>]...) and the client's
// credentials; when it is refused, it returns the status and the error's code.
func (c *client) mux(t *testing.T, query string) (*muxed, int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.e.srv.URL+"/api/v1/events?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.cookie != "" {
		req.AddCookie(&http.Cookie{Name: web.CookieName, Value: c.cookie})
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		var ae apiError
		data, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(data, &ae); err != nil {
			t.Fatalf("events %s: %s %q", query, resp.Status, data)
		}
		return nil, resp.StatusCode, ae.Error.Code
	}
	m := &muxed{events: make(chan sseEvent, 1000), ended: make(chan struct{}), hangUp: func() { cancel(); resp.Body.Close() }}
	go func() {
		defer close(m.ended)
		defer resp.Body.Close()
		readSSE(resp.Body, func(ev sseEvent) bool { m.events <- ev; return true })
	}()
	return m, http.StatusOK, ""
}

// mustMux opens a multiplexed stream that must open.
func (c *client) mustMux(t *testing.T, query string) *muxed {
	t.Helper()
	m, status, code := c.mux(t, query)
	if m == nil {
		t.Fatalf("events %s: %d %s, want a stream", query, status, code)
	}
	return m
}

// next reads the stream's next event.
func (m *muxed) next(t *testing.T, what string) (sseEvent, map[string]any) {
	t.Helper()
	select {
	case ev := <-m.events:
		var d map[string]any
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil {
			t.Fatalf("%s: the event %+v: %v", what, ev, err)
		}
		return ev, d
	case <-m.ended:
		t.Fatalf("%s: the stream ended", what)
	case <-time.After(bottest.Timeout):
		t.Fatalf("timed out waiting for %s", what)
	}
	return sseEvent{}, nil
}

// want reads the stream's next event and checks its name and the numbers its data holds.
func (m *muxed) want(t *testing.T, what, name string, fields map[string]int64) map[string]any {
	t.Helper()
	ev, d := m.next(t, what)
	if ev.name != name || ev.id != "" {
		t.Fatalf("%s: got %+v, want a %s event without an id", what, ev, name)
	}
	for k, v := range fields {
		if n, ok := d[k].(float64); !ok || int64(n) != v {
			t.Fatalf("%s: got %s, want %s %d", what, ev.data, k, v)
		}
	}
	return d
}

// ends waits for the stream to end.
func (m *muxed) ends(t *testing.T, what string) {
	t.Helper()
	for {
		select {
		case ev := <-m.events:
			t.Logf("%s: before the end: %+v", what, ev)
		case <-m.ended:
			return
		case <-time.After(wait.Hang):
			t.Fatalf("%s: the stream is still open", what)
		}
	}
}

// Ensure one multiplexed stream carries the events of several games, each numbered as in its
// own stream and named by its board; cut and opened again with the number each game reached, it
// sends exactly what each missed, in order; a number a game's record does not hold resets that
// game alone; a game the caller may not watch is refused in the stream, the others followed.
func TestMultiplexResumesEachGame(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann, boris, carol := e.login(t, 1, "Ann"), e.login(t, 2, "Boris"), e.login(t, 3, "Carol")
	g1, by1 := e.gameOf(t, ann, boris)
	g2, by2 := e.gameOf(t, ann, carol)
	last := func(g int64) int64 {
		n, err := boards.LastEvent(context.Background(), e.Pool, g)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	l1, l2 := last(g1), last(g2)
	m := ann.mustMux(t, fmt.Sprintf("game=%d&game=%d", g1, g2))
	m.want(t, "game 1 followed", web.MuxFollowing, map[string]int64{"game": g1, "last": l1})
	m.want(t, "game 2 followed", web.MuxFollowing, map[string]int64{"game": g2, "last": l2})
	playFirst(t, g1, by1)
	d := m.want(t, "the move in game 1", web.RecordEvent, map[string]int64{"board": g1, "ply": 1})
	l1 = int64(d["id"].(float64))
	playFirst(t, g2, by2)
	d = m.want(t, "the move in game 2", web.RecordEvent, map[string]int64{"board": g2, "ply": 1})
	l2 = int64(d["id"].(float64))

	// The cut: two moves in game 1 and one in game 2 are missed, and come when the stream is
	// opened again after the numbers reached, each game's in order.
	m.hangUp()
	playFirst(t, g1, by1)
	playFirst(t, g2, by2)
	playFirst(t, g1, by1)
	m = ann.mustMux(t, fmt.Sprintf("game=%d:%d,%d:%d", g1, l1, g2, l2))
	m.want(t, "game 1 followed again", web.MuxFollowing, map[string]int64{"game": g1, "last": l1})
	m.want(t, "game 2 followed again", web.MuxFollowing, map[string]int64{"game": g2, "last": l2})
	plies := map[int64][]int64{}
	for range 3 {
		ev, d := m.next(t, "a missed move")
		if ev.name != web.RecordEvent {
			t.Fatalf("a missed move: %+v", ev)
		}
		plies[int64(d["board"].(float64))] = append(plies[int64(d["board"].(float64))], int64(d["ply"].(float64)))
	}
	if fmt.Sprint(plies[g1]) != "[2 3]" || fmt.Sprint(plies[g2]) != "[2]" {
		t.Fatalf("the missed moves: game 1 %v, game 2 %v; want [2 3] and [2]", plies[g1], plies[g2])
	}
	select {
	case ev := <-m.events:
		t.Fatalf("after what was missed: %+v", ev)
	default:
	}
	m.hangUp()

	// A number game 2's record does not hold resets game 2 alone; a game of others, closed to
	// spectators, is refused and the stream goes on with the rest.
	dave, erin := e.login(t, 4, "Dave"), e.login(t, 5, "Erin")
	closed, _ := e.gameOf(t, dave, erin)
	l1, l2 = last(g1), last(g2)
	m = ann.mustMux(t, fmt.Sprintf("game=%d:%d&game=%d:%d&game=%d", g1, l1, g2, l2+1000, closed))
	m.want(t, "game 1 resumed", web.MuxFollowing, map[string]int64{"game": g1, "last": l1})
	m.want(t, "game 2 from its last event", web.MuxFollowing, map[string]int64{"game": g2, "last": l2})
	m.want(t, "game 2 reset", web.ResetEvent, map[string]int64{"id": g2, "last": l2})
	m.want(t, "the closed game refused", web.MuxRefused, map[string]int64{"game": closed, "status": http.StatusNotFound})
	playFirst(t, g2, by2)
	m.want(t, "a move in game 2 after the reset", web.RecordEvent, map[string]int64{"board": g2})

	// What is not a list of games is refused as a whole.
	for _, q := range []string{"", "game=x", fmt.Sprintf("game=%d&game=%d", g1, g1), fmt.Sprintf("game=%d:-1", g1)} {
		if _, status, code := ann.mux(t, q); status != http.StatusBadRequest || code != "bad_request" {
			t.Errorf("events?%s: %d %s, want 400 bad_request", q, status, code)
		}
	}
}

// Ensure a multiplexed stream counts once against the per-user stream limit, however many games
// it follows, and is counted once in the hub's open streams; a stream closed makes room again.
func TestMultiplexStreamLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Streams: 2})
	ann := e.login(t, 1, "Ann")
	var games []string
	for i := range 4 {
		id, _ := e.gameOf(t, ann, e.login(t, int64(2+i), fmt.Sprintf("P%d", i)))
		games = append(games, fmt.Sprint(id))
	}
	q := "game=" + strings.Join(games, ",")
	m1, m2 := ann.mustMux(t, q), ann.mustMux(t, q)
	for _, m := range []*muxed{m1, m2} {
		for range games {
			m.want(t, "a game followed", web.MuxFollowing, nil)
		}
	}
	if n := testutil.ToFloat64(e.hub.Metrics().Streams); n != 2 {
		t.Fatalf("%v streams open, want 2", n)
	}
	if _, status, code := ann.mux(t, q); status != http.StatusTooManyRequests || code != "too_many_streams" {
		t.Fatalf("a third stream: %d %s, want 429 too_many_streams", status, code)
	}
	if status, code, _ := ann.stream(t, mustInt(t, games[0])); status != http.StatusTooManyRequests || code != "too_many_streams" {
		t.Fatalf("a game's own stream beside two multiplexed ones: %d %s, want 429 too_many_streams", status, code)
	}
	m1.hangUp()
	wait.For(t, wait.Hang, "the stream's slot given back", func() bool {
		m, _, _ := ann.mux(t, q)
		if m == nil {
			return false
		}
		m.hangUp()
		return true
	})
}

// mustInt reads a number.
func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Ensure a multiplexed stream ends with its credentials, as a game's own: a spectator's follow
// of a game ends when the players switch spectators off (the stream says so and goes on with
// the others), and the whole stream ends at the logout.
func TestMultiplexStreamRevoked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann, boris, carol := e.login(t, 1, "Ann"), e.login(t, 2, "Boris"), e.login(t, 3, "Carol")
	watchedGame, _ := e.gameOf(t, ann, boris)
	own, byOwn := e.gameOf(t, carol, boris)
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", watchedGame), map[string]any{"allow": true}, http.StatusOK, nil)
	m := carol.mustMux(t, fmt.Sprintf("game=%d&game=%d", watchedGame, own))
	m.want(t, "the watched game followed", web.MuxFollowing, map[string]int64{"game": watchedGame})
	m.want(t, "her own game followed", web.MuxFollowing, map[string]int64{"game": own})
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", watchedGame), map[string]any{"allow": false}, http.StatusOK, nil)
	// The switch is an event of the watched game's record, which may come before its end.
	for {
		ev, d := m.next(t, "the end of the watched game's follow")
		if ev.name == web.RecordEvent && int64(d["board"].(float64)) == watchedGame {
			continue
		}
		if ev.name != web.MuxEnded || int64(d["game"].(float64)) != watchedGame {
			t.Fatalf("got %+v, want the end of the follow of game %d", ev, watchedGame)
		}
		break
	}
	playFirst(t, own, byOwn)
	m.want(t, "a move of her own game after", web.RecordEvent, map[string]int64{"board": own})
	at := time.Now()
	carol.must(t, "POST", "/logout", nil, http.StatusNoContent, nil)
	m.ends(t, "logout")
	t.Logf("the stream ended %v after the logout", time.Since(at).Round(time.Millisecond))
	wait.For(t, wait.Hang, "the stream counted closed", func() bool { return testutil.ToFloat64(e.hub.Metrics().Streams) == 0 })
}

// Ensure a multiplexed stream follows a tournament beside a game: named without a number it
// opens with a tournament_reset numbered with the tournament's last event; each change comes as
// a tournament event numbered as in the tournament's own stream; named with the number reached
// after a cut, it sends exactly what was missed.
func TestMultiplexTournament(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	e.startTournamentHub(t)
	ann, boris := e.login(t, 1, "Ann"), e.login(t, 2, "Boris")
	game, _ := e.gameOf(t, ann, boris)
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 2`)
	var tt *tournament.Tournament
	if err := e.proc.Transport.Do(context.Background(), e.service, func(ctx context.Context, tx bot.Tx) error {
		var err error
		tt, err = e.app.Tournaments.Create(ctx, tx, boards.Player{Service: e.service, User: 2}, true,
			boards.TournamentSpec{Variant: "russian", Control: "5+3", System: tournament.RoundRobinSystem,
				StartsAt: e.clock.now().Add(time.Hour)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// change has a player join the tournament, or leave it again.
	joined := false
	change := func() {
		t.Helper()
		if err := e.proc.Transport.Do(context.Background(), e.service, func(ctx context.Context, tx bot.Tx) error {
			p := boards.Player{Service: e.service, User: 2}
			if joined {
				return e.app.Tournaments.Leave(ctx, tx, p, tt.ID)
			}
			return e.app.Tournaments.Join(ctx, tx, p, tt.ID, false)
		}); err != nil {
			t.Fatal(err)
		}
		joined = !joined
	}
	last, err := boards.TournamentLastEvent(context.Background(), e.Pool, tt.ID)
	if err != nil {
		t.Fatal(err)
	}
	m := ann.mustMux(t, fmt.Sprintf("game=%d&tournament=%d", game, tt.ID))
	m.want(t, "the game followed", web.MuxFollowing, map[string]int64{"game": game})
	m.want(t, "the tournament followed", web.MuxFollowing, map[string]int64{"tournament": tt.ID, "last": last})
	m.want(t, "the tournament's reset", web.MuxTournamentReset, map[string]int64{"id": tt.ID, "last": last})
	change()
	d := m.want(t, "the join", web.MuxTournament, map[string]int64{"tournament": tt.ID})
	reached := int64(d["id"].(float64))
	if reached <= last {
		t.Fatalf("the join is numbered %d, after %d", reached, last)
	}
	m.hangUp()
	change()
	change()
	m = ann.mustMux(t, fmt.Sprintf("tournament=%d:%d", tt.ID, reached))
	m.want(t, "the tournament followed again", web.MuxFollowing, map[string]int64{"tournament": tt.ID, "last": reached})
	var got []int64
	for range 2 {
		d := m.want(t, "a missed change", web.MuxTournament, map[string]int64{"tournament": tt.ID})
		got = append(got, int64(d["id"].(float64)))
	}
	if want := tournamentIDs(t, e, tt.ID, reached); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the missed changes %v, want %v", got, want)
	}
}

// tournamentIDs are the numbers of a tournament's events after after.
func tournamentIDs(t *testing.T, e *env, id, after int64) []int64 {
	t.Helper()
	var out []int64
	for _, ev := range e.tournamentRecord(t, id, after) {
		out = append(out, ev.ID)
	}
	return out
}
