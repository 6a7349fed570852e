package webchat

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// # Cross-origin requests
//
// The page acts as any simulated user, the admins included, so a request that changes anything
// (a user added, a text sent, a button pressed, a file uploaded: every POST) must come from the
// page itself, never from a page of another site the same browser has open. sameOrigin decides,
// from what the browser says of the request:
//
//   - Sec-Fetch-Site, when the browser sends it, must be "same-origin" (or "none", a request the
//     user made by hand); "same-site" (another port or subdomain) and "cross-site" are refused.
//   - Origin, when sent, must name this server: the host and port the request was sent to (the
//     scheme is not compared, so a TLS proxy in front changes nothing). "null" (a sandboxed or
//     file page) is refused.
//   - Without an Origin, only a JSON body is taken. Browsers send an Origin with every POST
//     today, but a page can send text/plain, a form or multipart without asking the server first
//     (a "simple" request), so such a body must prove where it comes from; JSON cannot be sent
//     across sites without a CORS preflight, which the chat never answers. Programs (curl, the
//     tests) post JSON without an Origin.
//
// The GETs change nothing, and another site cannot read their answers (no CORS headers).

// sameOrigin reports whether a state-changing request may be served; when not, it says why.
func sameOrigin(r *http.Request) (bool, string) {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return false, "the browser says the request comes from another site (Sec-Fetch-Site: " + site + ")"
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || origin == "null" || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
			return false, "the request comes from another origin (" + origin + ")"
		}
		return true, ""
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/json" {
		return false, "a request without an Origin header must send JSON (Content-Type: application/json)"
	}
	return true, ""
}

// guard serves only the POSTs sameOrigin lets through; the others get 403 with the reason.
func guard(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ok, why := sameOrigin(r); !ok {
			http.Error(w, "refused: "+why+"; the web chat takes changes from its own origin only", http.StatusForbidden)
			return
		}
		next(w, r)
	}
}
