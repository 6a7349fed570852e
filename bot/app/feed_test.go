package app_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// Ensure a process as questbot serve composes it (the web game server, then the bot's workers)
// listens on one connection: the board feed, which the web's board and tournament hubs and the
// AI's wake-ups all follow.
func TestOneListenConnection(t *testing.T) {
	t.Parallel()
	e := bottest.New(t, bottest.Options{Token: "778:app-feed-token", Username: "app_feed_bot"})
	log := slog.New(slog.DiscardHandler)
	b := app.New(app.Config{UploadsDir: "../../uploads", Log: log})
	p := e.Start(t, bot.Config{Handler: b.Handle, Log: log, Limits: &bot.NoLimits, Rescan: 50 * time.Millisecond})
	_, runWeb := b.Web(e.Pool, p.Transport, app.WebConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	var runs sync.WaitGroup
	t.Cleanup(func() { cancel(); runs.Wait() })
	runs.Go(func() { _ = runWeb(ctx) })
	runs.Go(func() { b.Run(ctx, e.Pool, p.Transport) })
	count := func(name string) int {
		return e.QueryInt(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, name)
	}
	wait.For(t, bottest.Timeout, "the feed to listen", func() bool { return count(boards.FeedName) == 1 })
	for _, name := range []string{boards.AIListenerName, web.ListenerName, web.TournamentListenerName} {
		if n := count(name); n != 0 {
			t.Errorf("%d connections named %q beside the feed", n, name)
		}
	}
}
