package devtools

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questpg"
)

// imageTTL is how long an answer of the image finder is reused: an image uploaded in another
// process shows within this time (one uploaded in this process at once).
const imageTTL = 10 * time.Second

// Images finds the images of uploaded quests for the quest player (questplay.ImageFinder): the
// newest version of an image of that name uploaded by the quest's owner in its bot, else an
// image the project ships in the quest folder (UPLOADS_DIR or its images folder) or one of the
// operator's images folder (IMAGES_DIR). Names are compared by their base name, ignoring case,
// and a name without an image extension also stands for the name with .jpg or .png added
// (questfs.ImageCandidates). The quests the project ships are left to the player, which looks
// beside their files.
type Images struct {
	store     imageStore
	root      string
	imagesDir string

	mu      sync.Mutex
	shipped map[int64]bool // scripts known not to be uploads, which never change into one
	found   map[imageKey]imageHit
}

type imageKey struct {
	script int64
	name   string
}

type imageHit struct {
	path    string
	expires time.Time
}

// imageStore is what the image finder needs of the catalogue (quest/questpg implements it).
type imageStore interface {
	UploadedImage(ctx context.Context, db pgx.Tx, script int64, keys []string) (bool, string, error)
}

// NewImages returns the image finder of the uploads kept under root (UPLOADS_DIR; "" is
// "uploads") and of the operator's images folder imagesDir ("" for none), for
// questplay.Config.Images and Config.Images; store is questpg's when nil.
func NewImages(store Store, root, imagesDir string) *Images {
	if root == "" {
		root = "uploads"
	}
	var st imageStore = questpg.New()
	if store != nil {
		st = store
	}
	return &Images{store: st, root: root, imagesDir: imagesDir, shipped: map[int64]bool{}, found: map[imageKey]imageHit{}}
}

// baseName reduces an image name a quest or a sender gives to its base name, "" for none.
func baseName(name string) string {
	name = filepath.Base(strings.ReplaceAll(strings.TrimSpace(name), `\`, "/"))
	if name == "." || name == "/" || name == ".." {
		return ""
	}
	return name
}

// imageName is the name uploads of an image are kept by: its base name in lower case.
func imageName(name string) string { return strings.ToLower(baseName(name)) }

// FindImage implements questplay.ImageFinder: it reads through db, the transaction of the update
// that shows the image.
func (im *Images) FindImage(ctx context.Context, db pgx.Tx, script int64, name string) string {
	key := imageKey{script: script, name: imageName(name)}
	if im == nil || key.name == "" {
		return ""
	}
	now := time.Now()
	im.mu.Lock()
	if im.shipped[script] {
		im.mu.Unlock()
		return ""
	}
	if hit, ok := im.found[key]; ok && now.Before(hit.expires) {
		im.mu.Unlock()
		return hit.path
	}
	im.mu.Unlock()

	uploaded, file, err := im.store.UploadedImage(ctx, db, script, questfs.ImageCandidates(key.name))
	if err != nil {
		return "" // the screen goes without its image; the next one asks again
	}
	path := ""
	switch {
	case !uploaded:
	case file != "":
		path = filepath.Join(im.root, file)
	default:
		path = im.shippedImage(baseName(name))
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	if !uploaded {
		im.shipped[script] = true
		return ""
	}
	if len(im.found) > 10000 {
		clear(im.found)
	}
	im.found[key] = imageHit{path: path, expires: now.Add(imageTTL)}
	return path
}

// shippedImage returns an image the project ships under that name, or one of the operator's
// images folder, or "".
func (im *Images) shippedImage(name string) string {
	return questfs.LookupImage(name, im.root, filepath.Join(im.root, "images"), im.imagesDir)
}

// forget drops the remembered answers, after an upload of this process.
func (im *Images) forget() {
	im.mu.Lock()
	defer im.mu.Unlock()
	clear(im.found)
}
