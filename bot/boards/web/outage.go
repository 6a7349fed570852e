package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// # The database down
//
// While PostgreSQL cannot be reached (it restarts, it died, the network to it is cut) every
// call that needs it is answered 503 unavailable with Retry-After (outageRetry), the answer a
// client should wait out, not 500 internal. The outage is logged once when it is first seen and
// once when an operation started after it succeeds, with how long it lasted and how many
// answers it cost; the requests in between log nothing. Each process sees its own outage.

// outageRetry is the Retry-After of the answers while the database is down.
const outageRetry = 5 * time.Second

// isOutage reports whether err says that the database cannot be reached (rather than that it
// refused what was asked): no connection could be made, the connection broke, or the server is
// shutting down, starting up, or out of connections.
func isOutage(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "57P01", "57P02", "57P03", "53300": // admin or crash shutdown, starting up, too many connections
			return true
		}
		return strings.HasPrefix(pe.Code, "08") // connection exceptions
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) || pgconn.SafeToRetry(err)
}

// unavailable is the answer while the database is down.
func unavailable() *apiError {
	e := apiErr(http.StatusServiceUnavailable, "unavailable", "The database cannot be reached just now; try again shortly.")
	e.retry = outageRetry
	return e
}

// health follows whether the database answers, to log its outages once each.
type health struct {
	log *slog.Logger

	mu       sync.Mutex
	down     bool
	since    time.Time // when the outage was first seen
	answered int       // calls answered 503 during it
}

// refused notes a call answered 503 because the database could not be reached (err).
func (h *health) refused(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.noticeLocked(err)
	h.answered++
}

// noticeLocked notes that an operation could not reach the database, and logs the outage when
// it is new.
func (h *health) noticeLocked(err error) {
	if h.down {
		return
	}
	h.down, h.since, h.answered = true, time.Now(), 0
	h.log.Error("The database cannot be reached: the web game server answers 503 unavailable until it is back",
		slog.Any("error", err))
}

// observe notes the result of a database operation started at start: a success ends an outage
// seen before the operation started (one started earlier may have slipped through before it).
func (h *health) observe(start time.Time, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		if isOutage(err) {
			h.noticeLocked(err)
		}
		return
	}
	if !h.down || start.Before(h.since) {
		return
	}
	h.down = false
	h.log.Warn("The database answers again", slog.Duration("down_for", time.Since(h.since).Round(time.Millisecond)),
		slog.Int("answered_unavailable", h.answered))
}
