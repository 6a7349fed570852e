package botpg

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// watchRetry is the pause before Watch connects again after losing its connection.
const watchRetry = 5 * time.Second

// Watch calls wake whenever a transaction that NOTIFYs channel commits, in any process, until
// ctx is done; and once each time it starts listening, for what was announced while nobody
// listened. It holds a connection of pool's for as long as it listens (the pool needs session
// semantics: PostgreSQL itself, or PgBouncer in session mode); when the connection fails it logs
// why and takes another after a pause. A worker woken this way keeps a periodic scan as its
// fallback: notifications sent while no connection listens are lost.
func Watch(ctx context.Context, pool *pgxpool.Pool, channel string, log *slog.Logger, wake func()) {
	for ctx.Err() == nil {
		err := listenOnce(ctx, pool, channel, wake)
		if ctx.Err() != nil {
			return
		}
		log.Warn("Listening for notifications failed; retrying in 5 s", slog.String("channel", channel),
			slog.Any("error", err))
		select {
		case <-ctx.Done():
		case <-time.After(watchRetry):
		}
	}
}

func listenOnce(ctx context.Context, pool *pgxpool.Pool, channel string, wake func()) error {
	pc, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// The connection listens for as long as it lives: it never goes back to the pool.
	conn := pc.Hijack()
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		return err
	}
	wake()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		wake()
	}
}
