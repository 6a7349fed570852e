package bot

import (
	"testing"
	"time"
)

// Ensure the conversation goes first: a message of the updates lane yields the chat's next slot
// to a reply waiting for one, and takes a slot after yieldAtMost however busy the conversation.
func TestPacingRepliesFirst(t *testing.T) {
	t.Parallel()
	p := newPacing(Limits{PerChat: time.Second})
	t0 := time.Unix(1000, 0)
	conv := ChatKey{Service: 1, Chat: 5, Lane: LaneConversation}
	upd := ChatKey{Service: 1, Chat: 5, Lane: LaneUpdates}
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	if got := p.reserve(upd, t0); !got.IsZero() {
		t.Fatalf("first update: wait until %v, want at once", got)
	}
	// A reply comes while the update is sent: it waits for the next slot.
	if got := p.reserve(conv, at(100*time.Millisecond)); !got.Equal(at(time.Second)) {
		t.Fatalf("reply: wait until %v, want %v", got, at(time.Second))
	}
	// The next update asks first for that slot: it yields.
	if got := p.reserve(upd, at(time.Second)); !got.Equal(at(2 * time.Second)) {
		t.Fatalf("second update: wait until %v, want %v", got, at(2*time.Second))
	}
	if got := p.reserve(conv, at(time.Second)); !got.IsZero() {
		t.Fatalf("reply at its slot: wait until %v, want at once", got)
	}
	if got := p.reserve(upd, at(2*time.Second)); !got.IsZero() {
		t.Fatalf("second update at its slot: wait until %v, want at once", got)
	}
	// A busy conversation: the update yields, but not for ever.
	now := at(2 * time.Second)
	granted := false
	for i := range 10 {
		now = now.Add(time.Second)
		p.reserve(conv, now.Add(-time.Millisecond)) // refused: the slot is the update's or the last reply's
		if got := p.reserve(upd, now); got.IsZero() {
			granted = true
			if waited := time.Duration(i+1) * time.Second; waited < yieldAtMost {
				t.Fatalf("the update took a slot after %v, before yielding for %v", waited, yieldAtMost)
			}
			break
		}
		if got := p.reserve(conv, now); !got.IsZero() {
			t.Fatalf("reply %d: wait until %v, want at once", i, got)
		}
	}
	if !granted {
		t.Fatal("the update never took a slot from a busy conversation")
	}
}

// Ensure a chat takes a burst of Limits.PerChatBurst messages at once and then one each
// PerChat, and that an update leaves the burst's last message to the conversation: the answer
// to the user's next press goes at once, however many updates wait.
func TestPacingBurst(t *testing.T) {
	t.Parallel()
	p := newPacing(Limits{PerChat: time.Second, PerChatBurst: 3})
	t0 := time.Unix(1000, 0)
	conv := ChatKey{Service: 1, Chat: 5, Lane: LaneConversation}
	upd := ChatKey{Service: 1, Chat: 5, Lane: LaneUpdates}
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	for i := range 3 {
		if got := p.reserve(conv, t0); !got.IsZero() {
			t.Fatalf("message %d of the burst: wait until %v, want at once", i+1, got)
		}
	}
	if got := p.reserve(conv, t0); !got.Equal(at(time.Second)) {
		t.Fatalf("a fourth message: wait until %v, want %v", got, at(time.Second))
	}
	// Ten seconds later the burst is whole again. A step: the new screen, then the old
	// screen's update; a second update would take the burst's last message, so it waits.
	now := at(10 * time.Second)
	if got := p.reserve(conv, now); !got.IsZero() {
		t.Fatalf("new screen: wait until %v, want at once", got)
	}
	if got := p.reserve(upd, now); !got.IsZero() {
		t.Fatalf("first update: wait until %v, want at once", got)
	}
	if got := p.reserve(upd, now); !got.Equal(now.Add(time.Second)) {
		t.Fatalf("second update: wait until %v, want %v (the last message is the conversation's)", got, now.Add(time.Second))
	}
	if got := p.reserve(conv, now.Add(100*time.Millisecond)); !got.IsZero() {
		t.Fatalf("the next answer: wait until %v, want at once", got)
	}
	// The burst is spent: both wait for the pace, the update yielding to the conversation.
	later := now.Add(100 * time.Millisecond)
	if got := p.reserve(conv, later); !got.Equal(now.Add(time.Second)) {
		t.Fatalf("an answer with the burst spent: wait until %v, want %v", got, now.Add(time.Second))
	}
	// A busy conversation, a message at each of its slots: the update yields, but not for ever.
	granted := false
	for range 10 {
		later = later.Add(time.Second)
		if got := p.reserve(upd, later); got.IsZero() {
			granted = true
			if waited := later.Sub(now); waited < yieldAtMost {
				t.Fatalf("the update went after %v, before yielding for %v", waited, yieldAtMost)
			}
			break
		}
		p.reserve(conv, later)
	}
	if !granted {
		t.Fatal("the update never went")
	}
}
