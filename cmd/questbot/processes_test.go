package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/loadtest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// Transport sizes of the bot processes of the tests (the defaults of bot.Config): a process has
// at most senders × batch rows in flight, one per lane of a chat.
const (
	killSenders = 8
	killBatch   = 16
)

// startBots starts n bot processes of the load test (this test binary run as `questbot loadtest
// -bot`) on the database at url, serving the fleet's emulator, with a poll lease of lease.
// Every second process runs its queries as it would through PgBouncer in transaction mode
// (pgx's statement cache off: default_query_exec_mode=cache_describe). Their log lines go to
// logs.
func startBots(t *testing.T, ctx context.Context, f *loadtest.Fleet, url string, n int, lease string, logs *bottest.LogBuffer) {
	t.Helper()
	for i := range n {
		db := url
		if i%2 == 1 {
			db += " default_query_exec_mode=cache_describe"
		}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(),
			asQuestbotEnv+"=loadtest -bot -api "+f.URL+" -senders "+strconv.Itoa(killSenders),
			"DATABASE_URL="+db, loadtestTokenEnv+"="+f.Bot.Token(), "LOG_LEVEL=info", "POLL_LEASE="+lease)
		if _, err := f.Start(ctx, cmd, logs); err != nil {
			t.Fatalf("%v\n%s", err, logs)
		}
	}
}

// leaseHolder returns the pid of the process holding the bot's poll lease, 0 when none does.
func leaseHolder(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var holder string
	err := pool.QueryRow(context.Background(), `SELECT COALESCE(max(holder), '') FROM poll_lease`).Scan(&holder)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(holder, "/")
	if len(parts) != 3 {
		return 0
	}
	pid, _ := strconv.Atoi(parts[1])
	return pid
}

// Ensure three bot processes on one database, with the emulator, lose nothing when the process
// polling the bot is killed with SIGKILL in the middle of 2,000 updates from 200 chats: another
// takes the poll lease over and goes on from the stored offset, every message gets its reply,
// each chat's replies come in order, and the only duplicates are the rows the killed process had
// in flight (at most senders × batch, one per chat), which are counted and logged.
func TestProcessKilledMidway(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	url := pool.Config().ConnString()
	f, err := loadtest.NewFleet("kill_bot")
	if err != nil {
		t.Fatal(err)
	}
	logs := &bottest.LogBuffer{}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("bot processes' logs:\n%s", logs)
		}
	})
	ctx := context.Background()
	startBots(t, ctx, f, url, 3, "1s", logs)

	const chats, rounds = 200, 10
	users := make([]int64, chats)
	sent := map[int64]int{}
	for i := range users {
		users[i] = int64(1_000_000 + i)
		f.Bot.AddUser(tgbotapi.User{ID: users[i], FirstName: "K" + strconv.Itoa(i), LanguageCode: "en"})
		sent[users[i]] = rounds
	}
	send := func(round int) {
		for _, u := range users {
			if _, err := f.Bot.SendText(u, "message "+strconv.Itoa(round)); err != nil {
				t.Fatal(err)
			}
		}
	}
	answered := func() int { return f.Tally(sent).Answered }
	for r := range rounds / 2 {
		send(r)
	}
	wait.For(t, wait.Hang, "600 replies before the kill", func() bool { return answered() >= 600 })
	var victim int
	wait.For(t, wait.Hang, "a process holding the poll lease", func() bool { victim = leaseHolder(t, pool); return victim != 0 })
	killed := false
	for _, p := range f.Procs() {
		if p.Pid() == victim {
			if err := p.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			wait.For(t, wait.Hang, "the killed process to end", p.Exited)
			killed = true
		}
	}
	if !killed {
		t.Fatalf("the lease holder %d is none of the bot processes", victim)
	}
	before := answered()
	for r := rounds / 2; r < rounds; r++ {
		send(r)
	}
	wait.For(t, wait.Hang, "another process to take the poll lease over", func() bool {
		h := leaseHolder(t, pool)
		return h != 0 && h != victim
	})
	wait.For(t, wait.Hang, "every message answered", func() bool { return answered() == chats*rounds })
	// The rows the killed process had in flight are sent again before their lanes go on; the
	// last messages' may be the last rows sent.
	wait.For(t, wait.Hang, "the inbox and the outbox drained", func() bool {
		var n int
		err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM inbox WHERE handled_at IS NULL) +
			(SELECT count(*) FROM outbox WHERE status = 'pending')`).Scan(&n)
		return err == nil && n == 0
	})
	tally := f.Tally(sent)
	t.Logf("killed the polling process (pid %d) after %d of %d replies; %d duplicate replies (rows in flight in the killed process)",
		victim, before, chats*rounds, tally.Duplicates)
	if tally.Lost != 0 || tally.OrderViolations != 0 {
		t.Errorf("%d lost, %d out of order: %+v", tally.Lost, tally.OrderViolations, tally)
	}
	if bound := min(killSenders*killBatch, chats); tally.Duplicates > bound {
		t.Errorf("%d duplicates, more than the %d rows a process may have in flight", tally.Duplicates, bound)
	}
	var failed int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE status = 'failed'`).Scan(&failed); err != nil || failed != 0 {
		t.Errorf("%d failed outbox rows (%v)", failed, err)
	}
}

// Ensure the settings of several processes are read and checked: DB_POOL_MAX, POLL_LEASE and
// DATABASE_SESSION_URL, which needs DATABASE_URL.
func TestScaleConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": "postgres://db/q", "DATABASE_SESSION_URL": "postgres://direct/q",
		"DB_POOL_MAX": "24", "POLL_LEASE": "2s"}
	cfg, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil || cfg.DBPoolMax != 24 || cfg.PollLease != 2*time.Second || cfg.DatabaseSessionURL != "postgres://direct/q" {
		t.Fatalf("%+v, %v", cfg, err)
	}
	if cfg, err := ConfigFromEnv(func(string) string { return "" }); err != nil || cfg.DBPoolMax != 0 || cfg.PollLease != 5*time.Second {
		t.Fatalf("defaults: pool %d, lease %v, %v", cfg.DBPoolMax, cfg.PollLease, err)
	}
	for _, bad := range []map[string]string{
		{"DB_POOL_MAX": "3"}, {"DB_POOL_MAX": "many"}, {"POLL_LEASE": "100ms"}, {"POLL_LEASE": "1h"},
		{"POLL_LEASE": "soon"}, {"DATABASE_SESSION_URL": "postgres://direct/q"},
	} {
		if _, err := ConfigFromEnv(func(k string) string { return bad[k] }); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// Ensure serve refuses a role it does not know, in one line that names the flag.
func TestServeBadRole(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := dispatch(context.Background(), []string{"serve", "--role", "boss"}, &stdout, &stderr); code != 2 {
		t.Fatalf("--role boss: exit status %d, want 2", code)
	}
	if stderr.String() != "questbot serve: --role must be all, poller or worker, not \"boss\" (see questbot help serve)\n" {
		t.Fatalf("--role boss: stderr\n%s", &stderr)
	}
}

// Ensure a poller and a worker on one database, with DATABASE_SESSION_URL, make one bot: the
// poller holds the poll lease and handles nothing; the worker greets the user, and its command
// menu is the one sent.
func TestServePollerAndWorker(t *testing.T) {
	t.Parallel()
	emu := tgemu.New(tgemu.Options{})
	const token = "778:split-roles-token"
	b := emu.AddBot(token, "split_bot")
	api := httptest.NewServer(emu)
	t.Cleanup(api.Close) // after the servers stop: their long polls hold connections
	url := pgtest.ConnString(t)
	start := func(role bot.Role) *running {
		cfg := testConfig(t)
		cfg.DatabaseURL = url
		cfg.DatabaseSessionURL = url
		cfg.BotToken = token
		cfg.TelegramAPIURL = api.URL
		r := startServerWith(t, &Server{Config: cfg, Role: role})
		waitHealthy(t, r, wait.Hang)
		return r
	}
	poller := start(bot.RolePoller)
	wait.For(t, wait.Hang, "the poller to poll", func() bool {
		return strings.Contains(poller.logs.String(), "took the bot's poll lease")
	})
	b.AddUser(tgbotapi.User{ID: 11, FirstName: "Ann", LanguageCode: "en"})
	if _, err := b.SendText(11, "/start"); err != nil {
		t.Fatal(err)
	}
	worker := start(bot.RoleWorker)
	wait.For(t, wait.Hang, "the greeting", func() bool {
		msgs := b.Messages(11)
		return len(msgs) == 2 && msgs[1].FromBot
	})
	wait.For(t, wait.Hang, "the worker's command menu", func() bool { return len(b.Commands("")) > 0 })
	if strings.Contains(worker.logs.String(), "poll lease") {
		t.Errorf("the worker competed for the poll lease:\n%s", worker.logs)
	}
	handled := func(r *running) float64 {
		return testutil.ToFloat64(r.srv.metrics.UpdatesHandled.WithLabelValues("ok"))
	}
	if p, w := handled(poller), handled(worker); p != 0 || w != 1 {
		t.Errorf("updates handled: %v by the poller, %v by the worker; want 0 and 1", p, w)
	}
}
