package questplay

import "sync"

// live remembers the games played recently in this process, so that a step usually needs no
// read of the game row: the step's update is conditional on the row's nonce being the one
// remembered, and when it is not (the game changed in another process, or a transaction of this
// one was rolled back after the entry was written) the row is read and the step done again.
// Entries are copies; states are never modified in place (quest.Perform returns new ones). The
// script's values in an entry (file, bonus, penalty) are those read when the game was launched
// or last read from the database.
type live struct {
	mu  sync.Mutex
	max int
	m   map[liveKey]game
}

type liveKey struct {
	service int
	user    int64
}

// maxLive bounds the games remembered; beyond it, arbitrary entries are forgotten.
const maxLive = 1 << 16

func newLive(max int) *live { return &live{max: max, m: map[liveKey]game{}} }

func (l *live) get(service int, user int64) (game, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	g, ok := l.m[liveKey{service, user}]
	return g, ok
}

func (l *live) put(service int, user int64, g game) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := liveKey{service, user}
	if _, ok := l.m[k]; !ok && len(l.m) >= l.max {
		for old := range l.m { // map order is random: an arbitrary entry goes
			delete(l.m, old)
			break
		}
	}
	l.m[k] = g
}

func (l *live) forget(service int, user int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, liveKey{service, user})
}
