package main

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// # Who may read /metrics
//
// The metrics say much about the bot's users and load, so GET /metrics is not for anyone who
// reaches the port:
//
//   - With METRICS_TOKEN set, a request must carry it as "Authorization: Bearer <token>",
//     whatever its address (a scraper on another machine, or behind a proxy).
//   - Without it, only this machine may read them: a request whose TCP peer is a loopback
//     address and that no proxy forwarded (no X-Forwarded-For, Forwarded or X-Real-IP header;
//     a reverse proxy on the same machine would otherwise make every visitor local).
//
// Anyone else is refused: 401 without the right token, 403 from elsewhere, in one line that
// says what to set.

// metricsAccess guards h, the metrics handler, with token (METRICS_TOKEN; empty: this machine
// only).
func metricsAccess(h http.Handler, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
				http.Error(w, "metrics: send METRICS_TOKEN as Authorization: Bearer <token>", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		if !localRequest(r) {
			http.Error(w, "metrics: only this machine may read them; set METRICS_TOKEN to read them from elsewhere", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// localRequest reports whether r comes from this machine itself: a loopback TCP peer, and no
// proxy's header saying it forwards someone else's request.
func localRequest(r *http.Request) bool {
	for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"} {
		if _, ok := r.Header[h]; ok {
			return false
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}
