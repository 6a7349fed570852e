package main

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/bottest"
	"github.com/questbot/questbot/bot/loadtest"
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
	bottest.WaitFor(t, time.Minute, "600 replies before the kill", func() bool { return answered() >= 600 })
	var victim int
	bottest.WaitFor(t, time.Minute, "a process holding the poll lease", func() bool { victim = leaseHolder(t, pool); return victim != 0 })
	killed := false
	for _, p := range f.Procs() {
		if p.Pid() == victim {
			if err := p.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			bottest.WaitFor(t, time.Minute, "the killed process to end", p.Exited)
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
	bottest.WaitFor(t, time.Minute, "another process to take the poll lease over", func() bool {
		h := leaseHolder(t, pool)
		return h != 0 && h != victim
	})
	bottest.WaitFor(t, 2*time.Minute, "every message answered", func() bool { return answered() == chats*rounds })
	// The rows the killed process had in flight are sent again before their lanes go on; the
	// last messages' may be the last rows sent.
	bottest.WaitFor(t, time.Minute, "the inbox and the outbox drained", func() bool {
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
