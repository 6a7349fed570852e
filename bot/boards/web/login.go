package web

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"time"
)

// # Logging in without being logged in by someone else
//
// A login is a request that sets the session cookie, so another site must not be able to make
// a visitor's browser send one (login CSRF: the visitor would then play, and type, in the
// attacker's account). So:
//
//   - A login link (GET /login/<ticket>) changes nothing: it answers a small page whose form
//     POSTs to the same address, sent at once by the page's one script (allowed by its hash)
//     or by its button without scripts. A link used up or expired is answered at once with the
//     page that says so. A preview of the link (Telegram fetches links to show them) uses
//     nothing.
//   - POST /login/<ticket> and POST /api/v1/miniapp/login are accepted only from the server's
//     own pages (sameOrigin): a browser names the page that made a request in Origin and
//     Sec-Fetch-Site, which no page of another site can forge. A request that says neither is a
//     program's, which carries no visitor's cookies. The Mini App's login takes JSON only
//     (Content-Type application/json), which a form of another site cannot send.

// loginScript is the login page's one script: it sends the form at once.
const loginScript = `document.forms[0].submit();`

// loginPageCSP allows the page its script, and its form to post to this server only.
var loginPageCSP = func() string {
	sum := sha256.Sum256([]byte(loginScript))
	return "default-src 'none'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
}()

// loginPageHTML is the page of a login link: its form posts to the link's own address.
const loginPageHTML = `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Log in</title></head>
<body><form method="post"><p>Logging you in… · Входим…</p>
<button type="submit">Log in · Войти</button></form>
<script>` + loginScript + `</script>
</body></html>
`

// refusedPage is the answer to a login link that does not work.
const refusedPage = `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Login link refused</title></head>
<body><h1>This login link does not work</h1>
<p>It was used already, or it is older than ten minutes. Send <b>/web</b> to the bot again for a new one.</p>
<hr><p>Эта ссылка для входа не действует: ею уже воспользовались или ей больше десяти минут. Отправьте боту <b>/web</b> ещё раз, чтобы получить новую.</p>
</body></html>
`

// crossSitePage is the answer to a login posted by a page of another site.
const crossSitePage = `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Login refused</title></head>
<body><h1>This login did not come from this server's page</h1>
<p>Open the login link the bot sent you (send <b>/web</b> to the bot for a new one).</p>
<hr><p>Этот вход пришёл не со страницы этого сервера. Откройте ссылку для входа, которую прислал бот (отправьте боту <b>/web</b>, чтобы получить новую).</p>
</body></html>
`

// refusedCSP is the policy of the answers about a login link that run nothing.
const refusedCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// loginHeaders are the headers of every answer about a login link: nothing is cached, and the
// address, which holds the ticket, is never passed on to another site.
func loginHeaders(w http.ResponseWriter, csp string) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", csp)
}

// htmlAnswer writes a page with status.
func htmlAnswer(w http.ResponseWriter, status int, page string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write([]byte(page))
}

// loginPage is GET /login/{ticket}: the page that logs in by a POST, or the refusal of a link
// that opens nothing.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	loginHeaders(w, refusedCSP)
	if d := s.loginWait(r); d > 0 {
		retryAfter(w, d)
		http.Error(w, "Too many failed logins from your address; wait a moment and open the link again.", http.StatusTooManyRequests)
		return
	}
	start := time.Now()
	live, err := creds.TicketLive(r.Context(), s.cfg.Pool, r.PathValue("ticket"), s.now())
	s.health.observe(start, err)
	switch {
	case isOutage(err):
		s.health.refused(err)
		retryAfter(w, outageRetry)
		http.Error(w, "The server cannot reach its database just now; open the link again in a moment.", http.StatusServiceUnavailable)
	case err != nil:
		if r.Context().Err() == nil {
			s.log.Error("A login link could not be looked up", slog.Any("error", err))
			http.Error(w, "The login failed; please try again.", http.StatusInternalServerError)
		}
	case !live:
		s.loginFailed(r)
		htmlAnswer(w, http.StatusForbidden, refusedPage)
	default:
		loginHeaders(w, loginPageCSP)
		// same-origin, not no-referrer: the form a page of policy no-referrer posts says
		// "Origin: null", which sameOrigin refuses; the page links nowhere else.
		w.Header().Set("Referrer-Policy", "same-origin")
		htmlAnswer(w, http.StatusOK, loginPageHTML)
	}
}

// login is POST /login/{ticket}, sent by the page of the link: it redeems the ticket, sets the
// session cookie and goes to the lobby.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	loginHeaders(w, refusedCSP)
	if d := s.loginWait(r); d > 0 {
		retryAfter(w, d)
		http.Error(w, "Too many failed logins from your address; wait a moment and open the link again.", http.StatusTooManyRequests)
		return
	}
	if !s.sameOrigin(r) {
		htmlAnswer(w, http.StatusForbidden, crossSitePage)
		return
	}
	var secret string
	err := s.write(r.Context(), func(ctx context.Context, db pgxTx) error {
		var err error
		secret, err = creds.RedeemTicket(ctx, db, r.PathValue("ticket"), s.now(), SessionIdle)
		return err
	})
	switch {
	case errors.Is(err, errRefused):
		s.loginFailed(r)
		htmlAnswer(w, http.StatusForbidden, refusedPage)
	case isOutage(err):
		s.health.refused(err)
		retryAfter(w, outageRetry)
		http.Error(w, "The server cannot reach its database just now; open the link again in a moment.", http.StatusServiceUnavailable)
	case err != nil:
		s.log.Error("A login failed", slog.Any("error", err))
		http.Error(w, "The login failed; please try again.", http.StatusInternalServerError)
	default:
		http.SetCookie(w, s.cookie(secret, int(SessionIdle/time.Second)))
		http.Redirect(w, r, "/games", http.StatusSeeOther)
	}
}

// sameOrigin says that a request may be a login: a browser's comes from a page of this server
// (Sec-Fetch-Site, when sent, is same-origin, or none for what the visitor did themselves;
// Origin, when sent, is PublicURL's or the address the request was sent to), and a request that
// says neither is a program's.
func (s *Server) sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if u, err := url.Parse(s.cfg.PublicURL); err == nil && u.Host != "" && origin == u.Scheme+"://"+u.Host {
		return true
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return origin == scheme+"://"+r.Host
}

// jsonLogin refuses a login posted as anything but JSON, or from another site's page.
func (s *Server) jsonLogin(r *http.Request) *apiError {
	if !s.sameOrigin(r) {
		return apiErr(http.StatusForbidden, "csrf", "This login comes from a page of another site.")
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return apiErr(http.StatusBadRequest, "bad_request", "The body must be JSON, sent as Content-Type: application/json.")
	}
	return nil
}
