package boards

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/tournament"
	"github.com/questbot/questbot/sessions/tournament/tournamentpg"
)

// # Tournaments
//
// A tournament (the pure rules are sessions/tournament's; tournamentpg stores it) is created by
// an admin, or by a user when the bot's setting allows it (tournament.Setting: by default only
// admins; users, once allowed, at most one open tournament each), for a game and a time control
// with a clock: a catalogue's control other than "none", or "M+S" (Fischer, M minutes and S
// seconds a move). Players join and leave until it starts (people in Telegram, programs through
// the web API with their token). The Tournaments job (TournamentsSpec) starts it at its time:
// with fewer than two players it is called off; otherwise the players are seeded by their rating
// in the game (seedRating, the one read of ratings) and the first round is paired.
//
// Every game is an ordinary board of the service, opened between its two players in the
// transaction that pairs it, with the tournament's clock: its clocks, notifications, pages and
// API are every board's, and a player who does not move loses on time by the Deadlines job. The
// pairing names the board (the board records its tournament there: OfBoard).
//
// When a board of a tournament finishes, the one path of every change (changed) records its
// result in the same transaction, with the tournament locked, and goes on at once: in a round
// robin or a Swiss, the last result of a round pairs the next round (or ends the tournament);
// in an arena the two players are free again and are paired at once with other free players,
// nearest in points, until the arena's duration ends: no game is paired after it, the games
// running then finish and count, and the last of them ends the tournament. A bye scores what the
// system gives it (tournament.System.ByeScore: a win in a Swiss, nothing in a round robin). The job is the fallback of all of it: it finds the rounds complete,
// the arenas with players free and those over, and settles them the same way, so a crash between
// a result and its pairing loses nothing. The tournament's row is locked (FOR UPDATE, the job's
// claim SKIP LOCKED) for every step, and a player is paired once a round (a unique key), so two
// processes never pair a round twice. The lock order is the board's, then the tournament's.
//
// At the end the standings are final, and every player is told their place and score (the
// views: TournamentView).
//
// Every change is written, in its transaction, into the tournament's numbered record of events
// (tournament_events.go), which the web's tournament page follows.

// TournamentStore keeps tournaments, inside the caller's transaction
// (sessions/tournament/tournamentpg implements it).
type TournamentStore interface {
	Create(ctx context.Context, t *tournament.Tournament) error
	// Get and Lock return nil for no tournament.
	Get(ctx context.Context, id int64) (*tournament.Tournament, error)
	Lock(ctx context.Context, id int64) (*tournament.Tournament, error)
	Save(ctx context.Context, t *tournament.Tournament) error
	List(ctx context.Context, service int, states []tournament.State, limit int) ([]tournament.Tournament, error)
	CountOpen(ctx context.Context, service int, creator int64) (int, error)
	Enter(ctx context.Context, id int64, e tournament.Entrant) (bool, error)
	Leave(ctx context.Context, id int64, user int64) (bool, error)
	Entrants(ctx context.Context, id int64) ([]tournament.Entrant, error)
	SetRating(ctx context.Context, id int64, user int64, rating float64) error
	SetFree(ctx context.Context, id int64, user int64, since time.Time) error
	MarkMessage(ctx context.Context, id int64, user int64, at time.Time) error
	AddPairing(ctx context.Context, id int64, p *tournament.Pairing) error
	Pairings(ctx context.Context, id int64) ([]tournament.Pairing, error)
	BoardPairing(ctx context.Context, board int64) (int64, tournament.Pairing, bool, error)
	FinishPairing(ctx context.Context, pairing int64, r tournament.Result, at time.Time) (bool, error)
	ClaimDue(ctx context.Context, now time.Time, limit int) ([]board.Ref, error)
	Setting(ctx context.Context, service int) (tournament.Setting, error)
	SaveSetting(ctx context.Context, service int, s tournament.Setting) error
	// AppendEvents appends events to the tournaments' record (tournament_events.go).
	AppendEvents(ctx context.Context, evs []tournamentpg.EventRow) error
}

var _ TournamentStore = (*tournamentpg.Store)(nil)

// The refusals of tournaments.
var (
	// ErrNoTournament: no such tournament in the bot.
	ErrNoTournament = sessions.Refusal(sessions.KindNotFound, "no such tournament")
	// ErrTournamentStarted: players join and leave only before the start.
	ErrTournamentStarted = sessions.Refusal(sessions.KindConflict, "the tournament has started")
	// ErrTournamentFull: the tournament has its most players.
	ErrTournamentFull = sessions.Refusal(sessions.KindConflict, "the tournament is full")
	// ErrEntered: the player has joined already.
	ErrEntered = sessions.Refusal(sessions.KindConflict, "already in the tournament")
	// ErrNotEntered: the player is not in the tournament.
	ErrNotEntered = sessions.Refusal(sessions.KindConflict, "not in the tournament")
	// ErrMayNotCreate: only admins create tournaments in this bot.
	ErrMayNotCreate = sessions.Refusal(sessions.KindConflict, "only admins create tournaments here")
	// ErrTooManyOpen: the user has as many open tournaments as the bot allows.
	ErrTooManyOpen = sessions.Refusal(sessions.KindConflict, "too many open tournaments")
)

// Limits of a tournament.
const (
	// MaxTournamentPlayers is the most players a Swiss or an arena takes (a round robin takes
	// tournament.MaxRoundRobin), and DefaultTournamentPlayers the default of a Swiss or an arena.
	MaxTournamentPlayers     = 500
	DefaultTournamentPlayers = 100
	// MaxSwissRounds is the most rounds of a Swiss.
	MaxSwissRounds = 20
	// MinArena and MaxArena bound an arena's duration.
	MinArena = time.Minute
	MaxArena = 24 * time.Hour
	// DefaultTournamentDelay is how long after its creation a tournament starts, unless told.
	DefaultTournamentDelay = 5 * time.Minute
	// MaxTournamentDelay is how far ahead a tournament may be set to start.
	MaxTournamentDelay = 30 * 24 * time.Hour
)

// TournamentsSpec is the schedule of the Tournaments job.
const TournamentsSpec = "@every 1s"

// The kinds of change of a tournament (TournamentChange.Kind).
const (
	TournamentCreated   = "created"
	TournamentJoined    = "joined"
	TournamentLeft      = "left"
	TournamentStarted   = "started"
	TournamentPaired    = "paired"
	TournamentResult    = "result"
	TournamentFinished  = "finished"
	TournamentCancelled = "cancelled"
)

// TournamentSpec is what a tournament is created with.
type TournamentSpec struct {
	Variant string
	// Control is a catalogue's time control with a clock, or "M+S" (Fischer: M minutes, S
	// seconds a move).
	Control string
	System  tournament.System
	// Rounds of a Swiss; Duration of an arena.
	Rounds   int
	Duration time.Duration
	// MaxPlayers: 0 is the system's default (a round robin tournament.MaxRoundRobin, the others
	// DefaultTournamentPlayers).
	MaxPlayers int
	// StartsAt: zero is DefaultTournamentDelay from now.
	StartsAt time.Time
}

// TournamentRow is a player's line of the standings: rank, score and tie-breaks, and the game
// they are playing now.
type TournamentRow struct {
	Rank int
	User int64
	// Score in half points (round robin, Swiss), Buchholz likewise, SonnebornBerger in quarter
	// points (tournament.Standing).
	Score           tournament.Score
	Buchholz        tournament.Score
	SonnebornBerger int
	// Points, in an arena, and Fire: the next game scores double.
	Points                            int
	Fire                              bool
	Wins, Draws, Losses, Byes, Played int
	Rating                            float64
	Program                           bool
	// Board is the player's game being played (0: none).
	Board int64
}

// TournamentTable is a tournament as its views show it: the tournament, its players, its
// pairings (finished games in the order they finished, then the rest) and the standings.
type TournamentTable struct {
	Tournament *tournament.Tournament
	Entrants   []tournament.Entrant
	Pairings   []tournament.Pairing
	Rows       []TournamentRow
}

// Row returns a player's line, nil for someone not in the tournament.
func (t *TournamentTable) Row(user int64) *TournamentRow {
	for i := range t.Rows {
		if t.Rows[i].User == user {
			return &t.Rows[i]
		}
	}
	return nil
}

// Rounds is the number of rounds the tournament plays (an arena: 0, it has none).
func (t *TournamentTable) Rounds() int {
	switch t.Tournament.System {
	case tournament.Swiss:
		return t.Tournament.Rounds
	case tournament.RoundRobinSystem:
		n := len(t.Entrants)
		if n%2 == 1 {
			return n
		}
		return max(n-1, 0)
	}
	return 0
}

// TournamentChange is what happened to a tournament, for its views: the kind (Tournament*), the
// player it concerns (joined, left), the games just paired, the game whose result led to the
// change (nil: none), and the table after it.
type TournamentChange struct {
	*TournamentTable
	Kind     string
	User     int64
	Paired   []tournament.Pairing
	Finished *tournament.Pairing
	// number is the number in the tournament the player who left had.
	number int
}

// TournamentView shows tournaments in a medium (the Telegram view: the standings messages and
// the final announcements). Changes are handed to it in the transaction that makes them.
type TournamentView interface {
	TournamentChanged(ctx context.Context, tx Tx, ch *TournamentChange) error
}

// Tournaments runs the tournaments of the board service; safe for concurrent use.
type Tournaments struct {
	b     *Boards
	store func(tx pgx.Tx) TournamentStore
	views []TournamentView
}

// NewTournaments returns the tournaments of the board service b, whose changes of boards it then
// follows (a tournament's game that finishes records its result), with tournamentpg as its
// store. It is called once, while the bot is composed.
func NewTournaments(b *Boards) *Tournaments {
	t := &Tournaments{b: b, store: func(tx pgx.Tx) TournamentStore { return tournamentpg.New(tx) }}
	b.tourney = t
	return t
}

// AddView adds a view the tournaments hand their changes to; called while the bot is composed.
func (t *Tournaments) AddView(v TournamentView) { t.views = append(t.views, v) }

// Store returns the tournament store of a transaction, for the views' reads.
func (t *Tournaments) Store(db pgx.Tx) TournamentStore { return t.store(db) }

// Boards is the board service the tournaments play on.
func (t *Tournaments) Boards() *Boards { return t.b }

// fischerRE reads a Fischer time control "M+S".
var fischerRE = regexp.MustCompile(`^(\d{1,3})\+(\d{1,3})$`)

// Control returns the time control of a tournament's games by its name: a catalogue's control
// with a clock, or "M+S" (Fischer). Returns board.ErrInvalid for a name that is neither, or a
// control without a clock (a tournament's player who does not move must lose on time).
func (t *Tournaments) Control(ctx context.Context, db pgx.Tx, name string) (board.TimeControl, error) {
	if m := fischerRE.FindStringSubmatch(name); m != nil {
		mins, _ := strconv.Atoi(m[1])
		secs, _ := strconv.Atoi(m[2])
		tc := board.TimeControl{Name: name, Mode: board.ClockFischer, Main: time.Duration(mins) * time.Minute,
			Extra: time.Duration(secs) * time.Second}
		if mins == 0 {
			return board.TimeControl{}, fmt.Errorf("%w: time control %q has no main time", board.ErrInvalid, name)
		}
		return tc, tc.Validate()
	}
	tc, err := t.b.control(ctx, t.b.store(db), name)
	if err != nil {
		return board.TimeControl{}, err
	}
	if tc.Mode == board.ClockNone {
		return board.TimeControl{}, fmt.Errorf("%w: a tournament's games need a clock, not %q", board.ErrInvalid, name)
	}
	return tc, nil
}

// Create creates a tournament for a player: an admin, or a user when the bot's setting allows it
// and within its limit of open tournaments (ErrMayNotCreate, ErrTooManyOpen). Returns
// board.ErrInvalid for a game, clock, system or size not offered.
func (t *Tournaments) Create(ctx context.Context, tx Tx, p Player, admin bool, spec TournamentSpec) (*tournament.Tournament, error) {
	st := t.store(tx.DB())
	if !admin {
		set, err := st.Setting(ctx, p.Service)
		if err != nil {
			return nil, err
		}
		if !set.UsersMayCreate {
			return nil, ErrMayNotCreate
		}
		n, err := st.CountOpen(ctx, p.Service, p.User)
		if err != nil {
			return nil, err
		}
		if n >= set.MaxOpen {
			return nil, ErrTooManyOpen
		}
	}
	now := t.b.now()
	tt := &tournament.Tournament{Service: p.Service, Variant: spec.Variant, Control: spec.Control, System: spec.System,
		Rounds: spec.Rounds, Duration: spec.Duration, MaxPlayers: spec.MaxPlayers, StartsAt: spec.StartsAt,
		State: tournament.Created, Creator: p.User, Created: now}
	if tt.StartsAt.IsZero() {
		tt.StartsAt = now.Add(DefaultTournamentDelay)
	}
	if err := t.validate(ctx, tx.DB(), tt, now); err != nil {
		return nil, err
	}
	if err := st.Create(ctx, tt); err != nil {
		return nil, err
	}
	return tt, t.tell(ctx, tx, st, tt, TournamentChange{Kind: TournamentCreated, User: p.User})
}

// validate checks a new tournament, filling in the default size.
func (t *Tournaments) validate(ctx context.Context, db pgx.Tx, tt *tournament.Tournament, now time.Time) error {
	if !Offered(tt.Variant) {
		return fmt.Errorf("%w: game %q", board.ErrInvalid, tt.Variant)
	}
	if _, err := t.Control(ctx, db, tt.Control); err != nil {
		return err
	}
	most := MaxTournamentPlayers
	switch tt.System {
	case tournament.RoundRobinSystem:
		most = tournament.MaxRoundRobin
		tt.Rounds, tt.Duration = 0, 0
	case tournament.Swiss:
		if tt.Rounds < 1 || tt.Rounds > MaxSwissRounds {
			return fmt.Errorf("%w: a Swiss plays 1 to %d rounds, not %d", board.ErrInvalid, MaxSwissRounds, tt.Rounds)
		}
		tt.Duration = 0
	case tournament.Arena:
		if tt.Duration < MinArena || tt.Duration > MaxArena {
			return fmt.Errorf("%w: an arena lasts %v to %v, not %v", board.ErrInvalid, MinArena, MaxArena, tt.Duration)
		}
		tt.Rounds = 0
	default:
		return fmt.Errorf("%w: system %q", board.ErrInvalid, tt.System)
	}
	if tt.MaxPlayers == 0 {
		tt.MaxPlayers = min(most, DefaultTournamentPlayers)
	}
	if tt.MaxPlayers < 2 || tt.MaxPlayers > most {
		return fmt.Errorf("%w: a %s takes 2 to %d players, not %d", board.ErrInvalid, tt.System, most, tt.MaxPlayers)
	}
	if tt.StartsAt.Before(now) || tt.StartsAt.After(now.Add(MaxTournamentDelay)) {
		return fmt.Errorf("%w: a tournament starts within %v", board.ErrInvalid, MaxTournamentDelay)
	}
	return nil
}

// lock locks a tournament of the player's bot (ErrNoTournament for one of another bot or none).
func (t *Tournaments) lock(ctx context.Context, st TournamentStore, service int, id int64) (*tournament.Tournament, error) {
	tt, err := st.Lock(ctx, id)
	if err != nil {
		return nil, err
	}
	if tt == nil || tt.Service != service {
		return nil, fmt.Errorf("tournament %d: %w", id, ErrNoTournament)
	}
	return tt, nil
}

// Join enters a player in a tournament before its start; program says a program joins through
// the API. Returns ErrNoTournament, ErrTournamentStarted, ErrTournamentFull or ErrEntered.
func (t *Tournaments) Join(ctx context.Context, tx Tx, p Player, id int64, program bool) error {
	st := t.store(tx.DB())
	tt, err := t.lock(ctx, st, p.Service, id)
	if err != nil {
		return err
	}
	if tt.State != tournament.Created {
		return fmt.Errorf("tournament %d: %w", id, ErrTournamentStarted)
	}
	es, err := st.Entrants(ctx, id)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(es, func(e tournament.Entrant) bool { return e.User == p.User }) {
		return fmt.Errorf("tournament %d: %w", id, ErrEntered)
	}
	if len(es) >= tt.MaxPlayers {
		return fmt.Errorf("tournament %d: %w", id, ErrTournamentFull)
	}
	if _, err := st.Enter(ctx, id, tournament.Entrant{User: p.User, Joined: t.b.now(), Program: program}); err != nil {
		return err
	}
	return t.tell(ctx, tx, st, tt, TournamentChange{Kind: TournamentJoined, User: p.User})
}

// Leave withdraws a player from a tournament before its start. Returns ErrNoTournament,
// ErrTournamentStarted or ErrNotEntered.
func (t *Tournaments) Leave(ctx context.Context, tx Tx, p Player, id int64) error {
	st := t.store(tx.DB())
	tt, err := t.lock(ctx, st, p.Service, id)
	if err != nil {
		return err
	}
	if tt.State != tournament.Created {
		return fmt.Errorf("tournament %d: %w", id, ErrTournamentStarted)
	}
	es, err := st.Entrants(ctx, id)
	if err != nil {
		return err
	}
	number := slices.IndexFunc(es, func(e tournament.Entrant) bool { return e.User == p.User }) + 1
	left, err := st.Leave(ctx, id, p.User)
	if err != nil {
		return err
	}
	if !left {
		return fmt.Errorf("tournament %d: %w", id, ErrNotEntered)
	}
	return t.tell(ctx, tx, st, tt, TournamentChange{Kind: TournamentLeft, User: p.User, number: number})
}

// Table reads a tournament of a bot as its views show it (ErrNoTournament when there is none).
func (t *Tournaments) Table(ctx context.Context, db pgx.Tx, service int, id int64) (*TournamentTable, error) {
	st := t.store(db)
	tt, err := st.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if tt == nil || tt.Service != service {
		return nil, fmt.Errorf("tournament %d: %w", id, ErrNoTournament)
	}
	return t.table(ctx, st, tt)
}

// OfBoard returns the tournament a board is a game of; false for a board of no tournament.
func (t *Tournaments) OfBoard(ctx context.Context, db pgx.Tx, boardID int64) (int64, bool, error) {
	id, _, ok, err := t.store(db).BoardPairing(ctx, boardID)
	return id, ok, err
}

// table reads the players and pairings of a tournament and ranks the players: by
// tournament.Standings (round robin, Swiss) or tournament.ArenaStandings.
func (t *Tournaments) table(ctx context.Context, st TournamentStore, tt *tournament.Tournament) (*TournamentTable, error) {
	es, err := st.Entrants(ctx, tt.ID)
	if err != nil {
		return nil, err
	}
	ps, err := st.Pairings(ctx, tt.ID)
	if err != nil {
		return nil, err
	}
	tab := &TournamentTable{Tournament: tt, Entrants: es, Pairings: ps}
	players := seeded(es)
	program := map[int64]bool{}
	for _, e := range es {
		program[e.User] = e.Program
	}
	playing := map[int64]int64{}
	var games, finished []tournament.Game
	for _, p := range ps {
		games = append(games, p.Game)
		if p.Result != tournament.Pending {
			finished = append(finished, p.Game)
		} else if !p.Bye() {
			playing[p.White], playing[p.Black] = p.Board, p.Board
		}
	}
	if tt.System == tournament.Arena {
		played := map[int64]int{}
		for _, g := range finished {
			played[g.White]++
			played[g.Black]++
		}
		for _, s := range tournament.ArenaStandings(players, finished) {
			tab.Rows = append(tab.Rows, TournamentRow{Rank: s.Rank, User: s.Player, Points: s.Points, Fire: s.Fire,
				Wins: s.Wins, Draws: s.Draws, Losses: s.Games - s.Wins - s.Draws, Played: s.Games, Rating: s.Rating,
				Program: program[s.Player], Board: playing[s.Player]})
		}
		return tab, nil
	}
	for _, s := range tournament.Standings(tt.System, players, games) {
		tab.Rows = append(tab.Rows, TournamentRow{Rank: s.Rank, User: s.Player, Score: s.Score, Buchholz: s.Buchholz,
			SonnebornBerger: s.SonnebornBerger, Wins: s.Wins, Draws: s.Draws, Losses: s.Losses, Byes: s.Byes,
			Played: s.Wins + s.Draws + s.Losses, Rating: s.Rating, Program: program[s.Player], Board: playing[s.Player]})
	}
	return tab, nil
}

// seeded returns the players in seed order: by rating, then the order they joined.
func seeded(es []tournament.Entrant) []tournament.Player {
	order := slices.Clone(es)
	slices.SortStableFunc(order, func(a, b tournament.Entrant) int {
		return cmp.Or(cmp.Compare(b.Rating, a.Rating), a.Joined.Compare(b.Joined), cmp.Compare(a.User, b.User))
	})
	out := make([]tournament.Player, len(order))
	for i, e := range order {
		out[i] = e.Player()
	}
	return out
}

// seedRating is the rating a player is seeded by: their rating in the tournament's game as the
// board store gives it (its Glicko-2 rating; board.GlickoStart before their first rated game). It is the one read
// of ratings of the tournaments.
func (t *Tournaments) seedRating(ctx context.Context, db pgx.Tx, tt *tournament.Tournament, user int64) (float64, error) {
	stats, err := t.b.store(db).UserStats(ctx, tt.Service, user)
	if err != nil {
		return 0, err
	}
	for _, s := range stats {
		if s.Variant == tt.Variant && s.Rated > 0 {
			return s.Rating.Rating, nil
		}
	}
	return board.GlickoStart, nil
}

// tell is the one place every change of a tournament passes: it writes the change into the
// tournament's record (tournament_events.go) and hands it to the views, with the table after it.
func (t *Tournaments) tell(ctx context.Context, tx Tx, st TournamentStore, tt *tournament.Tournament, ch TournamentChange) error {
	tab, err := t.table(ctx, st, tt)
	if err != nil {
		return err
	}
	ch.TournamentTable = tab
	if err := t.recordTournament(ctx, tx, st, &ch); err != nil {
		return err
	}
	for _, v := range t.views {
		if err := v.TournamentChanged(ctx, tx, &ch); err != nil {
			return err
		}
	}
	return nil
}

// boardChanged is the tournaments' part of the one path of a board's changes (changed): a
// finished game of a tournament records its result, with the tournament locked, and the
// tournament goes on at once (advance).
func (t *Tournaments) boardChanged(ctx context.Context, tx Tx, bd *board.Board, c *Change) error {
	if !slices.ContainsFunc(c.Events, func(ev board.Event) bool { return ev.Kind == board.EventFinished }) {
		return nil
	}
	st := t.store(tx.DB())
	id, p, ok, err := st.BoardPairing(ctx, bd.ID)
	if err != nil || !ok || p.Result != tournament.Pending {
		return err
	}
	tt, err := st.Lock(ctx, id)
	if err != nil || tt == nil {
		return err
	}
	r := tournament.Draw
	if !bd.Outcome.Draw {
		r = tournament.WhiteWins
		if bd.Seats[bd.Outcome.Winner].User == p.Black {
			r = tournament.BlackWins
		}
	}
	now := t.b.now()
	done, err := st.FinishPairing(ctx, p.ID, r, now)
	if err != nil || !done {
		return err
	}
	p.Result, p.Finished = r, now
	if tt.System == tournament.Arena && tt.State == tournament.Running {
		for _, u := range []int64{p.White, p.Black} {
			if err := st.SetFree(ctx, tt.ID, u, now); err != nil {
				return err
			}
		}
	}
	return t.advance(ctx, tx, st, tt, &p)
}

// Tournaments is the tournaments' job (TournamentsSpec): it starts the tournaments whose time
// has come, and settles the running ones the changes of their boards did not (a round complete,
// players of an arena free, an arena over), each in a transaction of its bot with the
// tournament locked and its state checked again.
func (t *Tournaments) Tournaments(ctx context.Context, do Doer) error {
	var found []board.Ref
	err := do.Do(ctx, 0, func(ctx context.Context, tx Tx) error {
		var err error
		if found, err = t.store(tx.DB()).ClaimDue(ctx, t.b.now(), maxSettle); err != nil {
			return err
		}
		return errPeek
	})
	if !errors.Is(err, errPeek) {
		return fmt.Errorf("boards: tournaments: %w", err)
	}
	var failed error
	for _, r := range found {
		err := do.Do(ctx, r.Service, func(ctx context.Context, tx Tx) error {
			st := t.store(tx.DB())
			tt, err := st.Lock(ctx, r.ID)
			if err != nil || tt == nil {
				return err
			}
			switch tt.State {
			case tournament.Created:
				if t.b.now().Before(tt.StartsAt) {
					return nil
				}
				return t.start(ctx, tx, st, tt)
			case tournament.Running:
				return t.advance(ctx, tx, st, tt, nil)
			}
			return nil
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			t.b.log.Error("A tournament could not be settled", "tournament", r.ID, "error", err)
			failed = errors.Join(failed, fmt.Errorf("tournament %d: %w", r.ID, err))
		}
	}
	return failed
}

// start starts a tournament locked in tx: called off with fewer than two players; otherwise the
// players are seeded by rating and the first round (an arena: every player) paired.
func (t *Tournaments) start(ctx context.Context, tx Tx, st TournamentStore, tt *tournament.Tournament) error {
	now := t.b.now()
	es, err := st.Entrants(ctx, tt.ID)
	if err != nil {
		return err
	}
	if len(es) < 2 {
		tt.State, tt.Cancelled, tt.Finished = tournament.Finished, true, now
		if err := st.Save(ctx, tt); err != nil {
			return err
		}
		return t.tell(ctx, tx, st, tt, TournamentChange{Kind: TournamentCancelled})
	}
	for i, e := range es {
		r, err := t.seedRating(ctx, tx.DB(), tt, e.User)
		if err != nil {
			return err
		}
		if err := st.SetRating(ctx, tt.ID, e.User, r); err != nil {
			return err
		}
		es[i].Rating = r
	}
	tt.State = tournament.Running
	if tt.System == tournament.Arena {
		tt.EndsAt = now.Add(tt.Duration)
		// Everyone is free at the start, in seed order: the arena pairs them by it.
		for i, p := range seeded(es) {
			if err := st.SetFree(ctx, tt.ID, p.ID, now.Add(time.Duration(i)*time.Microsecond)); err != nil {
				return err
			}
		}
	}
	if err := st.Save(ctx, tt); err != nil {
		return err
	}
	if err := t.tell(ctx, tx, st, tt, TournamentChange{Kind: TournamentStarted}); err != nil {
		return err
	}
	return t.advance(ctx, tx, st, tt, nil)
}

// advance goes on with a running tournament locked in tx after the result of the game finished
// (nil: none) or on the job's call: a round robin or a Swiss pairs its next round once every
// game of the round has finished, or finishes after the last; an arena pairs its free players
// until its end, and finishes once it is over and no game is left. What follows a result names
// it (TournamentChange.Finished); a result that leads to nothing more is told to the views as
// such.
func (t *Tournaments) advance(ctx context.Context, tx Tx, st TournamentStore, tt *tournament.Tournament, finished *tournament.Pairing) error {
	if tt.State != tournament.Running {
		return nil
	}
	now := t.b.now()
	es, err := st.Entrants(ctx, tt.ID)
	if err != nil {
		return err
	}
	ps, err := st.Pairings(ctx, tt.ID)
	if err != nil {
		return err
	}
	players := seeded(es)
	var past []tournament.Game
	pending := 0
	for _, p := range ps {
		past = append(past, p.Game)
		if p.Result == tournament.Pending && !p.Bye() {
			pending++
		}
	}
	var games []tournament.Game
	var last bool
	switch tt.System {
	case tournament.Arena:
		if !now.Before(tt.EndsAt) {
			last = pending == 0
			break
		}
		games = t.arenaPairs(es, ps, tt.Round+1)
	case tournament.RoundRobinSystem:
		if pending > 0 {
			break
		}
		rounds, err := tournament.RoundRobin(players)
		if err != nil {
			return err
		}
		if tt.Round >= len(rounds) {
			last = true
			break
		}
		games = rounds[tt.Round]
	case tournament.Swiss:
		if pending > 0 {
			break
		}
		if tt.Round >= tt.Rounds {
			last = true
			break
		}
		if games, err = tournament.PairSwiss(players, past, tt.Round+1); err != nil {
			return err
		}
	}
	switch {
	case last:
		tt.State, tt.Finished = tournament.Finished, now
		if err := st.Save(ctx, tt); err != nil {
			return err
		}
		return t.tell(ctx, tx, st, tt, TournamentChange{Kind: TournamentFinished, Finished: finished})
	case len(games) > 0:
		paired, err := t.pair(ctx, tx, st, tt, games)
		if err != nil {
			return err
		}
		return t.tell(ctx, tx, st, tt, TournamentChange{Kind: TournamentPaired, Paired: paired, Finished: finished})
	case finished != nil:
		return t.tell(ctx, tx, st, tt, TournamentChange{Kind: TournamentResult, Finished: finished})
	}
	return nil
}

// arenaPairs pairs the free players of an arena (in the order they became free) after its
// finished games (in the order they finished).
func (t *Tournaments) arenaPairs(es []tournament.Entrant, ps []tournament.Pairing, round int) []tournament.Game {
	var free []tournament.Entrant
	for _, e := range es {
		if !e.FreeSince.IsZero() {
			free = append(free, e)
		}
	}
	slices.SortStableFunc(free, func(a, b tournament.Entrant) int {
		return cmp.Or(a.FreeSince.Compare(b.FreeSince), cmp.Compare(a.User, b.User))
	})
	waiting := make([]tournament.Player, len(free))
	for i, e := range free {
		waiting[i] = e.Player()
	}
	var finished []tournament.Game
	for _, p := range ps {
		if p.Result != tournament.Pending {
			finished = append(finished, p.Game)
		}
	}
	games, _ := tournament.PairArena(waiting, finished, round, len(es)-len(free))
	return games
}

// pair stores a round's games in a tournament locked in tx: each game an ordinary board opened
// between its players with the tournament's clock, a bye a pairing without a board; the
// tournament's round moves on, and the boards' changes are shown as any board's.
func (t *Tournaments) pair(ctx context.Context, tx Tx, st TournamentStore, tt *tournament.Tournament, games []tournament.Game) ([]tournament.Pairing, error) {
	tc, err := t.Control(ctx, tx.DB(), tt.Control)
	if err != nil {
		return nil, err
	}
	round := games[0].Round
	var out []tournament.Pairing
	var opened []*board.Board
	var started [][]board.Event
	for _, g := range games {
		g.Round = round
		p := tournament.Pairing{Game: g}
		if !g.Bye() {
			bd, ev, err := t.open(ctx, tx, tt, tc, g)
			if err != nil {
				return nil, err
			}
			p.Board = bd.ID
			opened, started = append(opened, bd), append(started, ev)
			if tt.System == tournament.Arena {
				for _, u := range []int64{g.White, g.Black} {
					if err := st.SetFree(ctx, tt.ID, u, time.Time{}); err != nil {
						return nil, err
					}
				}
			}
		}
		if err := st.AddPairing(ctx, tt.ID, &p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	tt.Round = round
	if err := st.Save(ctx, tt); err != nil {
		return nil, err
	}
	for i, bd := range opened {
		if err := t.b.changed(ctx, tx, bd, Change{Events: started[i], Actor: NoSeat, By: ByClock}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// open opens a tournament's game: a board of the tournament's game and clock between its white
// (seat 0) and black (seat 1), started at once, its clock running. It is private: nobody else
// can join it.
func (t *Tournaments) open(ctx context.Context, tx Tx, tt *tournament.Tournament, tc board.TimeControl, g tournament.Game) (*board.Board, []board.Event, error) {
	now := t.b.now()
	st := t.b.store(tx.DB())
	spec := board.Spec{Service: tt.Service, Creator: g.White, Variant: tt.Variant, Seed: t.b.seed(), Control: tc,
		Side: board.SideFirst, Private: true}
	bd, _, err := board.Open(spec, now)
	if err != nil {
		return nil, nil, err
	}
	if err := st.Create(ctx, bd); err != nil {
		return nil, nil, err
	}
	ev, err := bd.Join(g.Black, now)
	if err != nil {
		return nil, nil, err
	}
	if err := st.Save(ctx, bd); err != nil {
		return nil, nil, err
	}
	return bd, ev, nil
}

// SetSetting stores who may create tournaments in a bot (an admin's command).
func (t *Tournaments) SetSetting(ctx context.Context, tx Tx, service int, s tournament.Setting) error {
	if s.MaxOpen < 0 {
		return fmt.Errorf("%w: a limit of %d", board.ErrInvalid, s.MaxOpen)
	}
	return t.store(tx.DB()).SaveSetting(ctx, service, s)
}
