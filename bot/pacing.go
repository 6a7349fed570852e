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
	// PerChat is the pace of the messages to one chat: one each PerChat on average.
	PerChat time.Duration
	// PerChatBurst is how many messages may go to a chat at once before PerChat spaces them
	// (a token bucket of PerChatBurst messages, refilled one each PerChat); 0 or 1 spaces every
	// two messages by PerChat.
	PerChatBurst int
	// PerGroup is the most messages a minute to one group chat.
	PerGroup int
}

// defaultLimits are Telegram's documented limits: about 30 messages a second overall, one a
// second per chat, with short bursts allowed (three messages at once), and 20 a minute per group.
var defaultLimits = Limits{Global: 30, PerChat: time.Second, PerChatBurst: 3, PerGroup: 20}

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
// LaneUpdates (the state of a board that changed elsewhere, the choice shown under a quest
// screen the player left) yields the chat's next slot to a message of another lane that is
// waiting for one (the answer to what the user just did), so a reply waits at most for the
// message being sent; and with a burst allowed (Limits.PerChatBurst), it leaves the burst's last
// message to the conversation, so that the user's next answer goes at once. So that updates
// never starve behind a busy conversation, one that has yielded for yieldAtMost takes the next
// slot.
type pacing struct {
	limits Limits

	mu       sync.Mutex
	paced    map[ChatKey]time.Time   // when each chat's burst is whole again, by chat (lane 0)
	groups   map[ChatKey][]time.Time // recent messages to group chats
	trouble  map[ChatKey]time.Time   // chats sent alone until then
	waiting  map[ChatKey]time.Time   // when a message of the conversation waits to go, by chat
	yielding map[ChatKey]time.Time   // since when an update has yielded to the conversation
}

// yieldAtMost is how long a message of LaneUpdates yields its chat's slots to the conversation
// before it takes one.
const yieldAtMost = 3 * time.Second

func newPacing(l Limits) *pacing {
	return &pacing{limits: l, paced: map[ChatKey]time.Time{}, groups: map[ChatKey][]time.Time{},
		trouble: map[ChatKey]time.Time{}, waiting: map[ChatKey]time.Time{}, yielding: map[ChatKey]time.Time{}}
}

// paceKey is the key of a lane's chat, under which its limits are kept.
func paceKey(c ChatKey) ChatKey { return ChatKey{Service: c.Service, Chat: c.Chat} }

// reserve returns when the next message of c's lane may go to its chat, or the zero time when
// one may go now; in that case the message is counted at now, so that two lanes of the chat never
// both go.
//
// A chat's allowance is kept as the time its burst is whole again (paced): each message moves it
// PerChat on from now or from where it was, whichever is later, and a message may go while it is
// at most PerChatBurst-1 paces ahead of now (the virtual scheduling form of a token bucket).
func (p *pacing) reserve(c ChatKey, now time.Time) time.Time {
	low := c.Lane == LaneUpdates
	c = paceKey(c)
	p.mu.Lock()
	defer p.mu.Unlock()
	burst := time.Duration(max(1, p.limits.PerChatBurst))
	paced, ok := p.paced[c]
	var at time.Time
	if ok && p.limits.PerChat > 0 {
		if next := paced.Add(-(burst - 1) * p.limits.PerChat); next.After(now) {
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
	if low {
		// until is when the update stops yielding: a slot after the one a waiting reply takes,
		// or, with a burst, when the burst has a message left for the conversation beside it.
		var until time.Time
		if w, ok := p.waiting[c]; ok {
			if gap := max(p.limits.PerChat, time.Second); now.After(w.Add(gap)) {
				delete(p.waiting, c) // the waiting message went another way (sent, dropped)
			} else {
				if at.After(w) {
					w = at
				}
				until = w.Add(gap)
			}
		}
		if until.IsZero() && at.IsZero() && ok && burst > 1 && p.limits.PerChat > 0 {
			if next := paced.Add(-(burst - 2) * p.limits.PerChat); next.After(now) {
				until = next
			}
		}
		if !until.IsZero() {
			since, ok := p.yielding[c]
			if !ok {
				since, p.yielding[c] = now, now
			}
			if now.Sub(since) < yieldAtMost {
				return until
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
		if paced.Before(now) {
			paced = now
		}
		p.paced[c] = paced.Add(p.limits.PerChat)
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

// answered paces c's chat from the answer to a message, at, as if the message had been counted
// then: network delays never squeeze messages closer than the limit.
func (p *pacing) answered(c ChatKey, at time.Time) {
	c = paceKey(c)
	p.mu.Lock()
	defer p.mu.Unlock()
	if next := at.Add(p.limits.PerChat); p.limits.PerChat > 0 && next.After(p.paced[c]) {
		p.paced[c] = next
	}
}

// forget drops pacing records too old to matter.
func (p *pacing) forget(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c, t := range p.paced {
		if now.Sub(t) > time.Minute {
			delete(p.paced, c)
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

// busy returns when the bucket's next slot is free, if that is later than now: a message has
// taken the slot under way, or waits for the next one.
func (b *bucket) busy() (time.Time, bool) {
	if b.gap == 0 {
		return time.Time{}, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.next, b.next.After(b.clock.Now())
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
