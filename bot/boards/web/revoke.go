package web

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/botpg"
)

// # Streams end with their credentials
//
// An event stream is opened with a grant: the session or the API token that opened it, and, for
// a caller who plays no seat, the players' permission to watch (the spectators switch). A
// tournament's stream is granted by the session or token alone (guardCredentials). When a
// grant ends (a logout, /logout/all, /token revoke, the switch turned off, or the same done by
// SQL), its streams end within moments in every process, and their slots (Config.Streams) are
// free again:
//
//   - Triggers of migration 025_secrets.sql NOTIFY web_revoked at the commit of each end:
//     "s:<session hash>", "t:<token id>", "b:<board id>".
//   - Each process's Hub LISTENs on web_revoked on the feed's connection (beside the boards'
//     records), and closes the streams whose grant a notification names.
//   - A stream registers its grant (Guard) before it checks, in a read of its own, that the
//     grant still holds: an end committed before the check is seen by it, one committed after
//     is announced to a registered stream.
//   - Notifications sent while the hub's connection is down are lost, so after each new LISTEN
//     the hub checks the grants of every open stream and closes those that ended.
//
// A session that ends by going unused (SessionIdle) is not announced; a stream keeps it in use
// only as long as its page is open.

// RevokedChannel is the PostgreSQL notification channel of the credentials that ended.
const RevokedChannel = "web_revoked"

// Grant is what lets a stream watch its board.
type Grant struct {
	// Session is the SHA-256 hash of the session's secret, for a page logged in; nil otherwise.
	Session []byte
	// Token is the id of the API token, for a program; 0 otherwise.
	Token int64
	// Board is the board watched; Spectator says the caller plays no seat in it and watches by
	// the players' leave, which ends when they switch spectators off.
	Board     int64
	Spectator bool
}

// Guards closes the streams whose grants end; Hub implements it.
type Guards interface {
	// Guard registers a stream's grant: revoked is closed when the grant ends; release ends the
	// registration (calling it again does nothing).
	Guard(g Grant) (revoked <-chan struct{}, release func())
}

var _ Guards = (*Hub)(nil)

// guard is a registered grant.
type guard struct {
	grant Grant
	ch    chan struct{}
	once  sync.Once
}

func (g *guard) revoke() { g.once.Do(func() { close(g.ch) }) }

// Guard implements Guards.
func (h *Hub) Guard(g Grant) (<-chan struct{}, func()) {
	gd := &guard{grant: g, ch: make(chan struct{})}
	h.gmu.Lock()
	if h.guards == nil {
		h.guards = map[*guard]struct{}{}
	}
	h.guards[gd] = struct{}{}
	h.gmu.Unlock()
	var once sync.Once
	return gd.ch, func() {
		once.Do(func() {
			h.gmu.Lock()
			delete(h.guards, gd)
			h.gmu.Unlock()
		})
	}
}

// revoked handles a notification of web_revoked: it closes the streams whose grant it names.
func (h *Hub) revoked(payload string) {
	kind, arg, _ := strings.Cut(payload, ":")
	var match func(g Grant) bool
	switch kind {
	case "s":
		hash, err := hex.DecodeString(arg)
		if err != nil {
			break
		}
		match = func(g Grant) bool { return g.Session != nil && bytes.Equal(g.Session, hash) }
	case "t":
		id, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			break
		}
		match = func(g Grant) bool { return g.Token == id }
	case "b":
		id, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			break
		}
		match = func(g Grant) bool { return g.Spectator && g.Board == id }
	}
	if match == nil {
		h.metrics.Malformed.Inc()
		h.log.Warn("Board events: an unreadable revocation", slog.String("payload", payload))
		return
	}
	h.closeWhere(match)
}

// closeWhere closes the streams whose grant matches.
func (h *Hub) closeWhere(match func(Grant) bool) {
	h.gmu.Lock()
	defer h.gmu.Unlock()
	for gd := range h.guards {
		if match(gd.grant) {
			gd.revoke()
			delete(h.guards, gd)
		}
	}
}

// recheck closes the streams whose grant ended while the hub was not listening: it reads, after
// LISTEN, which of their sessions, tokens and spectators switches still hold.
func (h *Hub) recheck(ctx context.Context, conn *pgx.Conn) error {
	h.gmu.Lock()
	grants := make([]Grant, 0, len(h.guards))
	for gd := range h.guards {
		grants = append(grants, gd.grant)
	}
	h.gmu.Unlock()
	if len(grants) == 0 {
		return nil
	}
	var ended []Grant
	err := pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		for _, g := range grants {
			ok, err := granted(ctx, tx, g)
			if err != nil {
				return err
			}
			if !ok {
				ended = append(ended, g)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("board events: check the streams' grants: %w", err)
	}
	for _, e := range ended {
		h.closeWhere(func(g Grant) bool {
			return bytes.Equal(g.Session, e.Session) && g.Token == e.Token && g.Board == e.Board && g.Spectator == e.Spectator
		})
	}
	return nil
}

// guardCredentials registers, for a stream that watches no board (a tournament's), the session
// or the API token of c, and checks that it still holds: revoked is closed when it ends. A
// caller without either gets a channel that never closes. Without Guards (Config.Events is not
// a Hub) the stream is not guarded.
func (s *Server) guardCredentials(ctx context.Context, c *caller) (revoked <-chan struct{}, release func(), err error) {
	guards, ok := s.cfg.Events.(Guards)
	if !ok || c.secret == "" && c.token == 0 {
		return nil, func() {}, nil
	}
	g := Grant{Token: c.token}
	if c.secret != "" {
		g.Session = botpg.SecretHash(c.secret)
	}
	return s.guard(ctx, guards, g)
}

// guard registers g with guards and then checks that it still holds, so that no revocation
// falls between the two unseen: revoked is closed when it ends. A grant that no longer holds is
// refused: a spectator's as the board missing (its switch went off), any other as unauthorized.
func (s *Server) guard(ctx context.Context, guards Guards, g Grant) (revoked <-chan struct{}, release func(), err error) {
	revoked, release = guards.Guard(g)
	var live bool
	err = s.read(ctx, func(ctx context.Context, db pgxTx) error {
		var err error
		live, err = granted(ctx, db, g)
		return err
	})
	switch {
	case err != nil:
		release()
		return nil, nil, err
	case !live && g.Spectator:
		release()
		return nil, nil, missing()
	case !live:
		release()
		return nil, nil, apiErr(http.StatusUnauthorized, "unauthorized", "The session or token is not valid; log in with a link from /web in the bot.")
	}
	return revoked, release, nil
}

// granted reports whether a grant still holds: its session is there, its token not revoked, and
// for a spectator, the players still let anyone watch.
func granted(ctx context.Context, db pgx.Tx, g Grant) (bool, error) {
	if g.Session != nil {
		if ok, err := creds.SessionLive(ctx, db, g.Session); err != nil || !ok {
			return false, err
		}
	}
	if g.Token != 0 {
		if ok, err := creds.TokenLive(ctx, db, g.Token); err != nil || !ok {
			return false, err
		}
	}
	if g.Spectator {
		return boards.Spectators(ctx, db, g.Board)
	}
	return true, nil
}
