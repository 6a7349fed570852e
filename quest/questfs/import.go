package questfs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/questbot/questbot/qmm"
)

// # Importing quest files
//
// Find and Store prepare a folder of quest files for the catalogue (questbot quests add): Find
// checks each file as an upload is checked and tells what it is (its names, its language, its
// images), Store copies it into the quest root. The catalogue rows are quest/questpg's.

// importDir is the folder of the quest root that Store copies imported quests into.
const importDir = "imported"

// Found is a quest file found for the catalogue by Find.
type Found struct {
	// Path is the file.
	Path string
	// Name is the name the quest is listed under, CommonName the name its language versions
	// share, Lang its language ("ru" or "en"). They come from the file's name: x.qmm and
	// x_eng.qmm are the Russian and English versions of the quest x. The language of a file
	// without the _eng suffix is the language of most of its texts.
	Name, CommonName, Lang string
	// Quest is the checked quest; nil when Err says why the file cannot be read or played (a
	// *CheckError).
	Quest *Quest
	Err   error
	// Images are the image files beside the quest file (or in its images folder) that the
	// quest names.
	Images []string
	// Warnings are what Lint finds in the quest; its images are looked for beside it and in the
	// operator's images folder.
	Warnings []Warning
	// Titles are the quest's titles and descriptions by language ("en", "ru"), from the manifest
	// beside it (see Manifest); Name is the title in the quest's language when there is one.
	Titles map[string]Title
	// Hidden says why the quest is kept out of the players' catalogue, "" when it is not: a test
	// quest (HiddenTest) or a stub that offers no choice at all (HiddenStub).
	Hidden string
	// Bonus is the quest's own money string as a number, 0 when it is none: the quests written
	// for the original bot show the win bonus for <Money>, and their editor's money string is
	// the sum they promise.
	Bonus int
}

// isQuestFile reports whether a file name has a quest file's extension.
func isQuestFile(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".qm" || ext == ".qmm"
}

// Find lists the quest files (.qm, .qmm) paths name: files, and the quest files of folders (not of
// their subfolders), each once, in order of their paths. Each is read and checked (Check), and
// described; a file that cannot be read or played has Err set and no Quest. imagesDir is the
// operator's images folder ("" for none): an image found there is no warning, and is not copied
// (the bot finds it there). Find fails only for a path that cannot be listed at all.
func Find(paths []string, imagesDir string) ([]Found, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() && isQuestFile(e.Name()) {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	for i, f := range files {
		if abs, err := filepath.Abs(f); err == nil {
			files[i] = abs
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	manifests := map[string]Manifest{}
	out := make([]Found, 0, len(files))
	for _, path := range files {
		dir := filepath.Dir(path)
		m, ok := manifests[dir]
		if !ok {
			var err error
			if m, err = ReadManifest(dir); err != nil {
				return nil, err
			}
			manifests[dir] = m
		}
		out = append(out, find(path, imagesDir, m))
	}
	return out, nil
}

// engSuffix marks the English version of a quest in its file name.
const engSuffix = "_eng"

// find reads, checks and describes one quest file.
func find(path, imagesDir string, m Manifest) Found {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	f := Found{Path: path, Lang: "ru"}
	if len(base) > len(engSuffix) && strings.EqualFold(base[len(base)-len(engSuffix):], engSuffix) {
		base, f.Lang = base[:len(base)-len(engSuffix)], "en"
	}
	f.Name, f.CommonName = displayName(base), commonName(base)
	entry, named := m.entry(base, f.CommonName)
	apply := func(e ManifestEntry) {
		f.Titles, f.Hidden = e.titles(), ""
		if hidden := isTestName(base); e.Hidden != nil && *e.Hidden || e.Hidden == nil && hidden {
			f.Hidden = HiddenTest
		}
	}
	apply(entry)
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		f.Err = err
		return f
	case !fi.Mode().IsRegular() || fi.Size() > maxFile:
		f.Err = errTooBig
		return f
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Err = err
		return f
	}
	if f.Quest, f.Err = Check(data); f.Err != nil {
		return f
	}
	f.Quest.Path, f.Quest.Dir = path, filepath.Dir(path)
	if c, ok := corpusEntry(f.Quest.SHA256); ok && !named {
		apply(c)
	}
	if f.Lang != "en" {
		f.Lang = Language(f.Quest.Doc)
	}
	if t, ok := f.Titles[f.Lang]; ok {
		f.Name = t.Title
	}
	if n, err := strconv.Atoi(strings.TrimSpace(f.Quest.Doc.Strings.Money)); err == nil && n > 0 && n <= 1_000_000 {
		f.Bonus = n
	}
	for _, ref := range imageRefs(f.Quest) {
		if p := f.Quest.Image(ref.name); p != "" && !slices.Contains(f.Images, p) {
			f.Images = append(f.Images, p)
		}
	}
	f.Quest.imagesDir = imagesDir
	f.Warnings = Lint(f.Quest, nil)
	if f.Hidden == "" && IsStub(f.Warnings) {
		f.Hidden = HiddenStub
	}
	return f
}

// Why a quest is kept out of the players' catalogue (Found.Hidden).
const (
	// HiddenTest: a test quest, by its file name (test, testing, or ending in debug) unless a
	// manifest says otherwise, or by a manifest's "hidden".
	HiddenTest = "test quest"
	// HiddenStub: a stub, which offers no choice at all (see IsStub).
	HiddenStub = "stub: no choice at all"
)

// isTestName reports whether a quest's file base name (without _eng) is a test quest's.
func isTestName(base string) bool {
	b := strings.ToLower(strings.TrimSpace(base))
	return b == "test" || b == "testing" || strings.HasSuffix(b, "debug")
}

// displayName is the name a quest is listed under, from its file's base name: underscores become
// spaces and the first letter a capital.
func displayName(base string) string {
	s := strings.TrimSpace(strings.ReplaceAll(base, "_", " "))
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return "Quest"
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// notCommon matches what a common name may not hold (see dev_set_quest, migration 008).
var notCommon = regexp.MustCompile(`[^a-z0-9_.-]+`)

// commonName is the name a quest's language versions share, from its file's base name.
func commonName(base string) string {
	s := strings.Trim(notCommon.ReplaceAllString(strings.ToLower(base), "-"), "-._")
	if len(s) > 64 {
		s = strings.Trim(s[:64], "-._")
	}
	if s == "" {
		return "quest"
	}
	return s
}

// Language returns the language of a quest, "ru" or "en": Russian when most letters of its texts
// are Cyrillic. Markup (<clr>, <fix>, …), parameter tags ([p1], [d12]) and formulas ({…}) are not
// counted: a quest that draws boards with them would look English.
func Language(d *qmm.Quest) string {
	cyr, lat := 0, 0
	count := func(s string) {
		var closing []rune // the brackets open at this point
		for _, r := range s {
			switch r {
			case '<', '[', '{':
				closing = append(closing, map[rune]rune{'<': '>', '[': ']', '{': '}'}[r])
				continue
			case '>', ']', '}':
				if n := len(closing); n > 0 && closing[n-1] == r {
					closing = closing[:n-1]
				}
				continue
			}
			switch {
			case len(closing) > 0:
			case unicode.Is(unicode.Cyrillic, r):
				cyr++
			case r < utf8.RuneSelf && unicode.IsLetter(r):
				lat++
			}
		}
	}
	count(d.TaskText)
	count(d.SuccessText)
	for i := range d.Locations {
		for _, t := range d.Locations[i].Texts {
			count(t.Text)
		}
	}
	for i := range d.Jumps {
		count(d.Jumps[i].Text)
	}
	if lat > cyr {
		return "en"
	}
	return "ru"
}

// imageRef is an image a quest names, and the first place that names it (see Warning.Place).
type imageRef struct {
	name, place string
}

// imageRefs returns the images a quest names (in its parameters, locations, jumps and changes),
// each once, in order of appearance; numbers (a number of buttons a row in the original bot's
// quests) are not names.
func imageRefs(q *Quest) []imageRef {
	d := q.Doc
	var out []imageRef
	seen := map[string]bool{}
	add := func(m qmm.Media, place string) {
		name := strings.TrimSpace(m.Image.Value)
		if name == "" || seen[name] {
			return
		}
		if _, err := strconv.Atoi(name); err == nil {
			return
		}
		seen[name] = true
		out = append(out, imageRef{name: name, place: place})
	}
	changes := func(list []qmm.ParamChange, place string) {
		for i := range list {
			add(list[i].Media, place)
		}
	}
	for i := range d.Params {
		add(d.Params[i].Media, "P"+strconv.Itoa(i+1))
	}
	for i := range d.Locations {
		l := &d.Locations[i]
		place := "L" + strconv.Itoa(int(l.ID))
		for _, t := range l.Texts {
			add(t.Media, place)
		}
		changes(l.Changes, place)
	}
	for i := range d.Jumps {
		j := &d.Jumps[i]
		place := "J" + strconv.Itoa(int(j.ID))
		add(j.Media, place)
		changes(j.Changes, place)
	}
	return out
}

// Store copies a found quest's file and images into root, into a folder of importDir named after
// the file's content, and returns the file as the catalogue names it (relative to root) and how
// many files it wrote. A file already there with the same content is left as it is, so storing a
// quest again writes nothing, and the files of a stored version never change (an image changed
// beside the quest is written anew).
func Store(root string, f Found) (file string, wrote int, err error) {
	if f.Quest == nil {
		return "", 0, fmt.Errorf("questfs: store %s: not a checked quest", filepath.Base(f.Path))
	}
	dir := filepath.Join(importDir, f.Quest.SHA256[:16])
	file = filepath.ToSlash(filepath.Join(dir, filepath.Base(f.Path)))
	for _, src := range append([]string{f.Path}, f.Images...) {
		w, err := copyFile(src, filepath.Join(root, dir, filepath.Base(src)))
		if err != nil {
			return "", wrote, fmt.Errorf("questfs: store %s: %w", filepath.Base(src), err)
		}
		if w {
			wrote++
		}
	}
	return file, wrote, nil
}

// copyFile copies src to dst unless dst has the same content, through a temporary file renamed
// into place, so that dst is always whole; it reports whether it wrote dst.
func copyFile(src, dst string) (bool, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return false, err
	}
	if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".import-*")
	if err != nil {
		return false, err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return false, err
	}
	return true, nil
}
