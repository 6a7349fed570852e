package botpg

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
)

// WatchInbox implements bot.InboxWatcher: it LISTENs on a connection of its own, made with the
// settings of the pool given to WithListener (else the store's pool), and calls wake for each
// batch of updates another process stored (or another store of this process): the transport
// that stored a batch through this store schedules its chats itself, and a scan of the inbox
// for each of its own batches would only find them again. The connection needs session semantics: PostgreSQL
// itself, or PgBouncer in session mode, not in transaction mode. Notifications sent while no
// connection listens are lost; the transport's scan finds their updates.
func (s *Store) WatchInbox(ctx context.Context, wake func()) error {
	cfg := s.listen
	if cfg == nil {
		cfg = s.pool.Config().ConnConfig
	}
	cfg = cfg.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = "questbot inbox watch"
	// The connection is idle between notifications: probe the peer often enough that a vanished
	// server is noticed in about half a minute.
	dialer := &net.Dialer{Timeout: 10 * time.Second,
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3}}
	cfg.DialFunc = dialer.DialContext
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("watch inbox: connect: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+inboxChannel); err != nil {
		return fmt.Errorf("watch inbox: listen: %w", err)
	}
	wake() // updates stored before the listening began
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("watch inbox: %w", err)
		}
		if n.Payload != s.id {
			wake()
		}
	}
}
