package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// runWebloadTest runs webload with DATABASE_URL set to url and returns its output, failing the
// test unless it exits with want.
func runWebloadTest(t *testing.T, url string, want int, args ...string) string {
	t.Helper()
	env := map[string]string{"DATABASE_URL": url}
	var out, errs bytes.Buffer
	if code := webload(context.Background(), args, func(k string) string { return env[k] }, &out, &errs); code != want {
		t.Fatalf("webload %v: exit %d, want %d\n%s%s", args, code, want, out.String(), errs.String())
	}
	return out.String() + errs.String()
}

// checkWebloadReport checks the figures of a small run: every stream open, moves made, every
// client at its board's last revision, each move's event read once by every client watching
// its board (no revision skipped, no event repeated), a delay measured for events.
func checkWebloadReport(t *testing.T, out string, streams int) {
	t.Helper()
	for _, want := range []string{
		"streams: " + strconv.Itoa(streams) + " of " + strconv.Itoa(streams) + " open",
		"(lost events): 0\n",
		"revisions skipped: 0; events repeated: 0\n",
		"target p99 under 100 ms:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`moves: (\d+) in`).FindStringSubmatch(out)
	s := regexp.MustCompile(`at the client, (\d+) samples: p50 [0-9.]+ ms`).FindStringSubmatch(out)
	if m == nil || s == nil {
		t.Fatalf("no move count or delay figures in:\n%s", out)
	}
	moves, _ := strconv.Atoi(m[1])
	samples, _ := strconv.Atoi(s[1])
	if moves < 10 || samples < 1 {
		t.Errorf("%d moves, %d delays measured:\n%s", moves, samples, out)
	}
}

// A small load check against an in-process server passes: every client ends at the last
// revision of its board.
func TestWebload(t *testing.T) {
	t.Parallel()
	out := runWebloadTest(t, pgtest.ConnString(t), 0,
		"-streams", "12", "-boards", "3", "-rate", "40", "-duration", "500ms", "-settle", "20s")
	checkWebloadReport(t, out, 12)
}

// With -url the streams are those of a running `questbot serve` (its emulated bot, its
// authentication and seat checks, its stream cap): an admin's /token gives the load user's
// token, the boards are made in the token's bot and dropped at the end, and the server's
// memory comes from its /metrics. Over the server's WEB_STREAMS_PER_USER the check fails with
// the server's answer; a token the database does not know is refused before any board is made.
func TestWebloadURL(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.DatabaseURL = pgtest.ConnString(t)
	const admin, loader = 515151, 626262
	cfg.Admins = []int64{admin}
	cfg.WebStreams = 6
	r := startServer(t, cfg)
	waitHealthy(t, r, wait.Hang)
	<-r.srv.started
	base := "http://" + r.addr
	emu := r.srv.emuBot
	emu.AddUser(tgbotapi.User{ID: admin, FirstName: "Admin", LanguageCode: "en"})
	emu.AddUser(tgbotapi.User{ID: loader, FirstName: "Loader", LanguageCode: "en"})
	for _, u := range []int64{admin, loader} {
		if _, err := emu.SendText(u, "/start"); err != nil {
			t.Fatal(err)
		}
	}
	// /token needs users who have written to the bot: both greetings first.
	wait.For(t, wait.Hang, "the greetings", func() bool {
		greeted := 0
		for _, u := range []int64{admin, loader} {
			for _, m := range emu.Messages(u) {
				if m.FromBot {
					greeted++
					break
				}
			}
		}
		return greeted == 2
	})
	if _, err := emu.SendText(admin, "/token "+strconv.Itoa(loader)+" load"); err != nil {
		t.Fatal(err)
	}
	tokRE := regexp.MustCompile(`qbt_[A-Za-z0-9_-]{43}`)
	var tok string
	wait.For(t, wait.Hang, "the API token", func() bool {
		for _, m := range emu.Messages(admin) {
			if m.FromBot && tokRE.MatchString(m.Text) {
				tok = tokRE.FindString(m.Text)
				return true
			}
		}
		return false
	})

	out := runWebloadTest(t, cfg.DatabaseURL, 0, "-url", base+"/", "-token", tok,
		"-streams", "6", "-boards", "2", "-rate", "40", "-duration", "500ms", "-settle", "20s")
	checkWebloadReport(t, out, 6)
	if !regexp.MustCompile(`the server's memory \(its /metrics\): before the streams RSS [1-9][0-9.]* MiB.* 6 streams counted`).MatchString(out) {
		t.Errorf("the server's figures are missing:\n%s", out)
	}
	pool, err := pgxpool.New(context.Background(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	var left int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM board_session`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d boards left after the check", left)
	}

	out = runWebloadTest(t, cfg.DatabaseURL, 1, "-url", base, "-token", tok, "-streams", "7", "-boards", "1", "-duration", "100ms")
	if !strings.Contains(out, "429 Too Many Requests") || !strings.Contains(out, "too_many_streams") {
		t.Errorf("the cap's refusal is not reported:\n%s", out)
	}
	out = runWebloadTest(t, cfg.DatabaseURL, 1, "-url", base, "-token", tok, "-user", "77", "-streams", "1", "-duration", "100ms")
	if !strings.Contains(out, "the token acts for user 626262") {
		t.Errorf("a -user that is not the token's is not refused:\n%s", out)
	}
	out = runWebloadTest(t, cfg.DatabaseURL, 1, "-url", base, "-token", tok+"x", "-streams", "1", "-duration", "100ms")
	if !strings.Contains(out, web.ErrUnknownToken.Error()) {
		t.Errorf("an unknown token is not refused:\n%s", out)
	}
}

// Help, and settings that make no sense.
func TestWebloadArguments(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	if code := dispatch(context.Background(), []string{"help", "webload"}, &out, &errs); code != 0 ||
		!strings.Contains(out.String(), "usage: questbot webload") {
		t.Errorf("help webload: exit %d\n%s%s", code, &out, &errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-streams", "0"}, "must be positive"},
		{[]string{"-rate", "-1"}, "must be positive"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-url", "http://127.0.0.1:1"}, "-url needs DATABASE_URL"},
		{[]string{"-token", "qbt_x"}, "-token is for a running server"},
	} {
		var out, errs bytes.Buffer
		env := map[string]string{}
		if code := webload(context.Background(), c.args, func(k string) string { return env[k] }, &out, &errs); code != 2 ||
			!strings.Contains(errs.String(), c.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", c.args, code, c.want, &errs)
		}
	}
}
