package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// # The HTTP side's limits
//
// The HTTP servers of serve (and webload's own) are made by newHTTPServer, with these limits
// (serve's HTTP_* settings), so that no client can hold the process's resources for ever or make
// it fail:
//
//   - A client has HeaderTimeout to send a request's header, and ReadTimeout to send the whole
//     request, body included (a slow upload is cut then).
//   - An answer has WriteTimeout to be written, counted from its first byte (a long poll that
//     waits before it answers is not cut). Each part of an answer that is flushed (each event of
//     an event stream) has WriteTimeout from its own first byte, so a stream lives as long as
//     its reader takes it; a client that stops reading is cut.
//   - A kept-alive connection that sends nothing for IdleTimeout is closed.
//   - At most MaxConns connections are open at once, and at most MaxConnsPerAddr from one client
//     address (an IPv6 client counted by its /64). A connection past either cap is answered 503
//     at once and closed, and the connections already open go on. The address is the TCP peer:
//     behind a reverse proxy every visitor shares the proxy's address, so the peers named in
//     TRUSTED_PROXIES are counted in the overall cap only, and the proxy is where a per-visitor
//     connection limit belongs then.
//
// The overall cap is kept below the process's open-file limit (half of it at most), so that
// connections can never take the descriptors the database, the files and the watchdog of the
// embedded PostgreSQL need.

// HTTPLimits are the limits of the HTTP side.
type HTTPLimits struct {
	HeaderTimeout   time.Duration
	ReadTimeout     time.Duration
	WriteTimeout    time.Duration
	IdleTimeout     time.Duration
	MaxConns        int
	MaxConnsPerAddr int
}

// The defaults of the HTTP_* settings.
const (
	defaultHeaderTimeout   = 10 * time.Second
	defaultReadTimeout     = time.Minute
	defaultWriteTimeout    = time.Minute
	defaultIdleTimeout     = 2 * time.Minute
	defaultMaxConns        = 4096
	defaultMaxConnsPerAddr = 256
)

// withDefaults returns l with the default of each limit left zero.
func (l HTTPLimits) withDefaults() HTTPLimits {
	set := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	set(&l.HeaderTimeout, defaultHeaderTimeout)
	set(&l.ReadTimeout, defaultReadTimeout)
	set(&l.WriteTimeout, defaultWriteTimeout)
	set(&l.IdleTimeout, defaultIdleTimeout)
	if l.MaxConns <= 0 {
		l.MaxConns = defaultMaxConns
	}
	if l.MaxConnsPerAddr <= 0 {
		l.MaxConnsPerAddr = min(defaultMaxConnsPerAddr, l.MaxConns)
	}
	return l
}

// newHTTPServer makes a server of h with the timeouts of l. Its listeners are limited apart
// (limitListener).
func newHTTPServer(h http.Handler, l HTTPLimits) *http.Server {
	return &http.Server{
		Handler:           requestDeadlines(h, l.WriteTimeout),
		ReadHeaderTimeout: l.HeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		// What the server writes without a handler (a malformed request's 400) is bounded by it;
		// a handler's answer gets its own deadline (requestDeadlines).
		WriteTimeout: l.WriteTimeout,
		IdleTimeout:  l.IdleTimeout,
	}
}

// fileLimit returns the soft limit of open files of the process, or 0 when it cannot be read.
// (The Go runtime raises it to the hard limit at start.)
func fileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}

// effectiveMaxConns is the overall cap for a configured one: kept to half the open-file limit.
func effectiveMaxConns(configured, files int) int {
	if files > 0 && configured > files/2 {
		return max(files/2, 1)
	}
	return configured
}

// requestDeadlines gives each part of an answer writeTimeout from its first byte (see above).
func requestDeadlines(h http.Handler, writeTimeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		// Until the answer begins, nothing is written: no deadline. (An error means a writer
		// without deadlines, such as a test's recorder.)
		_ = rc.SetWriteDeadline(time.Time{})
		h.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: rc, timeout: writeTimeout}, r)
	})
}

// deadlineWriter arms the write deadline when the answer begins, and after every flush when
// the next part begins.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	begun   bool
}

func (d *deadlineWriter) arm() {
	if d.timeout > 0 {
		_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
	}
}

func (d *deadlineWriter) begin() {
	if !d.begun {
		d.begun = true
		d.arm()
	}
}

func (d *deadlineWriter) WriteHeader(code int) {
	// 1xx answers are not the answer's beginning.
	if code >= 200 {
		d.begin()
	}
	d.ResponseWriter.WriteHeader(code)
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.begin()
	return d.ResponseWriter.Write(p)
}

// Flush sends what is buffered; the next part of the answer gets its own time.
func (d *deadlineWriter) Flush() { _ = d.FlushError() }

// FlushError is Flush with its error (http.ResponseController calls it). What follows a flush
// is a new part of the answer, with its own time from its first byte.
func (d *deadlineWriter) FlushError() error {
	d.begin()
	err := d.rc.Flush()
	d.begun = false
	return err
}

// Unwrap gives http.ResponseController the server's writer, for the deadlines a handler sets
// itself.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// connLimiter counts the open connections, overall and per client address.
type connLimiter struct {
	max, perAddr int
	trusted      []netip.Prefix

	mu     sync.Mutex
	open   int
	byAddr map[netip.Prefix]int

	openGauge prometheus.Gauge
	refused   *prometheus.CounterVec
}

// newConnLimiter makes a limiter of at most max connections, perAddr per client address (the
// peers in trusted excepted).
func newConnLimiter(max, perAddr int, trusted []netip.Prefix) *connLimiter {
	return &connLimiter{max: max, perAddr: perAddr, trusted: trusted, byAddr: make(map[netip.Prefix]int),
		openGauge: prometheus.NewGauge(prometheus.GaugeOpts{Name: "questbot_http_connections_open",
			Help: "HTTP connections open now."}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "questbot_http_connections_refused_total",
			Help: "HTTP connections refused at once, by the cap they met (total or address)."}, []string{"limit"}),
	}
}

// Register registers the limiter's metrics.
func (l *connLimiter) Register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{l.openGauge, l.refused} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	l.refused.WithLabelValues("total")
	l.refused.WithLabelValues("address")
	return nil
}

// clientKey is what a peer is counted as: its address, an IPv6 one by its /64; ok is false for
// a peer counted in the overall cap only (a trusted proxy, or not an IP peer).
func (l *connLimiter) clientKey(peer net.Addr) (netip.Prefix, bool) {
	ap, err := netip.ParseAddrPort(peer.String())
	if err != nil {
		return netip.Prefix{}, false
	}
	a := ap.Addr().Unmap()
	for _, p := range l.trusted {
		if p.Contains(a) {
			return netip.Prefix{}, false
		}
	}
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p, true
	}
	return netip.PrefixFrom(a, 32), true
}

// admit counts a new connection from peer, or says which cap refuses it.
func (l *connLimiter) admit(peer net.Addr) (key netip.Prefix, counted bool, refusedBy string) {
	key, counted = l.clientKey(peer)
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.open >= l.max:
		return key, false, "total"
	case counted && l.byAddr[key] >= l.perAddr:
		return key, false, "address"
	}
	l.open++
	if counted {
		l.byAddr[key]++
	}
	l.openGauge.Set(float64(l.open))
	return key, counted, ""
}

// release uncounts a connection that admit counted.
func (l *connLimiter) release(key netip.Prefix, counted bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if counted {
		if l.byAddr[key]--; l.byAddr[key] <= 0 {
			delete(l.byAddr, key)
		}
	}
	l.openGauge.Set(float64(l.open))
}

// refusal is what a refused connection is told before it is closed.
var refusal = func() string {
	const body = "Too many connections; try again later.\n"
	return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 5\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}()

// limitListener is a listener whose connections the limiter counts: one past a cap is refused
// as soon as it is accepted.
type limitListener struct {
	net.Listener
	lim *connLimiter
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key, counted, refusedBy := l.lim.admit(c.RemoteAddr())
		if refusedBy != "" {
			l.lim.refused.WithLabelValues(refusedBy).Inc()
			// A fresh connection's send buffer is empty: the write does not wait.
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = io.WriteString(c, refusal)
			c.Close()
			continue
		}
		return &limitedConn{Conn: c, release: func() { l.lim.release(key, counted) }}, nil
	}
}

// limitedConn uncounts itself when it is closed, once.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// selfListener serves the process's own requests to its HTTP side (the emulated bot polling
// and calling its emulator) over socket pairs in memory, apart from the TCP listener: they are
// no client's, count against no cap, and no client holding the port can cut the bot off from
// its emulator. Dial makes a connection and hands its other end to Accept.
type selfListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newSelfListener() *selfListener {
	return &selfListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// Dial is an http.Transport's DialContext: whatever the address, the connection reaches this
// process's server.
func (l *selfListener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("self connection: %w", err)
	}
	client, err := fileConn(fds[0], "self-client")
	if err != nil {
		syscall.Close(fds[1])
		return nil, err
	}
	server, err := fileConn(fds[1], "self-server")
	if err != nil {
		client.Close()
		return nil, err
	}
	select {
	case l.conns <- selfConn{server}:
		return selfConn{client}, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-l.closed:
		err = net.ErrClosed
	}
	client.Close()
	server.Close()
	return nil, err
}

// fileConn makes a net.Conn of a socket's descriptor, which it takes over.
func fileConn(fd int, name string) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), name)
	defer f.Close() // FileConn holds a duplicate
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("self connection: %w", err)
	}
	return c, nil
}

func (l *selfListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *selfListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *selfListener) Addr() net.Addr { return selfAddr{} }

// selfConn is one end of a self connection, with the address of the process's own.
type selfConn struct{ net.Conn }

func (selfConn) LocalAddr() net.Addr  { return selfAddr{} }
func (selfConn) RemoteAddr() net.Addr { return selfAddr{} }

// selfAddr is the address of the process's own connections.
type selfAddr struct{}

func (selfAddr) Network() string { return "self" }
func (selfAddr) String() string  { return "self" }
