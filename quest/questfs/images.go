package questfs

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// # Finding a quest's images
//
// Quests name their images as their editor let them: Space Rangers' quests name the game's art
// without an extension and in any case ("Driver_02" for driver_02.jpg), others give a file name.
// An image is found as the reference player finds it, and more leniently: the name is reduced to
// its base name (a quest cannot reach other folders); a name without an image extension is
// tried as it is and with .jpg and .png added; case is ignored. The folders looked in, in
// order: the quest file's folder, its images folder, then the images folder the operator sets
// (Files.SetImagesDir: game art the operator owns, shared by every quest).

// imageExts are the extensions of the image files a quest may show.
var imageExts = []string{".jpg", ".jpeg", ".png", ".gif"}

// addedExts are the extensions tried after a name without one, in order: the reference's .jpg,
// then .png.
var addedExts = []string{".jpg", ".png"}

// ImageCandidates returns the file names an image name of a quest may stand for, in the order
// they are tried: its base name, then, when it has no image extension, the base name with .jpg
// and .png added. None for a name that is no file name.
func ImageCandidates(name string) []string {
	name = filepath.Base(strings.ReplaceAll(strings.TrimSpace(name), `\`, "/"))
	if name == "." || name == "/" || name == ".." || name == "" {
		return nil
	}
	out := []string{name}
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range imageExts {
		if ext == e {
			return out
		}
	}
	for _, e := range addedExts {
		out = append(out, name+e)
	}
	return out
}

// LookupImage returns the file of an image name (see ImageCandidates) in the first of dirs that
// has one, ignoring case, or "" when none has.
func LookupImage(name string, dirs ...string) string {
	cands := ImageCandidates(name)
	if len(cands) == 0 {
		return ""
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		for _, c := range cands {
			for _, n := range []string{c, strings.ToLower(c)} {
				p := filepath.Join(dir, n)
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
					return p
				}
			}
		}
		// Neither as written nor in lower case: a name in another case.
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, c := range cands {
			for _, e := range entries {
				if strings.EqualFold(e.Name(), c) && e.Type().IsRegular() {
					return filepath.Join(dir, e.Name())
				}
			}
		}
	}
	return ""
}

// imageTTL is how long a quest remembers where its images are (or that one is missing): an image
// put into a folder shows within this time.
const imageTTL = 10 * time.Second

// imageCache remembers a quest's image lookups.
type imageCache struct {
	mu    sync.Mutex
	found map[string]imageHit
}

type imageHit struct {
	path    string
	expires time.Time
}

// maxImageHits bounds the lookups a quest remembers.
const maxImageHits = 1000

// imageDirs are the folders a quest's images are looked in.
func (q *Quest) imageDirs() []string {
	if q.Dir == "" {
		return []string{q.imagesDir}
	}
	return []string{q.Dir, filepath.Join(q.Dir, "images"), q.imagesDir}
}

// Image returns the file of an image the quest names (see Finding a quest's images), or "" when
// there is none.
func (q *Quest) Image(name string) string {
	now := time.Now()
	c := &q.images
	c.mu.Lock()
	if h, ok := c.found[name]; ok && now.Before(h.expires) {
		c.mu.Unlock()
		return h.path
	}
	c.mu.Unlock()
	p := LookupImage(name, q.imageDirs()...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.found == nil || len(c.found) >= maxImageHits {
		c.found = map[string]imageHit{}
	}
	c.found[name] = imageHit{path: p, expires: now.Add(imageTTL)}
	return p
}
