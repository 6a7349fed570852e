package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// # Client addresses
//
// What is counted per address (the requests and the event streams of someone not logged in, the
// failed logins) is counted per client, which the server learns from the TCP peer. Behind a
// reverse proxy (the TLS proxy docs/web-api.md recommends) the peer is the proxy, and every visitor
// would share its address; so the proxies named in Config.TrustedProxies (TRUSTED_PROXIES) are
// believed when they say for whom they forward, and nobody else is:
//
//   - A request whose peer is not a trusted proxy comes from the peer, whatever its headers say
//     (a client cannot name itself someone else).
//   - A request from a trusted proxy comes from the address that proxy says: the last entry of
//     X-Forwarded-For (every header line of it, in order), or without that header, of Forwarded's
//     for= parameters (RFC 7239). Entries are read from the right, and each one that is itself a
//     trusted proxy (a chain of proxies) is passed over: the first that is not is the client.
//     When every entry is a trusted proxy, the leftmost is taken. An entry that is not an
//     address (unknown, an obfuscated name, garbage) ends the walk: the trusted hop before it is
//     taken, since nothing beyond it can be believed.
//
// The proxy must append the peer it sees to the header it sets (nginx's
// $proxy_add_x_forwarded_for, Caddy's and HAProxy's defaults), so that a client's own copy of the
// header stays to the left of what the proxy wrote. A proxy that sets only Forwarded must remove
// any X-Forwarded-For a client sends.
//
// IPv6 clients are counted by their /64 network, the block one subscriber usually holds, so
// that walking through the addresses of one block does not make a new client each time.

// ParseProxies reads a list of trusted proxies: CIDR ranges or single addresses, separated by
// commas (and spaces), such as "10.0.0.0/8, 192.168.1.10, fd00::/8". An empty list trusts no
// proxy.
func ParseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a CIDR range", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// trusted reports whether a is one of the trusted proxies.
func (s *Server) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the address of the client of r (see the rules above); the zero Addr when not
// even the peer's address can be read.
func (s *Server) clientAddr(r *http.Request) netip.Addr {
	peer := parseHost(r.RemoteAddr)
	if !peer.IsValid() || !s.trusted(peer) {
		return peer
	}
	hops := forwardedFor(r.Header)
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a := parseHost(hops[i])
		if !a.IsValid() {
			break
		}
		client = a
		if !s.trusted(a) {
			break
		}
	}
	return client
}

// forwardedFor lists the addresses a request was forwarded for, oldest first: those of
// X-Forwarded-For, else the for= parameters of Forwarded, as written (ports and brackets
// included).
func forwardedFor(h http.Header) []string {
	var hops []string
	for _, line := range h.Values("X-Forwarded-For") {
		for _, f := range strings.Split(line, ",") {
			hops = append(hops, strings.TrimSpace(f))
		}
	}
	if len(hops) > 0 {
		return hops
	}
	for _, line := range h.Values("Forwarded") {
		for _, elem := range strings.Split(line, ",") {
			for _, pair := range strings.Split(elem, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "for") {
					hops = append(hops, strings.Trim(strings.TrimSpace(v), `"`))
				}
			}
		}
	}
	return hops
}

// parseHost reads an address with or without a port ("192.0.2.1", "192.0.2.1:80", "[::1]:80",
// "2001:db8::1", "[2001:db8::1]"); the zero Addr for anything else.
func parseHost(s string) netip.Addr {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone("")
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

// addrKey is the key under which a client's address is counted: the address, or for IPv6 its
// /64 network.
func addrKey(a netip.Addr) string {
	if !a.IsValid() {
		return "ip:?"
	}
	if a.Is6() {
		p, _ := a.Prefix(64)
		return "ip:" + p.String()
	}
	return "ip:" + a.String()
}
