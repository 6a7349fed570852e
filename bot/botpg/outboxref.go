package botpg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Outbox lets a feature follow the requests it queued under a ref (bot.Request.Ref) while they
// wait in the outbox: how many are pending or failed, and withdrawing the pending ones. The zero
// value is ready; every method takes the caller's transaction.
type Outbox struct{}

// CancelPending withdraws the requests of a bot queued under ref that are still pending. A row the
// sender holds at this moment is waited for: it is then either sent or withdrawn.
func (Outbox) CancelPending(ctx context.Context, db pgx.Tx, service int, ref string) error {
	_, err := db.Exec(ctx, `DELETE FROM outbox WHERE service_id = $1 AND ref = $2 AND status = 'pending'`, service, ref)
	if err != nil {
		return fmt.Errorf("cancel %s: %w", ref, err)
	}
	return nil
}

// RefCounts returns how many chats have a request of a bot queued under ref that failed for good,
// and how many such requests are still pending.
func (Outbox) RefCounts(ctx context.Context, db pgx.Tx, service int, ref string) (failedChats, pending int, err error) {
	err = db.QueryRow(ctx, `SELECT
		(SELECT count(DISTINCT chat_id) FROM outbox WHERE service_id = $1 AND ref = $2 AND status = 'failed'),
		(SELECT count(*) FROM outbox WHERE service_id = $1 AND ref = $2 AND status = 'pending')`, service, ref).
		Scan(&failedChats, &pending)
	if err != nil {
		return 0, 0, fmt.Errorf("outbox of %s: %w", ref, err)
	}
	return failedChats, pending, nil
}
