package boards_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/tournament"
)

// played is a result the test chose, as it chose it: white, black (0 for a bye) and the result.
type played struct {
	white, black int64
	r            tournament.Result
}

// line is a player's expected line of the standings: points in halves, Buchholz in halves,
// Sonneborn–Berger in quarters.
type line struct {
	user              int64
	score, buchholz   int
	sb, wins          int
	byes, games, rank int
}

// expect computes the standings of a round robin or a Swiss from the results the test chose,
// by the rules as docs/players.md states them (a win 1, a draw ½, a Swiss bye 1, a round robin's
// sit-out nothing; Buchholz the opponents'
// final scores; Sonneborn–Berger the beaten opponents' scores and half the drawn ones'; a round
// robin ranks by score, Sonneborn–Berger, wins; a Swiss by score, Buchholz, Sonneborn–Berger,
// wins; then, ratings being equal here, by id), without the package's Standings.
func expect(swiss bool, players []int64, games []played) []line {
	lines := map[int64]*line{}
	for _, p := range players {
		lines[p] = &line{user: p}
	}
	half := func(r tournament.Result, white bool) int {
		switch {
		case r == tournament.Draw:
			return 1
		case (r == tournament.WhiteWins) == white:
			return 2
		}
		return 0
	}
	for _, g := range games {
		if g.black == 0 {
			if swiss {
				lines[g.white].score += 2
			}
			lines[g.white].byes++
			continue
		}
		lines[g.white].score += half(g.r, true)
		lines[g.black].score += half(g.r, false)
	}
	for _, g := range games {
		if g.black == 0 {
			continue
		}
		for _, side := range []struct {
			me, opp int64
			got     int
		}{{g.white, g.black, half(g.r, true)}, {g.black, g.white, half(g.r, false)}} {
			l, opp := lines[side.me], lines[side.opp].score
			l.games++
			l.buchholz += opp
			switch side.got {
			case 2:
				l.wins++
				l.sb += 2 * opp
			case 1:
				l.sb += opp
			}
		}
	}
	out := make([]line, 0, len(players))
	for _, p := range players {
		out = append(out, *lines[p])
	}
	keys := func(l line) []int {
		if swiss {
			return []int{l.score, l.buchholz, l.sb, l.wins}
		}
		return []int{l.score, l.sb, l.wins}
	}
	slices.SortFunc(out, func(a, b line) int {
		return cmp.Or(slices.Compare(keys(b), keys(a)), cmp.Compare(a.user, b.user))
	})
	for i := range out {
		out[i].rank = i + 1
		if i > 0 && slices.Equal(keys(out[i]), keys(out[i-1])) {
			out[i].rank = out[i-1].rank
		}
	}
	return out
}

// checkTable compares the service's final standings with the expected ones.
func checkTable(t *testing.T, tab *boards.TournamentTable, want []line, swiss bool) {
	t.Helper()
	if len(tab.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(tab.Rows), len(want))
	}
	for i, w := range want {
		got := tab.Rows[i]
		if got.User != w.user || int(got.Score) != w.score || got.SonnebornBerger != w.sb || got.Wins != w.wins ||
			got.Byes != w.byes || got.Rank != w.rank || (swiss && int(got.Buchholz) != w.buchholz) {
			t.Errorf("row %d: got %+v, want %+v", i+1, got, w)
		}
	}
}

// pick draws a result: white wins, a draw or black wins.
func pick(rng *rand.Rand) tournament.Result {
	return []tournament.Result{tournament.WhiteWins, tournament.Draw, tournament.BlackWins}[rng.IntN(3)]
}

// A round robin of 6 players is played to the end through the service: every round is paired
// at once on the last result of the one before, everyone meets everyone once, and the final
// standings are those the results make.
func TestTournamentRoundRobin(t *testing.T) {
	e := newTEnv(t, 6, 1)
	tt := e.create(boards.TournamentSpec{Variant: "russian", Control: "60+0", System: tournament.RoundRobinSystem})
	e.clk.set(tt.StartsAt)
	e.job(0)
	rng := rand.New(rand.NewPCG(6, 1))
	var games []played
	met := map[[2]int64]int{}
	for round := 1; round <= 5; round++ {
		tab := e.table(tt.ID)
		if tab.Tournament.State != tournament.Running || tab.Tournament.Round != round {
			t.Fatalf("round %d: state %s, round %d", round, tab.Tournament.State, tab.Tournament.Round)
		}
		games0 := pending(tab)
		if len(games0) != 3 {
			t.Fatalf("round %d: %d games, want 3", round, len(games0))
		}
		for i, p := range games0 {
			if i%2 == 0 {
				e.move(p)
				e.move(p)
			}
			r := pick(rng)
			e.finish(p, r)
			games = append(games, played{p.White, p.Black, r})
			met[[2]int64{min(p.White, p.Black), max(p.White, p.Black)}]++
			if bd := e.boardOf(p.Board); bd.Seats[0].User != p.White || bd.Seats[1].User != p.Black || bd.Control.Name != "60+0" {
				t.Fatalf("board %d: seats %+v, control %q", p.Board, bd.Seats, bd.Control.Name)
			}
		}
	}
	if len(met) != 15 {
		t.Fatalf("%d pairs met, want 15", len(met))
	}
	tab := e.table(tt.ID)
	if tab.Tournament.State != tournament.Finished || len(pending(tab)) != 0 {
		t.Fatalf("after the last round: state %s, %d games pending", tab.Tournament.State, len(pending(tab)))
	}
	checkTable(t, tab, expect(false, e.players, games), false)
	// The job finds nothing left to do.
	e.job(0)
	if n := len(e.table(tt.ID).Pairings); n != 15 {
		t.Fatalf("%d pairings after the end, want 15", n)
	}
	checkRoundRobinRecord(t, e, tt.ID, games)
}

// checkRoundRobinRecord checks the record of a round robin of 6 played to the end: each change
// once, in order (the creation, the joins, the start, each round's pairing and the results of
// its games, the end), the players by their numbers in the order they joined, and every result
// as it was played.
func checkRoundRobinRecord(t *testing.T, e *tenv, id int64, games []played) {
	t.Helper()
	evs, err := boards.TournamentEventsAfter(context.Background(), e.pool, id, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{boards.TournamentCreated}
	for range e.players {
		want = append(want, boards.TournamentJoined)
	}
	want = append(want, boards.TournamentStarted)
	for range 5 {
		want = append(want, boards.TournamentPaired, boards.TournamentResult, boards.TournamentResult, boards.TournamentResult)
	}
	want = append(want, boards.TournamentFinished)
	var kinds []string
	for i, ev := range evs {
		kinds = append(kinds, ev.Kind)
		if ev.Tournament != id || i > 0 && ev.ID <= evs[i-1].ID {
			t.Fatalf("event %d: %+v after %d", i, ev, evs[max(i-1, 0)].ID)
		}
	}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("the record: %v, want %v", kinds, want)
	}
	number := map[int64]int{}
	for i, u := range e.players {
		number[u] = i + 1
	}
	names := map[tournament.Result]string{tournament.WhiteWins: "white", tournament.Draw: "draw", tournament.BlackWins: "black"}
	var results []string
	for _, ev := range evs {
		switch ev.Kind {
		case boards.TournamentJoined:
			if ev.Data.Name != fmt.Sprintf("P%d", ev.Data.Player-1) || ev.Data.Players != ev.Data.Player {
				t.Fatalf("a join: %+v", ev.Data)
			}
		case boards.TournamentPaired:
			if len(ev.Data.Games) != 3 || ev.Data.Round != ev.Data.Games[0].Round || ev.Data.State != "running" {
				t.Fatalf("a pairing: %+v", ev.Data)
			}
		case boards.TournamentResult:
			g := ev.Data.Games
			if len(g) != 1 || g[0].Board == 0 {
				t.Fatalf("a result: %+v", ev.Data)
			}
			results = append(results, fmt.Sprintf("%d-%d:%s", g[0].White, g[0].Black, g[0].Result))
		case boards.TournamentFinished:
			if ev.Data.State != "finished" || ev.Data.Cancelled {
				t.Fatalf("the end: %+v", ev.Data)
			}
		}
	}
	var played []string
	for _, g := range games {
		played = append(played, fmt.Sprintf("%d-%d:%s", number[g.white], number[g.black], names[g.r]))
	}
	if fmt.Sprint(results) != fmt.Sprint(played) {
		t.Fatalf("the results recorded: %v, want those played: %v", results, played)
	}
}

// A Swiss of 4 rounds is played to the end, with 10 players, and with 9 (a bye each round, one
// player having left before the start): no rematch, each bye to a different player and scored,
// a game a round lost on time, and the standings those the results make.
func TestTournamentSwiss(t *testing.T) {
	for _, n := range []int{10, 9} {
		t.Run(map[int]string{10: "even", 9: "odd"}[n], func(t *testing.T) {
			e := newTEnv(t, 10, 1)
			tt := e.create(boards.TournamentSpec{Variant: "russian", Control: "5+3", System: tournament.Swiss, Rounds: 4})
			if n == 9 {
				left := e.players[4]
				e.run(func(ctx context.Context, tx boards.Tx) error { return e.tn().Leave(ctx, tx, e.player(left), tt.ID) })
				e.players = slices.Delete(e.players, 4, 5)
			}
			e.clk.set(tt.StartsAt)
			e.job(0)
			rng := rand.New(rand.NewPCG(uint64(n), 4))
			var games []played
			met := map[[2]int64]bool{}
			byes := map[int64]bool{}
			for round := 1; round <= 4; round++ {
				tab := e.table(tt.ID)
				if tab.Tournament.Round != round {
					t.Fatalf("round %d: the tournament is at round %d", round, tab.Tournament.Round)
				}
				seen := map[int64]bool{}
				for _, p := range tab.Pairings {
					if p.Round != round {
						continue
					}
					for _, u := range []int64{p.White, p.Black} {
						if u != 0 && seen[u] {
							t.Fatalf("round %d: player %d paired twice", round, u)
						}
						seen[u] = true
					}
					if p.Bye() {
						if byes[p.White] {
							t.Fatalf("round %d: a second bye for %d", round, p.White)
						}
						byes[p.White] = true
						games = append(games, played{white: p.White})
					}
				}
				if len(seen) != n+n%2 { // the bye's empty seat counts once
					t.Fatalf("round %d: %d players paired, want %d", round, len(seen), n)
				}
				round0 := pending(tab)
				if len(round0) != n/2 {
					t.Fatalf("round %d: %d games, want %d", round, len(round0), n/2)
				}
				for i, p := range round0 {
					key := [2]int64{min(p.White, p.Black), max(p.White, p.Black)}
					if met[key] {
						t.Fatalf("round %d: %v meet again", round, key)
					}
					met[key] = true
					if i == len(round0)-1 {
						// The last game of the round: white never moves and loses on time.
						e.clk.advance(5*time.Minute + time.Second)
						if err := e.svc().Deadlines(context.Background(), e.do); err != nil {
							t.Fatal(err)
						}
						if bd := e.boardOf(p.Board); bd.Outcome.Winner != 1 || bd.Outcome.End.String() != "timeout" {
							t.Fatalf("board %d: outcome %+v, want black on time", p.Board, bd.Outcome)
						}
						games = append(games, played{p.White, p.Black, tournament.BlackWins})
						continue
					}
					r := pick(rng)
					e.finish(p, r)
					games = append(games, played{p.White, p.Black, r})
				}
			}
			tab := e.table(tt.ID)
			if tab.Tournament.State != tournament.Finished {
				t.Fatalf("state %s after the fourth round", tab.Tournament.State)
			}
			if want := 4 * (n % 2); len(byes) != want {
				t.Fatalf("%d byes, want %d", len(byes), want)
			}
			checkTable(t, tab, expect(true, e.players, games), true)
		})
	}
}

// An arena of 8 players for 30 minutes: whoever finishes is paired again at once, the points
// (a win 2, a draw 1, doubled on a streak of two wins) are those the results make, nothing is
// paired after the end, and the games running then finish and count.
func TestTournamentArena(t *testing.T) {
	e := newTEnv(t, 8, 1)
	tt := e.create(boards.TournamentSpec{Variant: "russian", Control: "60+0", System: tournament.Arena, Duration: 30 * time.Minute})
	e.clk.set(tt.StartsAt)
	e.job(0)
	end := tt.StartsAt.Add(30 * time.Minute)
	rng := rand.New(rand.NewPCG(8, 30))
	var order []played // in the order they finished
	lastOpp := map[int64]int64{}
	for {
		tab := e.table(tt.ID)
		games := pending(tab)
		// The two who just finished wait for another game to end rather than meet again; then
		// the four free are paired at once.
		if e.clk.now().Before(end) && len(games) != 4 && (len(games) != 3 || len(order) == 0) {
			t.Fatalf("at %v: %d games being played, want 4 (or 3 while the two who just met wait)", e.clk.now().Sub(tt.StartsAt), len(games))
		}
		for _, p := range games {
			if lastOpp[p.White] == p.Black || lastOpp[p.Black] == p.White {
				t.Fatalf("%d and %d paired twice running", p.White, p.Black)
			}
		}
		if len(games) == 0 {
			break
		}
		e.clk.advance(time.Duration(20+rng.IntN(70)) * time.Second)
		p := games[rng.IntN(len(games))]
		if rng.IntN(3) == 0 {
			e.move(p)
		}
		r := []tournament.Result{tournament.WhiteWins, tournament.WhiteWins, tournament.Draw, tournament.BlackWins, tournament.BlackWins}[rng.IntN(5)]
		e.finish(p, r)
		order = append(order, played{p.White, p.Black, r})
		lastOpp[p.White], lastOpp[p.Black] = p.Black, p.White
		if !e.clk.now().Before(end) {
			e.job(0) // the job pairs nobody either
		}
	}
	tab := e.table(tt.ID)
	if tab.Tournament.State != tournament.Finished {
		t.Fatalf("state %s after the last game", tab.Tournament.State)
	}
	if len(order) < 20 {
		t.Fatalf("only %d games in 30 minutes", len(order))
	}
	for _, p := range tab.Pairings {
		bd := e.boardOf(p.Board)
		if !bd.Created.Before(end) {
			t.Fatalf("board %d paired at %v, after the end", p.Board, bd.Created.Sub(tt.StartsAt))
		}
	}
	// The points, computed from the results in the order they finished.
	points, run, wins := map[int64]int{}, map[int64]int{}, map[int64]int{}
	for _, g := range order {
		for _, side := range []struct {
			id  int64
			got int
		}{{g.white, map[tournament.Result]int{tournament.WhiteWins: 2, tournament.Draw: 1}[g.r]},
			{g.black, map[tournament.Result]int{tournament.BlackWins: 2, tournament.Draw: 1}[g.r]}} {
			pts := side.got
			if run[side.id] >= 2 {
				pts *= 2
			}
			points[side.id] += pts
			if side.got == 2 {
				run[side.id]++
				wins[side.id]++
			} else {
				run[side.id] = 0
			}
		}
	}
	streaks := 0
	for i, row := range tab.Rows {
		if row.Points != points[row.User] || row.Wins != wins[row.User] || row.Fire != (run[row.User] >= 2) {
			t.Errorf("%d: points %d wins %d fire %v, want %d %d %v", row.User, row.Points, row.Wins, row.Fire,
				points[row.User], wins[row.User], run[row.User] >= 2)
		}
		if i > 0 && row.Points > tab.Rows[i-1].Points {
			t.Errorf("row %d ranked below a lower score", i+1)
		}
		if row.Points > 2*row.Wins+row.Draws {
			streaks++
		}
	}
	if streaks == 0 {
		t.Log("no streak was scored in this simulation")
	}
}

// Two processes run the tournaments' job at the same time on one database while the games are
// played: the start and each round happen once, every player is paired once a round.
func TestTournamentTwoProcesses(t *testing.T) {
	e := newTEnv(t, 10, 2)
	tt := e.create(boards.TournamentSpec{Variant: "russian", Control: "60+0", System: tournament.Swiss, Rounds: 3})
	e.clk.set(tt.StartsAt)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i := range e.procs {
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := e.procs[i].Tournaments(ctx, e.do); err != nil && ctx.Err() == nil {
					errs <- err
					return
				}
			}
		})
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for round := 1; round <= 3; round++ {
		var games []tournament.Pairing
		wait.For(t, wait.Hang, "the round to be paired", func() bool {
			tab := e.table(tt.ID)
			games = nil
			for _, p := range pending(tab) {
				if p.Round == round {
					games = append(games, p)
				}
			}
			return len(games) > 0
		})
		for _, p := range games {
			e.finish(p, pick(rng))
		}
	}
	wait.For(t, wait.Hang, "the tournament to finish", func() bool { return e.table(tt.ID).Tournament.State == tournament.Finished })
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	tab := e.table(tt.ID)
	count := map[int]int{}
	paired := map[[2]int64]bool{}
	for _, p := range tab.Pairings {
		count[p.Round]++
		for _, u := range []int64{p.White, p.Black} {
			k := [2]int64{int64(p.Round), u}
			if paired[k] {
				t.Fatalf("player %d paired twice in round %d", u, p.Round)
			}
			paired[k] = true
		}
	}
	for r := 1; r <= 3; r++ {
		if count[r] != 5 {
			t.Errorf("round %d has %d games, want 5", r, count[r])
		}
	}
	if len(count) != 3 {
		t.Errorf("rounds %v, want 3", count)
	}
}

// Who may create a tournament, and what a tournament refuses: users only once allowed and
// within their limit, games without a clock, sizes out of range, joining a full or started
// tournament; one with fewer than two players is called off at its start.
func TestTournamentRefusals(t *testing.T) {
	e := newTEnv(t, 3, 1)
	user := e.players[0]
	spec := boards.TournamentSpec{Variant: "russian", Control: "5+3", System: tournament.Swiss, Rounds: 3, MaxPlayers: 2}
	create := func(p int64, admin bool, s boards.TournamentSpec) (*tournament.Tournament, error) {
		var tt *tournament.Tournament
		err := e.do.Do(context.Background(), e.service, func(ctx context.Context, tx boards.Tx) error {
			var err error
			tt, err = e.tn().Create(ctx, tx, e.player(p), admin, s)
			return err
		})
		return tt, err
	}
	if _, err := create(user, false, spec); !errors.Is(err, boards.ErrMayNotCreate) {
		t.Fatalf("a user's tournament by default: %v, want ErrMayNotCreate", err)
	}
	e.run(func(ctx context.Context, tx boards.Tx) error {
		return e.tn().SetSetting(ctx, tx, e.service, tournament.Setting{UsersMayCreate: true, MaxOpen: 1})
	})
	tt, err := create(user, false, spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create(user, false, spec); !errors.Is(err, boards.ErrTooManyOpen) {
		t.Fatalf("a second open tournament: %v, want ErrTooManyOpen", err)
	}
	for _, bad := range []boards.TournamentSpec{
		{Variant: "russian", Control: "none", System: tournament.Swiss, Rounds: 3},
		{Variant: "russian", Control: "0+5", System: tournament.Swiss, Rounds: 3},
		{Variant: "go", Control: "5+3", System: tournament.Swiss, Rounds: 3},
		{Variant: "russian", Control: "5+3", System: tournament.Swiss, Rounds: 0},
		{Variant: "russian", Control: "5+3", System: tournament.Arena, Duration: time.Second},
		{Variant: "russian", Control: "5+3", System: tournament.RoundRobinSystem, MaxPlayers: 13},
		{Variant: "russian", Control: "5+3", System: "knockout"},
		{Variant: "russian", Control: "5+3", System: tournament.Swiss, Rounds: 3, StartsAt: t0.Add(-time.Minute)},
	} {
		if _, err := create(e.admin, true, bad); !errors.Is(err, board.ErrInvalid) {
			t.Errorf("%+v: %v, want board.ErrInvalid", bad, err)
		}
	}
	join := func(p, id int64) error {
		return e.do.Do(context.Background(), e.service, func(ctx context.Context, tx boards.Tx) error {
			return e.tn().Join(ctx, tx, e.player(p), id, false)
		})
	}
	if err := join(e.players[0], tt.ID); err != nil {
		t.Fatal(err)
	}
	if err := join(e.players[0], tt.ID); !errors.Is(err, boards.ErrEntered) {
		t.Fatalf("joining twice: %v", err)
	}
	if err := join(e.players[1], tt.ID); err != nil {
		t.Fatal(err)
	}
	if err := join(e.players[2], tt.ID); !errors.Is(err, boards.ErrTournamentFull) {
		t.Fatalf("joining a full tournament: %v", err)
	}
	if err := join(e.players[2], 999999); !errors.Is(err, boards.ErrNoTournament) {
		t.Fatalf("joining no tournament: %v", err)
	}
	// Another, which only one player joins, is called off at its start.
	lonely := e.create(boards.TournamentSpec{Variant: "chess", Control: "blitz10+5", System: tournament.Arena,
		Duration: 10 * time.Minute, StartsAt: t0.Add(10 * time.Minute)})
	for _, p := range e.players[1:] {
		e.run(func(ctx context.Context, tx boards.Tx) error { return e.tn().Leave(ctx, tx, e.player(p), lonely.ID) })
	}
	e.clk.set(t0.Add(10 * time.Minute))
	e.job(0)
	if err := join(e.players[2], tt.ID); !errors.Is(err, boards.ErrTournamentStarted) {
		t.Fatalf("joining a started tournament: %v", err)
	}
	if tab := e.table(lonely.ID); tab.Tournament.State != tournament.Finished || !tab.Tournament.Cancelled || len(tab.Pairings) != 0 {
		t.Fatalf("the lonely arena: %+v", tab.Tournament)
	}
	// Its record ends with the leaves, each naming the number the player had, and the call-off.
	evs, err := boards.TournamentEventsAfter(context.Background(), e.pool, lonely.ID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(evs); n < 3 || evs[n-1].Kind != boards.TournamentCancelled || !evs[n-1].Data.Cancelled ||
		evs[n-1].Data.State != "finished" || evs[n-1].Data.Players != 1 || evs[n-2].Kind != boards.TournamentLeft ||
		evs[n-2].Data.Player != 2 || evs[n-2].Data.Players != 1 || evs[n-2].Data.Name == "" {
		t.Fatalf("the lonely arena's record: %+v", evs)
	}
	if tab := e.table(tt.ID); tab.Tournament.State != tournament.Running || len(pending(tab)) != 1 {
		t.Fatalf("the Swiss: %+v, %d games", tab.Tournament, len(pending(tab)))
	}
	// The user's tournament is open still: they may not create another.
	if _, err := create(user, false, spec); !errors.Is(err, boards.ErrTooManyOpen) {
		t.Fatalf("while running: %v, want ErrTooManyOpen", err)
	}
}
