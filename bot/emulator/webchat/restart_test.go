package webchat_test

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/questbot/questbot/bot/emulator/webchat"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/migrations/pgtest"
)

// columnIDs are the user ids of the page's columns, in order.
func columnIDs(t *testing.T, ctx context.Context) []int64 {
	t.Helper()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".chat")].map(c => c.dataset.user)`))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, s := range raw {
		id, _ := strconv.ParseInt(s, 10, 64)
		ids = append(ids, id)
	}
	return ids
}

// columns waits until the page shows n columns.
func columns(n int) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll(".chat").length === %d`, n),
		chromedp.WithPollingTimeout(wait.Hang))
}

// botSaysTimes waits until the n-th column shows text in times bot messages.
func botSaysTimes(n int, text string, times int) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(
		`[...document.querySelectorAll(%q)].filter(m => m.textContent.includes(%q)).length === %d`, col(n, ".msg.bot"), text, times),
		chromedp.WithPollingTimeout(wait.Hang))
}

// Ensure the web chat survives restarts of the bot: with the emulator's state kept, users, chats
// and the numbering of updates go on as they were; with the state lost and the database kept,
// no user id the bot knows is given again, the page brings back the users it remembers with
// their ids, and their messages still reach the bot.
func TestWebChatRestart(t *testing.T) {
	pool := pgtest.New(t)
	known := func(ctx context.Context) (int64, error) {
		var id int64
		err := pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM users WHERE id BETWEEN $1 AND $2`,
			webchat.FirstUserID, webchat.LastUserID).Scan(&id)
		return id, err
	}
	// The page must come back on the same address: the browser keeps its storage by address.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	state := t.TempDir()
	// Each run has a token of its own, as serve makes one per process.
	run := func(n int, stateDir string) *stack {
		s := runStack(t, stackOptions{pool: pool, addr: addr, stateDir: stateDir, token: fmt.Sprintf("4242:run-%d", n), knownUsers: known})
		t.Cleanup(s.stop) // a no-op after stop
		return s
	}

	first := run(1, state)
	ctx := browser(t)
	err = chromedp.Do(ctx,
		chromedp.Navigate(first.url+"/"),
		chromedp.WaitVisible("#add-user"),
		addUser("Ann", "en", 1), say(1, "/start"), botSays(1, "Hello, Ann!"),
		addUser("Dan", "en", 2), say(2, "/start"), botSays(2, "Hello, Dan!"),
	)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	ids := columnIDs(t, ctx)
	ann, dan := ids[0], ids[1]
	first.stop()

	second := run(2, state)
	err = chromedp.Do(ctx,
		chromedp.Navigate(second.url+"/"),
		columns(2),
		botSays(1, "Hello, Ann!"), // the chat as it was
		say(1, "/start"), botSaysTimes(1, "Hello, Ann!", 2),
		addUser("Bob", "en", 3), say(3, "/start"), botSays(3, "Hello, Bob!"),
	)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	ids = columnIDs(t, ctx)
	bob := ids[2]
	if ids[0] != ann || ids[1] != dan || bob <= dan {
		t.Fatalf("second run: columns %v, want Ann %d, Dan %d, then a new id for Bob", ids, ann, dan)
	}
	second.stop()

	// The emulator's state is lost (a new folder); the database is not.
	third := run(3, t.TempDir())
	other := browser(t) // remembers nobody
	err = chromedp.Do(other,
		chromedp.Navigate(third.url+"/"),
		chromedp.WaitVisible("#add-user"),
		addUser("Cara", "en", 1), say(1, "/start"), botSays(1, "Hello, Cara!"),
	)
	if err != nil {
		t.Fatalf("third run, another browser: %v", err)
	}
	cara := columnIDs(t, other)[0]
	if cara <= bob {
		t.Fatalf("Cara got id %d, at or below Bob's %d", cara, bob)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(third.url+"/"),
		columns(4),
		say(1, "/start"), botSays(1, "Hello, Ann!"),
	)
	if err != nil {
		t.Fatalf("third run, the first browser: %v", err)
	}
	if got, want := fmt.Sprint(columnIDs(t, ctx)), fmt.Sprint([]int64{ann, dan, bob, cara}); got != want {
		t.Errorf("third run: columns %s, want %s", got, want)
	}
	third.stop()
}
