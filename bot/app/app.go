// Package app assembles the bot from its parts: the stores, the features, the router that sends
// each update to the feature that registered for it, and the scheduled jobs. It is the one
// package that knows every feature: `questbot serve` (cmd/questbot) runs what it assembles, and
// so do the end-to-end tests that need the whole bot. The features never import each other; each
// declares the small interfaces it needs of the others, and New passes the implementations in.
//
// The path of a button press, a quest choice:
//
//  1. The transport's poll (bot/intake.go) gets the update from getUpdates. When its chat has
//     nothing waiting, the poll handles it itself (botpg.HandleAtIntake): one transaction records
//     its sender, runs Bot.Handle, queues the replies and moves the stored offset, which
//     acknowledges it. Otherwise (the chat has updates waiting, the handler failed, or the
//     batch's handling budget, bot.Config.IntakeBudget, is spent) the update is stored in the
//     inbox in that same transaction, and a dispatcher worker later claims the chat's oldest
//     update (botpg.HandleBatch, FOR UPDATE SKIP LOCKED) and runs Bot.Handle in the update's
//     transaction.
//  2. Bot.Handle is the router: its middleware deliver the news (relay) and keep the command
//     menus in step with the tree (scriptbot); the press goes by its callback prefix ("q" to
//     the quest player and "qc" to its catalogue, "m" to the command tree, "r" to the relay,
//     "g" to the board games and "G" to those a whole chat sees, "tn" to their tournaments).
//  3. The feature changes its state through its store (for a quest choice, "q:<game>:<step>:<jump>",
//     questpg.QueueStep, conditional on the game's nonce, so a stale or repeated press changes
//     nothing) and gives the requests of its answer to tx.Send.
//  4. The transaction commits the state, the outbox rows and the offset (or the update's
//     deletion from the inbox) together; the sender (bot/sender.go) sends the rows in the chat's
//     order under Telegram's limits.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"path/filepath"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/botusers"
	"github.com/questbot/questbot/bot/boards/telegram"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/devtools"
	"github.com/questbot/questbot/bot/devtools/devpg"
	"github.com/questbot/questbot/bot/questplay"
	"github.com/questbot/questbot/bot/relay"
	"github.com/questbot/questbot/bot/relay/relaypg"
	"github.com/questbot/questbot/bot/scriptbot"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/scripts/scriptpg"
)

// Config configures the bot. Only UploadsDir is needed; the rest have production defaults and
// exist for the tests.
type Config struct {
	// UploadsDir is the quest folder (UPLOADS_DIR).
	UploadsDir string
	// ImagesDir is the operator's folder of images every quest may show (IMAGES_DIR), "" for none.
	ImagesDir string
	// Log receives the features' log lines.
	Log *slog.Logger
	// Now is the clock of the quests and of the multiplayer deadlines; nil is time.Now.
	Now func() time.Time
	// TreeCheck is how long a command tree is used before its revision is checked again
	// (scriptpg.DefaultCheckEvery when 0; negative checks on every update).
	TreeCheck time.Duration
	// Relay overrides the relay's settings (its stores are filled in).
	Relay relay.Config
	// Dev overrides the developers' tools' settings (their parts are filled in).
	Dev devtools.Config
	// Boards overrides the board games' settings: unset, their pictures go to UploadsDir/boards
	// and their clock is Now.
	Boards boards.Config
	// Listen is the pool of the connections that LISTEN for the features' wake-ups (the uploads
	// to fetch, the bots' turns): one with session semantics when the pool given to Run goes
	// through PgBouncer in transaction mode. Nil: the pool given to Run.
	Listen *pgxpool.Pool
}

// Bot is the assembled bot: its router and its features.
type Bot struct {
	Router *bot.Router
	Files  *questfs.Files
	Quests *questpg.Store
	Users  *botpg.Users
	Trees  *scriptpg.Store
	Tree   *scriptbot.Handler
	Games  *questplay.Games
	Tools  *devtools.Tools
	Relay  *relay.Relay
	// Boards is the board-game service; BoardChat its view in Telegram, and the web game
	// server (Web) the other.
	Boards    *boards.Boards
	BoardChat *telegram.View
	// Tournaments are the board games' tournaments, TournamentChat their view in Telegram.
	Tournaments    *boards.Tournaments
	TournamentChat *telegram.Tournaments

	listen *pgxpool.Pool // Config.Listen
	// feed is the process's one LISTEN connection, made by Web.
	feed *boards.Feed
	log  *slog.Logger
	hub  *web.Hub // the web game server's live updates, once Web built it
	// publicURL is the web game server's address (Config.Boards.PublicURL).
	publicURL string
}

// New assembles the bot.
func New(cfg Config) *Bot {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Bot{Router: bot.NewRouter(), Files: questfs.New(cfg.UploadsDir, 0), Quests: questpg.New(),
		Users: botpg.NewUsers(), Trees: scriptpg.New(), listen: cfg.Listen, log: log}
	switch {
	case cfg.TreeCheck < 0:
		b.Trees.CheckEvery = 0
	case cfg.TreeCheck > 0:
		b.Trees.CheckEvery = cfg.TreeCheck
	}
	// The quest player shows the images developers upload.
	b.Files.SetImagesDir(cfg.ImagesDir)
	images := devtools.NewImages(b.Quests, cfg.UploadsDir, cfg.ImagesDir)
	b.Games = questplay.New(questplay.Config{Files: b.Files, Store: b.Quests, Log: log, Now: cfg.Now, Images: images})
	dev := cfg.Dev
	if dev.Listen == nil {
		dev.Listen = cfg.Listen
	}
	dev.Files, dev.Player, dev.Store, dev.Users, dev.Root, dev.Images = b.Files, b.Games, b.Quests, b.Users, cfg.UploadsDir, images
	dev.Fetches = devpg.New()
	if dev.Log == nil {
		dev.Log = log
	}
	if dev.Now == nil {
		dev.Now = cfg.Now
	}
	b.Tools = devtools.New(dev)
	rc := cfg.Relay
	rc.Store, rc.Users, rc.Outbox, rc.Games = relaypg.New(), b.Users, botpg.Outbox{}, b.Quests
	if rc.Log == nil {
		rc.Log = log
	}
	b.Relay = relay.New(rc)
	bc := cfg.Boards
	if bc.Dir == "" {
		bc.Dir = filepath.Join(cfg.UploadsDir, "boards")
	}
	if bc.Log == nil {
		bc.Log = log
	}
	if bc.Now == nil {
		bc.Now = cfg.Now
	}
	if bc.Users == nil {
		bc.Users = botusers.Users{}
	}
	b.Boards = boards.New(bc)
	b.publicURL = bc.PublicURL
	b.BoardChat = telegram.New(b.Boards, log)
	b.Tournaments = boards.NewTournaments(b.Boards)
	b.TournamentChat = telegram.NewTournaments(b.Tournaments, log)
	builtins := map[string]scriptbot.Builtin{}
	for name, fn := range b.Tools.Builtins() {
		builtins[name] = fn
	}
	for name, fn := range b.Games.Builtins() {
		builtins[name] = fn
	}
	for name, fn := range b.BoardChat.Builtins() {
		builtins[name] = fn
	}
	for name, fn := range b.TournamentChat.Builtins() {
		builtins[name] = fn
	}
	// /web and /token: the login links and API tokens of the web game server, given in the chat.
	for name, fn := range telegram.AccessBuiltins(bc.PublicURL, bc.Now) {
		builtins[name] = fn
	}
	b.Tree = scriptbot.New(scriptbot.Config{Trees: b.Trees, Contexts: b.Trees, Users: b.Users, Games: b.Games,
		Builtins: builtins, Log: log})
	b.Trees.Builtins = b.Tree.BuiltinNames()

	r := b.Router
	// News come before the answer to anything a user does; the command menus follow the tree.
	r.Use(b.Relay.Wrap)
	r.Use(b.Tree.Refresh)
	// Commands are the tree's, except the invite links of board games (/start g<code>); the
	// buttons go by their prefix.
	r.OnAnyCommand(b.Tree.HandleCommand)
	r.OnCommand("start", func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if took, err := b.TournamentChat.HandleStart(ctx, tx, u); took || err != nil {
			return err
		}
		if took, err := b.BoardChat.HandleStart(ctx, tx, u); took || err != nil {
			return err
		}
		return b.Tree.HandleCommand(ctx, tx, u)
	})
	r.OnCallback(scriptbot.CallbackPrefix, b.Tree.HandleMenu)
	r.OnCallback(questplay.CallbackPrefix, b.Games.HandleCallback)
	r.OnCallback(questplay.CataloguePrefix, b.Games.HandleCatalogue)
	r.OnCallback(relay.CallbackPrefix, b.Relay.HandleCallback)
	r.OnCallback(telegram.CallbackPrefix, b.BoardChat.HandleCallback)
	// Board games a whole chat sees: inline mode in any chat, and /games in a group.
	r.OnCallback(telegram.SharedPrefix, b.BoardChat.HandleShared)
	r.OnInlineQuery(b.BoardChat.HandleInlineQuery)
	r.OnChosenInlineResult(b.BoardChat.HandleChosenInlineResult)
	r.OnCommand("games", func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if took, err := b.BoardChat.HandleGroupGames(ctx, tx, u); took || err != nil {
			return err
		}
		return b.Tree.HandleCommand(ctx, tx, u)
	})
	// The tournaments: /tournaments (the list, with its buttons) is the tree's, /tournament
	// (create, settings) its own.
	r.OnCommand("tournament", b.TournamentChat.HandleCommand)
	r.OnCallback(telegram.TournamentPrefix, b.TournamentChat.HandleCallback)
	// Other messages: the answer to a prompt, then a file (uploads, saves), then a typed quest
	// choice number or board game move (never relayed), then a text for the admins; anything
	// left gets the tree's hint.
	r.OnMessage(b.Tree.HandleText)
	r.OnMessage(b.Tools.HandleMessage)
	r.OnMessage(b.Games.HandleMessage)
	r.OnMessage(b.BoardChat.HandleMessage)
	r.OnMessage(b.Relay.HandleMessage)
	r.OnUnhandled(b.Tree.HandleUnhandled)
	return b
}

// Handle is the bot's update handler, for the transport.
func (b *Bot) Handle(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	return b.Router.Handle(ctx, tx, u)
}

// Schedule adds the bot's periodic jobs to s, run through the transport tr. Each runs in every
// process that runs the jobs, on the schedule its package sets beside its code (the …Spec
// below), and claims its work as bot.Scheduler says. What makes each fire once, however many
// processes run it:
//
//   - quest-sessions (bot/questplay): each due session is settled in a transaction that locks it
//     with SKIP LOCKED and checks its deadline again; the purge of ended sessions is a DELETE.
//   - broadcasts (bot/relay): each step locks its broadcast with SKIP LOCKED and moves the
//     cursor past the users it queued in the same transaction; relay-cleanup only deletes.
//   - board-deadlines, board-reminders, board-notify, board-cleanup (bot/boards): found by a
//     claim that is rolled back, then settled one board at a time with the board locked and the
//     rule checked again (board.Board.Expire, Remind, the notification row deleted in the
//     transaction that queues its message), so a second run finds nothing left to do.
//   - board-ai (bot/boards): a turn is claimed with a lease at the board's revision, and the
//     move is played only if the revision is still the one claimed. It is also woken at once
//     (AddWakeable) by the commit that makes it the bot's turn: in the process after the commit,
//     in the others by a notification (boards.AIChannel); its schedule is the fallback.
//   - board-challenges (bot/boards/telegram): each challenge of a shared message nobody joined
//     in time is closed in a transaction that locks its board and checks that it still waits.
//   - tournaments (bot/boards): each tournament due is claimed with SKIP LOCKED, then locked
//     (FOR UPDATE) in the transaction that starts it, pairs its round with the round's boards or
//     finishes it, its state checked again; a player is paired once a round (a unique key), so a
//     round is never paired twice.
//   - web-undelivered (bot/boards/telegram): the credentials whose message failed for good are
//     taken from the transport's record with SKIP LOCKED and deleted in the transaction that
//     revokes them and queues the notice to their issuer.
//   - upload-sweep (bot/devtools): removes the stored files no row names, once old enough that no
//     upload under way needs them; two sweeps removing one file is harmless. inbox-cleanup
//     (bot.Transport.Cleanup) only deletes old records; outbox-metrics only reads.
func (b *Bot) Schedule(s *bot.Scheduler, tr *bot.Transport) error {
	// The board service's jobs run in its own Tx, which the transport's are.
	do := boards.DoerOf(tr.Do)
	jobs := []struct {
		name, spec string
		job        bot.Job
	}{
		{"quest-sessions", questplay.SessionsSpec, func(ctx context.Context) error { return b.Games.SettleSessions(ctx, tr) }},
		{"broadcasts", relay.BroadcastSpec, func(ctx context.Context) error { return b.Relay.Broadcast(ctx, tr) }},
		{"relay-cleanup", relay.CleanupSpec, func(ctx context.Context) error { return b.Relay.Cleanup(ctx, tr) }},
		{"upload-sweep", devtools.SweepSpec, func(ctx context.Context) error { _, err := b.Tools.Sweep(ctx, tr); return err }},
		{"board-deadlines", boards.DeadlinesSpec, func(ctx context.Context) error { return b.Boards.Deadlines(ctx, do) }},
		{"board-reminders", boards.RemindersSpec, func(ctx context.Context) error { return b.Boards.Reminders(ctx, do) }},
		{"board-notify", boards.NotifySpec, func(ctx context.Context) error { return b.Boards.Notify(ctx, do) }},
		{"board-cleanup", boards.CleanupSpec, func(ctx context.Context) error { return b.Boards.Cleanup(ctx, do) }},
		{"board-challenges", telegram.ExpireChallengesSpec, func(ctx context.Context) error { return b.BoardChat.ExpireChallenges(ctx, tr) }},
		{"tournaments", boards.TournamentsSpec, func(ctx context.Context) error { return b.Tournaments.Tournaments(ctx, do) }},
		{"web-undelivered", telegram.UndeliveredSpec, func(ctx context.Context) error { return telegram.Undelivered(ctx, tr, b.log) }},
		{"inbox-cleanup", bot.CleanupSpec, tr.Cleanup},
		{"outbox-metrics", bot.OutboxMetricsSpec, tr.OutboxMetrics},
	}
	for _, j := range jobs {
		if err := s.Add(j.name, j.spec, j.job); err != nil {
			return err
		}
	}
	// The AI's job is also woken by the commits that make it a bot's turn (see Run).
	wake, err := s.AddWakeable("board-ai", boards.AISpec, func(ctx context.Context) error { return b.Boards.Think(ctx, do) })
	if err != nil {
		return err
	}
	b.Boards.SetAIWake(wake)
	return nil
}

// Register registers the features' metrics with r (the transport's and the scheduler's are
// registered by their owners).
func (b *Bot) Register(r prometheus.Registerer) error {
	if b.hub != nil {
		if err := b.hub.Register(r); err != nil {
			return err
		}
	}
	return b.Boards.Register(r)
}

// WebConfig configures the web game server (see web.Config for each setting); its address is
// the board games' (Config.Boards.PublicURL).
type WebConfig struct {
	Streams        int
	TrustedProxies []netip.Prefix
}

// Web builds the web game server, a view of the board service, over pool and through the
// transport tr: its handler, and the run of the process's one LISTEN connection (a boards.Feed
// on Config.Listen, or pool, until ctx is done), which every process runs whatever its role: the
// web's live updates of boards and tournaments and the AI's wake-ups all follow it. It is called
// once, before Register and Run.
func (b *Bot) Web(pool *pgxpool.Pool, tr *bot.Transport, cfg WebConfig) (h http.Handler, run func(ctx context.Context) error) {
	listen := b.listen
	if listen == nil {
		listen = pool
	}
	b.feed = boards.NewFeed(listen, "", b.log)
	b.Boards.FollowAI(b.feed)
	b.hub = web.NewHubOn(b.feed, pool, b.log)
	tournaments := web.NewTournamentHubOn(b.feed, pool)
	h = web.New(web.Config{Pool: pool, Doer: tr, Boards: b.Boards, PublicURL: b.publicURL, Events: b.hub, MiniApps: tr,
		Pages: web.Pages(), Log: b.log, Streams: cfg.Streams, TrustedProxies: cfg.TrustedProxies,
		Tournaments: b.Tournaments, TournamentEvents: tournaments}).Handler()
	feed := b.feed
	return h, func(ctx context.Context) error {
		feed.Run(ctx)
		return nil
	}
}

// Run runs the bot's own workers beside the transport tr until ctx is done: the downloads of the
// files users send into the chat (devtools.Tools.RunFetches), and, in a process without the web
// game server's feed (Web), a watch of the bots' turns that wakes the AI
// (boards.Boards.WatchAI), listening on a connection of Config.Listen (or pool). questbot serve
// runs it with the transport and the scheduler.
//
// The downloads claim each file with a lease, so one process downloads it. Files live in
// UPLOADS_DIR, which several processes must share (one machine, or a shared file system): a
// quest uploaded through one process is played through another.
func (b *Bot) Run(ctx context.Context, pool *pgxpool.Pool, tr *bot.Transport) {
	listen := b.listen
	if listen == nil {
		listen = pool
	}
	var wg sync.WaitGroup
	if b.feed == nil {
		wg.Go(func() { b.Boards.WatchAI(ctx, listen) })
	}
	b.Tools.RunFetches(ctx, pool, tr)
	wg.Wait()
}

// Start prepares the bots of services once the transport knows them: each bot's command menu is
// queued, the role configuration is applied, and what uploads left behind is swept.
func (b *Bot) Start(ctx context.Context, pool *pgxpool.Pool, tr *bot.Transport, services []int, newUsersDevelopers *bool, admins []int64) error {
	for _, service := range services {
		menu, err := b.Tree.Menu(ctx, pool, service)
		if err == nil {
			err = tr.Send(ctx, service, menu...)
		}
		if err != nil {
			return fmt.Errorf("command menu of bot %d: %w", service, err)
		}
	}
	if err := b.Users.ApplyRoles(ctx, pool, services, newUsersDevelopers, admins); err != nil {
		return fmt.Errorf("ADMINS and NEW_USERS_ARE_DEVELOPERS: %w", err)
	}
	if _, err := b.Tools.Sweep(ctx, tr); err != nil {
		return err
	}
	return nil
}
