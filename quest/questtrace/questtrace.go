// Package questtrace replays golden traces of the reference quest player against our player.
//
// A trace (gzip, JSON lines) records one game of the reference player: a header (quest file,
// game seed, language, frozen clock), then one record per step with the full game state, the
// PRNG state and what the player showed, then an end record. [Check] plays the recorded actions
// with the quest package and compares every step field by field; [Run] does so for a list of
// trace files, as the questbot replay command and the quest package's tests do. The format is
// described in the project's traces README.
package questtrace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/questbot/questbot/formula/alea"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// Header is the first line of a trace.
type Header struct {
	Quest  string `json:"quest"`  // quest file name, relative to the quest set's folder
	SHA256 string `json:"sha256"` // hex SHA-256 of the quest file
	Seed   string `json:"seed"`   // game seed
	Lang   string `json:"lang"`   // "rus" or "eng": the default player
	Now    string `json:"now"`    // frozen clock, RFC 3339
	Policy string `json:"policy"` // how the actions were chosen (informative)
}

// Step is one step record: the state after the step's action and what the player showed.
type Step struct {
	Step          int          `json:"step"`
	Action        *int         `json:"action"`
	State         string       `json:"state"`
	LocationID    int          `json:"locationId"`
	LastJumpID    *int         `json:"lastJumpId"`
	CritParamID   *int         `json:"critParamId"`
	DaysPassed    int          `json:"daysPassed"`
	ParamValues   []int        `json:"paramValues"`
	ParamShow     []bool       `json:"paramShow"`
	PossibleJumps []JumpOption `json:"possibleJumps"`
	AleaState     [4]float64   `json:"aleaState"`
	RndCount      int          `json:"rndCount"`
	UI            UI           `json:"ui"`
}

// JumpOption is one entry of Step.PossibleJumps.
type JumpOption struct {
	ID     int  `json:"id"`
	Active bool `json:"active"`
}

// UI is what the reference player showed (its getUIState).
type UI struct {
	Text        string   `json:"text"`
	ParamsState []string `json:"paramsState"`
	Choices     []Choice `json:"choices"`
	GameState   string   `json:"gameState"`
	ImageName   *string  `json:"imageName"`
	TrackName   *string  `json:"trackName"`
	SoundName   *string  `json:"soundName"`
}

// Choice is one entry of UI.Choices.
type Choice struct {
	JumpID int    `json:"jumpId"`
	Text   string `json:"text"`
	Active bool   `json:"active"`
}

// End is the last line of a trace.
type End struct {
	Reason string `json:"reason"` // win, fail, dead, stuck, max-steps or error
	Step   int    `json:"step"`
}

// Trace is a whole trace file.
type Trace struct {
	Header Header
	Steps  []Step
	End    *End // nil when the file has no end line
}

// read reads a gzip-compressed trace.
func read(r io.Reader) (*Trace, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("questtrace: %w", err)
	}
	defer zr.Close()
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	tr := new(Trace)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var kind struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &kind); err != nil {
			return nil, fmt.Errorf("questtrace: line %d: %w", line, err)
		}
		switch kind.Type {
		case "header":
			err = json.Unmarshal(b, &tr.Header)
		case "step":
			var st Step
			err = json.Unmarshal(b, &st)
			tr.Steps = append(tr.Steps, st)
		case "end":
			tr.End = new(End)
			err = json.Unmarshal(b, tr.End)
		default:
			err = fmt.Errorf("unknown record type %q", kind.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("questtrace: line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("questtrace: %w", err)
	}
	if tr.Header.Quest == "" {
		return nil, errors.New("questtrace: no header")
	}
	if len(tr.Steps) == 0 || tr.Steps[0].Step != 0 {
		return nil, errors.New("questtrace: no step 0")
	}
	return tr, nil
}

// ReadFile reads the trace in the named file.
func ReadFile(name string) (*Trace, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return tr, nil
}

// Player returns the player the trace was recorded with: the default player of its language,
// with the clock frozen at its "now".
func (tr *Trace) Player() (quest.Player, error) {
	now, err := time.Parse(time.RFC3339Nano, tr.Header.Now)
	if err != nil {
		return quest.Player{}, fmt.Errorf("questtrace: header now: %w", err)
	}
	return quest.DefaultPlayer(quest.Lang(tr.Header.Lang), now.UTC()), nil
}

// Actions returns the actions of steps 1, 2, ….
func (tr *Trace) Actions() []int {
	var out []int
	for _, st := range tr.Steps[1:] {
		if st.Action != nil {
			out = append(out, *st.Action)
		}
	}
	return out
}

// LoadQuest reads, decodes and compiles the quest file name from the folder dir. When sum is
// not empty it must be the file's hex SHA-256.
func LoadQuest(dir, name, sum string) (*quest.Quest, error) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.Base(name)))
	if err != nil {
		return nil, err
	}
	if sum != "" {
		h := sha256.Sum256(data)
		if got := hex.EncodeToString(h[:]); got != sum {
			return nil, fmt.Errorf("%s: sha256 %s, trace expects %s", name, got, sum)
		}
	}
	mq, err := qmm.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	q, err := quest.Compile(mq)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return q, nil
}

// fileSum is the hex SHA-256 of a file.
func fileSum(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), nil
}

// Mismatch is the first difference between a trace and our replay.
type Mismatch struct {
	Step  int    // the step number
	Field string // the field, such as "paramValues[3]" or "ui.text"
	Want  string // the trace's value
	Got   string // ours
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("step %d: %s: want %s got %s", m.Step, m.Field, m.Want, m.Got)
}

// Check replays the trace on q and compares every step: the game state fields (state,
// locationId, lastJumpId, critParamId, daysPassed, paramValues, paramShow, possibleJumps and
// the exact aleaState) and the whole view. It returns the first difference as a *Mismatch, or
// another error when the trace cannot be replayed at all.
func Check(q *quest.Quest, tr *Trace) error {
	player, err := tr.Player()
	if err != nil {
		return err
	}
	s, err := q.Start(tr.Header.Seed)
	if err != nil {
		return &Mismatch{Step: 0, Field: "start", Want: "no error", Got: err.Error()}
	}
	prev := s.Alea
	for i, st := range tr.Steps {
		if i > 0 {
			if st.Action == nil {
				return &Mismatch{Step: st.Step, Field: "action", Want: "an action", Got: "null"}
			}
			ns, err := q.Perform(s, *st.Action)
			if err != nil {
				return &Mismatch{Step: st.Step, Field: "perform", Want: "no error", Got: err.Error()}
			}
			prev, s = s.Alea, ns
		}
		if m := compareState(&st, &s, prev); m != nil {
			return m
		}
		v, err := q.View(s, player)
		if err != nil {
			return &Mismatch{Step: st.Step, Field: "view", Want: "no error", Got: err.Error()}
		}
		if m := compareView(&st, &v); m != nil {
			return m
		}
	}
	return nil
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func compareState(st *Step, s *quest.State, prev [4]float64) *Mismatch {
	mis := func(field string, want, got any) *Mismatch {
		return &Mismatch{Step: st.Step, Field: field, Want: show(want), Got: show(got)}
	}
	if st.State != s.Phase.String() {
		return mis("state", st.State, s.Phase.String())
	}
	if st.LocationID != s.LocationID {
		return mis("locationId", st.LocationID, s.LocationID)
	}
	var last *int
	if s.HasLastJump {
		last = &s.LastJumpID
	}
	if !eqIntPtr(st.LastJumpID, last) {
		return mis("lastJumpId", st.LastJumpID, last)
	}
	var crit *int
	if s.CritParam != quest.NoCrit {
		crit = &s.CritParam
	}
	if !eqIntPtr(st.CritParamID, crit) {
		return mis("critParamId", st.CritParamID, crit)
	}
	if st.DaysPassed != s.Days {
		return mis("daysPassed", st.DaysPassed, s.Days)
	}
	if len(st.ParamValues) != len(s.Params) {
		return mis("paramValues", st.ParamValues, s.Params)
	}
	for i := range st.ParamValues {
		if st.ParamValues[i] != s.Params[i] {
			return mis(fmt.Sprintf("paramValues[%d]", i), st.ParamValues[i], s.Params[i])
		}
	}
	if !slices.Equal(st.ParamShow, []bool(s.Shown)) {
		return mis("paramShow", st.ParamShow, []bool(s.Shown))
	}
	got := make([]JumpOption, len(s.Jumps))
	for i, o := range s.Jumps {
		got[i] = JumpOption{ID: o.ID, Active: o.Active}
	}
	if !slices.Equal(st.PossibleJumps, got) {
		return mis("possibleJumps", st.PossibleJumps, got)
	}
	for i := range 4 {
		if math.Float64bits(st.AleaState[i]) != math.Float64bits(s.Alea[i]) {
			m := mis("aleaState", st.AleaState, s.Alea)
			if n := countDraws(prev, s.Alea, 1<<20); n >= 0 {
				m.Got += fmt.Sprintf(" (we drew %d times, the trace %d)", n, st.RndCount)
			}
			return m
		}
	}
	return nil
}

// countDraws returns how many draws lead from the PRNG state from to the state to, or -1 if
// more than limit.
func countDraws(from, to [4]float64, limit int) int {
	a := alea.FromState(from)
	for n := 0; n <= limit; n++ {
		if a.State() == to {
			return n
		}
		a.Float()
	}
	return -1
}

func eqIntPtr(a, b *int) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func compareView(st *Step, v *quest.View) *Mismatch {
	ui := &st.UI
	mis := func(field string, want, got any) *Mismatch {
		return &Mismatch{Step: st.Step, Field: "ui." + field, Want: show(want), Got: show(got)}
	}
	if ui.Text != v.Text {
		w, g := diffWindow(ui.Text, v.Text)
		return &Mismatch{Step: st.Step, Field: "ui.text", Want: w, Got: g}
	}
	if len(ui.ParamsState) != len(v.Params) {
		return mis("paramsState", ui.ParamsState, v.Params)
	}
	for i := range ui.ParamsState {
		if ui.ParamsState[i] != v.Params[i] {
			return mis(fmt.Sprintf("paramsState[%d]", i), ui.ParamsState[i], v.Params[i])
		}
	}
	got := make([]Choice, len(v.Choices))
	for i, c := range v.Choices {
		got[i] = Choice{JumpID: c.JumpID, Text: c.Text, Active: c.Active}
	}
	if !slices.Equal(ui.Choices, got) {
		return mis("choices", ui.Choices, got)
	}
	if ui.GameState != v.Status.String() {
		return mis("gameState", ui.GameState, v.Status.String())
	}
	for _, f := range []struct {
		name string
		want *string
		got  string
	}{{"imageName", ui.ImageName, v.Image}, {"trackName", ui.TrackName, v.Track},
		{"soundName", ui.SoundName, v.Sound}} {
		want := ""
		if f.want != nil {
			want = *f.want
		}
		if want != f.got {
			return mis(f.name, f.want, f.got)
		}
	}
	return nil
}

// diffWindow shows two long strings around their first difference.
func diffWindow(want, got string) (string, string) {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-60)
	for from > 0 && from < len(want) && !utf8.RuneStart(want[from]) {
		from--
	}
	cut := func(s string) string {
		to := min(len(s), i+60)
		for to < len(s) && !utf8.RuneStart(s[to]) {
			to++
		}
		out := show(s[min(from, len(s)):to])
		if from > 0 {
			out = "…" + out
		}
		if to < len(s) {
			out += "…"
		}
		return out
	}
	return cut(want), cut(got)
}

// Run replays the trace files against the quests in questsDir, writing one line per trace
// ("ok FILE STEPS", where STEPS is the number of actions replayed, or "FAIL FILE step K: FIELD:
// want … got …") and then the summary "N/M traces match". It returns N and M. When ctx is
// cancelled the remaining traces count as failed.
func Run(ctx context.Context, questsDir string, files []string, w io.Writer) (matched, total int) {
	return run(ctx, questsDir, files, w, false)
}

// RunAnyBuild is Run that plays each trace on the quest file of its name in questsDir whatever
// the file's SHA-256 (a quest built again, say from its decompiled source), writing once for
// each quest whose file is not the build the traces recorded "note: QUEST is another build
// (sha256 …, the trace recorded …)".
func RunAnyBuild(ctx context.Context, questsDir string, files []string, w io.Writer) (matched, total int) {
	return run(ctx, questsDir, files, w, true)
}

func run(ctx context.Context, questsDir string, files []string, w io.Writer, anyBuild bool) (matched, total int) {
	type loaded struct {
		q     *quest.Quest
		sum   string // the file's SHA-256, read when any build is taken
		err   error
		noted bool // that the file is another build
	}
	quests := make(map[string]*loaded)
	for _, name := range files {
		total++
		if err := ctx.Err(); err != nil {
			fmt.Fprintf(w, "FAIL %s: %v\n", name, err)
			continue
		}
		tr, err := ReadFile(name)
		if err != nil {
			fmt.Fprintf(w, "FAIL %s: %v\n", name, err)
			continue
		}
		want := tr.Header.SHA256
		if anyBuild {
			want = ""
		}
		key := tr.Header.Quest + "\x00" + want
		l, ok := quests[key]
		if !ok {
			l = &loaded{}
			quests[key] = l
			l.q, l.err = LoadQuest(questsDir, tr.Header.Quest, want)
			if anyBuild && l.err == nil {
				l.sum, l.err = fileSum(filepath.Join(questsDir, filepath.Base(tr.Header.Quest)))
			}
		}
		if l.err != nil {
			fmt.Fprintf(w, "FAIL %s: %v\n", name, l.err)
			continue
		}
		if anyBuild && l.sum != tr.Header.SHA256 && !l.noted {
			fmt.Fprintf(w, "note: %s is another build (sha256 %s, the trace recorded %s)\n", tr.Header.Quest, l.sum, tr.Header.SHA256)
			l.noted = true
		}
		if err := Check(l.q, tr); err != nil {
			fmt.Fprintf(w, "FAIL %s %v\n", name, err)
			continue
		}
		matched++
		fmt.Fprintf(w, "ok %s %d\n", name, len(tr.Steps)-1)
	}
	fmt.Fprintf(w, "%d/%d traces match\n", matched, total)
	return matched, total
}
