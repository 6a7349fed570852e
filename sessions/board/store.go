package board

import (
	"context"
	"time"
)

// InviteLifetime is how long an invite link stays valid unless the caller chooses otherwise.
const InviteLifetime = 24 * time.Hour

// Store keeps boards, bound to the caller's transaction: a move made in Telegram is
// stored in the transaction of the update, with the messages it sends. boardpg implements it.
type Store interface {
	// Create stores a new board (from Open) and sets its ID.
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
	// when there is none (then Open and Create).
	ClaimWaiting(ctx context.Context, spec Spec) (*Board, error)
	// CreateInvite makes a single-use invite to a waiting board, valid until now+ttl, and
	// returns its code (letters, digits, '-' and '_', fit for a /start deep link). Only a hash
	// of the code is stored. Returns ErrNotFound, or ErrFull when the board no longer waits.
	CreateInvite(ctx context.Context, board int64, now time.Time, ttl time.Duration) (string, error)
	// RedeemInvite uses an invite for user and returns its board, locked, for Join and Save.
	// Returns ErrNotFound for an unknown code, ErrInviteUsed, ErrInviteExpired (also when the
	// board was aborted), ErrFull when the board has started, ErrAlreadySeated for its
	// creator; a refused invite stays unused.
	RedeemInvite(ctx context.Context, code string, user int64, now time.Time) (*Board, error)
	// RedeemInviteDigest is RedeemInvite by the digest of the code (boardpg.InviteDigest), for
	// a view that keeps the digest rather than the code: a message whose button redeems it.
	RedeemInviteDigest(ctx context.Context, digest string, user int64, now time.Time) (*Board, error)
	// UserBoards lists a user's waiting and active boards in a bot, at most limit (0: all):
	// first those where it is the user's turn (the nearest deadline first), then those where
	// the opponent is to move, then those still waiting.
	UserBoards(ctx context.Context, service int, user int64, limit int) ([]Info, error)
	// WaitingBoards returns the public boards of a bot that wait for an opponent, opened by
	// others than except, oldest first (the order of matchmaking), at most limit.
	WaitingBoards(ctx context.Context, service int, except int64, limit int) ([]int64, error)
	// UserStats returns a user's statistics and ratings in a bot, one per variant played.
	UserStats(ctx context.Context, service int, user int64) ([]Stats, error)
	// TimeControls returns the catalogue of time controls a player chooses from, in menu
	// order (seeded with Controls; an operator may add rows).
	TimeControls(ctx context.Context) ([]TimeControl, error)
}

// Jobs is the scheduled work on boards, bound to the job's transaction. Each claim locks
// the rows it returns (FOR UPDATE SKIP LOCKED), so two processes never handle one board twice.
// A limit of 0 or less means no limit. boardpg implements it.
type Jobs interface {
	// ClaimExpired returns, locked, at most limit active boards whose deadline is before now,
	// for Expire and Save.
	ClaimExpired(ctx context.Context, now time.Time, limit int) ([]*Board, error)
	// ClaimBotTurns returns at most limit active boards where the bot is to move and no other
	// worker holds a lease on this turn, and leases each turn to the caller until now+lease.
	// The players are served in turn (a player's first waiting turn before anybody's second),
	// and no player has more than perPlayer turns under lease at once.
	// The worker commits the claim, computes the move from Game with the bot level's
	// Limits, then in a new transaction locks the board and plays the move only if the
	// board's Revision is still the claimed one (otherwise the result is stale: dropped).
	ClaimBotTurns(ctx context.Context, now time.Time, lease time.Duration, limit, perPlayer int) ([]*Board, error)
	// ClaimReminders marks as reminded, and returns, at most limit correspondence boards
	// whose player to move reaches ReminderLead before the deadline (the rule of
	// Board.Remind), once per ply.
	ClaimReminders(ctx context.Context, now time.Time, limit int) ([]Reminder, error)
	// Cleanup aborts at most limit boards that have waited for an opponent longer than
	// WaitingLifetime, returning them (User: the creator), and deletes the invites expired
	// before now, returning how many.
	Cleanup(ctx context.Context, now time.Time, limit int) ([]Info, int, error)
	// WaitingAmong returns, of the boards ids, at most limit that still wait for an opponent
	// and were opened at or before before, the oldest first (a view's challenges to expire).
	WaitingAmong(ctx context.Context, ids []int64, before time.Time, limit int) ([]Ref, error)
}

// Info is a board as a user's list shows it.
type Info struct {
	ID      int64
	Service int
	Variant string
	// Control is the time control's name.
	Control string
	Status  Status
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

// Stats are a user's results in one variant of one bot. Games against the bot count in
// Played, Won, Lost and Drawn; only games between two users (Rated of them) move the rating.
type Stats struct {
	Variant                  string
	Played, Won, Lost, Drawn int
	Rated                    int
	// Rating is the Glicko-2 rating as of the last rated game, RatedAt (zero: never rated);
	// Current ages it to a moment.
	Rating  Glicko
	RatedAt time.Time
}

// Current returns the rating as it stands at now: its deviation grown with the time since the
// last rated game (Glicko.Age).
func (s Stats) Current(now time.Time) Glicko {
	if s.RatedAt.IsZero() {
		return s.Rating
	}
	return s.Rating.Age(now.Sub(s.RatedAt))
}

// Reminder is a correspondence reminder due: User (holding Seat) must move on Board
// before Deadline, at Ply.
type Reminder struct {
	Board    int64
	Service  int
	User     int64
	Seat     int
	Ply      int
	Deadline time.Time
}

// Views is what the service keeps of a board for its views beside its rules, bound to the
// caller's transaction: when each seat's player was last on the web, the pending notifications
// of news and the users' notification settings (the policy is the service's, bot/boards
// notify.go), the clock reminders sent, and whether spectators may watch. boardpg implements it.
// What a view keeps for itself alone is its own store's (the Telegram view's messages:
// bot/boards/telegram/tgstore).
type Views interface {
	// Attention returns, per seat, what the notification policy reads of its player: when they
	// last acted on the game on the web, and the notification setting of users[seat], the
	// seat's user (0 or board.BotUser for none: the zero setting), in one read.
	Attention(ctx context.Context, board int64, users [2]int64) ([2]Attention, error)
	// MarkWeb records that a seat's player acted on the game on the web at.
	MarkWeb(ctx context.Context, board int64, seat int, at time.Time) error
	// LeaveWeb forgets that a seat's player was on the web.
	LeaveWeb(ctx context.Context, board int64, seat int) error

	// NotifySetting returns a user's notification setting (the zero one when they never chose);
	// SaveNotifySetting stores it.
	NotifySetting(ctx context.Context, user int64) (NotifySetting, error)
	SaveNotifySetting(ctx context.Context, user int64, s NotifySetting) error
	// PendNotice sets a seat's pending notification of a board (one per board and seat: it
	// replaces the one pending), due at n.Due.
	PendNotice(ctx context.Context, board int64, n Notice, now time.Time) error
	// DropNotice removes a seat's pending notification, reporting whether there was one.
	DropNotice(ctx context.Context, board int64, seat int) (bool, error)
	// TakeNotice removes and returns a seat's pending notification, due or not; false when
	// there was none.
	TakeNotice(ctx context.Context, board int64, seat int) (Notice, bool, error)
	// ClaimNotices locks (SKIP LOCKED) and returns the notifications of a board due by now,
	// by seat.
	ClaimNotices(ctx context.Context, board int64, now time.Time) ([]Notice, error)
	// DueNoticeBoards returns at most limit boards with notifications due by now, the most
	// overdue first.
	DueNoticeBoards(ctx context.Context, now time.Time, limit int) ([]Ref, error)

	// ClockLeadBoards returns at most limit active boards with a clock of minutes whose player
	// to move is within the lead of the clock's end (a fifth of the main time, at least a
	// minute) and was not reminded at this ply, the nearest deadline first.
	ClockLeadBoards(ctx context.Context, now time.Time, limit int) ([]Ref, error)
	// MarkClockReminder records that the player to move of a board was reminded at ply; false
	// when they were already.
	MarkClockReminder(ctx context.Context, board int64, ply int) (bool, error)

	// Spectators reports whether anyone may watch a board; SetSpectators switches it.
	Spectators(ctx context.Context, board int64) (bool, error)
	SetSpectators(ctx context.Context, board int64, allow bool, by int64, at time.Time) error
}

// Attention is what the notification policy reads of a seat's player (Views.Attention).
type Attention struct {
	// Web is when the player last acted on the game on the web (zero: never, or not since they
	// acted in Telegram).
	Web time.Time
	// Notify is the player's notification setting (the zero one when they never chose).
	Notify NotifySetting
}

// NoticeWrite is what the notification policy does to a seat's pending notification of a board
// (Notice.Seat's) as a change is recorded: Drop removes it (as Views.DropNotice), else it
// becomes Notice, created at Now (as Views.PendNotice). boardpg writes them with the change's
// events, in the same round trip.
type NoticeWrite struct {
	Board  int64
	Notice Notice
	Drop   bool
	Now    time.Time
}

// NotifySetting is a user's notification setting.
type NotifySetting struct {
	// Delay is "" (by the game's clock), or the name of a delay ("now", "15m", "1h", "never").
	Delay string
	// Quiet is set when the user has quiet hours, From (inclusive) To (exclusive), whole hours
	// of their day.
	Quiet    bool
	From, To int
	// Offset is the user's UTC offset in minutes.
	Offset int
}

// Notice is a seat's pending notification of news of a board.
type Notice struct {
	Seat int
	// Ply is the board's ply when the news came, Kind what it is, Actor the seat that made it
	// (-1: the clock).
	Ply   int
	Kind  string
	Actor int
	// Due is when it is to be sent.
	Due time.Time
}

// Ref names a board and its bot.
type Ref struct {
	ID      int64
	Service int
}
