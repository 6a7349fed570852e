package botpg

import (
	"context"
	"fmt"
	"time"

	"github.com/questbot/questbot/bot"
)

// PendingRows returns how many outbox rows are pending in each chat and lane, over all bots: the
// figure a load check samples to see whether a chat's rows pile up (OutboxStats gives only the
// totals of each lane). Chats with nothing pending are absent.
func (s *Store) PendingRows(ctx context.Context) (map[bot.ChatKey]int64, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT service_id, chat_id, lane, count(*) FROM outbox
		WHERE status = 'pending' GROUP BY service_id, chat_id, lane`)
	if err != nil {
		return nil, fmt.Errorf("pending rows: %w", err)
	}
	defer rows.Close()
	out := map[bot.ChatKey]int64{}
	for rows.Next() {
		var service int
		var chat, n int64
		var lane int16
		if err := rows.Scan(&service, &chat, &lane, &n); err != nil {
			return nil, fmt.Errorf("pending rows: %w", err)
		}
		out[bot.ChatKey{Service: service, Chat: chat, Lane: bot.Lane(lane)}] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pending rows: %w", err)
	}
	return out, nil
}

// InboxBacklog returns how many updates wait to be handled, over all bots, and the age of the
// oldest: with the outbox's figures, where the time of an answer goes.
func (s *Store) InboxBacklog(ctx context.Context) (int64, time.Duration, error) {
	var n int64
	var age float64
	err := s.pool.QueryRow(ctx, `
		SELECT count(*), COALESCE(EXTRACT(epoch FROM now() - min(received_at)), 0)::float8
		FROM inbox WHERE handled_at IS NULL`).Scan(&n, &age)
	if err != nil {
		return 0, 0, fmt.Errorf("inbox backlog: %w", err)
	}
	return n, time.Duration(age * float64(time.Second)), nil
}
