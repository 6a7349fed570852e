// Package questfs reads the quest files of the catalogue and keeps them compiled in memory, shared
// by every game and tool of the process: a button press never parses a file.
//
// A file is named as the catalogue names it (the script table's file column): relative to the
// quest root (UPLOADS_DIR) unless absolute. Compiled quests are kept in a cache bounded by an
// estimate of their memory, least recently used first out, and keyed by path, size and
// modification time, so a file replaced on disk is compiled again on its next use. Many players
// opening one quest at once compile it once.
//
// Every error Open returns matches ErrUnplayable and never names the file's path: it may be shown
// to the quest's developer.
//
// Check is the one check of a quest file's bytes (an upload's, an import's): it must decode,
// compile, start and show its first location; Lint (lint.go) then finds what plays but looks
// like a mistake of the author. Find and Store (import.go) prepare a folder of quest files for
// the catalogue: their names, languages and images, copied into the quest root. images.go says
// how a quest's images are found.
package questfs

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// ErrUnplayable reports a quest that cannot be played: its file is missing, unreadable, too big
// or broken, or it does not compile. The wrapping error says why, without the file's path.
var ErrUnplayable = errors.New("the quest cannot be played")

// maxFile bounds the quest files read (the largest known quests are about 2 MB).
const maxFile = 32 << 20

// defaultCacheBytes bounds the estimated memory of the compiled quests kept.
const defaultCacheBytes = 256 << 20

// costFactor estimates the memory of a compiled quest from its file size: texts are UTF-16 in
// the file and UTF-8 in memory, but the decoded model, its indices and the parsed formulas of
// the compiled quest add several times the file.
const costFactor = 8

// Quest is a quest file ready to play. It is shared and never modified.
type Quest struct {
	*quest.Quest
	// Doc is the decoded file, as package qmm reads it.
	Doc *qmm.Quest
	// Path is the file, and Dir its folder, where the quest's images are looked for.
	Path, Dir string
	// SHA256 is the hex digest of the file's bytes.
	SHA256 string

	mu      sync.Mutex
	derived map[any]any
	// imagesDir is the operator's images folder (Files.SetImagesDir), "" for none; images keeps
	// the lookups of Image (images.go).
	imagesDir string
	images    imageCache
}

// Derived returns the value a package derived from the quest under key, building it with build
// on first use. It lets a user of the quest keep what it computes once per quest (its markers,
// its money parameter) with the quest, so that it leaves the cache with it. Keys follow the
// rules of context keys: an unexported type of the user's package.
func (q *Quest) Derived(key any, build func(*Quest) any) any {
	q.mu.Lock()
	defer q.mu.Unlock()
	if v, ok := q.derived[key]; ok {
		return v
	}
	if q.derived == nil {
		q.derived = map[any]any{}
	}
	v := build(q)
	q.derived[key] = v
	return v
}

// Files opens the quest files under a root folder; safe for concurrent use.
type Files struct {
	root string
	// imagesDir is the operator's images folder, "" for none (SetImagesDir).
	imagesDir string

	mu      sync.Mutex
	max     int64
	used    int64
	order   *list.List // front: most recently used; values *entry
	entries map[string]*list.Element
	// loading serialises the compilation of one path.
	loading map[string]*sync.Mutex
	// compiles counts the files compiled, for tests.
	compiles int
}

type key struct {
	path  string
	size  int64
	mtime time.Time
}

type entry struct {
	key  key
	q    *Quest
	cost int64
}

// New returns the files under root ("" is "uploads"), keeping compiled quests up to an estimated
// maxBytes of memory (defaultCacheBytes when 0 or less).
func New(root string, maxBytes int64) *Files {
	if root == "" {
		root = "uploads"
	}
	if maxBytes <= 0 {
		maxBytes = defaultCacheBytes
	}
	return &Files{root: root, max: maxBytes, order: list.New(), entries: map[string]*list.Element{},
		loading: map[string]*sync.Mutex{}}
}

// SetImagesDir sets the operator's images folder, where every quest's images are looked for after
// the quest's own folders (images.go); "" for none. It is set once, before the files are opened.
func (f *Files) SetImagesDir(dir string) { f.imagesDir = dir }

// ImagesDir returns the operator's images folder, "" for none.
func (f *Files) ImagesDir() string { return f.imagesDir }

// path resolves a catalogue file name against the quest root.
func (f *Files) path(file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(f.root, file)
}

// Open returns the compiled quest of a catalogue file, compiling it on a cache miss. Its errors
// match ErrUnplayable.
func (f *Files) Open(file string) (*Quest, error) {
	q, err := f.open(f.path(file))
	if err != nil {
		return nil, unplayable(err)
	}
	return q, nil
}

// errTooBig is the reason a file is refused for its size or kind.
var errTooBig = fmt.Errorf("its file is not a regular file of at most %d bytes", maxFile)

// unplayable wraps why a file cannot be played into ErrUnplayable, without the file's path.
func unplayable(err error) error {
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("%w: its file cannot be read", ErrUnplayable)
	case errors.Is(err, errTooBig):
		return fmt.Errorf("%w: %w", ErrUnplayable, err)
	}
	return fmt.Errorf("%w: %w", ErrUnplayable, err)
}

func (f *Files) open(path string) (*Quest, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxFile {
		return nil, errTooBig
	}
	k := key{path: path, size: fi.Size(), mtime: fi.ModTime()}
	if q := f.lookup(k); q != nil {
		return q, nil
	}
	f.mu.Lock()
	l := f.loading[path]
	if l == nil {
		l = &sync.Mutex{}
		f.loading[path] = l
	}
	f.mu.Unlock()
	l.Lock()
	defer l.Unlock()
	if q := f.lookup(k); q != nil {
		return q, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	q, err := compile(data)
	if err != nil {
		return nil, err
	}
	q.Path, q.Dir, q.imagesDir = path, filepath.Dir(path), f.imagesDir
	f.add(k, q, int64(len(data))*costFactor)
	return q, nil
}

// compile decodes and compiles the bytes of a quest file. The result has no Path nor Dir.
func compile(data []byte) (*Quest, error) {
	d, err := qmm.DecodeBytes(data)
	if err != nil {
		return nil, err
	}
	q, err := quest.Compile(d)
	if err != nil {
		return nil, err
	}
	return newQuest(q, d, data), nil
}

// newQuest is the Quest of a compiled quest, its decoded file and the file's bytes.
func newQuest(q *quest.Quest, d *qmm.Quest, data []byte) *Quest {
	sum := sha256.Sum256(data)
	return &Quest{Quest: q, Doc: d, SHA256: hex.EncodeToString(sum[:])}
}

func (f *Files) lookup(k key) *Quest {
	f.mu.Lock()
	defer f.mu.Unlock()
	el := f.entries[k.path]
	if el == nil {
		return nil
	}
	e := el.Value.(*entry)
	if e.key != k {
		return nil
	}
	f.order.MoveToFront(el)
	return e.q
}

func (f *Files) add(k key, q *Quest, cost int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if el := f.entries[k.path]; el != nil {
		f.used -= el.Value.(*entry).cost
		f.order.Remove(el)
	}
	f.compiles++
	f.entries[k.path] = f.order.PushFront(&entry{key: k, q: q, cost: cost})
	f.used += cost
	// Evict the least recently used, but always keep the quest just added: a single quest
	// larger than the bound is still playable, it just does not stay.
	for f.used > f.max && f.order.Len() > 1 {
		el := f.order.Back()
		e := el.Value.(*entry)
		f.order.Remove(el)
		delete(f.entries, e.key.path)
		f.used -= e.cost
	}
}

// stats returns the number of compiled quests kept and their estimated bytes.
func (f *Files) stats() (quests int, bytes int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.order.Len(), f.used
}
