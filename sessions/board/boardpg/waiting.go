package boardpg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
)

// WaitingAmong implements board.Jobs.
func (s *Store) WaitingAmong(ctx context.Context, ids []int64, before time.Time, limit int) ([]board.Ref, error) {
	rows, err := s.tx.Query(ctx, `
		SELECT id, service_id FROM board_session
		WHERE id = ANY($1) AND status = 'waiting' AND created_at <= $2
		ORDER BY created_at, id LIMIT $3`, ids, before, limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("waiting boards: %w", err)
	}
	refs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (board.Ref, error) {
		var ref board.Ref
		err := r.Scan(&ref.ID, &ref.Service)
		return ref, err
	})
	if err != nil {
		return nil, fmt.Errorf("waiting boards: %w", err)
	}
	return refs, nil
}
