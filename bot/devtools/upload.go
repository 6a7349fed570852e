package devtools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"image"
	_ "image/gif" // registers the formats image.Decode reads
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/internal/atomicfile"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questpg"
)

// kind is what an uploaded file is, by its extension.
type kind int

const (
	kindNone kind = iota
	kindQuest
	kindImage
	kindSave
	kindQMS    // a .qms file: a quest source or a binary save of the original bot, by its content
	kindSource // a quest source (source.go)
)

// kindOf tells an upload's kind from its file name's extension.
func kindOf(name string) (kind, string) {
	ext := strings.ToLower(filepath.Ext(name))
	switch ext {
	case ".qm", ".qmm":
		return kindQuest, ext
	case ".png", ".jpg", ".jpeg", ".gif":
		return kindImage, ext
	case ".qsave":
		return kindSave, ext
	case ".qms":
		return kindQMS, ext
	}
	return kindNone, ext
}

// cleanName is a file name as the sender gave it, made safe to show and to compare: its base
// name, without control or format characters, at most 64 characters; "file" when nothing is
// left. It is only ever a label: files are stored under names made from their content.
func cleanName(name string) string {
	name = strings.ReplaceAll(name, `\`, "/")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	n := 0
	for _, r := range name {
		if r == utf8.RuneError || !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		if n == 64 {
			break
		}
		b.WriteRune(r)
		n++
	}
	s := strings.TrimSpace(b.String())
	if s == "" || s == "." || s == ".." {
		return "file"
	}
	return s
}

// HandleMessage is a message handler of the router: it takes every document sent into the chat (and
// nothing else). Quests and images are taken from developers and admins, saved games from
// everybody. What the message tells is checked at once (the kind, the role, the size Telegram
// announces) and the file is recorded to be fetched after the update's transaction commits
// (see fetch.go): the download never holds the transaction. The user is told the file has come;
// it is checked whole before anything is stored, and a rejected one gets a message saying why
// and leaves nothing behind.
func (t *Tools) HandleMessage(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	m := u.Message
	if m == nil || m.Document == nil || u.User == nil {
		return false, nil
	}
	doc := m.Document
	txt := texts.For(u.User.Language).Dev
	label := cleanName(doc.FileName)
	k, _ := kindOf(label)
	if k == kindNone {
		return true, sayf(ctx, tx, u, txt.Unsupported, label)
	}
	if k != kindSave && k != kindQMS {
		ok, err := t.mayDevelop(ctx, tx, u)
		if err != nil {
			return true, err
		}
		if !ok {
			return true, say(ctx, tx, u, txt.NotDeveloper)
		}
	}
	if limit := t.max[k]; int64(doc.FileSize) > limit {
		return true, sayf(ctx, tx, u, txt.TooBig, label, size(int64(doc.FileSize)), size(limit))
	}
	return true, t.recordFetch(ctx, tx, u, label)
}

// size writes a byte count for people.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.FormatInt((n+1<<10-1)>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// clip shortens a technical detail for a message.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// fixedClock is the date a quest is shown at when it is checked.
var fixedClock = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// sum is the hex SHA-256 of data: the name the file is stored under.
func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// keep writes data to rel under the quest root unless the file is there already (the names are
// content hashes), through a temporary file renamed into place, so that a file under its final
// name is always whole. It reports whether it wrote the file.
func (t *Tools) keep(rel string, data []byte) (bool, error) {
	path := filepath.Join(t.root, rel)
	if fi, err := os.Stat(path); err == nil && fi.Size() == int64(len(data)) {
		return false, nil
	}
	if err := atomicfile.Write(path, data, ".upload-*"); err != nil {
		return false, fmt.Errorf("devtools: store upload: %w", err)
	}
	return true, nil
}

// unstore removes a file store wrote when the rows that were to name it could not be written.
func (t *Tools) unstore(rel string, wrote bool) {
	if wrote {
		os.Remove(filepath.Join(t.root, rel))
	}
}

// lastUpload is the newest version of an upload name.
// notSlug matches what a common name may not hold.
var notSlug = regexp.MustCompile(`[^a-z0-9_.-]+`)

// questKey is the name a quest's versions are counted by: its file name without the extension,
// in lower case.
func questKey(label string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimSuffix(label, filepath.Ext(label))))
}

// uploadQuest checks and registers an uploaded quest: a new version of the owner's quest of that
// name, with a private catalogue entry (script) of its own.
func (t *Tools) uploadQuest(ctx context.Context, tx bot.Tx, u *bot.Update, label string, data []byte) error {
	txt := texts.For(u.User.Language).Dev
	st, err := t.storeQuest(ctx, tx, u, label, data)
	switch {
	case err != nil:
		return err
	case st.problem != "":
		return sayf(ctx, tx, u, txt.BadQuest, label, st.problem)
	case st.same:
		return say(ctx, tx, u, withWarnings(escapef(txt.QuestSame, label, st.version, st.script), u, st.warnings))
	}
	answer := escapef(txt.QuestStored, st.name, st.script, st.version, st.script)
	hint, err := t.replayHint(ctx, tx, u, questKey(label), st.script)
	if err != nil {
		return err
	}
	if hint != "" {
		answer += "\n" + hint
	}
	return say(ctx, tx, u, withWarnings(answer, u, st.warnings))
}

// withWarnings is an answer (HTML) followed by the checker's warnings, if any, in the user's
// language.
func withWarnings(answer string, u *bot.Update, list []questfs.Warning) string {
	if len(list) == 0 {
		return answer
	}
	return answer + "\n\n" + html.EscapeString(texts.For(u.User.Language).WarningList(list))
}

// lint returns the checker's warnings of an uploaded quest: its images are looked for among the
// owner's uploads and the images the project and the operator ship, as the player finds them.
func (t *Tools) lint(ctx context.Context, db pgx.Tx, u *bot.Update, q *questfs.Quest) ([]questfs.Warning, error) {
	names, err := t.store.UploadedImageNames(ctx, db, u.Service, u.User.ID)
	if err != nil {
		return nil, err
	}
	return questfs.Lint(q, func(name string) bool {
		for _, c := range questfs.ImageCandidates(name) {
			if names[strings.ToLower(c)] {
				return true
			}
		}
		return t.images.shippedImage(name) != ""
	}), nil
}

// storedQuest is what storeQuest did with a quest file.
type storedQuest struct {
	problem string // why the file is not a quest that plays, for people; nothing was stored
	same    bool   // the file is the newest version already
	// warnings are what the checker found in the quest (questfs.Lint).
	warnings []questfs.Warning
	name     string // the quest's name in the catalogue
	script   int64  // its catalogue entry
	version  int
}

// storeQuest checks a quest file and registers it as a new version of the owner's quest of
// label's name, with a private catalogue entry (script) of its own, unless it is that quest's
// newest version already.
func (t *Tools) storeQuest(ctx context.Context, tx bot.Tx, u *bot.Update, label string, data []byte) (storedQuest, error) {
	q, err := questfs.Check(data)
	if err != nil {
		return storedQuest{problem: texts.For(u.User.Language).QuestProblem(err)}, nil
	}
	d := q.Doc
	db := tx.DB()
	warnings, err := t.lint(ctx, db, u, q)
	if err != nil {
		return storedQuest{}, err
	}
	key := questKey(label)
	if key == "" {
		key = "quest"
	}
	hash := sum(data)
	last, err := t.store.LastUpload(ctx, db, u.Service, u.User.ID, "quest", key)
	if err != nil {
		return storedQuest{}, err
	}
	if last.Version > 0 && last.SHA256 == hash && last.Script != 0 {
		return storedQuest{same: true, name: last.Name, script: last.Script, version: last.Version, warnings: warnings}, nil
	}
	ext := ".qmm"
	if d.Magic.IsQM() {
		ext = ".qm"
	}
	rel := "dev/quests/" + hash + ext
	wrote, err := t.keep(rel, data)
	if err != nil {
		return storedQuest{}, err
	}
	name := strings.TrimSpace(strings.TrimSuffix(label, filepath.Ext(label)))
	if name == "" {
		name = label
	}
	slug := strings.Trim(notSlug.ReplaceAllString(key, "-"), "-.")
	if len(slug) > 40 {
		slug = slug[:40]
	}
	if slug == "" {
		slug = "quest"
	}
	common := "dev-" + strconv.FormatInt(u.User.ID, 10) + "-" + slug
	version := last.Version + 1
	script, err := t.store.AddQuestUpload(ctx, db, questpg.NewQuestUpload{Service: u.Service, Owner: u.User.ID,
		Key: key, FileName: label, Name: name, CommonName: common, Lang: questfs.Language(d), Version: version, File: rel,
		SHA256: hash, Size: len(data)})
	if err != nil {
		t.unstore(rel, wrote)
		return storedQuest{}, fmt.Errorf("devtools: %w", err)
	}
	return storedQuest{name: name, script: script, version: version, warnings: warnings}, nil
}

// imageFormats are the image formats by extension.
var imageFormats = map[string]string{".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".gif": "gif"}

// uploadImage checks and registers an uploaded image: a new version of the owner's image of that
// name, which their quests show from then on.
func (t *Tools) uploadImage(ctx context.Context, tx bot.Tx, u *bot.Update, label, ext string, data []byte) error {
	txt := texts.For(u.User.Language).Dev
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return sayf(ctx, tx, u, txt.BadImage, label, txt.NotImage)
	}
	if format != imageFormats[ext] {
		return sayf(ctx, tx, u, txt.BadImage, label, fmt.Sprintf(txt.WrongFormat, strings.ToUpper(format), ext))
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxSide || cfg.Height > maxSide || cfg.Width*cfg.Height > maxPixels {
		return sayf(ctx, tx, u, txt.BadImage, label, fmt.Sprintf(txt.ImageTooLarge, strconv.Itoa(cfg.Width), strconv.Itoa(cfg.Height)))
	}
	if cost := decodeCost(data, cfg, format); cost > t.maxImageMemory {
		return sayf(ctx, tx, u, txt.BadImage, label, fmt.Sprintf(txt.ImageTooHeavy, size(cost), size(t.maxImageMemory)))
	}
	if err := t.decode(ctx, data); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return sayf(ctx, tx, u, txt.BadImage, label, fmt.Sprintf(txt.ImageDamaged, clip(err.Error(), 200)))
	}
	db := tx.DB()
	key := imageName(label)
	hash := sum(data)
	last, err := t.store.LastUpload(ctx, db, u.Service, u.User.ID, "image", key)
	if err != nil {
		return err
	}
	if last.Version > 0 && last.SHA256 == hash {
		return sayf(ctx, tx, u, txt.ImageSame, label, last.Version)
	}
	stored := map[string]string{"png": ".png", "jpeg": ".jpg", "gif": ".gif"}[format]
	rel := "dev/images/" + hash + stored
	wrote, err := t.keep(rel, data)
	if err != nil {
		return err
	}
	version := last.Version + 1
	err = t.store.AddImageUpload(ctx, db, questpg.NewFileUpload{Service: u.Service, Owner: u.User.ID, Key: key,
		FileName: label, Version: version, File: rel, SHA256: hash, Size: len(data)})
	if err != nil {
		t.unstore(rel, wrote)
		return fmt.Errorf("devtools: %w", err)
	}
	t.images.forget()
	return sayf(ctx, tx, u, txt.ImageStored, label, version)
}

// decode decodes an image whose decoding cost was checked, to check it whole; images are decoded
// one at a time, waiting for the one being decoded (or ctx).
func (t *Tools) decode(ctx context.Context, data []byte) error {
	select {
	case t.decoding <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-t.decoding }()
	_, _, err := image.Decode(bytes.NewReader(data))
	return err
}
