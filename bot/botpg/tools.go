package botpg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB is what the functions of this file run their statements on: a pool, a connection or a
// transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// The records of the bots and their users that the built-in emulator and the load checks need,
// beside the transport's.

// ServiceOfBot returns the service id of the bot with Telegram id botUserID; ErrNoService when no
// bot has it.
func ServiceOfBot(ctx context.Context, db DB, botUserID int64) (int, error) {
	var service int
	err := db.QueryRow(ctx, `SELECT id FROM service WHERE bot_user_id = $1`, botUserID).Scan(&service)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("bot %d: %w", botUserID, ErrNoService)
	}
	if err != nil {
		return 0, fmt.Errorf("bot %d: %w", botUserID, err)
	}
	return service, nil
}

// ErrNoService means no bot has the Telegram id asked for.
var ErrNoService = errors.New("botpg: no such bot")

// CreateService records a bot known by its username only (no token, no Telegram id), for a load
// check that needs boards of a bot of its own, and returns its service id.
func CreateService(ctx context.Context, db DB, username string) (int, error) {
	var service int
	if err := db.QueryRow(ctx, `INSERT INTO service (username) VALUES ($1) RETURNING id`, username).Scan(&service); err != nil {
		return 0, fmt.Errorf("create bot %s: %w", username, err)
	}
	return service, nil
}

// ForgetFiles removes the file_ids the bot with Telegram id botUserID keeps, so that its files
// are uploaded again (they were given by an emulator that is gone), and returns how many.
func ForgetFiles(ctx context.Context, db DB, botUserID int64) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM tg_file WHERE service_id IN (SELECT id FROM service WHERE bot_user_id = $1)`, botUserID)
	if err != nil {
		return 0, fmt.Errorf("forget the files of bot %d: %w", botUserID, err)
	}
	return tag.RowsAffected(), nil
}

// MaxUserID returns the greatest id of a known user between from and to, or from-1 when there is
// none.
func MaxUserID(ctx context.Context, db DB, from, to int64) (int64, error) {
	var id int64
	if err := db.QueryRow(ctx, `SELECT coalesce(max(id), $1::bigint - 1) FROM users WHERE id BETWEEN $1::bigint AND $2::bigint`, from, to).Scan(&id); err != nil {
		return 0, fmt.Errorf("users from %d to %d: %w", from, to, err)
	}
	return id, nil
}

// EnsureUser records a user (chat and name) unless known.
func EnsureUser(ctx context.Context, db DB, id int64, firstName string) error {
	if _, err := db.Exec(ctx, `INSERT INTO users (id, chat_id, first_name) VALUES ($1, $1, $2) ON CONFLICT (id) DO NOTHING`,
		id, firstName); err != nil {
		return fmt.Errorf("user %d: %w", id, err)
	}
	return nil
}

// DeleteUnusedUser removes a user unless a record that must keep them (a seat of a game) still
// refers to them, and reports whether it did.
func DeleteUnusedUser(ctx context.Context, db DB, id int64) (bool, error) {
	tag, err := db.Exec(ctx, `DELETE FROM users WHERE id = $1`, id)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" { // foreign_key_violation: still referred to
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete user %d: %w", id, err)
	}
	return tag.RowsAffected() > 0, nil
}
