package web

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// # Failed logins
//
// Guessing a token, a session or a login link must cost the guesser time, not the server a query
// per guess. Each client address (clientip.go) has a bucket of Config.AuthFailures failures that
// refills by one every Config.AuthFailureEvery, in memory (a failure writes nothing). A request
// that presents a credential (an Authorization header, the session cookie, a login link) from an
// address whose bucket is empty is answered 429 with Retry-After before the credential is looked
// up, whether it is good or not; each credential refused (401, or the refused login page) takes
// one failure. Requests that present nothing (a spectator) are not held back.
//
// Failures that pass at once (many requests in flight together) all count: the bucket goes into
// debt, and the address waits until it is paid back. Each process counts its own.

// presents reports whether r presents a credential: an API token or the session cookie.
func presents(r *http.Request) bool {
	if r.Header.Get("Authorization") != "" {
		return true
	}
	ck, err := r.Cookie(CookieName)
	return err == nil && ck.Value != ""
}

// loginWait is how long r's client must wait before a credential of theirs is looked up again;
// 0 when it may be now.
func (s *Server) loginWait(r *http.Request) time.Duration {
	return s.failures.wait(addrKey(s.clientAddr(r)))
}

// loginFailed counts a credential of r's client that was refused.
func (s *Server) loginFailed(r *http.Request) {
	s.failures.spend(addrKey(s.clientAddr(r)))
}

// retryAfter sets the Retry-After header to d, in whole seconds (at least 1).
func retryAfter(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(d.Seconds())))))
}

// tooManyFailures is the answer of the API to a client whose logins failed too often.
func tooManyFailures() *apiError {
	return apiErr(http.StatusTooManyRequests, "rate_limited",
		"Too many failed logins from your address; wait as long as Retry-After says.")
}

// throttled answers 429 with Retry-After, and reports it, when r presents a credential while its
// client must wait (loginWait): the credential is not looked up.
func (s *Server) throttled(w http.ResponseWriter, r *http.Request) bool {
	if !presents(r) {
		return false
	}
	d := s.loginWait(r)
	if d <= 0 {
		return false
	}
	retryAfter(w, d)
	writeError(w, r, tooManyFailures())
	return true
}
