package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/sessions/tournament"
)

// tournamentStream is an open event stream of a tournament, read in a goroutine: the events of
// its record, each checked to be sent with its number as its SSE id, and the resets.
type tournamentStream struct {
	events chan boards.TournamentEvent
	resets chan int64
	hangUp func()
}

// openTournament opens a tournament's event stream as someone not logged in; with last >= 0
// it resumes after the event numbered last, by the Last-Event-ID header or, with byQuery, the
// query parameter.
func (e *env) openTournament(t *testing.T, id, last int64, byQuery bool) *tournamentStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	u := fmt.Sprintf("%s/api/v1/tournaments/%d/events", e.srv.URL, id)
	if last >= 0 && byQuery {
		u += "?" + web.LastEventParam + "=" + strconv.FormatInt(last, 10)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if last >= 0 && !byQuery {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("events of tournament %d: %s", id, resp.Status)
	}
	ts := &tournamentStream{events: make(chan boards.TournamentEvent, 1000), resets: make(chan int64, 10),
		hangUp: func() { cancel(); resp.Body.Close() }}
	go readSSE(resp.Body, func(ev sseEvent) bool {
		switch ev.name {
		case web.ResetEvent:
			n, err := strconv.ParseInt(ev.id, 10, 64)
			if err != nil {
				t.Errorf("a reset with the id %q", ev.id)
				return false
			}
			ts.resets <- n
		case web.RecordEvent:
			var rec boards.TournamentEvent
			if err := json.Unmarshal([]byte(ev.data), &rec); err != nil {
				t.Errorf("an event of the record %q: %v", ev.data, err)
				return false
			}
			if strconv.FormatInt(rec.ID, 10) != ev.id {
				t.Errorf("event %d sent with the id %q", rec.ID, ev.id)
			}
			ts.events <- rec
		}
		return true
	})
	return ts
}

// until reads the stream's events until the one numbered last, and returns them all.
func (ts *tournamentStream) until(t *testing.T, what string, last int64) []boards.TournamentEvent {
	t.Helper()
	var got []boards.TournamentEvent
	deadline := time.After(bottest.Timeout)
	for {
		select {
		case ev := <-ts.events:
			got = append(got, ev)
			if ev.ID >= last {
				return got
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s; got %s", what, describeTournament(got))
			return nil
		}
	}
}

// describeTournament writes events as number and kind.
func describeTournament(evs []boards.TournamentEvent) string {
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = fmt.Sprintf("%d:%s", e.ID, e.Kind)
	}
	return strings.Join(parts, " ")
}

// tournamentRecord reads a tournament's events numbered above after from the record.
func (e *env) tournamentRecord(t *testing.T, id, after int64) []boards.TournamentEvent {
	t.Helper()
	evs, err := boards.TournamentEventsAfter(context.Background(), e.Pool, id, after, 10000)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// startTournamentHub runs a tournament hub over the env's database until the test ends and
// serves the tournaments' calls from it.
func (e *env) startTournamentHub(t *testing.T) {
	t.Helper()
	hub := web.NewTournamentHub(e.Pool, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		hub.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	e.cfg.Tournaments, e.cfg.TournamentEvents = e.app.Tournaments, hub
	e.serve()
}

// Ensure a tournament's stream carries its numbered record: every change of the tournament
// once, in order, with what a page renders (the players by their numbers and public names, the
// games paired and finished); a stream cut in the middle and opened again after the last number
// it got (Last-Event-ID, or the query parameter) receives exactly the events it missed, in
// order, across a restart of the web server too (a new hub and server over the same database);
// and a stream that names no number, or one the record does not hold, opens with a reset
// numbered with the tournament's last event.
func TestTournamentStreamResumesFromRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	e.startTournamentHub(t)
	const admin, ann, boris, cleo, dasha int64 = 1, 2, 3, 4, 5
	for u, name := range map[int64]string{admin: "Ada", ann: "Ann", boris: "Boris", cleo: "Cleo", dasha: "Dasha"} {
		e.login(t, u, name)
	}
	do := func(fn func(ctx context.Context, tx bot.Tx) error) { t.Helper(); e.do(t, fn) }
	var tt *tournament.Tournament
	do(func(ctx context.Context, tx bot.Tx) error {
		var err error
		tt, err = e.app.Tournaments.Create(ctx, tx, boards.Player{Service: e.service, User: admin}, true,
			boards.TournamentSpec{Variant: "russian", Control: "5+3", System: tournament.RoundRobinSystem,
				StartsAt: e.clock.now().Add(time.Minute)})
		return err
	})
	join := func(user int64) {
		t.Helper()
		do(func(ctx context.Context, tx bot.Tx) error {
			return e.app.Tournaments.Join(ctx, tx, boards.Player{Service: e.service, User: user}, tt.ID, false)
		})
	}
	leave := func(user int64) {
		t.Helper()
		do(func(ctx context.Context, tx bot.Tx) error {
			return e.app.Tournaments.Leave(ctx, tx, boards.Player{Service: e.service, User: user}, tt.ID)
		})
	}
	lastOf := func() int64 {
		t.Helper()
		last, err := boards.TournamentLastEvent(context.Background(), e.Pool, tt.ID)
		if err != nil {
			t.Fatal(err)
		}
		return last
	}
	// check reads the stream until the record's last event and wants exactly the record's
	// events after after, in order; it returns them.
	check := func(stage string, s *tournamentStream, after int64) []boards.TournamentEvent {
		t.Helper()
		want := e.tournamentRecord(t, tt.ID, after)
		if len(want) == 0 {
			t.Fatalf("%s: the record has nothing after %d", stage, after)
		}
		got := s.until(t, stage, want[len(want)-1].ID)
		if describeTournament(got) != describeTournament(want) {
			t.Fatalf("%s: the stream gave %s, want what was missed: %s", stage, describeTournament(got), describeTournament(want))
		}
		return got
	}

	// A new stream opens with a reset numbered with the last event: the creation.
	created := lastOf()
	if evs := e.tournamentRecord(t, tt.ID, 0); len(evs) != 1 || evs[0].Kind != boards.TournamentCreated || evs[0].ID != created {
		t.Fatalf("the record of a new tournament: %s", describeTournament(evs))
	}
	s := e.openTournament(t, tt.ID, -1, false)
	select {
	case n := <-s.resets:
		if n != created {
			t.Fatalf("a new stream's reset is numbered %d, want %d", n, created)
		}
	case <-time.After(bottest.Timeout):
		t.Fatal("a new stream sent no reset")
	}
	join(ann)
	join(boris)
	got := check("two joins", s, created)
	for i, name := range []string{"Ann", "Boris"} {
		if d := got[i].Data; got[i].Kind != boards.TournamentJoined || d.Player != i+1 || d.Name != name || d.Players != i+1 ||
			d.State != "created" || got[i].Tournament != tt.ID {
			t.Fatalf("the join of %s: %+v", name, got[i])
		}
	}
	s.hangUp()
	last := got[len(got)-1].ID

	// Three changes while the stream is cut.
	join(cleo)
	leave(ann)
	join(dasha)
	s = e.openTournament(t, tt.ID, last, false)
	got = check("a reconnection", s, last)
	if d := got[1].Data; got[1].Kind != boards.TournamentLeft || d.Player != 1 || d.Name != "Ann" || d.Players != 2 {
		t.Fatalf("Ann's leave: %+v", got[1])
	}
	s.hangUp()
	last = got[len(got)-1].ID

	// The tournament starts while the stream is cut, and the server restarts: another hub and
	// server over the same database.
	e.clock.advance(2 * time.Minute)
	if err := e.app.Tournaments.Tournaments(context.Background(), boards.DoerOf(e.proc.Transport.Do)); err != nil {
		t.Fatal(err)
	}
	e.startTournamentHub(t)
	s = e.openTournament(t, tt.ID, last, true)
	got = check("a reconnection after a restart", s, last)
	if len(got) != 2 || got[0].Kind != boards.TournamentStarted || got[1].Kind != boards.TournamentPaired ||
		got[1].Data.State != "running" || got[1].Data.Round != 1 || len(got[1].Data.Games) != 2 {
		t.Fatalf("the start: %+v", got)
	}
	var game boards.TournamentEventGame
	for _, g := range got[1].Data.Games {
		if !g.Bye {
			game = g
		}
	}
	if game.Board == 0 || game.White == 0 || game.Black == 0 || game.Result != "" {
		t.Fatalf("the game paired: %+v", got[1].Data.Games)
	}
	last = got[len(got)-1].ID

	// The stream goes on live: the game's result, and the next round it completes.
	do(func(ctx context.Context, tx bot.Tx) error {
		var player int64
		for _, p := range []int64{boris, cleo, dasha} {
			if n := map[int64]int{boris: 1, cleo: 2, dasha: 3}[p]; n == game.White {
				player = p
			}
		}
		h, err := e.app.Boards.Take(ctx, tx, boards.Player{Service: e.service, User: player}, game.Board)
		if err != nil {
			return err
		}
		return h.Act(ctx, boards.Action{Op: boards.OpResign, Ply: h.Board.Ply()})
	})
	got = check("a live result", s, last)
	if len(got) != 2 || got[0].Kind != boards.TournamentResult || got[1].Kind != boards.TournamentPaired ||
		len(got[0].Data.Games) != 1 || got[0].Data.Games[0].Board != game.Board || got[0].Data.Games[0].Result != "black" ||
		got[1].Data.Round != 2 {
		t.Fatalf("the result: %+v", got)
	}

	// A number the record does not hold: a reset, numbered with the last event.
	last = got[len(got)-1].ID
	r := e.openTournament(t, tt.ID, last+1000, false)
	select {
	case n := <-r.resets:
		if n != last {
			t.Fatalf("the reset of an unknown number is numbered %d, want %d", n, last)
		}
	case <-time.After(bottest.Timeout):
		t.Fatal("a stream of an unknown number sent no reset")
	}
}
