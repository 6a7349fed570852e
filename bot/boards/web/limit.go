package web

import (
	"math"
	"sync"
	"time"
)

// limiter is a token bucket per key (a user, an API token, or the address of someone not logged
// in; for the failed logins, a client's address), in memory: each process limits its own
// requests, and a failure costs no write to the database. A bucket holds up to burst tokens and
// gains rate a second; a request takes one. Buckets full again are forgotten, so the map holds
// only the callers of the last few seconds.
type limiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

// allow takes a token from key's bucket; when it is empty, it reports false and how long until
// a token is there.
func (l *limiter) allow(key string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	l.refill(b, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	return false, wait
}

// wait reports how long until key's bucket holds a whole token again (0 when it holds one now),
// taking nothing.
func (l *limiter) wait(key string) time.Duration {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		return 0
	}
	l.refill(b, now)
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// spend takes a token from key's bucket, into debt when it has none: what was spent by requests
// that all passed wait at once is paid back before the next one passes.
func (l *limiter) spend(key string) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	l.refill(b, now)
	b.tokens--
}

// refill adds to b what it gained since it was last counted.
func (l *limiter) refill(b *bucket, now time.Time) {
	if dt := now.Sub(b.at).Seconds(); dt > 0 {
		b.tokens = math.Min(l.burst, b.tokens+dt*l.rate)
		b.at = now
	}
}

// sweep forgets, at most once a minute, the buckets that have filled up again.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	for k, b := range l.buckets {
		// A bucket in debt (spend) takes longer to fill than an empty one.
		full := time.Duration((l.burst - math.Min(b.tokens, 0)) / l.rate * float64(time.Second))
		if now.Sub(b.at) > full {
			delete(l.buckets, k)
		}
	}
}

// streamCap bounds the event streams each key (the rate limit's: an API token, a user's
// sessions together, or the address of someone not logged in) holds open at once. Streams are
// not rate limited as requests (a page holds one for as long as it is open, and reconnects
// after a network blip), so this is what stops one caller from tying up the server's sockets
// and goroutines with streams without end. The counts are in memory: each process caps its
// own streams.
type streamCap struct {
	max int

	mu   sync.Mutex
	open map[string]int
}

func newStreamCap(max int) *streamCap {
	return &streamCap{max: max, open: map[string]int{}}
}

// acquire counts a stream of key open and reports true, or reports false when key holds the
// most it may already.
func (c *streamCap) acquire(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key] >= c.max {
		return false
	}
	c.open[key]++
	return true
}

// release counts a stream of key closed.
func (c *streamCap) release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key] <= 1 {
		delete(c.open, key)
		return
	}
	c.open[key]--
}
