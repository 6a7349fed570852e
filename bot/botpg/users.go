package botpg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// # Users
//
// Users is the one place that reads and writes the users and their roles: the users table (one
// row per Telegram user, with the admin role, the language and whether they blocked the bot),
// user_service (the bots a user writes to, with the developer role and the chat's own command
// menu) and configured_admin (the admins the configuration names). The transport records each
// update's sender itself (HandleBatch); every other part of the bot asks Users.

// ErrNoUser: no such user.
var ErrNoUser = errors.New("botpg: no such user")

// Users is the store of the users and their roles. The zero value is ready; every method takes
// the caller's transaction.
type Users struct{}

// NewUsers returns the users store.
func NewUsers() *Users { return &Users{} }

// Roles are a user's roles in a bot.
type Roles struct {
	// Developer: the user may upload and inspect quests in this bot.
	Developer bool
	// Admin: the user administers every bot.
	Admin bool
}

// Roles reads a user's roles in a bot from the database (not from the update, so that a role
// granted a moment ago counts).
func (Users) Roles(ctx context.Context, db pgx.Tx, service int, user int64) (Roles, error) {
	var r Roles
	err := db.QueryRow(ctx, `
		SELECT COALESCE((SELECT is_developer FROM user_service WHERE user_id = $1 AND service_id = $2), false),
		       COALESCE((SELECT is_admin FROM users WHERE id = $1), false)`, user, service).Scan(&r.Developer, &r.Admin)
	if err != nil {
		return Roles{}, fmt.Errorf("roles of user %d: %w", user, err)
	}
	return r, nil
}

// setBlocked records that a user blocked the bot in their private chat, or unblocked it.
func (Users) setBlocked(ctx context.Context, db pgx.Tx, user int64, blocked bool) error {
	q := `UPDATE users SET blocked_at = NULL WHERE id = $1 AND blocked_at IS NOT NULL`
	if blocked {
		q = `UPDATE users SET blocked_at = now() WHERE id = $1`
	}
	if _, err := db.Exec(ctx, q, user); err != nil {
		return fmt.Errorf("mark user %d blocked=%v: %w", user, blocked, err)
	}
	return nil
}

// SetChatMenu records that a user's chat with a bot has its own command menu in lang, built from
// tree revision rev.
func (Users) SetChatMenu(ctx context.Context, db pgx.Tx, service int, user int64, lang string, rev int64) error {
	_, err := db.Exec(ctx, `UPDATE user_service SET menu_language = $3, menu_revision = $4
		WHERE user_id = $1 AND service_id = $2`, user, service, lang, rev)
	if err != nil {
		return fmt.Errorf("chat menu of user %d: %w", user, err)
	}
	return nil
}

// ChatMenu is a chat with a command menu of its own, in a language.
type ChatMenu struct {
	Chat int64
	Lang string
}

// ClaimChatMenus returns the chats of a bot whose own command menus were built from another
// tree revision than rev, and records them as built from rev: the caller sends them the menu of
// rev in the same transaction. The rows it claims keep two processes from sending the same menus.
// Users who blocked the bot are left out.
func (Users) ClaimChatMenus(ctx context.Context, db pgx.Tx, service int, rev int64) ([]ChatMenu, error) {
	rows, err := db.Query(ctx, `
		UPDATE user_service us SET menu_revision = $2 FROM users u
		WHERE us.service_id = $1 AND us.menu_language IS NOT NULL AND us.menu_revision IS DISTINCT FROM $2
			AND u.id = us.user_id AND u.blocked_at IS NULL
		RETURNING u.chat_id, us.menu_language`, service, rev)
	if err != nil {
		return nil, fmt.Errorf("chat menus: %w", err)
	}
	menus, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ChatMenu, error) {
		var m ChatMenu
		err := r.Scan(&m.Chat, &m.Lang)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("chat menus: %w", err)
	}
	return menus, nil
}

// Profile is a user as others see them.
type Profile struct {
	ID        int64
	Chat      int64
	FirstName string
	Username  string
	// Lang is the user's language code.
	Lang  string
	Admin bool
	// Blocked: the user blocked the bot.
	Blocked bool
}

// Profile returns a user; ErrNoUser when there is none.
func (Users) Profile(ctx context.Context, db pgx.Tx, id int64) (*Profile, error) {
	p := &Profile{ID: id}
	var username *string
	err := db.QueryRow(ctx, `SELECT chat_id, first_name, username, language, is_admin, blocked_at IS NOT NULL
		FROM users WHERE id = $1`, id).Scan(&p.Chat, &p.FirstName, &username, &p.Lang, &p.Admin, &p.Blocked)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNoUser
	}
	if err != nil {
		return nil, fmt.Errorf("user %d: %w", id, err)
	}
	if username != nil {
		p.Username = *username
	}
	return p, nil
}

// Admins returns the admins who use a bot and have not blocked it, other than except, by id.
func (Users) Admins(ctx context.Context, db pgx.Tx, service int, except int64) ([]Profile, error) {
	rows, err := db.Query(ctx, `
		SELECT u.id, u.chat_id, u.first_name, COALESCE(u.username, ''), u.language, u.is_admin FROM users u
		JOIN user_service us ON us.user_id = u.id AND us.service_id = $1
		WHERE u.is_admin AND u.blocked_at IS NULL AND u.id <> $2
		ORDER BY u.id`, service, except)
	if err != nil {
		return nil, fmt.Errorf("admins: %w", err)
	}
	admins, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Profile, error) {
		var p Profile
		err := r.Scan(&p.ID, &p.Chat, &p.FirstName, &p.Username, &p.Lang, &p.Admin)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("admins: %w", err)
	}
	return admins, nil
}

// JoinedAt returns when a user first wrote to a bot; ok is false when they never did.
func (Users) JoinedAt(ctx context.Context, db pgx.Tx, service int, user int64) (at time.Time, ok bool, err error) {
	err = db.QueryRow(ctx, `SELECT joined_at FROM user_service WHERE user_id = $1 AND service_id = $2`, user, service).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("joined at of user %d: %w", user, err)
	}
	return at, true, nil
}

// Audience is the users of a bot a message in one language is for: those who had joined the bot
// by Before (nil: now), whose language (relay_lang of their language code) is Lang, but Except.
type Audience struct {
	Service int
	Lang    string
	Except  int64
	Before  *time.Time
}

// audienceSQL selects the users of an Audience, after its parameters $1 to $4.
const audienceSQL = `
	FROM user_service us JOIN users u ON u.id = us.user_id
	WHERE us.service_id = $1 AND us.joined_at <= COALESCE($2::timestamptz, now()) AND us.user_id <> $3
		AND relay_lang(u.language) = $4`

// CountAudience counts the users of an audience, those who blocked the bot too.
func (Users) CountAudience(ctx context.Context, db pgx.Tx, a Audience) (int, error) {
	var n int
	err := db.QueryRow(ctx, `SELECT count(*) `+audienceSQL, a.Service, a.Before, a.Except, a.Lang).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count audience: %w", err)
	}
	return n, nil
}

// Recipient is a user of an audience.
type Recipient struct {
	ID, Chat int64
	Admin    bool
	Lang     string
	// Blocked: the user blocked the bot.
	Blocked bool
}

// ListAudience returns up to limit users of an audience, by id, after the user id after (nil: from
// the first).
func (Users) ListAudience(ctx context.Context, db pgx.Tx, a Audience, after *int64, limit int) ([]Recipient, error) {
	rows, err := db.Query(ctx, `
		SELECT u.id, u.chat_id, u.is_admin, u.language, u.blocked_at IS NOT NULL `+audienceSQL+`
			AND ($5::bigint IS NULL OR us.user_id > $5)
		ORDER BY us.user_id LIMIT $6`, a.Service, a.Before, a.Except, a.Lang, after, limit)
	if err != nil {
		return nil, fmt.Errorf("list audience: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Recipient, error) {
		var x Recipient
		err := r.Scan(&x.ID, &x.Chat, &x.Admin, &x.Lang, &x.Blocked)
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("list audience: %w", err)
	}
	return list, nil
}

// ApplyRoles applies the role configuration at start: admins are the Telegram ids the
// configuration names (an id no longer named loses the role the configuration gave it; admins
// made with SQL keep theirs; an id that has not written yet is kept in configured_admin, and the
// user is made with the role by their first update, which is handled as an admin's), and, when
// newUsersDevelopers is set, the bots of services make every user who first writes to them a
// developer (or stop doing so).
func (Users) ApplyRoles(ctx context.Context, pool *pgxpool.Pool, services []int, newUsersDevelopers *bool, admins []int64) error {
	if admins == nil {
		admins = []int64{} // no configured admins, rather than an unknown list
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`UPDATE users SET is_admin = false
			WHERE id IN (SELECT user_id FROM configured_admin) AND NOT id = ANY($1)`, admins)
		b.Queue(`DELETE FROM configured_admin WHERE NOT user_id = ANY($1)`, admins)
		b.Queue(`INSERT INTO configured_admin (user_id) SELECT unnest($1::bigint[]) ON CONFLICT DO NOTHING`, admins)
		b.Queue(`UPDATE users SET is_admin = true WHERE id = ANY($1) AND NOT is_admin`, admins)
		if newUsersDevelopers != nil {
			b.Queue(`UPDATE service SET new_users_developers = $2 WHERE id = ANY($1)`, services, *newUsersDevelopers)
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("apply roles: %w", err)
		}
		return nil
	})
}
