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
// A quest the manifest does not name keeps the words of its file name.
type Manifest map[string]ManifestEntry

// ManifestEntry is a quest's entry in a Manifest.
type ManifestEntry struct {
	EN     *Title `json:"en,omitempty"`
	RU     *Title `json:"ru,omitempty"`
	Hidden bool   `json:"hidden,omitempty"`
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
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m := make(Manifest, len(raw))
	for k, e := range raw {
		for lang, t := range map[string]*Title{"en": e.EN, "ru": e.RU} {
			if t == nil {
				continue
			}
			t.Title, t.Description = strings.TrimSpace(t.Title), strings.TrimSpace(t.Description)
			switch {
			case t.Title == "":
				return nil, fmt.Errorf("%s: %q: the %s title is empty", path, k, lang)
			case utf8.RuneCountInString(t.Title) > maxTitle:
				return nil, fmt.Errorf("%s: %q: the %s title is longer than %d characters", path, k, lang, maxTitle)
			case utf8.RuneCountInString(t.Description) > maxDescription:
				return nil, fmt.Errorf("%s: %q: the %s description is longer than %d characters", path, k, lang, maxDescription)
			}
		}
		m[strings.ToLower(strings.TrimSpace(k))] = e
	}
	return m, nil
}

// entry is the entry of a quest of file base name base (without _eng) and common name common.
func (m Manifest) entry(base, common string) ManifestEntry {
	if e, ok := m[strings.ToLower(base)]; ok {
		return e
	}
	return m[common]
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
