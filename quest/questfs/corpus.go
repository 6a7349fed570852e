package questfs

import (
	_ "embed"
	"fmt"
	"regexp"
)

// corpusJSON is the catalogue words of the shared corpus of quests the project is tested and
// played with (the quests of the original Telegram bot, and the reference player's test quests),
// which are imported from a folder the project may not write to: a Manifest whose entries name
// the SHA-256 digests of their files ("files"). A file found with one of those contents gets the
// entry's words unless the manifest beside it names the quest; the same file name with another
// content gets nothing from it. The entries are keyed by the quests' common names, for the
// reader; the test quests among them are hidden.
//
//go:embed corpus.json
var corpusJSON []byte

// corpusFile is an entry of corpus.json.
type corpusFile struct {
	ManifestEntry
	Files []string `json:"files"`
}

// corpusWords is corpus.json by file digest.
var corpusWords = mustCorpus(corpusJSON)

// digest is a file's SHA-256 digest in hex (Quest.SHA256).
var digest = regexp.MustCompile(`^[0-9a-f]{64}$`)

// readCorpus reads a corpus manifest, by file digest.
func readCorpus(data []byte) (map[string]ManifestEntry, error) {
	var raw map[string]corpusFile
	if err := decodeStrict(data, &raw); err != nil {
		return nil, err
	}
	out := map[string]ManifestEntry{}
	for k, e := range raw {
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
		if len(e.Files) == 0 {
			return nil, fmt.Errorf("%q: no files", k)
		}
		for _, d := range e.Files {
			if !digest.MatchString(d) {
				return nil, fmt.Errorf("%q: %q is not a SHA-256 digest", k, d)
			}
			if _, dup := out[d]; dup {
				return nil, fmt.Errorf("%q: file %s is named twice", k, d)
			}
			out[d] = e.ManifestEntry
		}
	}
	return out, nil
}

func mustCorpus(data []byte) map[string]ManifestEntry {
	m, err := readCorpus(data)
	if err != nil {
		panic("questfs: corpus.json: " + err.Error())
	}
	return m
}

// corpusEntry returns the corpus entry of a file of that digest, if it is one of the corpus.
func corpusEntry(sha256 string) (ManifestEntry, bool) {
	e, ok := corpusWords[sha256]
	return e, ok
}
