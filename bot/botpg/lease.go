package botpg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// takeLeaseSQL takes or renews the poll lease of bot $1 for holder $2 until $4: a lease that
// holder already has is renewed, one that expired before $3 (now) is taken over, one that
// another holder has is left alone (no row). It returns the offset at which the bot's long poll
// resumes, read after the lease row is locked.
const takeLeaseSQL = `
	WITH l AS (
		INSERT INTO poll_lease AS old (service_id, holder, expires_at, taken_at) VALUES ($1, $2, $4, $3)
		ON CONFLICT (service_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at,
			taken_at = CASE WHEN old.holder = EXCLUDED.holder THEN old.taken_at ELSE EXCLUDED.taken_at END
		WHERE old.holder = EXCLUDED.holder OR old.expires_at < $3
		RETURNING service_id)
	SELECT s.update_offset FROM service s JOIN l ON l.service_id = s.id`

// TakePollLease implements bot.Store.
func (s *Store) TakePollLease(ctx context.Context, service int, holder string, now, until time.Time) (bool, int64, error) {
	var offset int64
	err := s.pool.QueryRow(ctx, takeLeaseSQL, service, holder, now, until).Scan(&offset)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, fmt.Errorf("poll lease of bot %d: %w", service, err)
	}
	return true, offset, nil
}

// ReleasePollLease implements bot.Store.
func (s *Store) ReleasePollLease(ctx context.Context, service int, holder string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM poll_lease WHERE service_id = $1 AND holder = $2`, service, holder); err != nil {
		return fmt.Errorf("release poll lease of bot %d: %w", service, err)
	}
	return nil
}
