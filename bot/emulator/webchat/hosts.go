package webchat

import (
	"net"
	"net/netip"
	"strings"
)

// # Hosts
//
// The page acts as any simulated user, the admins included, and the origin check (origin.go)
// trusts a request whose Origin names the host it was sent to. A site whose name an attacker
// points at this machine's address (DNS rebinding) would pass it: its page and the chat would
// share an origin. So every request, the reads too, must name a host the chat serves: an IP
// address (a page cannot be served from a literal address of the attacker's choosing and then
// moved to ours), "localhost" (and its subdomains, which resolve to the loopback), or one of
// Handler.Hosts (the host of PUBLIC_URL). Any other name is refused with 421.

// hostAllowed reports whether a request's Host names the chat.
func (h *Handler) hostAllowed(hostport string) bool {
	host := hostport
	if hst, _, err := net.SplitHostPort(hostport); err == nil {
		host = hst
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "" {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	for _, allowed := range h.Hosts {
		if a := strings.ToLower(allowed); a == host || hostOf(a) == host {
			return true
		}
	}
	return false
}

// hostOf returns the host part of a host:port.
func hostOf(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.Trim(h, "[]")
	}
	return hostport
}
