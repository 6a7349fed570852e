package web

import (
	"bytes"
	"container/list"
	"fmt"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// # The pictures' cache
//
// Every picture the server answers (a board's, as a seat sees it, in PNG or JPEG; a game's
// start) is a PNG file the board service drew once (boards.Boards.PictureFile), named after what
// it shows: its game, position, last move, the side at the bottom and the engine's drawing; the
// same file the outbox's sender drew for the players' Telegram boards, when it drew it first
// (a version is drawn once in a process, whoever asks first). The
// server reads each file and encodes it into each format it is asked for once, and keeps the
// bytes in memory by that file and format (pictureCache), so that a picture fetched again,
// however often and by however many at once, costs no decoding or encoding (a JPEG is about
// 28 ms of CPU) and no read of the disk. The cache is bounded by the bytes it holds
// (PictureCacheBytes), the least recently used going first.

// PictureCacheBytes bounds the memory the encoded pictures hold: about 400 boards' JPEGs.
const PictureCacheBytes = 32 << 20

// pictureKey names an encoded picture: its PNG file and the format.
type pictureKey struct {
	path string
	jpeg bool
}

// pictureEntry is a picture, encoded once by whoever asked first while the others wait.
type pictureEntry struct {
	key  pictureKey
	once sync.Once
	data []byte
	err  error
	// size is what the entry counts in the cache's bytes, set once it is encoded.
	size int
	elem *list.Element
}

// pictureCache keeps the encoded pictures, least recently used first out; safe for concurrent
// use.
type pictureCache struct {
	max int
	// encodes counts the pictures read and encoded (the misses).
	encodes atomic.Int64

	mu      sync.Mutex
	bytes   int
	order   *list.List // of *pictureEntry, the most recently used at the front
	entries map[pictureKey]*pictureEntry
}

func newPictureCache(max int) *pictureCache {
	return &pictureCache{max: max, order: list.New(), entries: map[pictureKey]*pictureEntry{}}
}

// get returns the picture of the PNG file path, as a JPEG when asJPEG is set, encoding it when
// the cache does not hold it. An error is not kept: the next request tries again.
func (c *pictureCache) get(path string, asJPEG bool) ([]byte, error) {
	key := pictureKey{path: path, jpeg: asJPEG}
	c.mu.Lock()
	e := c.entries[key]
	if e == nil {
		e = &pictureEntry{key: key}
		e.elem = c.order.PushFront(e)
		c.entries[key] = e
	} else {
		c.order.MoveToFront(e.elem)
	}
	c.mu.Unlock()
	e.once.Do(func() {
		c.encodes.Add(1)
		e.data, e.err = encodePicture(path, asJPEG)
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.entries[key] != e {
			return // evicted meanwhile: the bytes are not counted
		}
		if e.err != nil {
			c.remove(e)
			return
		}
		e.size = len(e.data)
		c.bytes += e.size
		for c.bytes > c.max && c.order.Len() > 1 {
			c.remove(c.order.Back().Value.(*pictureEntry))
		}
	})
	return e.data, e.err
}

// remove takes e out of the cache; c.mu is held.
func (c *pictureCache) remove(e *pictureEntry) {
	if c.entries[e.key] != e {
		return
	}
	delete(c.entries, e.key)
	c.order.Remove(e.elem)
	c.bytes -= e.size
}

// encodePicture reads a PNG file, re-encoded as a JPEG of high quality when asJPEG is set: the
// boards' flat colours and thin lines keep their look.
func encodePicture(path string, asJPEG bool) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("web: picture %s: %w", filepath.Base(path), err)
	}
	if !asJPEG {
		return data, nil
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("web: picture %s: %w", filepath.Base(path), err)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		return nil, fmt.Errorf("web: picture %s: %w", filepath.Base(path), err)
	}
	return buf.Bytes(), nil
}
