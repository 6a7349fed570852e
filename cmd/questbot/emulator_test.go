package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// addWebchatUser adds a user through the web chat's API, as the page does, and returns the id.
func addWebchatUser(t *testing.T, r *running, name string) int64 {
	t.Helper()
	resp, err := http.Post("http://"+r.addr+"/api/users", "application/json", strings.NewReader(`{"name":"`+name+`","language":"en"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var u struct{ ID int64 }
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&u) != nil {
		t.Fatalf("add user %s: %d", name, resp.StatusCode)
	}
	return u.ID
}

// greetings counts the bot's greetings in a chat of the emulator.
func greetings(r *running, id int64) int {
	n := 0
	for _, m := range r.srv.emuBot.Messages(id) {
		if m.FromBot && strings.Contains(m.Text, "Hello") {
			n++
		}
	}
	return n
}

// Ensure a second run of serve on the same DATA_DIR just works (#17): the web chat's users and
// chats are still there, what they write reaches the bot, and new users get new ids; and a run
// whose emulator lost its state (a new DATA_DIR, the same database) still hears its users and
// gives out no id the database knows.
func TestServeEmulatorRestart(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	run := func(cfg Config) *running {
		r := startServer(t, cfg)
		waitHealthy(t, r, wait.Hang)
		<-r.srv.started
		return r
	}
	say := func(r *running, id int64, want int) {
		t.Helper()
		if _, err := r.srv.emuBot.SendText(id, "/start"); err != nil {
			t.Fatal(err)
		}
		wait.For(t, wait.Hang, "greeting", func() bool { return greetings(r, id) == want })
	}
	stop := func(r *running) {
		r.stop()
		if err := <-r.done; err != nil {
			t.Fatalf("Run: %v\n%s", err, r.logs)
		}
		r.done <- nil
	}

	first := run(cfg)
	ann := addWebchatUser(t, first, "Ann")
	say(first, ann, 1)
	stop(first)

	second := run(cfg)
	if !strings.Contains(second.logs.String(), "Emulator state restored") {
		t.Errorf("the second run does not say it restored the emulator:\n%s", second.logs)
	}
	if us := second.srv.emuBot.Users(); len(us) != 1 || us[0].ID != ann {
		t.Fatalf("users after a restart: %+v", us)
	}
	say(second, ann, 2)
	bob := addWebchatUser(t, second, "Bob")
	if bob <= ann {
		t.Errorf("Bob got id %d, Ann has %d", bob, ann)
	}
	say(second, bob, 1)
	stop(second)

	// The bot cached a file_id of the emulator that is about to be lost.
	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(t.Context(), `INSERT INTO tg_file (service_id, path, size, mod_time, file_id)
		SELECT id, '/quests/dock.png', 1, now(), 'EMUabcdefP000001' FROM service WHERE bot_user_id = $1`, second.srv.emuBot.Me().ID)
	conn.Close(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	lost := cfg
	lost.DataDir = t.TempDir()
	third := run(lost)
	cara := addWebchatUser(t, third, "Cara")
	if cara <= bob {
		t.Errorf("Cara got id %d, the database knows %d", cara, bob)
	}
	say(third, cara, 1)
	var files int
	if err := third.srv.pool.Load().QueryRow(t.Context(), `SELECT count(*) FROM tg_file`).Scan(&files); err != nil || files != 0 {
		t.Errorf("file_ids of the lost emulator kept: %d (%v)", files, err)
	}
}

// Ensure a web chat page left open does not hold up the shutdown: its event stream ends when
// serve stops, and the HTTP server shuts down within its time limit.
func TestServeStopsWithOpenPage(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	id := addWebchatUser(t, r, "Ann")
	resp, err := http.Get(fmt.Sprintf("http://%s/api/events?user=%d", r.addr, id))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ended := make(chan struct{})
	go func() { io.Copy(io.Discard, resp.Body); close(ended) }()
	r.stop()
	if err := <-r.done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	r.done <- nil
	select {
	case <-ended:
	case <-time.After(wait.Hang):
		t.Error("the page's event stream is still open after serve stopped")
		resp.Body.Close()
	}
	if strings.Contains(r.logs.String(), "HTTP shutdown") {
		t.Errorf("the open page held the shutdown to its time limit:\n%s", r.logs)
	}
}

// A connection that has sent no request yet (a client's spare connection, a browser's
// preconnection) does not hold the shutdown either: net/http counts such a connection as active
// for its first five seconds.
func TestServeStopsWithSilentConnection(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	conn, err := net.Dial("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The server has taken the connection once a request on another one is answered after it.
	waitHealthy(t, r, wait.Hang)
	r.stop()
	if err := <-r.done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	r.done <- nil
	if strings.Contains(r.logs.String(), "HTTP shutdown") {
		t.Errorf("the silent connection held the shutdown to its time limit:\n%s", r.logs)
	}
}
