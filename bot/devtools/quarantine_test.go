package devtools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/devtools"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/internal/hostile"
	"github.com/questbot/questbot/qms"
)

// bomb is the source of two nested #for loops that ask for 300×1000 sites in 154 bytes.
func bomb(t *testing.T) []byte {
	t.Helper()
	return []byte(hostile.QMSBomb)
}

// compileOnUpload sends a source with the caption /compile and waits for an answer after it
// containing want.
func (e *env) compileOnUpload(t *testing.T, user int64, name string, data []byte, want string) string {
	t.Helper()
	n := e.LastID(user)
	if _, err := e.Bot.SendDocumentCaption(user, name, "text/plain", data, "/compile"); err != nil {
		t.Fatal(err)
	}
	return e.WaitTextAfter(t, user, n, want).Text
}

// Ensure the bomb is refused with words that name the limit, in English and in Russian, and
// that nothing but the source is stored; /compile of it says the same.
func TestCompileBombRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev, ru = 70, 71
	e.user(dev, "Dana", "dana", "en")
	e.user(ru, "Дарья", "darya", "ru")
	e.hello(t, dev)
	e.ask(t, ru, "/start", "Questbot")
	e.makeDeveloper(t, dev)
	e.makeDeveloper(t, ru)

	got := e.compileOnUpload(t, dev, "bomb.qms", bomb(t), "too large to compile")
	for _, want := range []string{"«bomb» is too large to compile: it makes more than 10000 sites, the limit.",
		"bomb.qms:3:1: the source passes the limit of 10000 sites"} {
		if !strings.Contains(got, want) {
			t.Errorf("the refusal %q does not say %q", got, want)
		}
	}
	got = e.ask(t, dev, "/compile bomb", "too large to compile").Text
	if !strings.Contains(got, "more than 10000 sites") {
		t.Errorf("/compile bomb: %q", got)
	}
	got = e.compileOnUpload(t, ru, "bomb.qms", bomb(t), "слишком велик")
	if !strings.Contains(got, "«bomb» слишком велик, чтобы его собрать: в нём больше 10000 локаций (#site), а это предел.") {
		t.Errorf("the Russian refusal: %q", got)
	}
	e.WaitIdle(t)
	if got := e.QueryInt(t, `SELECT count(*) FROM script WHERE uploaded`); got != 0 {
		t.Errorf("%d quests stored from the bomb, want 0", got)
	}
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_fetch`); got != 0 {
		t.Errorf("%d jobs left", got)
	}
}

// Ensure a compilation runs outside any transaction and ends with the process: a source that
// compiles for long (the bomb, under limits too high to stop it) is compiled while no
// transaction stays open, and stopping the process stops it, the attempt counted. A job cut
// off this way, or whose process died holding it, is not taken up forever: after its third
// attempt it is quarantined, its sender is told, and the chat's next file is handled.
func TestCompileCutOffIsQuarantined(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *devtools.Config) {
		c.CompileLimits = qms.Limits{Sites: 1 << 30, Jumps: 1 << 30, Steps: 1 << 40, Memory: 1 << 40}
	})
	const dev, other = 72, 73
	e.user(dev, "Dana", "dana", "en")
	e.user(other, "Olga", "olga", "en")
	e.hello(t, dev)
	e.hello(t, other)
	e.makeDeveloper(t, dev)
	t.Cleanup(func() {
		if t.Failed() {
			e.logFetches(t)
		}
	})

	compiling := func(attempts int) {
		t.Helper()
		wait.For(t, bottest.Timeout, "the compilation to be claimed", func() bool {
			return e.QueryInt(t, `SELECT count(*) FROM dev_fetch WHERE compile = 'bomb' AND claim IS NOT NULL
				AND attempts = $1`, attempts) == 1
		})
	}
	e.compileOnUpload(t, dev, "bomb.qms", bomb(t), "Source «bomb.qms» is uploaded")
	compiling(1)
	// While it compiles, no transaction that was open when it began is left open (one held
	// for the compilation would stay open for as long as it runs), and other chats are answered.
	var began string
	if err := e.Pool.QueryRow(t.Context(), `SELECT now()::text`).Scan(&began); err != nil {
		t.Fatal(err)
	}
	e.ask(t, other, "/help", "choose a quest")
	wait.For(t, bottest.Timeout, "the transactions open when the compilation began to end", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND pid <> pg_backend_pid() AND xact_start < $1::timestamptz`, began) == 0
	})
	if e.QueryInt(t, `SELECT count(*) FROM dev_fetch WHERE compile = 'bomb' AND claim IS NOT NULL`) != 1 {
		t.Fatal("the compilation ended by itself")
	}

	// A stop ends it, and counts the attempt; twice.
	e.proc.Stop()
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_fetch WHERE claim IS NULL AND attempts = 1
		AND last_error = 'cut off while compiling' AND quarantined_at IS NULL`); got != 1 {
		t.Fatalf("after the stop: %d jobs let go with the attempt counted, want 1", got)
	}
	e.start(t, true)
	compiling(2)
	e.proc.Stop()
	// A process that died holding it: its claim ran out.
	e.Exec(t, `UPDATE dev_fetch SET claim = 'died', claimed_until = now() - interval '1 second', attempts = 3,
		not_before = now()`)

	// The next claim sets it aside and tells the sender; the chat's next file goes through.
	n := e.LastID(dev)
	e.start(t, true)
	e.WaitTextAfter(t, dev, n, "I gave up on «bomb»: it was tried 3 times and could not be handled.")
	e.put(t, dev, "Probe.qmm", probe(t, "after"), "Quest «Probe» is uploaded")
	e.WaitIdle(t)
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_fetch WHERE compile = 'bomb' AND quarantined_at IS NOT NULL
		AND claim IS NULL AND attempts = 4`); got != 1 {
		t.Errorf("%d compilations quarantined and not claimed again, want 1", got)
	}
	if got := e.CountText(dev, "I gave up on"); got != 1 {
		t.Errorf("told %d times that the compilation was given up, want 1", got)
	}

	// Nor does the next process take it up.
	e.proc.Stop()
	e.start(t, true)
	e.put(t, dev, "Probe2.qmm", probe(t, "later"), "Quest «Probe2» is uploaded")
	e.WaitIdle(t)
	if got := e.QueryInt(t, `SELECT attempts FROM dev_fetch WHERE compile = 'bomb'`); got != 4 {
		t.Errorf("the quarantined compilation was claimed again: %d attempts", got)
	}
}

// logFetches logs the queue of uploads, to tell what a failed test left there.
func (e *env) logFetches(t *testing.T) {
	rows, err := e.Pool.Query(context.Background(), `SELECT id, attempts, coalesce(claim, ''), coalesce(claimed_until::text, ''),
		not_before::text, now()::text, coalesce(last_error, ''), coalesce(compile, ''), quarantined_at IS NOT NULL FROM dev_fetch`)
	if err != nil {
		t.Log(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id, attempts int
		var claim, until, notBefore, now, lastError, compile string
		var quarantined bool
		if err := rows.Scan(&id, &attempts, &claim, &until, &notBefore, &now, &lastError, &compile, &quarantined); err != nil {
			t.Log(err)
			return
		}
		t.Logf("dev_fetch %d: attempts %d, claim %q until %s, not before %s (now %s), last error %q, compile %q, quarantined %v",
			id, attempts, claim, until, notBefore, now, lastError, compile, quarantined)
	}
}
