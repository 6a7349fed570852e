package sessions

import (
	"context"
	"time"
)

// InviteLifetime is how long an invite link stays valid unless the caller chooses otherwise.
const InviteLifetime = 24 * time.Hour

// BoardStore keeps boards, bound to the caller's transaction: a move made in Telegram is
// stored in the transaction of the update, with the messages it sends. sessionpg implements it.
type BoardStore interface {
	// Create stores a new board (from OpenBoard) and sets its ID.
	Create(ctx context.Context, b *Board) error
	// Lock reads a board and locks it until the transaction ends. Returns ErrNotFound.
	Lock(ctx context.Context, id int64) (*Board, error)
	// Get reads a board without locking it (for views). Returns ErrNotFound.
	Get(ctx context.Context, id int64) (*Board, error)
	// Save stores what operations changed on a board read (or created) in this or an earlier
	// transaction: the moves played and taken back, the seats, clocks, status and outcome.
	// When the game has just finished it also records both players' statistics and, for a
	// rated game, their new ratings (filling the seats' RatingBefore and RatingAfter). Returns
	// ErrStale when the stored board has changed since it was read, so a board saved twice
	// from one reading fails instead of losing a move; ErrNotFound when it is gone.
	Save(ctx context.Context, b *Board) error
	// ClaimWaiting finds the oldest waiting, public board of spec's service, variant, options
	// and time control (the same mode and durations) opened by someone other than
	// spec.Creator, and locks it; a board another transaction holds is skipped, so two
	// players never claim one seat. The joiner then calls Join and Save. Returns ErrNotFound
	// when there is none (then OpenBoard and Create).
	ClaimWaiting(ctx context.Context, spec BoardSpec) (*Board, error)
	// CreateInvite makes a single-use invite to a waiting board, valid until now+ttl, and
	// returns its code (letters, digits, '-' and '_', fit for a /start deep link). Only a hash
	// of the code is stored. Returns ErrNotFound, or ErrFull when the board no longer waits.
	CreateInvite(ctx context.Context, board int64, now time.Time, ttl time.Duration) (string, error)
	// RedeemInvite uses an invite for user and returns its board, locked, for Join and Save.
	// Returns ErrNotFound for an unknown code, ErrInviteUsed, ErrInviteExpired (also when the
	// board was aborted), ErrFull when the board has started, ErrAlreadySeated for its
	// creator; a refused invite stays unused.
	RedeemInvite(ctx context.Context, code string, user int64, now time.Time) (*Board, error)
	// UserBoards lists a user's waiting and active boards in a bot, at most limit (0: all):
	// first those where it is the user's turn (the nearest deadline first), then those where
	// the opponent is to move, then those still waiting.
	UserBoards(ctx context.Context, service int, user int64, limit int) ([]BoardInfo, error)
	// UserStats returns a user's statistics and ratings in a bot, one per variant played.
	UserStats(ctx context.Context, service int, user int64) ([]BoardStats, error)
	// TimeControls returns the catalogue of time controls a player chooses from, in menu
	// order (seeded with Controls; an operator may add rows).
	TimeControls(ctx context.Context) ([]TimeControl, error)
}

// BoardJobs is the scheduled work on boards, bound to the job's transaction. Each claim locks
// the rows it returns (FOR UPDATE SKIP LOCKED), so two processes never handle one board twice.
// A limit of 0 or less means no limit. sessionpg implements it.
type BoardJobs interface {
	// ClaimExpired returns, locked, at most limit active boards whose deadline is before now,
	// for Expire and Save.
	ClaimExpired(ctx context.Context, now time.Time, limit int) ([]*Board, error)
	// ClaimBotTurns returns at most limit active boards where the bot is to move and no other
	// worker holds a lease on this turn, and leases each turn to the caller until now+lease.
	// The worker commits the claim, computes the move from Game with the bot level's
	// Limits, then in a new transaction locks the board and plays the move only if the
	// board's Revision is still the claimed one (otherwise the result is stale: dropped).
	ClaimBotTurns(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*Board, error)
	// ClaimReminders marks as reminded, and returns, at most limit correspondence boards
	// whose player to move reaches ReminderLead before the deadline (the rule of
	// Board.Remind), once per ply.
	ClaimReminders(ctx context.Context, now time.Time, limit int) ([]BoardReminder, error)
	// Cleanup aborts at most limit boards that have waited for an opponent longer than
	// WaitingLifetime, returning them (User: the creator), and deletes the invites expired
	// before now, returning how many.
	Cleanup(ctx context.Context, now time.Time, limit int) ([]BoardInfo, int, error)
}

// BoardInfo is a board as a user's list shows it.
type BoardInfo struct {
	ID      int64
	Service int
	Variant string
	// Control is the time control's name.
	Control string
	Status  BoardStatus
	// User is the user the list is for, and Seat theirs.
	User int64
	Seat int
	// Opponent is the other seat (empty while waiting).
	Opponent Seat
	Ply      int
	ToMove   int
	// MyTurn is set when the game is on and User is to move.
	MyTurn      bool
	Deadline    time.Time
	TurnStarted time.Time
	Created     time.Time
}

// BoardStats are a user's results in one variant of one bot. Games against the bot count in
// Played, Won, Lost and Drawn; only games between two users (Rated of them) move the rating.
type BoardStats struct {
	Variant                  string
	Played, Won, Lost, Drawn int
	Rated                    int
	Rating                   int
}

// BoardReminder is a correspondence reminder due: User (holding Seat) must move on Board
// before Deadline, at Ply.
type BoardReminder struct {
	Board    int64
	Service  int
	User     int64
	Seat     int
	Ply      int
	Deadline time.Time
}
