package bot

import (
	"context"
	"sync"
	"time"
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

// defaultLimits are Telegram's documented limits: about 30 messages a second overall, one a
// second per chat and 20 a minute per group.
var defaultLimits = Limits{Global: 30, PerChat: time.Second, PerGroup: 20}

// NoLimits switches the sender's rate limits off (load tests against the emulator).
var NoLimits = Limits{}

// counted reports whether a method counts as a message for the rate limits. Answers to button
// presses, deletions and the command menu do not.
func counted(method string) bool {
	switch method {
	case "answerCallbackQuery", "answerInlineQuery", "deleteMessage", "deleteMessages", "setMyCommands", "deleteMyCommands":
		return false
	}
	return true
}

// pacing keeps each chat to its limits, whatever lane its messages come from, on the
// transport's clock; and remembers which chats were slow to answer lately, in real time (a slow
// answer is a matter of I/O).
//
// The lanes of a chat share its limits, and the conversation goes first: a message of
// LaneUpdates (the state of a board that changed elsewhere) yields the chat's next slot to a
// message of another lane that is waiting for one (the answer to what the user just did), so a
// reply waits at most for the message being sent. So that updates never starve behind a busy
// conversation, one that has yielded for yieldAtMost takes the next slot.
type pacing struct {
	limits Limits

	mu       sync.Mutex
	last     map[ChatKey]time.Time   // the last message to each chat, by chat (lane 0)
	groups   map[ChatKey][]time.Time // recent messages to group chats
	trouble  map[ChatKey]time.Time   // chats sent alone until then
	waiting  map[ChatKey]time.Time   // when a message of the conversation waits to go, by chat
	yielding map[ChatKey]time.Time   // since when an update has yielded to the conversation
}

// yieldAtMost is how long a message of LaneUpdates yields its chat's slots to the conversation
// before it takes one.
const yieldAtMost = 3 * time.Second

func newPacing(l Limits) *pacing {
	return &pacing{limits: l, last: map[ChatKey]time.Time{}, groups: map[ChatKey][]time.Time{},
		trouble: map[ChatKey]time.Time{}, waiting: map[ChatKey]time.Time{}, yielding: map[ChatKey]time.Time{}}
}

// paceKey is the key of a lane's chat, under which its limits are kept.
func paceKey(c ChatKey) ChatKey { return ChatKey{Service: c.Service, Chat: c.Chat} }

// reserve returns when the next message of c's lane may go to its chat, or the zero time when
// one may go now; in that case the message is counted at now, so that two lanes of the chat never
// both go.
func (p *pacing) reserve(c ChatKey, now time.Time) time.Time {
	low := c.Lane == LaneUpdates
	c = paceKey(c)
	p.mu.Lock()
	defer p.mu.Unlock()
	var at time.Time
	if last, ok := p.last[c]; ok && p.limits.PerChat > 0 {
		if next := last.Add(p.limits.PerChat); next.After(now) {
			at = next
		}
	}
	if ts := p.groups[c]; c.Chat < 0 && p.limits.PerGroup > 0 && len(ts) >= p.limits.PerGroup {
		if next := ts[len(ts)-p.limits.PerGroup].Add(time.Minute); next.After(now) && next.After(at) {
			at = next
		}
	}
	if !low && !at.IsZero() {
		p.waiting[c] = at
	}
	if w, ok := p.waiting[c]; low && ok {
		if gap := max(p.limits.PerChat, time.Second); now.After(w.Add(gap)) {
			delete(p.waiting, c) // the waiting message went another way (sent, dropped)
		} else {
			since, ok := p.yielding[c]
			if !ok {
				since, p.yielding[c] = now, now
			}
			if now.Sub(since) < yieldAtMost {
				if at.After(w) {
					w = at
				}
				return w.Add(gap)
			}
		}
	}
	if !at.IsZero() {
		return at
	}
	if low {
		delete(p.yielding, c)
	} else {
		delete(p.waiting, c)
	}
	if p.limits.PerChat > 0 {
		p.last[c] = now
	}
	if c.Chat < 0 && p.limits.PerGroup > 0 {
		ts := append(p.groups[c], now)
		if len(ts) > p.limits.PerGroup {
			ts = ts[len(ts)-p.limits.PerGroup:]
		}
		p.groups[c] = ts
	}
	return time.Time{}
}

// answered paces c's chat from the answer to a message, at: network delays never squeeze two
// messages closer than the limit.
func (p *pacing) answered(c ChatKey, at time.Time) {
	c = paceKey(c)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.limits.PerChat > 0 && at.After(p.last[c]) {
		p.last[c] = at
	}
}

// forget drops pacing records too old to matter.
func (p *pacing) forget(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c, t := range p.last {
		if now.Sub(t) > time.Minute {
			delete(p.last, c)
		}
	}
	for c, ts := range p.groups {
		if len(ts) == 0 || now.Sub(ts[len(ts)-1]) > time.Minute {
			delete(p.groups, c)
		}
	}
	for _, m := range []map[ChatKey]time.Time{p.waiting, p.yielding} {
		for c, t := range m {
			if now.Sub(t) > time.Minute {
				delete(m, c)
			}
		}
	}
}

// troubleFor is how long a chat whose send was slow (Config.SlowSend) is sent alone.
const troubleFor = 5 * time.Minute

// troubled reports whether a chat's sends were slow lately.
func (p *pacing) troubled(c ChatKey) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	until, ok := p.trouble[c]
	if ok && time.Now().After(until) {
		delete(p.trouble, c)
		return false
	}
	return ok
}

func (p *pacing) markTroubled(c ChatKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trouble[c] = time.Now().Add(troubleFor)
}

// bucket spaces events evenly at perSecond a second: a token bucket holding a single token, so
// no one-second window ever sees more than perSecond+1 events (a deeper bucket would let a burst
// through on top of the rate, and Telegram counts by the window).
type bucket struct {
	clock Clock
	mu    sync.Mutex
	gap   time.Duration
	next  time.Time // when the next event may happen
}

func newBucket(perSecond int, clock Clock) *bucket {
	if perSecond <= 0 {
		return &bucket{clock: clock}
	}
	return &bucket{clock: clock, gap: time.Second / time.Duration(perSecond)}
}

// wait waits for the next slot; a bucket without a rate never waits.
func (b *bucket) wait(ctx context.Context) error {
	if b.gap == 0 {
		return nil
	}
	b.mu.Lock()
	now := b.clock.Now()
	at := b.next
	if at.Before(now) {
		at = now
	}
	b.next = at.Add(b.gap)
	b.mu.Unlock()
	return sleep(ctx, b.clock, at.Sub(now))
}
