package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/questbot/questbot/bot/texts"
)

// Config configures a Transport.
type Config struct {
	// Store keeps the inbox, the outbox and the users (bot/botpg).
	Store Store
	// Handler handles every update; Greeter is the behaviour the transport alone gives.
	Handler Handler
	// Log receives the transport's log lines. The bot token never appears in them.
	Log *slog.Logger
	// Metrics, when set, are updated as the transport works.
	Metrics *Metrics
	// Limits are Telegram's rate limits the sender keeps to; defaultLimits unless set.
	Limits *Limits
	// Webhook, when set, is the public base URL (https, or http for a local emulator) under
	// which Telegram reaches this process's WebhookHandler: each bot gets its updates by webhook
	// at webhookURL(Webhook, bot id) instead of by long polling (see webhook.go). Empty: long
	// polling, after deleteWebhook.
	Webhook string
	// Role is what this process runs (see lease.go): RoleAll (the zero value) receives, handles
	// and sends; RolePoller only receives; RoleWorker only handles and sends.
	Role Role
	// PollLease is how long the lease on a bot's long poll lasts unless its holder renews it,
	// and so about how long the bot goes unpolled when the process polling it dies (see
	// lease.go); DefaultPollLease unless set.
	PollLease time.Duration
	// PollTimeout is the getUpdates long-poll timeout; 25 s unless set.
	PollTimeout time.Duration
	// Workers is how many batches of chats are handled at once; 8 unless set. A worker takes up
	// to Batch chats with work and handles the first update of each in one transaction.
	Workers int
	// Batch is the most chats a worker takes at once; 16 unless set.
	Batch int
	// IntakeBudget is how long the long poll may spend handling a batch's updates itself, in
	// the transaction that stores them, when the Store can (IntakeHandler); what is left then
	// goes to the workers through the inbox. 5 ms unless set; negative: never, every update
	// goes through the inbox.
	IntakeBudget time.Duration
	// Senders is how many batches of chats are sent to at once; 8 unless set. A sender takes
	// up to Batch chats and sends the first row of each together.
	Senders int
	// Rescan is how often the inbox and the outbox are scanned for work that no notification
	// announced (left by a crash, by another process, or waiting for a retry); 1 s unless set.
	Rescan time.Duration
	// SlowSend is how long a request to the Bot API may take (real time) before it stops holding
	// the other requests of its batch, which are recorded without it, and before its chat is
	// sent alone for a while; 2 s unless set.
	SlowSend time.Duration
	// GiveWayAfter is how long a request that keeps failing transiently may hold the requests
	// after it in its chat before it gives way: it moves aside (LaneRetry) and is retried there,
	// late, while its chat goes on; 10 s unless set.
	GiveWayAfter time.Duration
	// FailedRetention is how long the records of what failed for good are kept: outbox rows
	// (with their texts) and quarantined updates; 7 days unless set. Cleanup removes older ones.
	FailedRetention time.Duration
	// Clock is the time of the transport's waits and limits (see Clock); the real time unless set.
	Clock Clock
	// Hooks are fault-injection points for tests; leave them nil.
	Hooks Hooks
}

// Hooks let tests stop the transport at its crash-sensitive points. A hook returning true makes
// the transport abandon the step as a crashed process would: the transaction is rolled back.
type Hooks struct {
	// BeforeHandle runs after an update was claimed, before its handler.
	BeforeHandle func(*Update) bool
	// BeforeSend runs after an outbox row was claimed, before it is sent.
	BeforeSend func(*OutboxRow) bool
	// AfterSend runs after Telegram accepted an outbox row, before the row is removed.
	AfterSend func(*OutboxRow) bool
}

// maxHandleAttempts is how often an update whose handler fails is tried before it is given up.
const maxHandleAttempts = 5

// Transport is the Telegram transport of one process: for each bot a receiver that stores
// updates in the inbox before acknowledging them, one dispatcher that handles each chat's
// updates in order (different chats in parallel), and one sender that drains the outbox under
// Telegram's limits.
type Transport struct {
	cfg   Config
	log   *slog.Logger
	m     *Metrics
	clock Clock
	disp  *dispatcher
	send  *sender
	mu    sync.Mutex
	apis  map[int]*API // by service id
	bots  []*botEntry
	rscan time.Duration
	// holder names this transport in the poll leases.
	holder string
}

type botEntry struct {
	api     *API
	service int
	offset  int64
	// secret is the secret_token of the bot's webhook, shared by the bot's processes through
	// the store (webhook.go); "" outside webhook mode.
	secret atomic.Pointer[string]
	// secretRead is when the secret was last read from the store (UnixNano), for refreshing it
	// at most once a second.
	secretRead atomic.Int64
}

// New returns a transport; add bots with AddBot, then Run it.
func New(cfg Config) *Transport {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	if c, ok := cfg.Store.(supersedeCounter); ok {
		f := c.SupersededTotal
		cfg.Metrics.supersededTotal.Store(&f)
	}
	if cfg.Limits == nil {
		l := defaultLimits
		cfg.Limits = &l
	}
	if cfg.PollTimeout <= 0 {
		cfg.PollTimeout = 25 * time.Second
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 16
	}
	if cfg.Senders <= 0 {
		cfg.Senders = 8
	}
	if cfg.IntakeBudget == 0 {
		cfg.IntakeBudget = defaultIntakeBudget
	}
	if cfg.Rescan <= 0 {
		cfg.Rescan = time.Second
	}
	if cfg.Handler == nil {
		cfg.Handler = Greeter
	}
	if cfg.Clock == nil {
		cfg.Clock = systemClock{}
	}
	if cfg.SlowSend <= 0 {
		cfg.SlowSend = 2 * time.Second
	}
	if cfg.GiveWayAfter <= 0 {
		cfg.GiveWayAfter = 10 * time.Second
	}
	if cfg.PollLease <= 0 {
		cfg.PollLease = DefaultPollLease
	}
	if cfg.FailedRetention <= 0 {
		cfg.FailedRetention = 7 * 24 * time.Hour
	}
	t := &Transport{cfg: cfg, log: cfg.Log, m: cfg.Metrics, clock: cfg.Clock, apis: map[int]*API{}, rscan: cfg.Rescan,
		holder: processName()}
	t.send = newSender(t)
	t.disp = newDispatcher(t)
	return t
}

// AddBot connects a bot (getMe), registers it in the store and returns its service id. Its
// long poll, or in webhook mode its setWebhook, starts with Run; WebhookHandler accepts its
// updates from AddBot on.
func (t *Transport) AddBot(ctx context.Context, api *API) (int, error) {
	id, offset, err := t.cfg.Store.RegisterService(ctx, api.token, api.me())
	if err != nil {
		return 0, err
	}
	b := &botEntry{api: api, service: id, offset: offset}
	if t.cfg.Webhook != "" && t.cfg.Role.Receives() {
		if err := t.loadSecret(ctx, b); err != nil {
			return 0, err
		}
	}
	t.mu.Lock()
	t.apis[id] = api
	t.bots = append(t.bots, b)
	t.mu.Unlock()
	t.log.Info("Bot registered", slog.String("username", api.me().UserName), slog.Int("service_id", id))
	return id, nil
}

func (t *Transport) api(service int) *API {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.apis[service]
}

// Run runs what the role asks for until ctx is cancelled, then waits for the work in flight:
// it polls every bot whose poll lease this process holds (or, in webhook mode, sets each bot's
// webhook), and handles and sends. Handled and sent work is committed; anything interrupted is
// found again on the next start, by this process or another.
func (t *Transport) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	t.mu.Lock()
	bots := append([]*botEntry(nil), t.bots...)
	t.mu.Unlock()
	if t.cfg.Role.Receives() {
		for _, b := range bots {
			if t.cfg.Webhook != "" {
				wg.Go(func() { t.setWebhook(ctx, b) })
			} else {
				wg.Go(func() { t.lead(ctx, b) })
			}
		}
	}
	if t.cfg.Role.Works() {
		wg.Go(func() { t.disp.run(ctx) })
		wg.Go(func() { t.send.run(ctx) })
	}
	wg.Wait()
	return nil
}

// Send writes requests of a bot to the outbox outside any update, for start-up work such as the
// command menu.
func (t *Transport) Send(ctx context.Context, service int, reqs ...Request) error {
	chats, err := t.cfg.Store.Enqueue(ctx, service, reqs)
	if err != nil {
		return err
	}
	for _, c := range chats {
		t.send.notify(c)
	}
	return nil
}

// Retention of the records of given-up updates and of the message ids recorded under refs (a bot
// can no longer delete a message after 48 hours).
const recordRetention = 48 * time.Hour

// Cleanup removes old records: given-up updates and message refs after 48 hours, failed outbox
// rows and quarantined updates after FailedRetention. The bot runs it as a scheduled job
// (CleanupSpec).
func (t *Transport) Cleanup(ctx context.Context) error {
	if err := t.cfg.Store.Cleanup(ctx, recordRetention); err != nil {
		return err
	}
	n, err := t.cfg.Store.PruneFailed(ctx, t.cfg.FailedRetention)
	if err != nil {
		return err
	}
	if n > 0 {
		t.log.Info("Old records of failures removed", slog.Int64("rows", n), slog.Duration("older_than", t.cfg.FailedRetention))
	}
	return nil
}

// CleanupSpec is how often the bot runs Cleanup as a scheduled job.
const CleanupSpec = "@every 10m"

// chatQueue schedules chats to workers: a chat is queued at most once and worked on by at most
// one worker; work announced while a chat is being worked on makes it run again afterwards.
type chatQueue struct {
	mu      sync.Mutex
	queue   []ChatKey
	queued  map[ChatKey]bool
	running map[ChatKey]bool
	again   map[ChatKey]bool
	signal  chan struct{}
}

func newChatQueue() *chatQueue {
	return &chatQueue{queued: map[ChatKey]bool{}, running: map[ChatKey]bool{}, again: map[ChatKey]bool{}, signal: make(chan struct{}, 1)}
}

func (q *chatQueue) push(c ChatKey) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running[c] {
		q.again[c] = true
		return
	}
	if q.queued[c] {
		return
	}
	q.queued[c] = true
	q.queue = append(q.queue, c)
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// pop waits for a chat and marks it running.
func (q *chatQueue) pop(ctx context.Context) (ChatKey, bool) {
	for {
		q.mu.Lock()
		if len(q.queue) > 0 {
			c := q.queue[0]
			q.queue = q.queue[1:]
			delete(q.queued, c)
			q.running[c] = true
			more := len(q.queue) > 0
			q.mu.Unlock()
			if more {
				select {
				case q.signal <- struct{}{}:
				default:
				}
			}
			return c, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return ChatKey{}, false
		case <-q.signal:
		}
	}
}

// popMany waits for a chat, then takes up to max chats without waiting, and marks them running.
func (q *chatQueue) popMany(ctx context.Context, max int) ([]ChatKey, bool) {
	first, ok := q.pop(ctx)
	if !ok {
		return nil, false
	}
	chats := []ChatKey{first}
	q.mu.Lock()
	for len(chats) < max && len(q.queue) > 0 {
		c := q.queue[0]
		q.queue = q.queue[1:]
		delete(q.queued, c)
		q.running[c] = true
		chats = append(chats, c)
	}
	q.mu.Unlock()
	return chats, true
}

// finish ends a worker's turn on c; the chat goes back in the queue, behind the others, when it
// has more work or work arrived meanwhile.
func (q *chatQueue) finish(c ChatKey, more bool) {
	q.mu.Lock()
	more = more || q.again[c]
	delete(q.again, c)
	delete(q.running, c)
	q.mu.Unlock()
	if more {
		q.push(c)
	}
}

// dispatcher handles each chat's updates one at a time in update order.
type dispatcher struct {
	t *Transport
	q *chatQueue
}

func newDispatcher(t *Transport) *dispatcher { return &dispatcher{t: t, q: newChatQueue()} }

func (d *dispatcher) notify(c ChatKey) { d.q.push(c) }

func (d *dispatcher) run(ctx context.Context) {
	var wg sync.WaitGroup
	for range d.t.cfg.Workers {
		wg.Go(func() {
			for {
				chats, ok := d.q.popMany(ctx, d.t.cfg.Batch)
				if !ok {
					return
				}
				d.handleBatch(ctx, chats)
			}
		})
	}
	// The scan finds updates no notification in this process announced: those of a previous
	// run, of another process, or that failed and wait for another attempt. A store that can
	// tell when another process stored updates wakes it at once.
	wake := make(chan struct{}, 1)
	if w, ok := d.t.cfg.Store.(InboxWatcher); ok {
		wg.Go(func() { d.watch(ctx, w, wake) })
	}
	tick := time.NewTicker(d.t.rscan)
	defer tick.Stop()
	for {
		chats, err := d.t.cfg.Store.PendingChats(ctx, 10000)
		if err != nil && ctx.Err() == nil {
			d.t.log.Warn("Inbox scan failed", slog.Any("error", err))
		}
		for _, c := range chats {
			d.q.push(c)
		}
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-tick.C:
		case <-wake:
			// Under load updates are stored every few milliseconds: a pause between scans
			// keeps them from running back to back.
			sleep(ctx, systemClock{}, minWakeScan)
		}
	}
}

// minWakeScan is the least time between two scans of the inbox that a wake-up started.
const minWakeScan = 20 * time.Millisecond

// watch wakes the scan whenever the store says updates were stored, until ctx ends; when the
// watch fails, it starts again after a pause (the scan goes on at its pace meanwhile).
func (d *dispatcher) watch(ctx context.Context, w InboxWatcher, wake chan struct{}) {
	for ctx.Err() == nil {
		err := w.WatchInbox(ctx, func() {
			select {
			case wake <- struct{}{}:
			default:
			}
		})
		if ctx.Err() != nil {
			return
		}
		d.t.log.Warn("Watching the inbox failed; retrying in 5 s (the scan goes on)", slog.Any("error", err))
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
}

// handleBatch handles the first update of each chat in one transaction. A chat with more updates
// goes back in the queue; a chat whose update failed waits for the scan to try again.
func (d *dispatcher) handleBatch(ctx context.Context, chats []ChatKey) {
	start := time.Now()
	results, err := d.t.cfg.Store.HandleBatch(ctx, chats, func(ctx context.Context, tx Tx, u *Update) error {
		if h := d.t.cfg.Hooks.BeforeHandle; h != nil && h(u) {
			return ErrAbandon
		}
		return d.handle(ctx, tx, u)
	})
	if err != nil {
		if !errors.Is(err, ErrAbandon) && ctx.Err() == nil {
			d.t.log.Error("Handling failed", slog.Int("chats", len(chats)), slog.Any("error", err))
		}
		for _, c := range chats {
			d.q.finish(c, false)
		}
		return
	}
	took := time.Since(start)
	for _, r := range results {
		d.q.finish(r.Chat, d.record(ctx, r, took, false))
	}
}

// record counts the result of handling a chat's update, wakes the senders of the chats that got
// requests and records a failure (unless the store did already: counted), and reports whether
// the chat has more updates.
func (d *dispatcher) record(ctx context.Context, r Handled, took time.Duration, counted bool) (more bool) {
	switch {
	case r.Err == nil:
		d.t.m.HandleSeconds.Observe(took.Seconds())
		d.t.m.UpdatesHandled.WithLabelValues("ok").Inc()
		for _, k := range r.Touched {
			d.t.send.notify(k)
		}
		return r.More
	case errors.Is(r.Err, ErrNoWork), errors.Is(r.Err, ErrBusy):
	case r.Update == nil:
		d.t.log.Error("Handling failed", slog.Int64("chat_id", r.Chat.Chat), slog.Any("error", r.Err))
	case counted:
		d.t.log.Warn("Handling failed; it will be tried again", slog.Int64("chat_id", r.Chat.Chat),
			slog.Int("update_id", r.Update.UpdateID), slog.Any("error", r.Err))
		d.t.m.UpdatesHandled.WithLabelValues("error").Inc()
	default:
		d.fail(ctx, r.Chat, r.Update, r.Err)
	}
	return false
}

// handle runs the handler with panics turned into errors, and answers a button press the
// handler left unanswered, so that no button keeps spinning.
func (d *dispatcher) handle(ctx context.Context, tx Tx, u *Update) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panic: %v\n%s", r, debug.Stack())
		}
	}()
	if api := d.t.api(u.Service); api != nil {
		u.Download = api.download
	}
	if api := d.t.api(u.Service); api != nil {
		u.Bot = api.me().UserName
	}
	tt := &trackingTx{Tx: tx}
	if err := d.t.cfg.Handler(ctx, tt, u); err != nil {
		return err
	}
	if cq := u.CallbackQuery; cq != nil && !tt.answered {
		return tx.Send(ctx, AnswerCallback(u.Chat, cq.ID, ""))
	}
	return nil
}

// fail records a failed attempt; the last attempt gives the update up with an apology.
func (d *dispatcher) fail(ctx context.Context, c ChatKey, u *Update, err error) {
	var reply []Request
	if u.User != nil {
		reply, _ = SendHTML(u.User.ChatID, texts.For(u.User.Language).Bot.Failure, nil)
	}
	if cq := u.CallbackQuery; cq != nil {
		reply = append(reply, AnswerCallback(c.Chat, cq.ID, ""))
	}
	gaveUp, rerr := d.t.cfg.Store.RecordFailure(ctx, c, int64(u.UpdateID), err.Error(), maxHandleAttempts, reply)
	log := d.t.log.With(slog.Int64("chat_id", c.Chat), slog.Int("update_id", u.UpdateID), slog.Any("error", err))
	switch {
	case rerr != nil:
		log.Error("Handling failed, and so did recording it", slog.Any("record_error", rerr))
	case gaveUp:
		log.Error("Handling failed for good; the update is given up")
		d.t.m.UpdatesHandled.WithLabelValues("gave_up").Inc()
		for _, r := range reply {
			d.t.send.notify(ChatKey{Service: c.Service, Chat: r.ChatID, Lane: LaneOf(r.Method)})
		}
	default:
		log.Warn("Handling failed; it will be tried again")
		d.t.m.UpdatesHandled.WithLabelValues("error").Inc()
	}
}

// trackingTx notes whether the handler answered the button press itself.
type trackingTx struct {
	Tx
	answered bool
}

func (t *trackingTx) Send(ctx context.Context, reqs ...Request) error {
	for _, r := range reqs {
		t.answered = t.answered || r.Method == "answerCallbackQuery"
	}
	return t.Tx.Send(ctx, reqs...)
}
