package bot

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Limits are the send rates the sender keeps to. A zero field means no limit.
type Limits struct {
	// Global is the most messages a second over all chats of a bot.
	Global int
	// PerChat is the least time between two messages to one chat.
	PerChat time.Duration
	// PerGroup is the most messages a minute to one group chat.
	PerGroup int
}

// DefaultLimits are Telegram's documented limits: about 30 messages a second overall, one a
// second per chat and 20 a minute per group.
var DefaultLimits = Limits{Global: 30, PerChat: time.Second, PerGroup: 20}

// NoLimits switches the sender's rate limits off (load tests against the emulator).
var NoLimits = Limits{}

// maxSendAttempts is how often a transiently failing request is tried before it is given up.
const maxSendAttempts = 10

// counted reports whether a method counts as a message for the rate limits. Answers to button
// presses, deletions and the command menu do not.
func counted(method string) bool {
	switch method {
	case "answerCallbackQuery", "deleteMessage", "deleteMessages", "setMyCommands":
		return false
	}
	return true
}

// sender drains the outbox: one worker per chat at a time, in row order, each chat paced on its
// own, so one chat's waits and failures never hold the others back.
type sender struct {
	t      *Transport
	q      *chatQueue
	limits Limits
	global *bucket

	mu      sync.Mutex
	last    map[ChatKey]time.Time   // the last message to each chat
	groups  map[ChatKey][]time.Time // recent messages to group chats
	timers  map[ChatKey]time.Time   // pending wake-ups
	trouble map[ChatKey]time.Time   // chats sent alone until then
}

func newSender(t *Transport) *sender {
	l := *t.cfg.Limits
	return &sender{
		t: t, q: newChatQueue(), limits: l, global: newBucket(l.Global),
		last: map[ChatKey]time.Time{}, groups: map[ChatKey][]time.Time{}, timers: map[ChatKey]time.Time{},
		trouble: map[ChatKey]time.Time{},
	}
}

func (s *sender) notify(c ChatKey) { s.q.push(c) }

// wakeAt schedules c to be worked on again at t (once, at the earliest time asked for).
func (s *sender) wakeAt(c ChatKey, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.timers[c]; ok && !old.After(t) {
		return
	}
	s.timers[c] = t
	time.AfterFunc(time.Until(t), func() {
		s.mu.Lock()
		if s.timers[c].Equal(t) {
			delete(s.timers, c)
		}
		s.mu.Unlock()
		s.q.push(c)
	})
}

func (s *sender) run(ctx context.Context) {
	var wg sync.WaitGroup
	for range s.t.cfg.Senders {
		wg.Go(func() {
			for {
				chats, ok := s.q.popMany(ctx, s.t.cfg.Batch)
				if !ok {
					return
				}
				s.sendBatch(ctx, chats)
			}
		})
	}
	tick := time.NewTicker(s.t.rscan)
	defer tick.Stop()
	for {
		heads, err := s.t.cfg.Store.PendingOutbox(ctx, 10000)
		if err != nil && ctx.Err() == nil {
			s.t.log.Warn("Outbox scan failed", slog.Any("error", err))
		}
		now := time.Now()
		for c, due := range heads {
			if due.After(now) {
				s.wakeAt(c, due)
			} else {
				s.q.push(c)
			}
		}
		s.forget(now)
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-tick.C:
		}
	}
}

// sendBatch sends the first due row of each chat. The rows of a batch go to Telegram at once and
// are recorded in one transaction, so a slow answer holds back the next row of the batch's other
// chats (never the rows being sent). A chat that was slow lately is therefore sent alone.
func (s *sender) sendBatch(ctx context.Context, chats []ChatKey) {
	var normal []ChatKey
	for _, c := range chats {
		if s.troubled(c) {
			s.sendChats(ctx, []ChatKey{c})
		} else {
			normal = append(normal, c)
		}
	}
	if len(normal) > 0 {
		s.sendChats(ctx, normal)
	}
}

func (s *sender) sendChats(ctx context.Context, chats []ChatKey) {
	results, err := s.t.cfg.Store.SendBatch(ctx, chats, func(ctx context.Context, rows []*OutboxRow) []Outcome {
		outs := make([]Outcome, len(rows))
		if len(rows) == 1 {
			outs[0] = s.attempt(ctx, rows[0])
			return outs
		}
		var wg sync.WaitGroup
		for i, row := range rows {
			wg.Go(func() { outs[i] = s.attempt(ctx, row) })
		}
		wg.Wait()
		return outs
	})
	if err != nil {
		if ctx.Err() == nil {
			s.t.log.Error("Sending failed", slog.Int("chats", len(chats)), slog.Any("error", err))
		}
		for _, c := range chats {
			s.q.finish(c, false)
			if ctx.Err() == nil {
				s.wakeAt(c, time.Now().Add(time.Second))
			}
		}
		return
	}
	for _, r := range results {
		more := false
		switch {
		case errors.Is(r.Err, ErrNoWork):
			if !r.Due.IsZero() {
				s.wakeAt(r.Chat, r.Due)
			}
		case errors.Is(r.Err, ErrBusy):
		case r.Outcome.Kind == OutcomeRetry || r.Outcome.Kind == OutcomeAbandon:
			if !r.Outcome.RetryAt.IsZero() {
				s.wakeAt(r.Chat, r.Outcome.RetryAt)
			}
		default:
			more = r.More
		}
		s.q.finish(r.Chat, more)
	}
}

// troubled reports whether a chat's sends were slow lately.
func (s *sender) troubled(c ChatKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	until, ok := s.trouble[c]
	if ok && time.Now().After(until) {
		delete(s.trouble, c)
		return false
	}
	return ok
}

// slowSend is how long a send may take before its chat is sent alone for troubleFor.
const (
	slowSend   = 2 * time.Second
	troubleFor = 5 * time.Minute
)

func (s *sender) markTroubled(c ChatKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trouble[c] = time.Now().Add(troubleFor)
}

// forget drops pacing records too old to matter.
func (s *sender) forget(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c, t := range s.last {
		if now.Sub(t) > time.Minute {
			delete(s.last, c)
		}
	}
	for c, ts := range s.groups {
		if len(ts) == 0 || now.Sub(ts[len(ts)-1]) > time.Minute {
			delete(s.groups, c)
		}
	}
}

// chatWait returns when the next message may go to c, or the zero time for now.
func (s *sender) chatWait(c ChatKey, now time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var at time.Time
	if last, ok := s.last[c]; ok && s.limits.PerChat > 0 {
		if next := last.Add(s.limits.PerChat); next.After(now) {
			at = next
		}
	}
	if ts := s.groups[c]; c.Chat < 0 && s.limits.PerGroup > 0 && len(ts) >= s.limits.PerGroup {
		if next := ts[len(ts)-s.limits.PerGroup].Add(time.Minute); next.After(now) && next.After(at) {
			at = next
		}
	}
	return at
}

func (s *sender) noteSent(c ChatKey, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limits.PerChat > 0 {
		s.last[c] = at
	}
	if c.Chat < 0 && s.limits.PerGroup > 0 {
		ts := append(s.groups[c], at)
		if len(ts) > s.limits.PerGroup {
			ts = ts[len(ts)-s.limits.PerGroup:]
		}
		s.groups[c] = ts
	}
}

// attempt sends one row and decides what becomes of it.
func (s *sender) attempt(ctx context.Context, row *OutboxRow) Outcome {
	req := row.Request
	log := s.t.log.With(slog.Int64("chat_id", row.Chat.Chat), slog.String("method", req.Method), slog.Int64("outbox_id", row.ID))
	api := s.t.api(row.Chat.Service)
	if api == nil {
		// A bot of another process: leave the row to it.
		return Outcome{Kind: OutcomeAbandon, RetryAt: time.Now().Add(time.Minute)}
	}
	if req.TargetRef != "" {
		var ok bool
		if req, ok = resolveRef(req, row.RefMessageIDs); !ok {
			log.Debug("No message is known under the ref; the request is dropped", slog.String("ref", req.TargetRef))
			return s.outcome(req, Outcome{Kind: OutcomeDropped})
		}
	}
	if counted(req.Method) {
		if at := s.chatWait(row.Chat, time.Now()); !at.IsZero() {
			return Outcome{Kind: OutcomeAbandon, RetryAt: at}
		}
		if err := s.global.wait(ctx); err != nil {
			return Outcome{Kind: OutcomeAbandon}
		}
	}
	var fileID string
	var st os.FileInfo
	if req.FilePath != "" {
		var err error
		if st, err = os.Stat(req.FilePath); err != nil {
			log.Warn("File to send is missing", slog.Any("error", err))
			return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: err.Error()})
		}
		// The database keeps microseconds.
		if f := row.CachedFile; f != nil && f.Size == st.Size() && f.ModTime.Equal(st.ModTime().Truncate(time.Microsecond)) {
			fileID = f.FileID
		}
	}
	if h := s.t.cfg.Hooks.BeforeSend; h != nil && h(row) {
		return Outcome{Kind: OutcomeAbandon}
	}
	start := time.Now()
	result, err := api.Do(ctx, req, fileID)
	if time.Since(start) > slowSend {
		s.markTroubled(row.Chat)
	}
	if err == nil {
		if counted(req.Method) {
			// Paced from the answer, so that network delays never squeeze two messages closer.
			s.noteSent(row.Chat, time.Now())
		}
		if h := s.t.cfg.Hooks.AfterSend; h != nil && h(row) {
			return Outcome{Kind: OutcomeAbandon}
		}
		out := Outcome{Kind: OutcomeSent}
		if req.Ref != "" {
			if id := sentMessageID(result); id != 0 {
				out.MessageIDs = []int{id}
			}
		}
		if req.FilePath != "" && fileID == "" {
			if id := uploadedFileID(result); id != "" {
				out.Uploaded = &CachedFile{FileID: id, Size: st.Size(), ModTime: st.ModTime().Truncate(time.Microsecond)}
			}
		}
		return s.outcome(req, out)
	}
	if ctx.Err() != nil {
		// Stopping: the row stays and is sent again by the next run (at most one duplicate).
		return Outcome{Kind: OutcomeAbandon}
	}
	var apiErr *Error
	if errors.As(err, &apiErr) {
		switch {
		case apiErr.Code == 429:
			wait := max(apiErr.RetryAfter, time.Second)
			s.t.m.FloodWaits.Inc()
			s.t.m.FloodWaitSecond.Add(wait.Seconds())
			log.Warn("Flood limit hit; waiting", slog.Duration("retry_after", wait))
			return s.outcome(req, Outcome{Kind: OutcomeRetry, RetryAt: time.Now().Add(wait), Err: apiErr.Error()})
		case apiErr.Code == 403:
			log.Info("The user blocked the bot; their pending messages are dropped")
			return s.outcome(req, Outcome{Kind: OutcomeBlocked, Err: apiErr.Error()})
		case apiErr.Code == 400:
			params, _ := json.Marshal(req.Params)
			log.Warn("Telegram rejected a request", slog.String("description", apiErr.Description), slog.String("params", string(params)))
			return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: apiErr.Error()})
		case apiErr.Code >= 400 && apiErr.Code < 500 && apiErr.Code != 409:
			log.Error("Telegram refused a request", slog.Any("error", err))
			return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: apiErr.Error()})
		}
	}
	// Transient: a 5xx, a timeout, a broken connection.
	if row.Attempts+1 >= maxSendAttempts {
		log.Error("Sending failed too often; the request is given up", slog.Any("error", err), slog.Int("attempts", row.Attempts+1))
		return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: err.Error()})
	}
	wait := backoff(row.Attempts)
	log.Warn("Sending failed; will retry", slog.Any("error", err), slog.Duration("retry_in", wait))
	s.t.m.Retries.Inc()
	return s.outcome(req, Outcome{Kind: OutcomeRetry, RetryAt: time.Now().Add(wait), Err: err.Error()})
}

func (s *sender) outcome(req Request, out Outcome) Outcome {
	name := [...]string{"sent", "retry", "failed", "blocked", "abandoned", "dropped"}[out.Kind]
	s.t.m.Sends.WithLabelValues(req.Method, name).Inc()
	return out
}

// backoff is the wait before attempt n+1 of a transiently failing request: 250 ms doubling up to
// five minutes, with jitter so that chats failing together do not retry together.
func backoff(attempts int) time.Duration {
	d := 250 * time.Millisecond << min(attempts, 11)
	d = min(d, 5*time.Minute)
	return time.Duration(float64(d) * (0.75 + rand.Float64()/2))
}

// resolveRef returns req aimed at ids, the messages sent under its TargetRef, or false when there
// are none. A deletion of several messages becomes one deleteMessages; any other method acts on
// the last message (the part of a split text that carries the keyboard). req's Params are copied,
// not changed.
func resolveRef(req Request, ids []int) (Request, bool) {
	if len(ids) == 0 {
		return req, false
	}
	params := make(map[string]string, len(req.Params)+1)
	for k, v := range req.Params {
		params[k] = v
	}
	req.Params = params
	if req.Method == "deleteMessage" && len(ids) > 1 {
		raw, _ := json.Marshal(ids) // a slice of ints always marshals
		req.Method = "deleteMessages"
		params["message_ids"] = string(raw)
		return req, true
	}
	params["message_id"] = strconv.Itoa(ids[len(ids)-1])
	return req, true
}

// sentMessageID finds the message_id of the message a send method returned, or 0.
func sentMessageID(result json.RawMessage) int {
	var m struct {
		MessageID int `json:"message_id"`
	}
	if json.Unmarshal(result, &m) != nil {
		return 0
	}
	return m.MessageID
}

// uploadedFileID finds the file_id of the file in a sendPhoto or sendDocument result.
func uploadedFileID(result json.RawMessage) string {
	var m tgbotapi.Message
	if json.Unmarshal(result, &m) != nil {
		return ""
	}
	if n := len(m.Photo); n > 0 {
		return m.Photo[n-1].FileID
	}
	if m.Document != nil {
		return m.Document.FileID
	}
	return ""
}

// bucket spaces events evenly at perSecond a second: a token bucket holding a single token, so
// no one-second window ever sees more than perSecond+1 events (a deeper bucket would let a burst
// through on top of the rate, and Telegram counts by the window).
type bucket struct {
	mu   sync.Mutex
	gap  time.Duration
	next time.Time // when the next event may happen
}

func newBucket(perSecond int) *bucket {
	if perSecond <= 0 {
		return &bucket{}
	}
	return &bucket{gap: time.Second / time.Duration(perSecond)}
}

// wait waits for the next slot; a bucket without a rate never waits.
func (b *bucket) wait(ctx context.Context) error {
	if b.gap == 0 {
		return nil
	}
	b.mu.Lock()
	now := time.Now()
	at := b.next
	if at.Before(now) {
		at = now
	}
	b.next = at.Add(b.gap)
	b.mu.Unlock()
	if at.Equal(now) {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(at.Sub(now)):
		return nil
	}
}
