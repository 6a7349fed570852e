package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	dto "github.com/prometheus/client_model/go"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// holdConn opens a connection to addr from the loopback address from (such as 127.0.0.2), asks
// for /healthz on it and reads the status of the answer. It returns the connection, still
// open, when the answer is 200; nil when the connection was refused (a 503 before any request
// was read, or the connection closed or reset).
func holdConn(t *testing.T, addr, from string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: time.Minute}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", from, err)
	}
	c.SetDeadline(time.Now().Add(time.Minute)) // bounds a hang only
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		c.Close()
		return nil
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		c.Close()
		return nil
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		c.SetDeadline(time.Time{})
		return c
	case http.StatusServiceUnavailable:
		c.Close()
		return nil
	}
	t.Fatalf("healthz from %s: status %d", from, resp.StatusCode)
	return nil
}

// refusedCount reads questbot_http_connections_refused_total{limit} from the server's registry.
func refusedCount(t *testing.T, r *running, limit string) float64 {
	t.Helper()
	families, err := r.srv.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "questbot_http_connections_refused_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if labelIs(m, "limit", limit) {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no refusal count for %q", limit)
	return 0
}

// openCount reads questbot_http_connections_open from the server's registry.
func openCount(t *testing.T, r *running) float64 {
	t.Helper()
	families, err := r.srv.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "questbot_http_connections_open" {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatal("no count of the open connections")
	return 0
}

func labelIs(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// Ensure connections past the caps are refused at once, by address and overall, while the
// connections already open go on, a Telegram user still gets the bot's answers and the process
// stays up; and that closing the held connections lets new ones in again.
func TestServeConnectionCaps(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	cfg.HTTP.MaxConns, cfg.HTTP.MaxConnsPerAddr = 60, 20
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	<-r.srv.started
	// A client of before, from 127.0.0.1 (with the kept-alive connection of waitHealthy).
	regular := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	defer regular.CloseIdleConnections()
	healthz := func() int {
		resp, err := regular.Get("http://" + r.addr + "/healthz")
		if err != nil {
			t.Fatalf("the connection of before: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := healthz(); code != http.StatusOK {
		t.Fatalf("healthz: %d", code)
	}

	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	flood := func(from string, n int) (ok, refused int) {
		for range n {
			if c := holdConn(t, r.addr, from); c != nil {
				held = append(held, c)
				ok++
			} else {
				refused++
			}
		}
		return ok, refused
	}
	// One address: 20 of its 40 fit.
	if ok, refused := flood("127.0.0.2", 40); ok != 20 || refused != 20 {
		t.Errorf("from 127.0.0.2: %d held and %d refused, want 20 and 20", ok, refused)
	}
	if got := refusedCount(t, r, "address"); got != 20 {
		t.Errorf("%v connections counted as refused by the per-address cap, want 20", got)
	}
	// Four more addresses fill the overall cap, and find it full.
	overall := 0
	for i := range 4 {
		ok, _ := flood(fmt.Sprintf("127.0.0.%d", i+3), 20)
		overall += ok
	}
	if got := openCount(t, r); got != 60 {
		t.Errorf("%v connections open, want the cap of 60", got)
	}
	if got := refusedCount(t, r, "total"); got != float64(80-overall) || got < 20 {
		t.Errorf("%v connections counted as refused by the overall cap, want the %d not held (at least 20)", got, 80-overall)
	}

	// Meanwhile the users go on: the client of before is answered on its connection, and a
	// Telegram user gets the bot's answer.
	if code := healthz(); code != http.StatusOK {
		t.Errorf("the connection of before, with the caps held: %d", code)
	}
	r.srv.emuBot.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann", LanguageCode: "en"})
	start := time.Now()
	if _, err := r.srv.emuBot.SendText(7, "/start"); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the bot's answer with the caps held", func() bool { return greetings(r, 7) > 0 })
	t.Logf("%v connections held, %v refused; the bot answered /start in %v", openCount(t, r),
		refusedCount(t, r, "address")+refusedCount(t, r, "total"), time.Since(start).Round(time.Millisecond))
	if c := holdConn(t, r.addr, "127.0.0.9"); c != nil {
		c.Close()
		t.Error("a connection from a new address was let in past the overall cap")
	}

	// Once the held connections close, new ones come in again.
	for _, c := range held {
		c.Close()
	}
	held = nil
	wait.For(t, wait.Hang, "a new connection to be let in", func() bool {
		if c := holdConn(t, r.addr, "127.0.0.9"); c != nil {
			c.Close()
			return true
		}
		return false
	})
	select {
	case err := <-r.done:
		r.done <- err
		t.Fatalf("serve stopped: %v", err)
	default:
	}
}

// Ensure a trusted proxy, whose connections carry many visitors, is held to the overall cap
// only, while any other address meets the per-address cap; and that a refused connection is
// told why.
func TestServeConnectionCapsTrustedProxy(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	cfg.HTTP.MaxConns, cfg.HTTP.MaxConnsPerAddr = 40, 5
	proxies, err := web.ParseProxies("127.0.0.7")
	if err != nil {
		t.Fatal(err)
	}
	cfg.TrustedProxies = proxies
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	count := func(from string, n int) (ok int) {
		for range n {
			if c := holdConn(t, r.addr, from); c != nil {
				held = append(held, c)
				ok++
			}
		}
		return ok
	}
	if ok := count("127.0.0.7", 20); ok != 20 {
		t.Errorf("the trusted proxy holds %d connections of 20, want all", ok)
	}
	if ok := count("127.0.0.8", 10); ok != 5 {
		t.Errorf("another address holds %d connections of 10, want the cap of 5", ok)
	}
	// The sixth of 127.0.0.8, read as it is answered.
	c, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.8")}}).Dial("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute)) // bounds a hang only
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("the refused connection was told nothing: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || string(body) != "Too many connections; try again later.\n" ||
		resp.Header.Get("Retry-After") == "" {
		t.Errorf("the refusal: %d %q, Retry-After %q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
}

// Ensure the server closes what a client leaves hanging (a connection that sends no request, a
// kept-alive one that sends no more, a request whose body stops coming) while a long poll and
// an event stream outlive every timeout: the emulated bot's getUpdates answers after the write
// timeout, and the web chat's stream still carries the bot's answer.
func TestServeTimeouts(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	cfg.HTTP = HTTPLimits{HeaderTimeout: 300 * time.Millisecond, ReadTimeout: 500 * time.Millisecond,
		WriteTimeout: 500 * time.Millisecond, IdleTimeout: 500 * time.Millisecond}
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	<-r.srv.started

	// closed reports whether the server closes c (a read ends) within a minute.
	closed := func(c net.Conn) bool {
		c.SetReadDeadline(time.Now().Add(time.Minute))
		_, err := io.Copy(io.Discard, c)
		var ne net.Error
		return !(errors.As(err, &ne) && ne.Timeout())
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", r.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	silent := dial()
	if !closed(silent) {
		t.Error("a connection that sent no request is still open after a minute")
	}
	idle := dial()
	io.WriteString(idle, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
	if !closed(idle) {
		t.Error("a kept-alive connection that sent no more is still open after a minute")
	}
	slow := dial()
	io.WriteString(slow, "POST /api/users HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"na")
	if !closed(slow) {
		t.Error("a request whose body stopped coming is still open after a minute")
	}

	// The stream opens, and outlives every timeout before the bot has anything to say.
	id := addWebchatUser(t, r, "Ann")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://%s/api/events?user=%d", r.addr, id), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	// The bot's long poll began more than the write timeout ago when the message arrives.
	time.Sleep(4 * cfg.HTTP.WriteTimeout)
	if _, err := r.srv.emuBot.SendText(id, "/start"); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the event stream ended before the bot's answer:\n%s", r.logs)
			}
			if strings.Contains(l, "Hello") {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no answer on the event stream:\n%s", r.logs)
		}
	}
}
