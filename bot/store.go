package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"
)

// Errors of a Store.
var (
	// ErrNoWork means the chat has nothing to handle or send now.
	ErrNoWork = errors.New("bot: nothing to do for this chat")
	// ErrBusy means another process holds the chat; it is left to that process.
	ErrBusy = errors.New("bot: chat is busy in another process")
)

// ChatKey names a chat of one bot, and for the outbox one of its lanes: the unit of ordering.
// The rate limits are the chat's, whatever the lane.
type ChatKey struct {
	Service int
	Chat    int64
	// Lane is the outbox lane; always LaneConversation for the inbox.
	Lane Lane
}

// Lane is one of the queues of a chat's outbox rows. The rows of a lane are sent one at a time in
// order; the lanes of a chat do not wait for each other, so a request that is not part of the
// conversation (a button's answer, the command menu), or one that keeps failing, does not hold
// the conversation, and a failing menu does not hold the answers.
type Lane int16

// The lanes of a chat.
const (
	// LaneConversation holds what the user sees in the chat: messages, edits, deletions.
	LaneConversation Lane = iota
	// LaneAnswers holds the answers to button presses, which stop the buttons' spinners.
	LaneAnswers
	// LaneMenu holds the command menus: the chat's own (setMyCommands with the chat's scope),
	// and in chat 0 the bot's.
	LaneMenu
	// LaneRetry holds the rows of the other lanes that kept failing for longer than
	// Config.GiveWayAfter: they are retried here, late, without holding the rows after them.
	LaneRetry
	// LaneUpdates holds the states of objects (Request.State) that reach a chat from elsewhere
	// than its user: another player's move, the bot's, a job's. It yields the chat's messages to
	// the conversation (see pacing), so an answer to what the user just did never waits behind
	// them; supersession keeps it short.
	LaneUpdates
)

// LaneOf is the lane a request of a method is queued in, unless it carries a state that reaches
// the chat from elsewhere (see QueueLane).
func LaneOf(method string) Lane {
	switch method {
	case "answerCallbackQuery", "answerInlineQuery":
		return LaneAnswers
	case "setMyCommands", "deleteMyCommands":
		return LaneMenu
	}
	return LaneConversation
}

// Lanes are the lanes, in order.
var Lanes = []Lane{LaneConversation, LaneAnswers, LaneMenu, LaneRetry, LaneUpdates}

// String is the lane's name, as the metrics label it.
func (l Lane) String() string {
	switch l {
	case LaneConversation:
		return "conversation"
	case LaneAnswers:
		return "answers"
	case LaneMenu:
		return "menu"
	case LaneRetry:
		return "retry"
	case LaneUpdates:
		return "updates"
	}
	return fmt.Sprintf("lane%d", int(l))
}

// LaneStats are the pending outbox rows of a lane, over all chats (Store.OutboxStats).
type LaneStats struct {
	Depth  int64
	Oldest time.Duration
}

// QueueLane is the lane r is queued in when the update being handled (if any) is from chat
// replyTo (0 outside an update): a request carrying a state (Request.State) for another chat,
// and a request aside (Request.Aside), go to LaneUpdates, anything else to LaneOf its method. A
// state queued in answer to its own chat's update is the answer to what the user did, and stays
// in the conversation.
func QueueLane(r Request, replyTo int64) Lane {
	if r.Aside && LaneOf(r.Method) == LaneConversation {
		return LaneUpdates
	}
	if r.State != "" && (replyTo == 0 || r.ChatID != replyTo) {
		return LaneUpdates
	}
	return LaneOf(r.Method)
}

// User is the sender of an update as stored, after the update was recorded.
type User struct {
	ID        int64
	ChatID    int64
	Username  string
	FirstName string
	// Language is the user's language: Telegram's language_code when they first wrote, or what
	// they chose since.
	Language string
	IsAdmin  bool
}

// Update is an update being handled: Telegram's update, the bot it came to and its sender.
type Update struct {
	tgbotapi.Update
	// Service is the id of the bot (the service row).
	Service int
	// Chat is the chat the update belongs to (the ordering key).
	Chat int64
	// User is the sender, nil for updates without one.
	User *User
	// Bot is the username of the bot the update came to.
	Bot string
	// Command and Args are the command a message starts with (lower case, without the slash
	// and the addressee) and the text after it, set by the Router; "" for other updates.
	Command, Args string
	// Download fetches a file the user sent (by file_id), up to max bytes. It is slow: handlers
	// that must not hold their transaction that long record the file_id and fetch it later.
	Download func(ctx context.Context, fileID string, max int64) (data []byte, path string, err error)
}

// Tx is the transaction an update is handled in. Everything done through it, the domain's state
// change on DB and the requests given to Send, commits together or not at all.
type Tx interface {
	// DB is the database transaction, for the domain's stores. It may be a savepoint inside a
	// transaction shared with other chats' updates: use it for statements (and nested Begin),
	// never Commit or Rollback it; returning an error from the handler rolls it back.
	DB() pgx.Tx
	// Send adds requests to the outbox. They are sent after the transaction commits, in order.
	Send(ctx context.Context, reqs ...Request) error
	// AtCommit queues a write to go with the transaction's COMMIT, in its round trip to the
	// database, as the outbox's requests do: for a record that nothing later in the transaction
	// reads (its statements do not see it) and that fails only with the database. Like a
	// request, it is dropped when the handler's part of the transaction is rolled back; when it
	// fails, the whole transaction does.
	AtCommit(sql string, args ...any)
	// AfterCommit calls fn once the transaction has committed, never when it (or the handler's
	// part of it) is rolled back: for work in this process that must find the commit, such as
	// waking a worker for what the transaction queued.
	AfterCommit(fn func())
}

// MaxUpdateID is the greatest update_id an offset can acknowledge: the offset that does is one
// more, and offsets are 64-bit. An update with a greater id (or a negative one) cannot be
// acknowledged, so it is quarantined, not handled: a server would deliver it again on every poll.
const MaxUpdateID = math.MaxInt64 - 1

// Saved is what Store.SaveUpdates did with a batch of updates.
type Saved struct {
	// Chats are the chats that got updates to handle.
	Chats []ChatKey
	// Quarantined are the updates of the batch newly quarantined; one quarantined before (a
	// copy delivered again) is not listed again.
	Quarantined []Quarantined
}

// Quarantined is an update stored apart from the inbox, as received, because it cannot be
// handled.
type Quarantined struct {
	// UpdateID is the update's update_id, when IDKnown.
	UpdateID int64
	IDKnown  bool
	// Reason says why it was quarantined.
	Reason string
}

// Handled is the result of handling the first update of a chat (Store.HandleBatch).
type Handled struct {
	Chat ChatKey
	// Update is the update handled (nil when there was none).
	Update *Update
	// Touched are the chats that got outbox rows.
	Touched []ChatKey
	// More reports whether the chat had more unhandled updates.
	More bool
	// Err is nil when the update was handled; see Store.HandleBatch.
	Err error
}

// IntakeHandler is implemented by a Store that can handle a long poll's updates in the
// transaction that stores them and moves the offset: the updates of chats with nothing waiting
// are handled at once with fn, in order, each as HandleBatch would; the others, those left when
// budget is spent, and those whose handler failed (with the attempt counted) are stored as
// SaveUpdates stores them, and listed in Saved.Chats. Handled lists the updates handled, with
// their results (Err set for a failure, already counted). An error means nothing was done.
type IntakeHandler interface {
	HandleAtIntake(ctx context.Context, service int, raw []json.RawMessage, next int64, budget time.Duration, fn Handler) (Saved, []Handled, error)
}

// ErrAbandon, returned by a handler, abandons its whole batch as if the process had stopped (test
// hooks use it).
var ErrAbandon = errors.New("bot: batch abandoned")

// Handler handles one update inside its transaction. A returned error rolls the transaction back;
// the update is tried again a few times, then given up with a generic reply to the user.
type Handler func(ctx context.Context, tx Tx, u *Update) error

// OutboxRow is a request taken from the outbox for sending.
type OutboxRow struct {
	ID       int64
	Chat     ChatKey
	Request  Request
	Attempts int
	// Created is when the row was queued.
	Created time.Time
	// FailingSince is when the row's first transient failure happened; zero while it has had
	// none.
	FailingSince time.Time
	// CachedFile is what the store knows of FilePath from an earlier upload: the file_id Telegram
	// gave it and the size and modification time the file had then.
	CachedFile *CachedFile
	// RefMessageIDs are the messages recorded under Request.TargetRef, in the order they were
	// sent; empty when the request targets no ref or none is known.
	RefMessageIDs []int
	// HasFallback reports whether the request has an OnFailure to send in its place.
	HasFallback bool
}

// CachedFile is a file Telegram already has.
type CachedFile struct {
	FileID  string
	Size    int64
	ModTime time.Time
}

// SendResult is what became of the first outbox row of a lane of a chat (Store.SendBatch).
type SendResult struct {
	Chat ChatKey
	// Outcome is the outcome of the send, when Err is nil.
	Outcome Outcome
	// More reports whether the lane had more pending rows.
	More bool
	// Err is ErrNoWork when the lane had no due row (Due is then when its first row becomes
	// due, or zero when it has none) and ErrBusy when another process holds the lane, or when
	// its first row waits for an older row of the same state in another lane.
	Err error
	Due time.Time
	// State is the state the row carried (Request.State), when Err is nil.
	State string
}

// Outcome is what became of an attempt to send an outbox row.
type Outcome struct {
	// Kind is what to do with the row.
	Kind OutcomeKind
	// RetryAt is when to try again (OutcomeRetry, OutcomeGiveWay), or the end of the lease of a
	// send that goes on without its batch (OutcomeDetached).
	RetryAt time.Time
	// Err describes the failure, for the record.
	Err string
	// FileID is the file_id Telegram gave to an uploaded file (OutcomeSent), with the size and
	// modification time of the file uploaded.
	Uploaded *CachedFile
	// MessageIDs are the messages Telegram created for a request with a Ref (OutcomeSent), to be
	// recorded under it.
	MessageIDs []int
}

// OutcomeKind says what to do with an outbox row after an attempt.
type OutcomeKind int

// The outcomes of a send.
const (
	// OutcomeSent: Telegram has it; the row is removed.
	OutcomeSent OutcomeKind = iota
	// OutcomeRetry: a transient failure or a 429; the row waits until RetryAt.
	OutcomeRetry
	// OutcomeFailed: a permanent failure; the row is kept as a record and skipped.
	OutcomeFailed
	// OutcomeBlocked: the user blocked the bot; the user is marked blocked and every pending row
	// of the chat is dropped as failed.
	OutcomeBlocked
	// OutcomeAbandon: nothing happened (the process is stopping); the row stays as it was.
	OutcomeAbandon
	// OutcomeDropped: the request is no longer worth sending (it targets a ref under which no
	// message is known, or it answers a button press too old to be answered); it was not sent,
	// or not again, and the row is removed.
	OutcomeDropped
	// OutcomeGiveWay: a transient failure that has held the row's lane long enough: the row
	// moves to LaneRetry, where it waits until RetryAt, and its lane goes on.
	OutcomeGiveWay
	// OutcomeDetached: the send is still running, too long to hold its batch: the row is leased
	// until RetryAt (not due before), and its real outcome is recorded by Store.FinishSend.
	OutcomeDetached
)

// Store is what the transport keeps in the database: the bots, the inbox, the users and the
// outbox. bot/botpg implements it with PostgreSQL.
type Store interface {
	// RegisterService records the bot behind token (as getMe describes it) and returns its service
	// id and the getUpdates offset at which its long poll resumes.
	RegisterService(ctx context.Context, token string, me tgbotapi.User) (id int, offset int64, err error)
	// SaveUpdates stores raw updates in the inbox and moves the bot's offset to next, in one
	// transaction; updates below the stored offset, or still in the inbox, are ignored (they were
	// stored before). With next 0 (a webhook) the offset is neither used nor moved: each update
	// id is recorded for a day instead, and an update recorded before is ignored, by a webhook
	// or by a poll (a second delivery after an answer was lost). What
	// PostgreSQL cannot hold (U+0000, unpaired surrogates, bytes that are not UTF-8) is replaced
	// by U+FFFD. An update that cannot be decoded, or whose update_id is outside 0..MaxUpdateID,
	// is quarantined: stored apart as received, never handled. One bad update never fails the
	// batch.
	SaveUpdates(ctx context.Context, service int, raw []json.RawMessage, next int64) (Saved, error)
	// TakePollLease takes or renews the lease on the long poll of bot service for holder until
	// until, unless another holder has it and it has not expired by now. When it is held it
	// returns true and the offset at which the poll resumes (the one stored with the last batch).
	TakePollLease(ctx context.Context, service int, holder string, now, until time.Time) (held bool, offset int64, err error)
	// ReleasePollLease gives up holder's lease on the long poll of bot service, so that another
	// process takes it at once; a lease holder does not have is left alone.
	ReleasePollLease(ctx context.Context, service int, holder string) error
	// PendingChats returns up to limit chats with updates not yet handled.
	PendingChats(ctx context.Context, limit int) ([]ChatKey, error)
	// HandleBatch takes the oldest unhandled update of each chat, records its sender and runs fn
	// on each, all in one transaction; fn's database work for an update that fails is rolled
	// back alone, and the updates whose fn returned nil are marked handled, with their outbox rows,
	// when everything commits. The result has one entry per chat, in order: Err is ErrNoWork when
	// the chat had no unhandled update, ErrBusy when another process works on it, or fn's error.
	// When fn returns ErrAbandon (or wraps it) the whole batch is rolled back and the error
	// returned; any other error return means the same for a failure of the database.
	HandleBatch(ctx context.Context, chats []ChatKey, fn Handler) ([]Handled, error)
	// RecordFailure notes a failed attempt at handling an update. After maxAttempts the update is
	// given up (marked handled, its error kept) and reply is written to the outbox; it then
	// returns true.
	RecordFailure(ctx context.Context, chat ChatKey, updateID int64, errText string, maxAttempts int, reply []Request) (bool, error)

	// Enqueue writes requests of a bot to the outbox outside any update (start-up work such as the
	// command menu, broadcasts). It returns the chats that got rows.
	Enqueue(ctx context.Context, service int, reqs []Request) ([]ChatKey, error)
	// PendingOutbox returns up to limit lanes of chats with pending outbox rows, with the time
	// the first row of each may be sent (zero: at once).
	PendingOutbox(ctx context.Context, limit int) (map[ChatKey]time.Time, error)
	// SendBatch takes the first pending row of each lane of a chat in chats, if it is due by now,
	// calls send with them (while holding them) and applies the outcomes, in one transaction. The
	// result has one entry per lane, in order; see SendResult.
	SendBatch(ctx context.Context, now time.Time, chats []ChatKey, send func(context.Context, []*OutboxRow) []Outcome) ([]SendResult, error)
	// FinishSend records the outcome of a send that went on without its batch (OutcomeDetached
	// with the lease), now that it has ended. It reports false, recording nothing, when the row
	// no longer holds that lease: the lease ran out and another process took the row.
	FinishSend(ctx context.Context, now time.Time, row *OutboxRow, lease time.Time, out Outcome) (bool, error)
	// OutboxStats returns, by lane, the number of pending outbox rows and the age of the
	// oldest (lanes without rows may be missing).
	OutboxStats(ctx context.Context) (map[Lane]LaneStats, error)
	// Cleanup removes the records of given-up updates, and the message ids recorded under refs,
	// older than age, and the ids of updates received by webhook after a day.
	Cleanup(ctx context.Context, age time.Duration) error
	// WebhookSecret returns the secret_token of a bot's webhook, which every process of the bot
	// checks: the one stored, or fresh, stored now, when none is. With fresh "" it only reads
	// ("" when none is stored).
	WebhookSecret(ctx context.Context, service int, fresh string) (string, error)
	// PruneFailed removes the outbox rows that failed for good (with their texts) and the
	// quarantined updates, older than age, and returns how many rows it removed.
	PruneFailed(ctx context.Context, age time.Duration) (int64, error)
	// Run runs fn in a transaction of its own, outside any update: its database work and the
	// requests given to the Tx's Send, written to the outbox of bot service, commit together or
	// not at all. With service 0 the Tx's Send fails with ErrNoService. It returns the chats that
	// got outbox rows.
	Run(ctx context.Context, service int, fn func(context.Context, Tx) error) ([]ChatKey, error)
}
