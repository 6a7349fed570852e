package devpg

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB runs statements: a transaction, or the pool for the statements that take no part in one
// (Claim, Release).
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Store keeps the queue of downloads. It holds nothing: every method works on the db it is given.
type Store struct{}

// New returns the store of the queue of downloads.
func New() *Store { return &Store{} }

// NewFetch is a file to record for download.
type NewFetch struct {
	Service int
	// Chat is the chat the file was sent into, User its sender.
	Chat int64
	User int64
	// FileID is Telegram's id of the file, FileName the name it was sent with (a label only)
	// and Size the size Telegram announced.
	FileID   string
	FileName string
	Size     int
	// Payload is the update that brought the file, as JSON.
	Payload []byte
	// Compile, when not "", makes the job the compilation of the user's source of that name
	// instead of a download (FileID and Size are then empty).
	Compile string
}

const recordSQL = `
		WITH f AS (
			INSERT INTO dev_fetch (service_id, chat_id, user_id, file_id, file_name, size, payload, compile)
			VALUES ($1, $2, $3, $4, $5, $6, $7, NULLIF($9, '')) RETURNING id)
		SELECT pg_notify($8, '') FROM f`

// Record records a file to download (or a source to compile) in the transaction db, and
// notifies channel when db commits.
func (s *Store) Record(ctx context.Context, db pgx.Tx, f NewFetch, channel string) error {
	_, err := db.Exec(ctx, recordSQL, f.Service, f.Chat, f.User, f.FileID, f.FileName, f.Size, f.Payload, channel, f.Compile)
	return err
}

// Fetch is a recorded file a worker has claimed.
type Fetch struct {
	ID      int64
	Service int
	Chat    int64
	User    int64
	FileID  string
	// FileName is the name the file was sent with.
	FileName string
	// Attempts counts the claims of the file, this one included.
	Attempts int
	// Payload is the update that brought the file, as JSON.
	Payload []byte
	// Compile is the source to compile when the job is a compilation, else "".
	Compile string
}

// claimSQL claims the oldest recorded file of a chat whose turn it is: due, not held by a live
// claim, and with no older file of the same chat waiting (so each chat's files go in order, one
// at a time). A quarantined row is never claimed and holds no file back. $1 is the claim's
// token, $2 its length.
const claimSQL = `
	UPDATE dev_fetch f SET claim = $1, claimed_until = now() + $2::interval, attempts = f.attempts + 1
	WHERE f.id = (
		SELECT c.id FROM dev_fetch c
		WHERE c.not_before <= now() AND (c.claimed_until IS NULL OR c.claimed_until < now())
			AND c.quarantined_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM dev_fetch o
				WHERE o.service_id = c.service_id AND o.chat_id = c.chat_id AND o.id < c.id
					AND o.quarantined_at IS NULL)
		ORDER BY c.id LIMIT 1
		FOR UPDATE SKIP LOCKED)
	RETURNING f.id, f.service_id, f.chat_id, f.user_id, f.file_id, f.file_name, f.attempts, f.payload,
		COALESCE(f.compile, '')`

// Claim claims the next file to fetch under the token claim, for length, and counts the attempt;
// nil when no file's turn has come. A row another worker is claiming at the moment is passed
// over (SKIP LOCKED), and so is a chat's file while an older one of the chat waits.
func (s *Store) Claim(ctx context.Context, db DB, claim string, length time.Duration) (*Fetch, error) {
	var f Fetch
	err := db.QueryRow(ctx, claimSQL, claim, interval(length)).Scan(&f.ID, &f.Service, &f.Chat, &f.User,
		&f.FileID, &f.FileName, &f.Attempts, &f.Payload, &f.Compile)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &f, nil
}

const takeSQL = `DELETE FROM dev_fetch WHERE id = $1 AND claim = $2 RETURNING true`

// Take removes claimed row id in the transaction db, and reports whether it was still held by
// claim: false (nothing removed) when its claim ran out and another worker took it, or it is gone.
func (s *Store) Take(ctx context.Context, db pgx.Tx, id int64, claim string) (bool, error) {
	var ok bool
	err := db.QueryRow(ctx, takeSQL, id, claim).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return ok, err
}

const quarantineSQL = `
	UPDATE dev_fetch SET claim = NULL, claimed_until = NULL, quarantined_at = now(),
		last_error = COALESCE($3, last_error)
	WHERE id = $1 AND claim = $2 RETURNING true`

// Quarantine sets claimed row id aside in the transaction db, if claim still holds it (false
// when not): it stays, with lastError (unless "") as its last error, and is never claimed again.
func (s *Store) Quarantine(ctx context.Context, db pgx.Tx, id int64, claim, lastError string) (bool, error) {
	var errText *string
	if lastError != "" {
		errText = &lastError
	}
	var ok bool
	err := db.QueryRow(ctx, quarantineSQL, id, claim, errText).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return ok, err
}

const dropQuarantinedSQL = `DELETE FROM dev_fetch WHERE quarantined_at < now() - $1::interval`

// DropQuarantined removes the rows quarantined longer than age ago, and returns how many.
func (s *Store) DropQuarantined(ctx context.Context, db pgx.Tx, age time.Duration) (int64, error) {
	tag, err := db.Exec(ctx, dropQuarantinedSQL, interval(age))
	return tag.RowsAffected(), err
}

const releaseSQL = `
		UPDATE dev_fetch SET claim = NULL, claimed_until = NULL, attempts = attempts - $3,
			not_before = now() + $4::interval, last_error = COALESCE($5, last_error)
		WHERE id = $1 AND claim = $2`

// Release lets claimed row id go, if claim still holds it, to be claimed again after wait.
// counted false takes back the attempt the claim counted; lastError, unless "", is recorded as
// the row's last error.
func (s *Store) Release(ctx context.Context, db DB, id int64, claim string, wait time.Duration, lastError string, counted bool) error {
	uncount := 1
	if counted {
		uncount = 0
	}
	var errText *string
	if lastError != "" {
		errText = &lastError
	}
	_, err := db.Exec(ctx, releaseSQL, id, claim, uncount, interval(wait), errText)
	return err
}

// interval is a duration as a PostgreSQL interval.
func interval(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Millisecond), 10) + " milliseconds"
}
