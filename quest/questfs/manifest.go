package questfs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// ManifestName is the file beside quest files that gives their catalogue words (see Manifest).
const ManifestName = "quests.json"

// Manifest gives the catalogue words of the quests of a folder, read from its quests.json: for
// each quest, by its common name or its file's base name (the name x of x.qmm and x_eng.qmm,
// case ignored), its title and description in each language, and whether it is kept out of the
// players' catalogue:
//
//	{
//	  "prison": {"en": {"title": "Prison", "description": "Get out of a prison of the Gaals."},
//	             "ru": {"title": "Тюрьма", "description": "…"}},
//	  "gs": {"en": {"title": "Gas station"}, "ru": {"title": "Заправка"}},
//	  "sandbox_debug": {"hidden": true}
//	}
//
// "hidden" keeps a quest out of the players' catalogue, or, false, lists a quest that its file
// name alone would keep out (a real quest named testing, say). A quest the manifest does not
// name keeps the words of its file name, unless it is one of the shared corpus of quests that
// the project knows (corpus.json, applied by the file's content).
type Manifest map[string]ManifestEntry

// ManifestEntry is a quest's entry in a Manifest.
type ManifestEntry struct {
	EN     *Title `json:"en,omitempty"`
	RU     *Title `json:"ru,omitempty"`
	Hidden *bool  `json:"hidden,omitempty"`
}

// Title is a quest's title and description in one language.
type Title struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

// Limits of a manifest's words, in characters.
const (
	maxTitle       = 64
	maxDescription = 500
)

// ReadManifest reads the manifest of a folder; none (and no error) when it has no quests.json.
// A manifest that is not valid gives an error naming the file and what is wrong.
func ReadManifest(dir string) (Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var raw Manifest
	if err := decodeStrict(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m := make(Manifest, len(raw))
	for k, e := range raw {
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, k, err)
		}
		m[strings.ToLower(strings.TrimSpace(k))] = e
	}
	return m, nil
}

// decodeStrict decodes JSON data into v, refusing fields v does not have.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// check trims an entry's words and checks their limits.
func (e ManifestEntry) check() error {
	for lang, t := range map[string]*Title{"en": e.EN, "ru": e.RU} {
		if t == nil {
			continue
		}
		t.Title, t.Description = strings.TrimSpace(t.Title), strings.TrimSpace(t.Description)
		switch {
		case t.Title == "":
			return fmt.Errorf("the %s title is empty", lang)
		case utf8.RuneCountInString(t.Title) > maxTitle:
			return fmt.Errorf("the %s title is longer than %d characters", lang, maxTitle)
		case utf8.RuneCountInString(t.Description) > maxDescription:
			return fmt.Errorf("the %s description is longer than %d characters", lang, maxDescription)
		}
	}
	return nil
}

// entry is the entry of a quest of file base name base (without _eng) and common name common,
// and whether the manifest has one.
func (m Manifest) entry(base, common string) (ManifestEntry, bool) {
	if e, ok := m[strings.ToLower(base)]; ok {
		return e, true
	}
	e, ok := m[common]
	return e, ok
}

// titles are an entry's titles by language, nil for none.
func (e ManifestEntry) titles() map[string]Title {
	var out map[string]Title
	for lang, t := range map[string]*Title{"en": e.EN, "ru": e.RU} {
		if t != nil {
			if out == nil {
				out = map[string]Title{}
			}
			out[lang] = *t
		}
	}
	return out
}
