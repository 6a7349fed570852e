// Package qmm reads and writes Space Rangers text quests: the old .qm files (magics QM_2, QM_3,
// QM_4) and the newer .qmm files (QMM_6, QMM_7 and QMM_7 saved with the old-TGE flag).
//
// [Decode] accepts all six magics and returns a [Quest], the logical content of the file. It reads
// exactly what the reference web player's reader (space-rangers-quest, qmreader.ts) reads, so a
// decoded Quest matches that reader's output field by field. [Encode] writes a Quest as .qmm the
// way the reference writer (qmwriter.ts) does.
//
// The package is a pure codec: it imports only the standard library, never opens files, never
// logs and keeps no global state. Malformed input yields a [*FormatError]; input that ends too
// early also matches io.ErrUnexpectedEOF with errors.Is.
//
// # Model conventions
//
//   - Integers stored in the file as int32 are int32 here; fields stored as one byte are uint8 or
//     bool. Booleans follow the file's "non-zero is true" rule.
//   - Strings are stored in the file as UTF-16LE and are UTF-8 here. A file may hold a surrogate
//     code unit that is not part of a valid pair, and the reference player keeps it as it is. It
//     has no UTF-8 form, so it is kept as its 3-byte generalized UTF-8 form (bytes ED A0 80 to
//     ED BF BF, the "WTF-8" convention) rather than replaced. Such a string is not valid UTF-8
//     and renders the unit as U+FFFD, but [Encode] turns it back into the same code unit, so
//     decoding and encoding lose nothing. Encode writes any other invalid UTF-8 byte as U+FFFD.
//   - Strings that the reference reader reports as undefined when absent (media names, the
//     changelog, the .qm Parsec and Artefact strings) are an [OptString], which tells "absent"
//     from "". All other strings read an absent string as "".
//   - Parameter changes and jump conditions are stored sparsely: [Location.Changes],
//     [Jump.Changes] and [Jump.Conditions] hold only the entries that differ from the default,
//     sorted by parameter index, with no index twice. [Quest.Condition] gives the dense
//     per-parameter view of the reference reader for one condition. Storing the
//     defaults would cost several times the file's size: .qm quests and quests converted from
//     .qm carry a condition record for every parameter in every jump. For the same reason jumps
//     with equal condition lists share them (see [Jump.Conditions]).
//   - Parameter indices in the model are 0-based; the .qmm file numbers parameters from 1.
package qmm

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Magic is the first int32 of a quest file. It selects the layout (.qm or .qmm), the number of
// parameters for .qm files and the player rules (see Magic.oldTGE).
type Magic uint32

// The six magics the reader accepts.
const (
	// MagicQM2 is a .qm file with 24 parameters.
	MagicQM2 Magic = 0x423A35D2
	// MagicQM3 is a .qm file with 48 parameters.
	MagicQM3 Magic = 0x423A35D3
	// MagicQM4 is a .qm file with 96 parameters.
	MagicQM4 Magic = 0x423A35D4
	// MagicQMM6 is a .qmm file without version and changelog.
	MagicQMM6 Magic = 0x423A35D6
	// MagicQMM7 is a .qmm file with version and changelog.
	MagicQMM7 Magic = 0x423A35D7
	// MagicQMM7OldTGE has the layout of MagicQMM7 but asks the player for the old (TGE 4)
	// rules. It is a convention of the reference player (111111127 in decimal): a quest made
	// as .qm and re-saved as .qmm keeps the rules it was written for. [Encode] writes it for
	// quests decoded from .qm or from such a file.
	MagicQMM7OldTGE Magic = 0x069F6BD7
)

// known reports whether m is one of the six magics the reader accepts.
func (m Magic) known() bool {
	switch m {
	case MagicQM2, MagicQM3, MagicQM4, MagicQMM6, MagicQMM7, MagicQMM7OldTGE:
		return true
	}
	return false
}

// IsQM reports whether m denotes the old .qm layout (QM_2, QM_3 or QM_4).
func (m Magic) IsQM() bool { return m == MagicQM2 || m == MagicQM3 || m == MagicQM4 }

// isQMM reports whether m denotes the .qmm layout (QMM_6, QMM_7 or QMM_7 with old-TGE rules).
func (m Magic) isQMM() bool { return m == MagicQMM6 || m == MagicQMM7 || m == MagicQMM7OldTGE }

// HasVersion reports whether files with magic m store a version and a changelog.
func (m Magic) HasVersion() bool { return m == MagicQMM7 || m == MagicQMM7OldTGE }

// oldTGE reports whether quests with magic m are played with the old (TGE 4) rules: every .qm
// magic and [MagicQMM7OldTGE]. The player then hides jumps into locations whose outgoing jumps
// are exhausted, and ignores failing or deadly location crits while an active choice exists.
func (m Magic) oldTGE() bool { return m.IsQM() || m == MagicQMM7OldTGE }

// paramsCount returns the fixed number of parameters of a .qm magic (24, 48 or 96), or 0 for
// magics whose files store the count.
func (m Magic) paramsCount() int {
	switch m {
	case MagicQM2:
		return 24
	case MagicQM3:
		return 48
	case MagicQM4:
		return 96
	}
	return 0
}

// String returns the reference reader's name of the magic, such as "QMM_7", or its hex value
// when it is unknown.
func (m Magic) String() string {
	switch m {
	case MagicQM2:
		return "QM_2"
	case MagicQM3:
		return "QM_3"
	case MagicQM4:
		return "QM_4"
	case MagicQMM6:
		return "QMM_6"
	case MagicQMM7:
		return "QMM_7"
	case MagicQMM7OldTGE:
		return "QMM_7_WITH_OLD_TGE_BEHAVIOUR"
	}
	return fmt.Sprintf("0x%08X", uint32(m))
}

// OptString is a string that may be absent, as opposed to present and empty.
type OptString struct {
	Value string // the string; "" when absent
	Valid bool   // whether the string is present
}

// Some returns a present OptString holding s.
func Some(s string) OptString { return OptString{Value: s, Valid: true} }

// Get returns the string and whether it is present.
func (o OptString) Get() (string, bool) { return o.Value, o.Valid }

// IsZero reports whether o is absent. It lets encoding/json's omitzero option drop absent
// strings.
func (o OptString) IsZero() bool { return !o.Valid }

// MarshalJSON encodes an absent string as null and a present one as a JSON string.
func (o OptString) MarshalJSON() ([]byte, error) {
	if !o.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(o.Value)
}

// UnmarshalJSON decodes null as an absent string and a JSON string as a present one.
func (o *OptString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*o = OptString{}
		return nil
	}
	*o = OptString{Valid: true}
	return json.Unmarshal(b, &o.Value)
}

// Media names the image, sound and music track shown with a text. Only .qmm files carry media;
// for .qm quests all three are absent.
type Media struct {
	Image OptString `json:"img,omitzero"`
	Sound OptString `json:"sound,omitzero"`
	Track OptString `json:"track,omitzero"`
}

// IsZero reports whether all three media names are absent.
func (m Media) IsZero() bool { return !m.Image.Valid && !m.Sound.Valid && !m.Track.Valid }

// Quest is the logical content of a .qm or .qmm file.
type Quest struct {
	// Magic is the file's magic. It decides the player rules: see [Quest.OldTGE].
	Magic Magic `json:"header"`

	// MajorVersion and MinorVersion are the editor's quest version, stored only when
	// Magic.HasVersion(); otherwise they are 0 and Encode writes 1.0, as the reference writer
	// does for a quest without a version.
	MajorVersion int32 `json:"majorVersion"`
	MinorVersion int32 `json:"minorVersion"`
	// ChangeLog is the editor's changelog text, stored only when Magic.HasVersion().
	ChangeLog OptString `json:"changeLogString,omitzero"`

	// GivingRace is the bit mask of races that give the quest (1 Maloc, 2 Peleng, 4 Human,
	// 8 Faeyan, 16 Gaal).
	GivingRace uint8 `json:"givingRace"`
	// WhenDone is when the quest counts as done: 0 on return, 1 immediately.
	WhenDone uint8 `json:"whenDone"`
	// PlanetRace is the bit mask of races of the target planet; 64 means uninhabited.
	PlanetRace uint8 `json:"planetRace"`
	// PlayerCareer is the bit mask of player careers: 1 trader, 2 pirate, 4 warrior.
	PlayerCareer uint8 `json:"playerCareer"`
	// PlayerRace is the bit mask of player races, as GivingRace.
	PlayerRace uint8 `json:"playerRace"`
	// ReputationChange is the change of the player's reputation for completing the quest.
	ReputationChange int32 `json:"reputationChange"`
	// ScreenSizeX and ScreenSizeY are the editor's screen size in pixels.
	ScreenSizeX int32 `json:"screenSizeX"`
	ScreenSizeY int32 `json:"screenSizeY"`
	// WidthSize and HeightSize are the editor's grid size.
	WidthSize  int32 `json:"widthSize"`
	HeightSize int32 `json:"heightSize"`
	// DefaultJumpCountLimit is the editor's default for new jumps; the player ignores it.
	DefaultJumpCountLimit int32 `json:"defaultJumpCountLimit"`
	// Hardness is the quest's difficulty as set in the editor.
	Hardness int32 `json:"hardness"`

	// Params are the quest's parameters, in file order; the player's pN is Params[N-1].
	Params []Param `json:"params"`

	// Strings are the texts the editor offers for the player's tags. The player substitutes
	// its own values, so these are only stored.
	Strings Strings `json:"strings"`
	// SuccessText is shown when the player returns after winning.
	SuccessText string `json:"successText"`
	// TaskText is the quest's introduction.
	TaskText string `json:"taskText"`

	// Locations are the quest's locations, in file order.
	Locations []Location `json:"locations"`
	// Jumps are the quest's jumps (transitions between locations), in file order.
	Jumps []Jump `json:"jumps"`
}

// OldTGE reports whether the player must use the old (TGE 4) rules for q; see Magic.oldTGE.
func (q *Quest) OldTGE() bool { return q.Magic.oldTGE() }

// StartLocation returns the index in q.Locations of the first starting location, or -1.
func (q *Quest) StartLocation() int {
	for i := range q.Locations {
		if q.Locations[i].IsStarting {
			return i
		}
	}
	return -1
}

// Condition returns the condition that parameter p (0-based) must meet for jump j to be
// available: the stored one or, when the jump sets none, the default that any value of the
// parameter meets (see Quest.defaultCondition).
func (q *Quest) Condition(j *Jump, p int) Condition {
	if c, ok := findCondition(j.Conditions, p); ok {
		return c
	}
	return q.defaultCondition(p)
}

// defaultCondition returns the condition a jump has on parameter p when it sets none: the
// parameter's whole range, no value lists, both flags false. p must be a valid index of q.Params.
func (q *Quest) defaultCondition(p int) Condition {
	return Condition{Param: int32(p), MustFrom: q.Params[p].Min, MustTo: q.Params[p].Max}
}

// conditions returns the dense list of jump j's conditions, one per parameter of q, as the
// reference reader's paramsConditions.
func (q *Quest) conditions(j *Jump) []Condition {
	out := make([]Condition, len(q.Params))
	for i := range out {
		out[i] = q.defaultCondition(i)
	}
	for _, c := range j.Conditions {
		if int(c.Param) >= 0 && int(c.Param) < len(out) {
			out[c.Param] = c
		}
	}
	return out
}

// ParamType is what reaching a parameter's critical value means.
type ParamType uint8

// Parameter types.
const (
	ParamOrdinary ParamType = 0 // no effect ("Обычный")
	ParamFail     ParamType = 1 // the quest is failed ("Провальный")
	ParamWin      ParamType = 2 // the quest is won ("Успешный")
	ParamDeath    ParamType = 3 // the player dies ("Смертельный")
)

// CritType tells which bound of a parameter is its critical value.
type CritType uint8

// Critical bounds.
const (
	CritMax CritType = 0 // the maximum is critical
	CritMin CritType = 1 // the minimum is critical
)

// Param is one quest parameter.
type Param struct {
	// Min and Max bound the parameter's value.
	Min int32 `json:"min"`
	Max int32 `json:"max"`
	// Type is what reaching the critical value means.
	Type ParamType `json:"type"`
	// ShowWhenZero shows the parameter even when its value is 0.
	ShowWhenZero bool `json:"showWhenZero"`
	// CritType tells whether Max or Min is the critical value.
	CritType CritType `json:"critType"`
	// Active is false for disabled parameters, which the player ignores.
	Active bool `json:"active"`
	// IsMoney marks the player's money parameter.
	IsMoney bool `json:"isMoney"`
	// Name is the editor's name of the parameter.
	Name string `json:"name"`
	// Ranges are the display ranges: the first range containing the value gives the text shown.
	Ranges []ParamRange `json:"showingInfo,omitempty"`
	// Starting is the starting value as a formula text, such as "[5]" or "[0..10]".
	Starting string `json:"starting"`
	// CritText is the default message shown when the parameter reaches its critical value.
	CritText string `json:"critValueString"`
	// Media is shown with CritText (.qmm only).
	Media Media `json:"media,omitzero"`
}

// ParamRange is a display range of a parameter: values From..To (inclusive) show Text, where
// "<>" stands for the value.
type ParamRange struct {
	From int32  `json:"from"`
	To   int32  `json:"to"`
	Text string `json:"str"`
}

// Strings are the quest's texts for the player's tags (<ToStar>, <Ranger>, ...). Parsec and
// Artefact exist only in .qm files.
type Strings struct {
	ToStar     string    `json:"ToStar"`
	Parsec     OptString `json:"Parsec,omitzero"`
	Artefact   OptString `json:"Artefact,omitzero"`
	ToPlanet   string    `json:"ToPlanet"`
	Date       string    `json:"Date"`
	Money      string    `json:"Money"`
	FromPlanet string    `json:"FromPlanet"`
	FromStar   string    `json:"FromStar"`
	Ranger     string    `json:"Ranger"`
}

// LocationType is the kind of a location as the .qmm file stores it (one byte).
type LocationType uint8

// Location kinds.
const (
	LocationOrdinary LocationType = 0
	LocationStarting LocationType = 1
	LocationEmpty    LocationType = 2
	LocationSuccess  LocationType = 3
	LocationFail     LocationType = 4
	LocationDeadly   LocationType = 5
)

// Location is a quest location.
type Location struct {
	// ID is the location's number, referenced by jumps.
	ID int32 `json:"id"`
	// X and Y are the editor's coordinates.
	X int32 `json:"locX"`
	Y int32 `json:"locY"`
	// DayPassed makes a day pass when the player enters.
	DayPassed bool `json:"dayPassed"`

	// The location's kind. A .qmm file stores one kind, so at most one of these is set; a .qm
	// file stores five independent flags.
	IsStarting bool `json:"isStarting"`
	IsSuccess  bool `json:"isSuccess"`
	IsFail     bool `json:"isFaily"`
	IsDeadly   bool `json:"isFailyDeadly"`
	IsEmpty    bool `json:"isEmpty"`

	// Changes are the parameter changes made on entering, sparse: see Location.change.
	Changes []ParamChange `json:"paramsChanges,omitempty"`

	// Texts are the location's texts with their media. A .qm location always has 10 texts,
	// unused ones empty; Texts keeps them, since the player's text choice counts them.
	Texts []LocationText `json:"texts"`
	// TextByFormula selects the text with TextSelectFormula (or at random when it is empty)
	// instead of cycling through the texts on each visit.
	TextByFormula bool `json:"isTextByFormula"`
	// TextSelectFormula gives the 1-based index of the text to show.
	TextSelectFormula string `json:"textSelectFormula"`
	// MaxVisits limits how often the location may be entered; 0 means no limit (.qmm only).
	MaxVisits int32 `json:"maxVisits"`
}

// LocationText is one of a location's texts and the media shown with it.
type LocationText struct {
	Text  string `json:"text"`
	Media Media  `json:"media,omitzero"`
}

// Type returns the location's kind as a .qmm file stores it. When several flags are set (only
// possible in .qm files) it picks one in the reference writer's order: starting, success, empty,
// deadly, fail.
func (l *Location) Type() LocationType {
	switch {
	case l.IsStarting:
		return LocationStarting
	case l.IsSuccess:
		return LocationSuccess
	case l.IsEmpty:
		return LocationEmpty
	case l.IsDeadly:
		return LocationDeadly
	case l.IsFail:
		return LocationFail
	}
	return LocationOrdinary
}

// change returns the change the location makes to parameter p (0-based): the stored one, or
// the default (no change) with Param set to p.
func (l *Location) change(p int) ParamChange { return findChange(l.Changes, p) }

// denseChanges returns one change per parameter, n in all, as the reference reader's
// paramsChanges: the stored ones and defaults for the others.
func denseChanges(changes []ParamChange, n int) []ParamChange {
	out := make([]ParamChange, n)
	for i := range out {
		out[i].Param = int32(i)
	}
	for _, c := range changes {
		if int(c.Param) >= 0 && int(c.Param) < n {
			out[c.Param] = c
		}
	}
	return out
}

// Jump is a transition between two locations, offered to the player as a choice.
type Jump struct {
	// ID is the jump's number.
	ID int32 `json:"id"`
	// From and To are the IDs of the source and target locations.
	From int32 `json:"fromLocationId"`
	To   int32 `json:"toLocationId"`
	// Priority weighs the random choice among jumps with the same text.
	Priority float64 `json:"priority"`
	// DayPassed makes a day pass when the jump is taken.
	DayPassed bool `json:"dayPassed"`
	// AlwaysShow shows the jump, disabled, even when its conditions fail.
	AlwaysShow bool `json:"alwaysShow"`
	// CountLimit limits how often the jump may be taken; 0 means no limit.
	CountLimit int32 `json:"jumpingCountLimit"`
	// ShowingOrder orders the choices on screen (0..9 in the editor).
	ShowingOrder int32 `json:"showingOrder"`

	// Conditions are the parameter conditions for the jump, sparse: see [Quest.Condition].
	// Decode lets jumps with equal lists share one backing array (quests converted from .qm
	// repeat one list in most jumps), so treat the elements as read-only: to change a jump's
	// conditions, assign it a new slice.
	Conditions []Condition `json:"paramsConditions,omitempty"`
	// Changes are the parameter changes made by taking the jump, sparse: see Jump.change.
	Changes []ParamChange `json:"paramsChanges,omitempty"`

	// FormulaToPass must be non-zero for the jump to be available (when non-empty).
	FormulaToPass string `json:"formulaToPass"`
	// Text is the choice's text.
	Text string `json:"text"`
	// Description is shown after the jump is taken.
	Description string `json:"description"`
	// Media is shown when the jump is taken (.qmm only).
	Media Media `json:"media,omitzero"`
}

// change returns the change the jump makes to parameter p (0-based): the stored one, or the
// default (no change) with Param set to p.
func (j *Jump) change(p int) ParamChange { return findChange(j.Changes, p) }

// ShowingType tells whether a change shows or hides the parameter. A .qmm file and a .qm
// location store it in one byte; a .qm jump stores an int32, and Encode writes its low byte.
type ShowingType int32

// Showing types.
const (
	ShowingUnchanged ShowingType = 0 // leave visibility as it is
	ShowingShow      ShowingType = 1 // show the parameter
	ShowingHide      ShowingType = 2 // hide the parameter
)

// ChangeKind is how a change computes the new value, as a .qmm file stores it (one byte).
type ChangeKind uint8

// Change kinds.
const (
	ChangeValue      ChangeKind = 0 // set the value to Change
	ChangeAdd        ChangeKind = 1 // add Change
	ChangePercentage ChangeKind = 2 // add Change percent
	ChangeFormula    ChangeKind = 3 // set the value to the formula's result
)

// ParamChange is what a location or jump does to one parameter.
type ParamChange struct {
	// Param is the parameter's 0-based index.
	Param int32 `json:"p"`
	// Change is the number used by the change: the value to add, the value to set or the
	// percentage, depending on the flags.
	Change int32 `json:"change"`
	// Showing shows or hides the parameter.
	Showing ShowingType `json:"showingType"`
	// The kind of change; with none set, Change is added. A .qmm file stores one kind, so at
	// most one flag is set; a .qm file stores three independent flags. See [ParamChange.Kind].
	IsValue      bool `json:"isChangeValue"`
	IsPercentage bool `json:"isChangePercentage"`
	IsFormula    bool `json:"isChangeFormula"`
	// Formula computes the new value when IsFormula is set.
	Formula string `json:"changingFormula"`
	// CritText is shown if this change drives the parameter to its critical value; when empty
	// the parameter's own CritText is used.
	CritText string `json:"critText"`
	// Media is shown with CritText (.qmm only).
	Media Media `json:"media,omitzero"`
}

// Kind returns the kind of change in the player's order of precedence (value, percentage,
// formula, else add), which matters only for .qm files with several flags set. Encode follows
// the reference writer instead, which prefers formula, then value, then percentage.
func (c *ParamChange) Kind() ChangeKind {
	switch {
	case c.IsValue:
		return ChangeValue
	case c.IsPercentage:
		return ChangePercentage
	case c.IsFormula:
		return ChangeFormula
	}
	return ChangeAdd
}

// IsDefault reports whether c is the default change (it changes nothing), whatever its Param.
func (c *ParamChange) IsDefault() bool {
	return c.Change == 0 && c.Showing == ShowingUnchanged && !c.IsValue && !c.IsPercentage &&
		!c.IsFormula && c.Formula == "" && c.CritText == "" && c.Media.IsZero()
}

// Condition is what a jump requires of one parameter.
type Condition struct {
	// Param is the parameter's 0-based index.
	Param int32 `json:"p"`
	// MustFrom and MustTo are the inclusive range the value must be in.
	MustFrom int32 `json:"mustFrom"`
	MustTo   int32 `json:"mustTo"`
	// MustEqual: when true the value must be one of MustEqualValues; when false it must be none
	// of them.
	MustEqual bool `json:"mustEqualValuesEqual"`
	// MustMod: when true the value must be divisible by at least one of MustModValues; when
	// false by none of them.
	MustMod bool `json:"mustModValuesMod"`
	// MustEqualValues are the values for MustEqual; an empty list imposes nothing.
	MustEqualValues []int32 `json:"mustEqualValues,omitempty"`
	// MustModValues are the divisors for MustMod; an empty list imposes nothing.
	MustModValues []int32 `json:"mustModValues,omitempty"`
}

// isDefaultFor reports whether c equals the default condition of a parameter with the given
// bounds.
func (c *Condition) isDefaultFor(min, max int32) bool {
	return c.MustFrom == min && c.MustTo == max && len(c.MustEqualValues) == 0 && !c.MustEqual &&
		len(c.MustModValues) == 0 && !c.MustMod
}

// findChange looks p up in a sparse change list sorted by Param.
func findChange(list []ParamChange, p int) ParamChange {
	i := sort.Search(len(list), func(i int) bool { return int(list[i].Param) >= p })
	if i < len(list) && int(list[i].Param) == p {
		return list[i]
	}
	return ParamChange{Param: int32(p)}
}

// findCondition looks p up in a sparse condition list sorted by Param.
func findCondition(list []Condition, p int) (Condition, bool) {
	i := sort.Search(len(list), func(i int) bool { return int(list[i].Param) >= p })
	if i < len(list) && int(list[i].Param) == p {
		return list[i], true
	}
	return Condition{}, false
}
