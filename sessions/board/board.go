package board

import (
	"fmt"
	"time"

	"github.com/questbot/questbot/engine"
)

// Status is where a board is in its life.
type Status uint8

// Board statuses.
const (
	// Waiting: opened, waiting for an opponent.
	Waiting Status = iota
	// Active: being played.
	Active
	// Finished: over, with an Outcome.
	Finished
	// Aborted: withdrawn or expired before anyone joined, or aborted by a player before both
	// sides had moved (Board.Abort); no outcome.
	Aborted
)

var statusNames = [...]string{"waiting", "active", "finished", "aborted"}

// String returns the status's stable name, as stored.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", s)
}

// ParseStatus reads a status by its stable name. Returns ErrInvalid for any other text.
func ParseStatus(s string) (Status, error) {
	for i, n := range statusNames {
		if n == s {
			return Status(i), nil
		}
	}
	return 0, fmt.Errorf("%w: board status %q", ErrInvalid, s)
}

// End is how a game ended.
type End uint8

// Ways a game ends.
const (
	// EndRules: the rules decided (checkmate, no legal moves, repetition, ...); the engine's
	// reason is the Outcome's Detail.
	EndRules End = iota
	// EndResignation: the loser resigned.
	EndResignation
	// EndTimeout: the loser's clock ran out (a draw when the winner could not have won).
	EndTimeout
	// EndAgreement: the players agreed to a draw.
	EndAgreement
)

var endNames = [...]string{"rules", "resignation", "timeout", "agreement"}

// String returns the end's stable name, as stored.
func (e End) String() string {
	if int(e) < len(endNames) {
		return endNames[e]
	}
	return fmt.Sprintf("End(%d)", e)
}

// ParseEnd reads an end by its stable name. Returns ErrInvalid for any other text.
func ParseEnd(s string) (End, error) {
	for i, n := range endNames {
		if n == s {
			return End(i), nil
		}
	}
	return 0, fmt.Errorf("%w: end %q", ErrInvalid, s)
}

// Outcome is the result of a finished game.
type Outcome struct {
	// Draw is true for a drawn game; otherwise Winner is the winning seat.
	Draw   bool
	Winner int
	End    End
	// Detail is the engine's reason when End is EndRules ("checkmate", "repetition", ...), and
	// says why a timeout was drawn.
	Detail string
}

// Score returns the points of a seat: 1 for a win, 0.5 for a draw, 0 for a loss.
func (o Outcome) Score(seat int) float64 {
	switch {
	case o.Draw:
		return 0.5
	case o.Winner == seat:
		return 1
	}
	return 0
}

// Seat is one side of a board: seat 0 plays engine.First (White, Red, the geese), seat 1
// engine.Second.
type Seat struct {
	// User is the Telegram user id of a human seat; 0 for the bot or an empty seat.
	User int64
	// Bot is the level of the bot holding the seat; NoBot for a human or an empty seat.
	Bot BotLevel
	// Clock is what is left of the seat's main time (Fischer, byo-yomi, sandglass), as of the
	// start of the current turn.
	Clock time.Duration
	// Seen is the last ply the seat has seen: a move the opponent has not seen may be taken
	// back.
	Seen int
	// Offered is set when the seat has offered a draw since the last move (one offer a move).
	Offered bool
	// RatingBefore and RatingAfter are the seat's Glicko-2 rating (glicko.go), rounded to a
	// whole number, before and after a rated game; the store fills them in when it records the
	// result.
	RatingBefore, RatingAfter int
}

// Empty reports whether nobody holds the seat.
func (s Seat) Empty() bool { return s.User == 0 && s.Bot == NoBot }

// Human reports whether a user holds the seat.
func (s Seat) Human() bool { return s.User != 0 }

// PlayedMove is one move of a board's move list.
type PlayedMove struct {
	// Ply is the move's number, from 1.
	Ply int
	// Seat is the seat that played it.
	Seat int
	// Text is the move's canonical notation (engine.Move.String).
	Text string
	// Position is the position after the move, in the game's own format.
	Position string
	// At is when the move was played, and Spent how long the mover thought.
	At    time.Time
	Spent time.Duration
	// Clocks are both seats' main times after the move (restored when it is taken back).
	Clocks [2]time.Duration
}

// DrawOffer is a pending draw offer.
type DrawOffer struct {
	Seat int // the seat that offers
	Ply  int // the ply at which it was made
}

// BotUser is the user id the AI worker acts as: operations given BotUser act for the seat the
// bot holds. Telegram user ids are positive, so it is nobody's.
const BotUser int64 = 0

// WaitingLifetime is how long a board may wait for an opponent before the cleanup job aborts
// it.
const WaitingLifetime = 7 * 24 * time.Hour

// Board is a board-game session as data: what a store keeps, and what the operations (Join,
// Move, Undo, ...) check and change. Its fields are filled by Open or by a store; the
// operations keep them consistent, so code outside stores should only read them.
type Board struct {
	// ID is the store's id (0 until created).
	ID int64
	// Service is the bot (service.id) the game is played in.
	Service int
	// Variant is the engine variant's name, and Options and Seed the rest of what builds the
	// engine game.
	Variant string
	Options Options
	Seed    uint64
	Control TimeControl
	Status  Status
	// Private boards are joined by invite only, never by matchmaking.
	Private bool
	// Creator is the user who opened the board.
	Creator int64
	// Created, Started and Ended are when the board was opened, filled and finished or
	// aborted (zero until then).
	Created, Started, Ended time.Time
	Seats                   [2]Seat
	// Start is the start position, and Position the position after the last move; both in
	// the game's own format.
	Start    string
	Position string
	// Moves is the move list; its length is the board's ply.
	Moves []PlayedMove
	// ToMove is the seat to move (meaningful while active).
	ToMove int
	// TurnStarted is when the current turn began: the start of the game or the last move.
	TurnStarted time.Time
	// Deadline is when the seat to move runs out of time; zero when no clock runs (no time
	// control, or the bot to move: the bot never loses on time).
	Deadline time.Time
	// Offer is the pending draw offer, if any.
	Offer *DrawOffer
	// Reminded is set once the seat to move has been reminded of its correspondence deadline
	// (at most once a ply; cleared by every move and undo).
	Reminded bool
	// Rated boards (two users: people, or programs with an API token; never the built-in bot)
	// change the players' Glicko-2 ratings when they finish.
	Rated bool
	// Outcome is the result, once finished.
	Outcome *Outcome

	game   *engine.Game // the replayed engine game, built on first use
	stored stored       // what the store holds, for Changes
}

// stored is what a store holds of a board: its revision, the ply and status it was stored
// with, and how many of the stored moves are still valid (an undo invalidates the tail).
type stored struct {
	revision int64
	ply      int
	kept     int
	status   Status
}

// Ply returns the number of moves played.
func (b *Board) Ply() int { return len(b.Moves) }

// SeatOf returns the seat a user holds (BotUser: the bot's seat). Returns ErrNotSeated when
// they hold none.
func (b *Board) SeatOf(user int64) (int, error) {
	for i, s := range b.Seats {
		if (user == BotUser && s.Bot != NoBot) || (user != BotUser && s.User == user) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("board %d: user %d: %w", b.ID, user, ErrNotSeated)
}

// BotSeat returns the seat the bot holds, if any.
func (b *Board) BotSeat() (int, bool) {
	for i, s := range b.Seats {
		if s.Bot != NoBot {
			return i, true
		}
	}
	return 0, false
}

// Clocks returns both seats' main times at now, the running clock of the side to move
// charged with its thinking so far; for display (the deadline decides timeouts).
func (b *Board) Clocks(now time.Time) [2]time.Duration {
	c := [2]time.Duration{b.Seats[0].Clock, b.Seats[1].Clock}
	if b.Status == Active && !b.Deadline.IsZero() {
		c[b.ToMove] = b.Control.running(c[b.ToMove], now.Sub(b.TurnStarted))
	}
	return c
}

// Rebuild returns the board's engine game, built afresh from the variant, options and seed
// and brought to the current position by replaying the move list; the caller owns it (for
// pictures, legal moves, the AI). Every replayed position is checked against the stored one:
// a difference is ErrCorrupt.
func (b *Board) Rebuild() (*engine.Game, error) {
	g, err := b.Options.newGame(b.Variant, b.Seed)
	if err != nil {
		return nil, fmt.Errorf("board %d: rebuild: %w", b.ID, err)
	}
	if p := g.Position(); p != b.Start {
		return nil, fmt.Errorf("board %d: %w: start position %q, stored %q", b.ID, ErrCorrupt, p, b.Start)
	}
	for i, m := range b.Moves {
		if m.Ply != i+1 {
			return nil, fmt.Errorf("board %d: %w: move %d numbered %d", b.ID, ErrCorrupt, i+1, m.Ply)
		}
		if m.Seat != int(g.ToMove()) {
			return nil, fmt.Errorf("board %d: %w: move %d by seat %d, %d was to move", b.ID, ErrCorrupt, m.Ply, m.Seat, g.ToMove())
		}
		if _, err := g.Play(m.Text); err != nil {
			return nil, fmt.Errorf("board %d: %w: move %d: %w", b.ID, ErrCorrupt, m.Ply, err)
		}
		if p := g.Position(); p != m.Position {
			return nil, fmt.Errorf("board %d: %w: after move %d the position is %q, stored %q", b.ID, ErrCorrupt, m.Ply, p, m.Position)
		}
	}
	if p := g.Position(); p != b.Position {
		return nil, fmt.Errorf("board %d: %w: position %q, stored %q", b.ID, ErrCorrupt, p, b.Position)
	}
	return g, nil
}

// GameAt returns a new engine game of the board at ply (0: the start position, Ply: the
// position now), built from the variant, options and seed with the move list replayed up to it;
// the caller owns it (for the pictures and the analysis of a past position). A ply the board
// has not reached is ErrInvalid.
func (b *Board) GameAt(ply int) (*engine.Game, error) {
	if ply < 0 || ply > len(b.Moves) {
		return nil, fmt.Errorf("board %d: %w: no ply %d, the game has %d", b.ID, ErrInvalid, ply, len(b.Moves))
	}
	if ply == len(b.Moves) {
		return b.Rebuild()
	}
	g, err := b.Options.newGame(b.Variant, b.Seed)
	if err != nil {
		return nil, fmt.Errorf("board %d: rebuild: %w", b.ID, err)
	}
	for _, m := range b.Moves[:ply] {
		if _, err := g.Play(m.Text); err != nil {
			return nil, fmt.Errorf("board %d: %w: move %d: %w", b.ID, ErrCorrupt, m.Ply, err)
		}
	}
	return g, nil
}

// Game returns the board's own engine game, replayed (and checked, as by Rebuild) on first
// use and kept in step by the operations, for reading: legal moves, Steps, pictures, BestMove.
// Playing or taking back moves on it does not change the board; the board notices and replays
// its game again on next use.
func (b *Board) Game() (*engine.Game, error) { return b.engine() }

// engine returns the board's own engine game, replaying it when there is none or when it no
// longer matches the board.
func (b *Board) engine() (*engine.Game, error) {
	if b.game == nil || b.game.Ply() != len(b.Moves) || b.game.Position() != b.Position {
		g, err := b.Rebuild()
		if err != nil {
			return nil, err
		}
		b.game = g
	}
	return b.game, nil
}

// MarkStored records that a store holds the board as it is now, at the given revision. Stores
// call it after reading or writing a board.
func (b *Board) MarkStored(revision int64) {
	b.stored = stored{revision: revision, ply: len(b.Moves), kept: len(b.Moves), status: b.Status}
}

// Revision returns the store's revision of the board when it was last read or written (0 for
// a board never stored). Every save moves it on, so it tells whether a board read earlier is
// still current.
func (b *Board) Revision() int64 { return b.stored.revision }

// Changes is what changed on a board since it was stored.
type Changes struct {
	// Revision, Ply and Status are what the store holds; a save must find them unchanged.
	Revision int64
	Ply      int
	Status   Status
	// Kept is how many of the stored moves are still valid; the stored moves after it were
	// taken back. Added are the moves to store after them.
	Kept  int
	Added []PlayedMove
	// Finished is set when the game ended since: the players' statistics are due.
	Finished bool
}

// Changes returns what changed since the board was stored (MarkStored).
func (b *Board) Changes() Changes {
	s := b.stored
	return Changes{
		Revision: s.revision,
		Ply:      s.ply,
		Status:   s.status,
		Kept:     s.kept,
		Added:    append([]PlayedMove(nil), b.Moves[s.kept:]...),
		Finished: b.Status == Finished && s.status != Finished,
	}
}

// truncate takes the move list back to n plies, for Changes.
func (b *Board) truncate(n int) {
	b.Moves = b.Moves[:n]
	b.stored.kept = min(b.stored.kept, n)
}

// instant reduces a time to what a store keeps: microseconds (PostgreSQL's precision), in
// UTC, without a monotonic reading; so a board read back equals the board stored.
func instant(t time.Time) time.Time { return t.Truncate(time.Microsecond).UTC() }

// EventKind says what happened on a board.
type EventKind uint8

// Board event kinds.
const (
	// EventOpened: a board was opened and waits for an opponent (Seat: the creator's).
	EventOpened EventKind = iota + 1
	// EventStarted: both seats are filled and the clocks run (Seat: the side to move).
	EventStarted
	// EventMoved: Seat played Move, making Ply.
	EventMoved
	// EventUndone: Seat took back Undone plies; the board is at Ply again.
	EventUndone
	// EventDrawOffered: Seat offers a draw.
	EventDrawOffered
	// EventDrawDeclined: Seat declined the opponent's draw offer (explicitly, by moving, or
	// the bot by its judgement).
	EventDrawDeclined
	// EventFinished: the game is over; Outcome says how.
	EventFinished
	// EventAborted: the creator withdrew a waiting board, or a player aborted an active game
	// before both sides had moved (Seat: the seat that withdrew or aborted).
	EventAborted
)

var eventKindNames = [...]string{"", "opened", "started", "moved", "undone", "draw offered", "draw declined", "finished", "aborted"}

// String names the kind.
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) && k != 0 {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// Event is one thing an operation did, for the bot to turn into messages. Operations
// return them in the order they happened (a move, then the draw offer it declined, then the
// end of the game).
type Event struct {
	Kind EventKind
	// Seat is the seat that acted (see the kinds).
	Seat int
	// Ply is the board's ply after the event.
	Ply int
	// Move is the canonical text of the move played (EventMoved).
	Move string
	// Undone is the number of plies taken back (EventUndone).
	Undone int
	// Outcome is the result (EventFinished).
	Outcome *Outcome
}
