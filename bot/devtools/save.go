package devtools

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf16"

	"github.com/questbot/questbot/bot/texts"

	"github.com/questbot/questbot/quest"
)

// # Saved games
//
// /save writes the running game as a JSON file (extension .qsave):
//
//	{
//	  "format": "questbot-save",     always this
//	  "version": 1,                  the format's version; a bot refuses versions it does not know
//	  "saved_at": "2026-01-02T03:04:05Z",
//	  "quest": {
//	    "id": 12,                    the quest: its row in the bot's catalogue (script.id)
//	    "name": "Cargo run",         its name, for people
//	    "sha256": "…"                the SHA-256 of its file when the game was saved
//	  },
//	  "ranger": "Ann",               the player's name set with /set Ranger, if any
//	  "state": {…}                   the game: package quest's State as JSON (location, phase,
//	                                 parameters, visibility, counters, random generator)
//	}
//
// A save restores the game exactly, random generator included. Uploading it restores the game
// as a sandbox, after checks: the format and version, the quest (it must be one the user may
// open in this bot, so a save opens nothing the user could not open otherwise), the state (it
// must fit the quest: parameter count, location, phase, values within their bounds, a valid
// generator state). When the quest's file has changed since, the game goes on if it still fits,
// with a notice.
//
// The binary saves of the original bot (extension .qms) are accepted too. All numbers are
// little-endian int32; a string is a flag (0: empty, else present), then its length in UTF-16
// code units and the UTF-16LE text:
//
//	string  the quest's file name
//	int32   the id of the current location
//	int32   the number of parameters, then for each parameter:
//	          string  its title;  int32 min, max, value;  int32 hidden (0 or 1)
//
// Such a save names its quest by file name: the user's own upload of that name, else a quest
// of the catalogue the user may open whose file has that name. It holds no random generator,
// counters or phase, so the game is continued by entering the saved location again (its
// parameter changes apply once more, as the original bot did), with a fresh generator. Values
// must lie within the quest's bounds; a save claiming more parameters than its size can hold
// is refused before anything is allocated.

// Save format names and version.
const (
	saveFormat  = "questbot-save"
	saveVersion = 1
)

// save is a saved game in the JSON format.
type save struct {
	Format  string      `json:"format"`
	Version int         `json:"version"`
	SavedAt time.Time   `json:"saved_at"`
	Quest   saveQuest   `json:"quest"`
	Ranger  string      `json:"ranger,omitempty"`
	State   quest.State `json:"state"`
}

// saveQuest names the quest of a save.
type saveQuest struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// saveError is a save refused, with what to tell the user (a texts field and its arguments).
type saveError struct {
	msg  func(texts.Dev) string
	args []any
}

func (e *saveError) Error() string { return fmt.Sprintf(e.msg(texts.For("en").Dev), e.args...) }

// text is the reason in the user's language.
func (e *saveError) text(txt texts.Dev) string { return fmt.Sprintf(e.msg(txt), e.args...) }

// refuse makes a saveError; the arguments are kept as text.
func refuse(msg func(texts.Dev) string, args ...any) error {
	text := make([]any, len(args))
	for i, a := range args {
		text[i] = fmt.Sprint(a)
	}
	return &saveError{msg: msg, args: text}
}

// parseSave reads a save in the JSON format.
func parseSave(data []byte) (*save, error) {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Format != saveFormat {
		return nil, refuse(func(t texts.Dev) string { return t.SaveFormat })
	}
	if head.Version != saveVersion {
		return nil, refuse(func(t texts.Dev) string { return t.SaveVersion }, head.Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s save
	if err := dec.Decode(&s); err != nil {
		return nil, refuse(func(t texts.Dev) string { return t.SaveJSON }, clip(err.Error(), 120))
	}
	if dec.More() {
		return nil, refuse(func(t texts.Dev) string { return t.SaveJSON }, "trailing data")
	}
	if s.Quest.ID <= 0 {
		return nil, refuse(func(t texts.Dev) string { return t.SaveQuestName })
	}
	if !validAlea(s.State.Alea) {
		return nil, refuse(func(t texts.Dev) string { return t.SaveRandom })
	}
	return &s, nil
}

// validAlea reports whether a random generator state is one the generator can reach: three
// fractions in [0, 1) and a carry that is a whole number below the multiplier.
func validAlea(a [4]float64) bool {
	for _, s := range a[:3] {
		if !(s >= 0 && s < 1) {
			return false
		}
	}
	return a[3] >= 0 && a[3] < 2091639 && a[3] == math.Trunc(a[3])
}

// qmsFile is a binary save of the original bot.
type qmsFile struct {
	Quest    string
	Location int32
	Params   []qmsParam
}

// qmsParam is a parameter of a QMS save.
type qmsParam struct {
	Title           string
	Min, Max, Value int32
	Hidden          bool
}

// qmsReader reads the little-endian fields of a .qms save.
type qmsReader struct {
	data []byte
	off  int
	err  error
}

var errQMSShort = errors.New("the file ends too early")

func (r *qmsReader) int32() int32 {
	if r.err != nil {
		return 0
	}
	if len(r.data)-r.off < 4 {
		r.err = errQMSShort
		return 0
	}
	v := int32(binary.LittleEndian.Uint32(r.data[r.off:]))
	r.off += 4
	return v
}

// maxQMSString bounds a string of a save (quest file names and parameter titles are short).
const maxQMSString = 4096

func (r *qmsReader) string() string {
	if r.int32() == 0 {
		return ""
	}
	n := r.int32()
	if r.err != nil {
		return ""
	}
	if n < 0 || n > maxQMSString {
		r.err = fmt.Errorf("a string of %d characters", n)
		return ""
	}
	if int64(n)*2 > int64(len(r.data)-r.off) {
		r.err = errQMSShort
		return ""
	}
	units := make([]uint16, n)
	for i := range units {
		units[i] = binary.LittleEndian.Uint16(r.data[r.off+2*i:])
	}
	r.off += 2 * int(n)
	return string(utf16.Decode(units))
}

// parseQMS reads a binary save of the original bot. Counts and lengths are checked against the
// bytes left before anything is allocated.
func parseQMS(data []byte) (*qmsFile, error) {
	r := &qmsReader{data: data}
	s := &qmsFile{Quest: r.string(), Location: r.int32()}
	n := r.int32()
	if r.err == nil && (n < 0 || int64(n)*(5*4) > int64(len(data)-r.off)) {
		// Each parameter takes at least 20 bytes (an empty title's flag and four numbers).
		r.err = fmt.Errorf("%d parameters do not fit", n)
	}
	if r.err != nil {
		return nil, refuse(func(t texts.Dev) string { return t.SaveJSON }, r.err.Error())
	}
	s.Params = make([]qmsParam, 0, n)
	for range n {
		p := qmsParam{Title: r.string(), Min: r.int32(), Max: r.int32(), Value: r.int32()}
		switch r.int32() {
		case 0:
		case 1:
			p.Hidden = true
		default:
			if r.err == nil {
				return nil, refuse(func(t texts.Dev) string { return t.SaveFlag }, len(s.Params)+1)
			}
		}
		if r.err != nil {
			return nil, refuse(func(t texts.Dev) string { return t.SaveJSON }, r.err.Error())
		}
		s.Params = append(s.Params, p)
	}
	if r.off != len(data) {
		return nil, refuse(func(t texts.Dev) string { return t.SaveJSON }, "trailing data")
	}
	if baseName(s.Quest) == "" {
		return nil, refuse(func(t texts.Dev) string { return t.SaveQuestName })
	}
	return s, nil
}

// encodeQMS writes a binary save in the original bot's format (tests and tools use it to make
// saves as that bot did).
func encodeQMS(s *qmsFile) []byte {
	var b []byte
	i32 := func(v int32) { b = binary.LittleEndian.AppendUint32(b, uint32(v)) }
	str := func(v string) {
		i32(1)
		units := utf16.Encode([]rune(v))
		i32(int32(len(units)))
		for _, u := range units {
			b = binary.LittleEndian.AppendUint16(b, u)
		}
	}
	str(s.Quest)
	i32(s.Location)
	i32(int32(len(s.Params)))
	for _, p := range s.Params {
		str(p.Title)
		i32(p.Min)
		i32(p.Max)
		i32(p.Value)
		if p.Hidden {
			i32(1)
		} else {
			i32(0)
		}
	}
	return b
}
