package qmm_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// The reference reader's output for each corpus quest is in parsed/<set>/<file>.json.gz, in the
// reference's field names. It is "sparse": param changes and conditions equal to the defaults
// are left out and the others carry their 0-based parameter index in "p". Absent optional
// strings (undefined in the reference) have no key. The types below mirror it; unknown fields
// are rejected so that a field the model misses cannot go unnoticed.

type refDump struct {
	File   string   `json:"file"`
	SHA256 string   `json:"sha256"`
	Sparse bool     `json:"sparse"`
	QM     refQuest `json:"qm"`
}

type refMedia struct {
	Img   *string `json:"img"`
	Sound *string `json:"sound"`
	Track *string `json:"track"`
}

type refQuest struct {
	GivingRace            uint8   `json:"givingRace"`
	WhenDone              uint8   `json:"whenDone"`
	PlanetRace            uint8   `json:"planetRace"`
	PlayerCareer          uint8   `json:"playerCareer"`
	PlayerRace            uint8   `json:"playerRace"`
	DefaultJumpCountLimit int32   `json:"defaultJumpCountLimit"`
	Hardness              int32   `json:"hardness"`
	ParamsCount           int     `json:"paramsCount"`
	ChangeLogString       *string `json:"changeLogString"`
	MajorVersion          *int32  `json:"majorVersion"`
	MinorVersion          *int32  `json:"minorVersion"`
	ScreenSizeX           int32   `json:"screenSizeX"`
	ScreenSizeY           int32   `json:"screenSizeY"`
	ReputationChange      int32   `json:"reputationChange"`
	WidthSize             int32   `json:"widthSize"`
	HeightSize            int32   `json:"heightSize"`
	Strings               struct {
		ToStar     string  `json:"ToStar"`
		Parsec     *string `json:"Parsec"`
		Artefact   *string `json:"Artefact"`
		ToPlanet   string  `json:"ToPlanet"`
		Date       string  `json:"Date"`
		Money      string  `json:"Money"`
		FromPlanet string  `json:"FromPlanet"`
		FromStar   string  `json:"FromStar"`
		Ranger     string  `json:"Ranger"`
	} `json:"strings"`
	LocationsCount int           `json:"locationsCount"`
	JumpsCount     int           `json:"jumpsCount"`
	SuccessText    string        `json:"successText"`
	TaskText       string        `json:"taskText"`
	Header         uint32        `json:"header"`
	Params         []refParam    `json:"params"`
	Locations      []refLocation `json:"locations"`
	Jumps          []refJump     `json:"jumps"`
}

type refParam struct {
	refMedia
	Min             int32  `json:"min"`
	Max             int32  `json:"max"`
	Type            uint8  `json:"type"`
	ShowWhenZero    bool   `json:"showWhenZero"`
	CritType        uint8  `json:"critType"`
	Active          bool   `json:"active"`
	IsMoney         bool   `json:"isMoney"`
	Name            string `json:"name"`
	Starting        string `json:"starting"`
	CritValueString string `json:"critValueString"`
	ShowingInfo     []struct {
		From int32  `json:"from"`
		To   int32  `json:"to"`
		Str  string `json:"str"`
	} `json:"showingInfo"`
}

type refChange struct {
	refMedia
	P                  int32  `json:"p"`
	Change             int32  `json:"change"`
	ShowingType        int32  `json:"showingType"`
	IsChangePercentage bool   `json:"isChangePercentage"`
	IsChangeValue      bool   `json:"isChangeValue"`
	IsChangeFormula    bool   `json:"isChangeFormula"`
	ChangingFormula    string `json:"changingFormula"`
	CritText           string `json:"critText"`
}

type refLocation struct {
	DayPassed         bool        `json:"dayPassed"`
	ID                int32       `json:"id"`
	IsStarting        bool        `json:"isStarting"`
	IsSuccess         bool        `json:"isSuccess"`
	IsFaily           bool        `json:"isFaily"`
	IsFailyDeadly     bool        `json:"isFailyDeadly"`
	IsEmpty           bool        `json:"isEmpty"`
	ParamsChanges     []refChange `json:"paramsChanges"`
	Texts             []string    `json:"texts"`
	Media             []refMedia  `json:"media"`
	IsTextByFormula   bool        `json:"isTextByFormula"`
	TextSelectFormula string      `json:"textSelectFormula"`
	MaxVisits         int32       `json:"maxVisits"`
	LocX              int32       `json:"locX"`
	LocY              int32       `json:"locY"`
}

type refJump struct {
	refMedia
	Priority          float64     `json:"priority"`
	DayPassed         bool        `json:"dayPassed"`
	ID                int32       `json:"id"`
	FromLocationID    int32       `json:"fromLocationId"`
	ToLocationID      int32       `json:"toLocationId"`
	AlwaysShow        bool        `json:"alwaysShow"`
	JumpingCountLimit int32       `json:"jumpingCountLimit"`
	ShowingOrder      int32       `json:"showingOrder"`
	ParamsChanges     []refChange `json:"paramsChanges"`
	ParamsConditions  []struct {
		P                    int32   `json:"p"`
		MustFrom             int32   `json:"mustFrom"`
		MustTo               int32   `json:"mustTo"`
		MustEqualValues      []int32 `json:"mustEqualValues"`
		MustEqualValuesEqual bool    `json:"mustEqualValuesEqual"`
		MustModValues        []int32 `json:"mustModValues"`
		MustModValuesMod     bool    `json:"mustModValuesMod"`
	} `json:"paramsConditions"`
	FormulaToPass string `json:"formulaToPass"`
	Text          string `json:"text"`
	Description   string `json:"description"`
}

func loadDump(t *testing.T, f corpusFile) *refDump {
	t.Helper()
	path := corpus.Path(t, "quests", "parsed", f.Set, f.Name+".json.gz")
	file, err := os.Open(path)
	if err != nil {
		t.Fatalf("reference dump missing: %v", err)
	}
	defer file.Close()
	zr, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(zr)
	dec.DisallowUnknownFields()
	var d refDump
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !d.Sparse {
		t.Fatalf("%s: not a sparse dump", path)
	}
	sum := sha256.Sum256(f.Data)
	if d.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("%s: dump is of another version of the file", path)
	}
	return &d
}

func opt(s *string) qmm.OptString {
	if s == nil {
		return qmm.OptString{}
	}
	return qmm.Some(*s)
}

func (m refMedia) media() qmm.Media {
	return qmm.Media{Image: opt(m.Img), Sound: opt(m.Sound), Track: opt(m.Track)}
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

func refChanges(list []refChange) []qmm.ParamChange {
	var out []qmm.ParamChange
	for _, c := range list {
		ch := qmm.ParamChange{
			Param: c.P, Change: c.Change, Showing: qmm.ShowingType(c.ShowingType),
			IsValue: c.IsChangeValue, IsPercentage: c.IsChangePercentage, IsFormula: c.IsChangeFormula,
			Formula: c.ChangingFormula, CritText: c.CritText, Media: c.media(),
		}
		if !ch.IsDefault() {
			out = append(out, ch)
		}
	}
	slices.SortStableFunc(out, func(a, b qmm.ParamChange) int { return int(a.Param - b.Param) })
	return out
}

// model converts the reference reader's output to the model Decode must return.
func (r *refQuest) model() *qmm.Quest {
	q := &qmm.Quest{
		Magic: qmm.Magic(r.Header), ChangeLog: opt(r.ChangeLogString),
		GivingRace: r.GivingRace, WhenDone: r.WhenDone, PlanetRace: r.PlanetRace,
		PlayerCareer: r.PlayerCareer, PlayerRace: r.PlayerRace, ReputationChange: r.ReputationChange,
		ScreenSizeX: r.ScreenSizeX, ScreenSizeY: r.ScreenSizeY, WidthSize: r.WidthSize,
		HeightSize: r.HeightSize, DefaultJumpCountLimit: r.DefaultJumpCountLimit, Hardness: r.Hardness,
		SuccessText: r.SuccessText, TaskText: r.TaskText,
	}
	if r.MajorVersion != nil {
		q.MajorVersion = *r.MajorVersion
	}
	if r.MinorVersion != nil {
		q.MinorVersion = *r.MinorVersion
	}
	s := &r.Strings
	q.Strings = qmm.Strings{
		ToStar: s.ToStar, Parsec: opt(s.Parsec), Artefact: opt(s.Artefact), ToPlanet: s.ToPlanet,
		Date: s.Date, Money: s.Money, FromPlanet: s.FromPlanet, FromStar: s.FromStar, Ranger: s.Ranger,
	}
	for _, p := range r.Params {
		param := qmm.Param{
			Min: p.Min, Max: p.Max, Type: qmm.ParamType(p.Type), ShowWhenZero: p.ShowWhenZero,
			CritType: qmm.CritType(p.CritType), Active: p.Active, IsMoney: p.IsMoney, Name: p.Name,
			Starting: p.Starting, CritText: p.CritValueString, Media: p.media(),
		}
		for _, si := range p.ShowingInfo {
			param.Ranges = append(param.Ranges, qmm.ParamRange{From: si.From, To: si.To, Text: si.Str})
		}
		q.Params = append(q.Params, param)
	}
	for _, l := range r.Locations {
		loc := qmm.Location{
			ID: l.ID, X: l.LocX, Y: l.LocY, DayPassed: l.DayPassed, IsStarting: l.IsStarting,
			IsSuccess: l.IsSuccess, IsFail: l.IsFaily, IsDeadly: l.IsFailyDeadly, IsEmpty: l.IsEmpty,
			Changes: refChanges(l.ParamsChanges), TextByFormula: l.IsTextByFormula,
			TextSelectFormula: l.TextSelectFormula, MaxVisits: l.MaxVisits,
		}
		for i, text := range l.Texts {
			lt := qmm.LocationText{Text: text}
			if i < len(l.Media) {
				lt.Media = l.Media[i].media()
			}
			loc.Texts = append(loc.Texts, lt)
		}
		q.Locations = append(q.Locations, loc)
	}
	for _, j := range r.Jumps {
		jump := qmm.Jump{
			ID: j.ID, From: j.FromLocationID, To: j.ToLocationID, Priority: j.Priority,
			DayPassed: j.DayPassed, AlwaysShow: j.AlwaysShow, CountLimit: j.JumpingCountLimit,
			ShowingOrder: j.ShowingOrder, Changes: refChanges(j.ParamsChanges),
			FormulaToPass: j.FormulaToPass, Text: j.Text, Description: j.Description, Media: j.media(),
		}
		for _, c := range j.ParamsConditions {
			jump.Conditions = append(jump.Conditions, qmm.Condition{
				Param: c.P, MustFrom: c.MustFrom, MustTo: c.MustTo,
				MustEqual: c.MustEqualValuesEqual, MustEqualValues: nilIfEmpty(c.MustEqualValues),
				MustMod: c.MustModValuesMod, MustModValues: nilIfEmpty(c.MustModValues),
			})
		}
		q.Jumps = append(q.Jumps, jump)
	}
	return q
}

// TestDecodeMatchesReference decodes every corpus quest and compares the model, field by field,
// with the reference reader's output.
func TestDecodeMatchesReference(t *testing.T) {
	t.Parallel()
	for _, f := range loadCorpus(t) {
		t.Run(f.Set+"/"+f.Name, func(t *testing.T) {
			t.Parallel()
			ref := loadDump(t, f)
			got, err := qmm.Decode(bytes.NewReader(f.Data))
			if err != nil {
				t.Fatal(err)
			}
			r := &ref.QM
			if r.ParamsCount != len(got.Params) || r.LocationsCount != len(got.Locations) ||
				r.JumpsCount != len(got.Jumps) {
				t.Errorf("counts: want %d params, %d locations, %d jumps; got %d, %d, %d",
					r.ParamsCount, r.LocationsCount, r.JumpsCount,
					len(got.Params), len(got.Locations), len(got.Jumps))
			}
			want := r.model()
			checkEqual(t, want, got)
			// The dense views must hold the stored entries and defaults elsewhere.
			for i := range got.Jumps {
				j := &got.Jumps[i]
				conds := got.Conditions(j)
				for _, c := range j.Conditions {
					if !reflect.DeepEqual(c, conds[c.Param]) {
						t.Fatalf("jump %d: Conditions lost parameter %d", i, c.Param)
					}
				}
				for p := range got.Params {
					if c := got.Condition(j, p); c.Param != int32(p) || !reflect.DeepEqual(c, conds[p]) {
						t.Fatalf("jump %d: Condition(%d) = %+v, Conditions has %+v", i, p, c, conds[p])
					}
				}
			}
		})
	}
}

// TestRoundTrip checks that decoding the encoding of every quest (the project's own, and the
// corpus's) gives back the model, changed only as Encode documents, and that a second encoding
// is byte-identical.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, f := range someQuests(t) {
		t.Run(f.Set+"/"+f.Name, func(t *testing.T) {
			t.Parallel()
			q, err := qmm.DecodeBytes(f.Data)
			if err != nil {
				t.Fatal(err)
			}
			enc := encode(t, q)
			q2, err := qmm.DecodeBytes(enc)
			if err != nil {
				t.Fatalf("decode the encoding: %v", err)
			}
			checkEqual(t, asWritten(q), q2)
			if q.Magic == qmm.MagicQMM7 {
				// The reference writer's own test: for .qmm files, no normalisation at all.
				checkEqual(t, q, q2)
			}
			if q.Magic.OldTGE() != q2.OldTGE() {
				t.Errorf("OldTGE: %v after encoding, want %v", q2.OldTGE(), q.OldTGE())
			}
			if enc2 := encode(t, q2); !bytes.Equal(enc, enc2) {
				t.Errorf("second encoding differs from the first")
			}
		})
	}
}

// TestDiff makes sure the comparison used above reports differences at all.
func TestDiff(t *testing.T) {
	t.Parallel()
	q := readQuest(t, "srq-tests/qmreader-1.qmm")
	if d := diff(q, q, 1); len(d) != 0 {
		t.Fatalf("diff of a quest with itself: %v", d)
	}
	c := asWritten(q) // copies the location and jump slices
	c.Jumps[0].Priority = 7
	c.Locations[3].Changes = nil
	c.Locations[0].Texts = c.Locations[0].Texts[:1]
	d := diff(q, c, 10)
	if len(d) != 3 {
		t.Fatalf("diff found %q, want 3 differences", d)
	}
}
