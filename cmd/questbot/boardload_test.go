package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// boardloadShort is a short check: two pairs and a game against the bot, two moves a second for
// eight seconds, a command a second per player. The play is long enough for a few moves of each
// game when the race detector and the other packages' tests share the machine.
var boardloadShort = []string{"-pairs", "2", "-rate", "2", "-duration", "8s", "-bots", "1", "-commands", "1s"}

// boardloadShortPlay is the least play the short check goes on for, past its eight seconds when
// the machine is slow: a few moves of each pair, one against the bot, and the three games.
var boardloadShortPlay = boardloadMinimum{moves: 4, botMoves: 1, games: 3}

// runBoardloadTest runs boardload with o on a database of its own and returns its output,
// failing the test unless it exits with want.
func runBoardloadTest(t *testing.T, o boardloadOptions, want int, args ...string) string {
	t.Helper()
	// The board pictures are drawn into UPLOADS_DIR: not into the source tree.
	env := map[string]string{"DATABASE_URL": pgtest.ConnString(t), "UPLOADS_DIR": t.TempDir()}
	var out, errs bytes.Buffer
	// The play may go on for long on a loaded machine (o.atLeast): the limit bounds a hang only.
	ctx, cancel := context.WithTimeout(context.Background(), wait.Hang)
	defer cancel()
	code := boardloadWith(ctx, o, args, func(k string) string { return env[k] }, &out, &errs)
	if code != want {
		t.Fatalf("boardload %v: exit %d, want %d\n%s%s", args, code, want, out.String(), errs.String())
	}
	t.Logf("boardload %v:\n%s%s", args, out.String(), errs.String())
	return out.String()
}

// reportInt reads the integers that re's groups capture in a report, failing the test when the
// line is missing.
func reportInts(t *testing.T, out, re string) []int {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the report lacks %q:\n%s", re, out)
	}
	var ns []int
	for _, s := range m[1:] {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		ns = append(ns, n)
	}
	return ns
}

// Ensure a short check plays and reports the facts it stands for: every player's Telegram board
// ends on their game's final position, no chat ever holds more than a handful of pending rows,
// every /web and /mygames is answered and timed, and the bot's replies are timed beside its
// searches. No figure of time is judged: the machine may be slow.
func TestBoardload(t *testing.T) {
	t.Parallel()
	out := runBoardloadTest(t, boardloadOptions{atLeast: &boardloadShortPlay}, 0, boardloadShort...)
	moves := reportInts(t, out, `(?m)^moves: (\d+) by the pairs .*, (\d+) by the players against the bot; games: (\d+), \d+ finished; API errors: 0$`)
	if moves[0] < 4 || moves[1] < 1 || moves[2] < 3 {
		t.Errorf("too little play: %d moves of the pairs, %d against the bot, %d games", moves[0], moves[1], moves[2])
	}
	boards := reportInts(t, out, `(?m)^final boards: (\d+) of (\d+) right$`)
	if boards[0] != boards[1] || boards[1] < 5 {
		t.Errorf("final boards: %d of %d right, want all of at least 5 (two pairs and a player against the bot)", boards[0], boards[1])
	}
	if pending := reportInts(t, out, `(?m)^pending rows per chat: max (\d+) \(chat \d+: .*\); (\d+) samples`); pending[0] > boardloadPendingBound || pending[1] < 5 {
		t.Errorf("pending rows per chat: max %d over %d samples, want at most %d over at least 5", pending[0], pending[1], boardloadPendingBound)
	}
	reportInts(t, out, `(?m)^lane depth \(max over the samples, all chats\): conversation (\d+), answers \d+, menu \d+, retry \d+, updates (\d+)$`)
	reportInts(t, out, `(?m)^rows superseded: (\d+)$`)
	for _, cmd := range []string{"/web", "/mygames"} {
		r := reportInts(t, out, `(?m)^`+cmd+` reply: (\d+) sent, (\d+) unanswered; (\d+) samples; p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms$`)
		if r[0] < 1 || r[1] != 0 || r[2] != r[0] {
			t.Errorf("%s: %d sent, %d unanswered, %d timed; want some sent, all answered and timed", cmd, r[0], r[1], r[2])
		}
	}
	reportInts(t, out, `(?m)^outbox drained: ([0-9]+)\.[0-9] ms after the play$`)
	if bot := reportInts(t, out, `(?m)^bot reply \(.*\): (\d+) samples; p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms; (\d+) missing; \d+ seen by polling`); bot[0] < 1 || bot[1] != 0 {
		t.Errorf("bot replies: %d timed, %d missing; want some timed and none missing", bot[0], bot[1])
	}
	if think := reportInts(t, out, `(?m)^bot's search \(questbot_board_ai_think_seconds\): (\d+) observed; mean [0-9.]+ ms`); think[0] < 1 {
		t.Errorf("no search of the bot timed")
	}
	if strings.Contains(out, "wrong board:") {
		t.Errorf("a wrong board is reported:\n%s", out)
	}
	web := reportInts(t, out, `(?m)^web move request \(both players' Telegram copies live\): (\d+) samples; p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms; pictures drawn inside web requests: (\d+), as their Telegram requests were sent: (\d+)$`)
	if web[0] < moves[0] || web[1] != 0 || web[2] < 1 {
		t.Errorf("web moves: %d timed of %d, %d pictures drawn inside web requests, %d as sent; want all timed, none inside and some as sent",
			web[0], moves[0], web[1], web[2])
	}
}

// Ensure -compare plays twice, without the players' Telegram copies and with them, and compares
// the web moves' request times: no Telegram board in the first run, every board right in the
// second, no picture drawn inside a web request in either. The ratio is not judged: the machine
// may be busy.
func TestBoardloadCompare(t *testing.T) {
	t.Parallel()
	out := runBoardloadTest(t, boardloadOptions{atLeast: &boardloadMinimum{moves: 4, games: 1}}, 0,
		"-compare", "-pairs", "1", "-rate", "4", "-duration", "3s", "-commands", "1s")
	for _, copies := range []string{"no Telegram copies", "both players' Telegram copies live"} {
		web := reportInts(t, out, `(?m)^web move request \(`+regexp.QuoteMeta(copies)+`\): (\d+) samples; .*; pictures drawn inside web requests: (\d+), as their Telegram requests were sent: (\d+)$`)
		if web[0] < 4 || web[1] != 0 {
			t.Errorf("%s: %d web moves timed, %d pictures drawn inside web requests; want at least 4 and none", copies, web[0], web[1])
		}
	}
	boards := regexp.MustCompile(`(?m)^final boards: (\d+) of (\d+) right$`).FindAllStringSubmatch(out, -1)
	if len(boards) != 2 || boards[0][2] != "0" || boards[1][1] != boards[1][2] || boards[1][2] == "0" {
		t.Errorf("final boards of the two runs: %v; want none without the copies, all right with them", boards)
	}
	reportInts(t, out, `(?m)^web move request, Telegram copies live vs off: p50 [0-9.]+ ms vs [0-9.]+ ms \(ratio [0-9.]+\), p99 [0-9.]+ ms vs [0-9.]+ ms \(ratio [0-9.]+\); pictures drawn inside web requests: (0); target`)
}

// emuCall calls a method of the emulated Bot API as the bot, waiting out its flood limit.
func emuCall(ctx context.Context, base, token, method string, params url.Values) error {
	for {
		resp, err := http.PostForm(base+"/bot"+token+"/"+method, params)
		if err != nil {
			return err
		}
		var answer struct {
			OK          bool   `json:"ok"`
			Description string `json:"description"`
			Parameters  struct {
				RetryAfter int `json:"retry_after"`
			} `json:"parameters"`
		}
		err = json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		switch {
		case err != nil:
			return err
		case answer.OK:
			return nil
		case resp.StatusCode != http.StatusTooManyRequests:
			return fmt.Errorf("%s: %d %s", method, resp.StatusCode, answer.Description)
		}
		if !sleepUntil(ctx, time.Now().Add(time.Duration(answer.Parameters.RetryAfter)*time.Second)) {
			return ctx.Err()
		}
	}
}

// lastBoard is the newest board picture of a chat.
func lastBoard(b *tgemu.Bot, chat int64) (tgemu.Message, bool) {
	msgs := b.Messages(chat)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].FromBot && msgs[i].Photo != "" {
			return msgs[i], true
		}
	}
	return tgemu.Message{}, false
}

// Ensure the check tells a wrong Telegram board: after the drain, the board of one player of a
// game gets the caption of an earlier move, and the other player's chat gets a second board
// showing the first player's side. Both are reported, and the check fails.
func TestBoardloadWrongBoard(t *testing.T) {
	t.Parallel()
	var game, first, second int64
	spoil := func(ctx context.Context, l *boardloadPlay) error {
		var g *loadGame
		for _, c := range l.games {
			if !c.vsBot {
				g = c
				break
			}
		}
		if g == nil {
			return errors.New("no game between two players")
		}
		emu := l.srv.emuBot
		game, first, second = g.id, g.players[0].id, g.players[1].id
		a, ok := lastBoard(emu, first)
		b, ok2 := lastBoard(emu, second)
		if !ok || !ok2 {
			return errors.New("a player of the game has no board")
		}
		err := emuCall(ctx, l.base, emu.Token(), "editMessageCaption", url.Values{
			"chat_id": {strconv.FormatInt(first, 10)}, "message_id": {strconv.Itoa(a.ID)}, "parse_mode": {"HTML"},
			"caption": {strings.Replace(a.Text, "move ", "move 1", 1)}})
		if err != nil {
			return err
		}
		return emuCall(ctx, l.base, emu.Token(), "sendPhoto", url.Values{
			"chat_id": {strconv.FormatInt(second, 10)}, "photo": {a.Photo}, "parse_mode": {"HTML"}, "caption": {b.Text}})
	}
	out := runBoardloadTest(t, boardloadOptions{beforeCheck: spoil, atLeast: &boardloadShortPlay}, 1, boardloadShort...)
	boards := reportInts(t, out, `(?m)^final boards: (\d+) of (\d+) right$`)
	if boards[0] != boards[1]-2 {
		t.Errorf("final boards: %d of %d right, want all but the two spoilt", boards[0], boards[1])
	}
	for _, want := range []string{
		fmt.Sprintf("wrong board: game %d, chat %d (seat 0): the caption's title is", game, first),
		fmt.Sprintf("wrong board: game %d, chat %d (seat 1): 2 boards in the chat, not one; the picture is not the final position's", game, second),
		"every final board right): NOT met",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

// Help, and settings that make no sense.
func TestBoardloadArguments(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	if code := dispatch(context.Background(), []string{"help", "boardload"}, &out, &errs); code != 0 ||
		!strings.Contains(out.String(), "usage: questbot boardload") {
		t.Errorf("help boardload: exit %d\n%s%s", code, &out, &errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-pairs", "0", "-bots", "0"}, "one of them positive"},
		{[]string{"-pairs", "-1"}, "must not be negative"},
		{[]string{"-rate", "0"}, "must be positive"},
		{[]string{"-duration", "-1s"}, "must be positive"},
		{[]string{"-games", "chess,go"}, `unknown game "go"`},
		{[]string{"-games", ","}, "names no game"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		var out, errs bytes.Buffer
		if code := boardload(context.Background(), c.args, func(string) string { return "" }, &out, &errs); code != 2 ||
			!strings.Contains(errs.String(), c.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", c.args, code, c.want, &errs)
		}
	}
}
