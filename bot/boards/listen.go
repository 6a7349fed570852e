package boards

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The pauses of a Listener between its attempts to connect: doubling from the first to the
// last, and back to the first once a connection has listened.
const (
	listenFirstBackoff = 50 * time.Millisecond
	listenLastBackoff  = 5 * time.Second
)

// listenKeepAlive probes the TCP peer of a listening connection, which is idle most of the
// time, often enough that a vanished server is noticed in about half a minute rather than the
// system's hours.
var listenKeepAlive = net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3}

// Listener is the one LISTEN loop of the board service and its views (the AI's wake-ups, the
// web's board and tournament events): a connection of its own, made with the pool's settings
// (it needs session semantics), named by its application_name so that an operator finds it in
// pg_stat_activity, with TCP keep-alive; after a loss it connects again with a pause that
// doubles from 50 ms to 5 s, logging the loss once and the failed attempts after it at debug
// level, so that an outage of the database is one line.
type Listener struct {
	// Pool gives the connection's settings.
	Pool *pgxpool.Pool
	// Name is the connection's application_name and the subject of its log lines.
	Name string
	// Channels are the channels it LISTENs on.
	Channels []string
	// Log gets the losses and the reconnections.
	Log *slog.Logger
	// Listening, if not nil, is called after each LISTEN, before any notification is handed
	// out, with the connection: notifications sent while nobody listened are lost, so this is
	// where a listener reads what changed meanwhile. An error drops the connection.
	Listening func(ctx context.Context, conn *pgx.Conn) error
	// Notified is called with each notification, in order, on the loop's goroutine.
	Notified func(n *pgconn.Notification)
	// Read, if not nil, is called instead of Notified with the connection too, on which it may
	// read what the notification announces (the Feed reads the record's new events); an error
	// drops the connection.
	Read func(ctx context.Context, conn *pgx.Conn, n *pgconn.Notification) error
	// Lost, if not nil, is called each time the loop is without a connection: after a loss
	// (listened true: LISTEN had succeeded) or a failed attempt.
	Lost func(listened bool)
}

// Run listens until ctx ends.
func (l *Listener) Run(ctx context.Context) {
	log := l.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	backoff := listenFirstBackoff
	lost, connects := false, 0
	for {
		listened, err := l.listen(ctx, func() {
			if connects++; connects > 1 {
				log.Info(l.Name + ": listening again")
			}
		})
		if l.Lost != nil {
			l.Lost(listened)
		}
		if ctx.Err() != nil {
			return
		}
		if listened {
			backoff, lost = listenFirstBackoff, false
		}
		if lost {
			log.Debug(l.Name+": reconnecting failed; trying again", slog.Any("error", err), slog.Duration("pause", backoff))
		} else {
			log.Warn(l.Name+": the connection was lost; reconnecting", slog.Any("error", err), slog.Duration("pause", backoff))
			lost = true
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, listenLastBackoff)
	}
}

// listen connects, LISTENs, calls Listening and hands the notifications out until the
// connection fails or ctx ends; listened says whether LISTEN succeeded.
func (l *Listener) listen(ctx context.Context, listening func()) (listened bool, err error) {
	cfg := l.Pool.Config().ConnConfig.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = l.Name
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAliveConfig: listenKeepAlive}
	cfg.DialFunc = dialer.DialContext
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, fmt.Errorf("%s: connect: %w", l.Name, err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		conn.Close(closeCtx)
	}()
	for _, ch := range l.Channels {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return false, fmt.Errorf("%s: listen on %s: %w", l.Name, ch, err)
		}
	}
	listening()
	if l.Listening != nil {
		if err := l.Listening(ctx, conn); err != nil {
			return true, err
		}
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, fmt.Errorf("%s: wait: %w", l.Name, err)
		}
		if l.Read != nil {
			if err := l.Read(ctx, conn, n); err != nil {
				return true, err
			}
			continue
		}
		l.Notified(n)
	}
}
