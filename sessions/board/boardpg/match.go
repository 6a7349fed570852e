package boardpg

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// claimWaitingSQL finds the oldest public waiting board of the same game, rules and clock that
// someone else opened, and locks it; boards another transaction holds are skipped.
const claimWaitingSQL = `
	SELECT id FROM board_session
	WHERE status = 'waiting' AND NOT private AND service_id = $1 AND variant = $2 AND options = $3
		AND clock_mode = $4 AND main_us = $5 AND extra_us = $6 AND per_move_us = $7
		AND created_by <> $8
	ORDER BY created_at, id
	LIMIT 1
	FOR UPDATE SKIP LOCKED`

// ClaimWaiting finds the oldest waiting, public board of spec's service, variant, options and
// time control opened by someone other than spec.Creator, and locks it; boards another
// transaction holds are skipped, so two players never claim one seat. The spec's side, seed,
// bot and privacy do not matter. Returns board.ErrNotFound when there is none, and
// board.ErrInvalid for a spec that cannot be played.
func (s *Store) ClaimWaiting(ctx context.Context, spec board.Spec) (*board.Board, error) {
	// The spec as a board: validated, with the variant's canonical name.
	spec.Bot, spec.Private = board.NoBot, false
	want, _, err := board.Open(spec, time.Time{})
	if err != nil {
		return nil, fmt.Errorf("claim waiting board: %w", err)
	}
	tc := want.Control
	var id int64
	err = s.tx.QueryRow(ctx, claimWaitingSQL, want.Service, want.Variant, want.Options.String(),
		tc.Mode.String(), tc.Main.Microseconds(), tc.Extra.Microseconds(), tc.PerMove.Microseconds(),
		want.Creator).Scan(&id)
	if err != nil {
		return nil, fmt.Errorf("claim waiting board: %w", mapErr(err))
	}
	return s.Lock(ctx, id)
}

// inviteBytes is the size of an invite code's random part: 256 bits, 43 characters in
// base64url, which with the "g" prefix fits Telegram's 64-character start parameter.
const inviteBytes = 32

// inviteHash is what is stored of an invite code.
func inviteHash(code string) []byte {
	h := sha256.Sum256([]byte(code))
	return h[:]
}

const createInviteSQL = `
	INSERT INTO board_invite (code_hash, board_id, created_at, expires_at)
	SELECT $1, id, $3, $4 FROM board_session WHERE id = $2 AND status = 'waiting'`

// CreateInvite makes a single-use invite to a waiting board, valid until now+ttl, and returns
// its code (base64url: letters, digits, '-' and '_'). Only its SHA-256 is stored. Returns
// board.ErrNotFound, or board.ErrFull when the board no longer waits.
func (s *Store) CreateInvite(ctx context.Context, id int64, now time.Time, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		return "", fmt.Errorf("invite to board %d: %w: lifetime %v", id, board.ErrInvalid, ttl)
	}
	var raw [inviteBytes]byte
	rand.Read(raw[:]) // never fails (crypto/rand)
	code := base64.RawURLEncoding.EncodeToString(raw[:])
	tag, err := s.tx.Exec(ctx, createInviteSQL, inviteHash(code), id, now, now.Add(ttl))
	if err != nil {
		return "", fmt.Errorf("invite to board %d: %w", id, mapErr(err))
	}
	if tag.RowsAffected() == 0 {
		var exists bool
		if err := s.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM board_session WHERE id = $1)`, id).Scan(&exists); err != nil {
			return "", fmt.Errorf("invite to board %d: %w", id, err)
		}
		if !exists {
			return "", fmt.Errorf("invite to board %d: %w", id, board.ErrNotFound)
		}
		return "", fmt.Errorf("invite to board %d: %w", id, board.ErrFull)
	}
	return code, nil
}

const lockInviteSQL = `
	SELECT board_id, used_at IS NOT NULL, expires_at <= $2 FROM board_invite
	WHERE code_hash = $1 FOR UPDATE`

const useInviteSQL = `UPDATE board_invite SET used_at = $2, used_by = $3 WHERE code_hash = $1`

// RedeemInvite uses an invite for user and returns its board, locked, for Join and Save.
// Returns board.ErrNotFound for an unknown code, board.ErrInviteUsed,
// board.ErrInviteExpired (also when its board was aborted or finished), board.ErrFull
// when the board has started, board.ErrAlreadySeated for its creator; a refused invite
// stays unused. Two redeemers of one code wait for each other: the second finds it used.
func (s *Store) RedeemInvite(ctx context.Context, code string, user int64, now time.Time) (*board.Board, error) {
	if raw, err := base64.RawURLEncoding.DecodeString(code); err != nil || len(raw) != inviteBytes {
		return nil, fmt.Errorf("redeem invite: %w: malformed code", board.ErrNotFound)
	}
	return s.redeemInvite(ctx, inviteHash(code), user, now)
}

// InviteDigest is the digest of an invite code as a view may keep it instead of the code (hex
// of what the invite table stores): it redeems the invite only through RedeemInviteDigest, never
// as a link's code, so a copy of the database gives no link away.
func InviteDigest(code string) string { return hex.EncodeToString(inviteHash(code)) }

// RedeemInviteDigest is RedeemInvite by the digest of the code (InviteDigest), with the same
// errors; a digest that is no hex of a SHA-256 is board.ErrNotFound.
func (s *Store) RedeemInviteDigest(ctx context.Context, digest string, user int64, now time.Time) (*board.Board, error) {
	hash, err := hex.DecodeString(digest)
	if err != nil || len(hash) != sha256.Size {
		return nil, fmt.Errorf("redeem invite: %w: malformed digest", board.ErrNotFound)
	}
	return s.redeemInvite(ctx, hash, user, now)
}

func (s *Store) redeemInvite(ctx context.Context, hash []byte, user int64, now time.Time) (*board.Board, error) {
	var id int64
	var used, expired bool
	if err := s.tx.QueryRow(ctx, lockInviteSQL, hash, now).Scan(&id, &used, &expired); err != nil {
		return nil, fmt.Errorf("redeem invite: %w", mapErr(err))
	}
	switch {
	case used:
		return nil, fmt.Errorf("redeem invite to board %d: %w", id, board.ErrInviteUsed)
	case expired:
		return nil, fmt.Errorf("redeem invite to board %d: %w", id, board.ErrInviteExpired)
	}
	b, err := s.Lock(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("redeem invite: %w", err)
	}
	switch {
	case b.Status == board.Active:
		return nil, fmt.Errorf("redeem invite to board %d: %w", id, board.ErrFull)
	case b.Status != board.Waiting:
		return nil, fmt.Errorf("redeem invite to board %d: %w: the game is %v", id, board.ErrInviteExpired, b.Status)
	case b.Creator == user:
		return nil, fmt.Errorf("redeem invite to board %d: %w", id, board.ErrAlreadySeated)
	}
	if _, err := s.tx.Exec(ctx, useInviteSQL, hash, now, user); err != nil {
		return nil, fmt.Errorf("redeem invite to board %d: %w", id, mapErr(err))
	}
	return b, nil
}

// userBoardsSQL lists a user's waiting and active boards: first those where the user is to
// move (the nearest deadline first), then those where the opponent is, then those waiting.
const userBoardsSQL = `
	SELECT s.id, s.service_id, s.variant, s.control, s.status, me.seat, op.user_id, op.bot,
		s.ply, s.to_move, s.deadline, s.turn_started_at, s.created_at
	FROM board_seat me
	JOIN board_session s ON s.id = me.board_id
	JOIN board_seat op ON op.board_id = me.board_id AND op.seat <> me.seat
	WHERE me.user_id = $2 AND s.service_id = $1 AND s.status IN ('waiting', 'active')
	ORDER BY CASE WHEN s.status = 'active' AND s.to_move = me.seat THEN 0
		WHEN s.status = 'active' THEN 1 ELSE 2 END,
		s.deadline NULLS LAST, s.turn_started_at, s.created_at, s.id
	LIMIT $3`

// UserBoards lists a user's waiting and active boards in a bot, at most limit: first those
// where it is the user's turn (the nearest deadline first), then those where the opponent is
// to move, then those still waiting.
func (s *Store) UserBoards(ctx context.Context, service int, user int64, limit int) ([]board.Info, error) {
	rows, _ := s.tx.Query(ctx, userBoardsSQL, service, user, limitArg(limit))
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (board.Info, error) {
		bi := board.Info{User: user}
		var status string
		var opUser *int64
		var opBot *string
		var deadline, turn *time.Time
		err := row.Scan(&bi.ID, &bi.Service, &bi.Variant, &bi.Control, &status, &bi.Seat, &opUser, &opBot,
			&bi.Ply, &bi.ToMove, &deadline, &turn, &bi.Created)
		if err != nil {
			return bi, err
		}
		if bi.Status, err = board.ParseStatus(status); err != nil {
			return bi, err
		}
		if bi.Opponent.Bot, err = board.ParseBotLevel(deref(opBot)); err != nil {
			return bi, err
		}
		bi.Opponent.User = deref(opUser)
		bi.MyTurn = bi.Status == board.Active && bi.ToMove == bi.Seat
		bi.Deadline, bi.TurnStarted, bi.Created = utc(deadline), utc(turn), bi.Created.UTC()
		return bi, nil
	})
	if err != nil {
		return nil, fmt.Errorf("boards of user %d: %w", user, err)
	}
	return list, nil
}

const timeControlsSQL = `
	SELECT name, mode, main_us, extra_us, per_move_us FROM board_time_control ORDER BY sort, name`

// TimeControls returns the catalogue of time controls (table board_time_control, seeded with
// board.Controls), in menu order. A row that is not a valid control is an error.
func (s *Store) TimeControls(ctx context.Context) ([]board.TimeControl, error) {
	rows, _ := s.tx.Query(ctx, timeControlsSQL)
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (board.TimeControl, error) {
		var tc board.TimeControl
		var mode string
		var main, extra, perMove int64
		if err := row.Scan(&tc.Name, &mode, &main, &extra, &perMove); err != nil {
			return tc, err
		}
		m, err := board.ParseClockMode(mode)
		if err != nil {
			return tc, err
		}
		tc.Mode, tc.Main, tc.Extra, tc.PerMove = m, micros(main), micros(extra), micros(perMove)
		return tc, tc.Validate()
	})
	if err != nil {
		return nil, fmt.Errorf("time controls: %w", err)
	}
	return list, nil
}
