package questplay

import (
	"container/list"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/questbot/questbot/bot/multiplayer"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// compiled is a quest file ready to play, shared by every game of it. It is never modified.
type compiled struct {
	q *quest.Quest
	// money is the index of the quest's active money parameter, -1 if none; moneyLimit is the
	// value the quest starts it at (the most credits a game of it puts at stake).
	money      int
	moneyLimit int64
	// plain marks the locations whose screens are not kept as transcript when left: the
	// starting location and empty ones.
	plain map[int]bool
	// dir is the quest file's folder, where its images are looked for.
	dir string
	// points are the multiplayer jumps (!session, !wait) by jump id (multi.go).
	points map[int]multiplayer.Point
}

// cacheKey identifies one version of a quest file.
type cacheKey struct {
	path  string
	size  int64
	mtime time.Time
}

type cacheEntry struct {
	key  cacheKey
	q    *compiled
	cost int64
}

// cache is an LRU of compiled quests bounded by their approximate memory. A file replaced on
// disk (new size or modification time) is compiled again on its next use; the old version
// leaves the cache as it ages.
type cache struct {
	mu      sync.Mutex
	max     int64
	used    int64
	order   *list.List // front: most recently used; values *cacheEntry
	entries map[string]*list.Element
	// loading serialises the compilation of one path, so that many players starting the same
	// quest at once compile it once.
	loading map[string]*sync.Mutex
	// compiles counts the files compiled, for tests.
	compiles int
}

func newCache(maxBytes int64) *cache {
	return &cache{max: maxBytes, order: list.New(), entries: map[string]*list.Element{},
		loading: map[string]*sync.Mutex{}}
}

// costFactor estimates the memory of a compiled quest from its file size: texts are UTF-16 in
// the file and UTF-8 in memory, but records, indices and parsed formulas add several times the
// file.
const costFactor = 6

// maxQuestFile bounds the quest files the bot reads (the largest known quests are about 2 MB).
const maxQuestFile = 32 << 20

// get returns the compiled quest of path, compiling it on a miss.
func (c *cache) get(path string) (*compiled, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxQuestFile {
		return nil, fmt.Errorf("quest file %s: not a regular file of at most %d bytes", path, maxQuestFile)
	}
	key := cacheKey{path: path, size: fi.Size(), mtime: fi.ModTime()}
	if q := c.lookup(key); q != nil {
		return q, nil
	}
	c.mu.Lock()
	l := c.loading[path]
	if l == nil {
		l = &sync.Mutex{}
		c.loading[path] = l
	}
	c.mu.Unlock()
	l.Lock()
	defer l.Unlock()
	if q := c.lookup(key); q != nil {
		return q, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	q, err := compileFile(path, data)
	if err != nil {
		return nil, err
	}
	c.add(key, q, int64(len(data))*costFactor)
	return q, nil
}

func (c *cache) lookup(key cacheKey) *compiled {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.entries[key.path]
	if el == nil {
		return nil
	}
	e := el.Value.(*cacheEntry)
	if e.key != key {
		return nil
	}
	c.order.MoveToFront(el)
	return e.q
}

func (c *cache) add(key cacheKey, q *compiled, cost int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.entries[key.path]; el != nil {
		c.used -= el.Value.(*cacheEntry).cost
		c.order.Remove(el)
	}
	c.compiles++
	c.entries[key.path] = c.order.PushFront(&cacheEntry{key: key, q: q, cost: cost})
	c.used += cost
	// Evict the least recently used, but always keep the quest just added: a single quest
	// larger than the bound is still playable, it just does not stay.
	for c.used > c.max && c.order.Len() > 1 {
		el := c.order.Back()
		e := el.Value.(*cacheEntry)
		c.order.Remove(el)
		delete(c.entries, e.key.path)
		c.used -= e.cost
	}
}

// stats returns the number of cached quests and their estimated bytes.
func (c *cache) stats() (n int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.used
}

// compileFile decodes and compiles a quest file.
func compileFile(path string, data []byte) (*compiled, error) {
	d, err := qmm.DecodeBytes(data)
	if err != nil {
		return nil, fmt.Errorf("quest file %s: %w", path, err)
	}
	q, err := quest.Compile(d)
	if err != nil {
		return nil, fmt.Errorf("quest file %s: %w", path, err)
	}
	c := &compiled{q: q, money: -1, plain: map[int]bool{}, dir: dirOf(path), points: pointsOf(d)}
	for i := range d.Params {
		p := &d.Params[i]
		if p.Active && p.IsMoney {
			// The quest player starts a money parameter at its maximum, at most 2000.
			c.money, c.moneyLimit = i, max(int64(min(p.Max, 2000)), 0)
			break
		}
	}
	for i := range d.Locations {
		l := &d.Locations[i]
		if l.IsStarting || l.IsEmpty {
			c.plain[int(l.ID)] = true
		}
	}
	return c, nil
}
