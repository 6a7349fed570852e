package board

import (
	"fmt"
	"time"

	"github.com/questbot/questbot/engine"
)

// Side is the seat a board's creator asks for.
type Side uint8

// Sides.
const (
	// SideFirst is seat 0 (engine.First: White, Red, the geese).
	SideFirst Side = iota
	// SideSecond is seat 1 (engine.Second).
	SideSecond
	// SideRandom picks one from the board's seed.
	SideRandom
)

// Spec is what a new board is opened with.
type Spec struct {
	// Service is the bot the game is played in, and Creator the user who opens it.
	Service int
	Creator int64
	// Variant (an engine variant name), Options and Seed build the engine game. The seed
	// should come from a good random source: it picks a random side and seeds the AI.
	Variant string
	Options Options
	Seed    uint64
	Control TimeControl
	Side    Side
	// Bot, when set, puts the bot of that level in the other seat: the game starts at once.
	Bot BotLevel
	// Private boards wait for an invited friend, never for matchmaking.
	Private bool
}

// Open opens a board: the creator takes a seat and waits for an opponent (EventOpened),
// or plays the bot at once (EventStarted). Returns ErrInvalid, wrapping the engine's error
// where it has one (engine.ErrUnknownVariant, engine.ErrBadOption, engine.ErrBadPosition), for
// a spec that cannot be played, including a start position whose game is already decided.
func Open(spec Spec, now time.Time) (*Board, []Event, error) {
	now = instant(now)
	if spec.Creator <= 0 || spec.Service <= 0 {
		return nil, nil, fmt.Errorf("open board: %w: creator %d in service %d", ErrInvalid, spec.Creator, spec.Service)
	}
	if err := spec.Control.Validate(); err != nil {
		return nil, nil, fmt.Errorf("open board: %w", err)
	}
	if spec.Bot > BotStrong || spec.Side > SideRandom {
		return nil, nil, fmt.Errorf("open board: %w: bot level %d, side %d", ErrInvalid, spec.Bot, spec.Side)
	}
	g, err := spec.Options.newGame(spec.Variant, spec.Seed)
	if err != nil {
		return nil, nil, fmt.Errorf("open board: %w", err)
	}
	if st := g.Status(); st.Result != engine.Ongoing {
		return nil, nil, fmt.Errorf("open board: %w: the start position is decided (%s)", ErrInvalid, st.Reason)
	}
	seat := int(spec.Side)
	if spec.Side == SideRandom {
		seat = int(spec.Seed >> 32 & 1)
	}
	b := &Board{
		Service:  spec.Service,
		Variant:  g.Variant(),
		Options:  spec.Options,
		Seed:     spec.Seed,
		Control:  spec.Control,
		Status:   Waiting,
		Private:  spec.Private && spec.Bot == NoBot,
		Creator:  spec.Creator,
		Created:  now,
		Start:    g.Position(),
		Position: g.Position(),
		ToMove:   int(g.ToMove()),
		game:     g,
	}
	b.Seats[seat] = Seat{User: spec.Creator}
	if spec.Bot != NoBot {
		b.Seats[1-seat] = Seat{Bot: spec.Bot}
		return b, b.start(now), nil
	}
	return b, []Event{{Kind: EventOpened, Seat: seat}}, nil
}

// Join seats a user in the free seat of a waiting board and starts the game: the clocks run
// from now. Returns ErrFull when the game has started, ErrFinished when it is over or
// aborted, ErrAlreadySeated for the creator, ErrInvalid for BotUser.
func (b *Board) Join(user int64, now time.Time) ([]Event, error) {
	now = instant(now)
	if user <= 0 {
		return nil, fmt.Errorf("board %d: join: %w: user %d", b.ID, ErrInvalid, user)
	}
	switch b.Status {
	case Active:
		return nil, fmt.Errorf("board %d: join: %w", b.ID, ErrFull)
	case Finished, Aborted:
		return nil, fmt.Errorf("board %d: join: %w", b.ID, ErrFinished)
	}
	free := -1
	for i, s := range b.Seats {
		if s.User == user {
			return nil, fmt.Errorf("board %d: join: %w", b.ID, ErrAlreadySeated)
		}
		if s.Empty() {
			free = i
		}
	}
	if free < 0 {
		return nil, fmt.Errorf("board %d: join: %w", b.ID, ErrFull)
	}
	b.Seats[free] = Seat{User: user}
	return b.start(now), nil
}

// Cancel withdraws a waiting board: its creator no longer waits (EventAborted). Returns
// ErrFull once someone has joined (the game is on: resign instead), ErrFinished when it is
// over or aborted, ErrNotSeated for anyone but the creator.
func (b *Board) Cancel(user int64, now time.Time) ([]Event, error) {
	now = instant(now)
	switch b.Status {
	case Active:
		return nil, fmt.Errorf("board %d: cancel: %w", b.ID, ErrFull)
	case Finished, Aborted:
		return nil, fmt.Errorf("board %d: cancel: %w", b.ID, ErrFinished)
	}
	seat, err := b.SeatOf(user)
	if err != nil || user == BotUser {
		return nil, fmt.Errorf("board %d: cancel: %w", b.ID, ErrNotSeated)
	}
	b.Status = Aborted
	b.Ended = now
	return []Event{{Kind: EventAborted, Seat: seat}}, nil
}

// start begins play once both seats are filled: the main times are set and the clock of the
// side to move runs.
func (b *Board) start(now time.Time) []Event {
	b.Status = Active
	b.Started = now
	b.Rated = b.Seats[0].Human() && b.Seats[1].Human()
	for i := range b.Seats {
		b.Seats[i].Clock = b.Control.Main
	}
	b.TurnStarted = now
	b.setDeadline()
	return []Event{{Kind: EventStarted, Seat: b.ToMove, Ply: b.Ply()}}
}

// setDeadline sets the deadline of the turn that began at TurnStarted: none without a clock,
// and none for the bot, which never loses on time (its moves come from a worker whose delays
// are the service's, not the player's).
func (b *Board) setDeadline() {
	b.Deadline = time.Time{}
	if b.Seats[b.ToMove].Bot != NoBot {
		return
	}
	if d, ok := b.Control.budget(b.Seats[b.ToMove].Clock); ok {
		b.Deadline = b.TurnStarted.Add(d)
	}
}

// Abort calls off an active game in which a side has not yet made its first move, as a player
// may on the common chess servers: the board ends Aborted, with no outcome, so no result and no
// rating change (EventAborted, Seat: the seat that aborted). Either player may abort. Returns
// ErrCannotAbort once both sides have moved, ErrNotStarted, ErrFinished or ErrNotSeated (the
// bot never aborts); when the side to move has already run out of time, the game ends on time
// instead.
func (b *Board) Abort(user int64, now time.Time) ([]Event, error) {
	now = instant(now)
	seat, err := b.actor(user)
	if err != nil || user == BotUser {
		if err == nil {
			err = ErrNotSeated
		}
		return nil, fmt.Errorf("board %d: abort: %w", b.ID, err)
	}
	if ev, err := b.settle(now); ev != nil || err != nil {
		return ev, err
	}
	if b.bothMoved() {
		return nil, fmt.Errorf("board %d: abort: %w: both sides have moved", b.ID, ErrCannotAbort)
	}
	b.Status = Aborted
	b.Ended = now
	b.Deadline = time.Time{}
	b.Offer = nil
	return []Event{{Kind: EventAborted, Seat: seat, Ply: b.Ply()}}, nil
}

// bothMoved reports whether each seat has played at least one move.
func (b *Board) bothMoved() bool {
	var moved [2]bool
	for _, m := range b.Moves {
		moved[m.Seat] = true
		if moved[0] && moved[1] {
			return true
		}
	}
	return false
}
