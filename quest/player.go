package quest

import (
	"fmt"
	"time"

	"github.com/questbot/questbot/formula/alea"
	"github.com/questbot/questbot/qmm"
)

// Lang selects the language of the player's built-in texts ("Next", month names, ...).
type Lang string

// Languages, with the reference's names (also used in trace headers).
const (
	Russian Lang = "rus"
	English Lang = "eng"
)

// Player is who plays: the values of the player tags in quest texts (<Ranger>, <ToPlanet>, ...),
// the language and the clock. The clock is injected: Now is the moment the game is shown, and
// its time.Location is the time zone in which <Date> and <CurDate> are written.
type Player struct {
	Ranger     string
	Player     string
	FromPlanet string
	FromStar   string
	ToPlanet   string
	ToStar     string
	Money      string
	Lang       Lang
	Now        time.Time
}

// DefaultPlayer returns the reference player's default player for lang ([English] for
// English, the Russian one otherwise), with the clock set to now.
func DefaultPlayer(lang Lang, now time.Time) Player {
	if lang == English {
		return Player{Ranger: "Ranger", Player: "Player", FromPlanet: "FromPlanet",
			FromStar: "FromStar", ToPlanet: "ToPlanet", ToStar: "ToStar", Money: "10000",
			Lang: English, Now: now}
	}
	return Player{Ranger: "Греф", Player: "Греф", FromPlanet: "Земля", FromStar: "Солнечная",
		ToPlanet: "Боннасис", ToStar: "Процион", Money: "10000", Lang: Russian, Now: now}
}

// NamedPlayer returns a player with real names in both languages, for games shown to people:
// the reference's Russian player (Греф of Земля in the Солнечная system, sent to Боннасис in the
// Процион system), and for English the same names in English. The reference's English player
// ([DefaultPlayer]) carries the tags' own names ("ToPlanet", "FromStar", …), which read as
// placeholders; golden traces keep those, since they are what the reference showed.
func NamedPlayer(lang Lang, now time.Time) Player {
	if lang == English {
		return Player{Ranger: "Gref", Player: "Gref", FromPlanet: "Earth", FromStar: "Sol", ToPlanet: "Bonnasis",
			ToStar: "Procyon", Money: "10000", Lang: English, Now: now}
	}
	return DefaultPlayer(Russian, now)
}

// Status is how a game stands for the player.
type Status uint8

// Game statuses.
const (
	Running Status = iota
	Fail
	Win
	Dead
)

var statusNames = [...]string{Running: "running", Fail: "fail", Win: "win", Dead: "dead"}

// String returns the reference's name of the status: "running", "fail", "win" or "dead".
func (st Status) String() string {
	if int(st) < len(statusNames) {
		return statusNames[st]
	}
	return fmt.Sprintf("status(%d)", uint8(st))
}

// MarshalText encodes the status as its name.
func (st Status) MarshalText() ([]byte, error) { return []byte(st.String()), nil }

// Over reports whether the game has ended.
func (st Status) Over() bool { return st != Running }

// View is what the player sees of a game: the reference's getUIState. Texts keep the quest's
// markup (<clr>…<clrEnd> around substituted values, <fix>, <format>, <br>, …).
type View struct {
	// Text is the main text.
	Text string
	// Params are the display strings of the shown parameters.
	Params []string
	// Choices are the buttons, in order. Only active ones may be performed.
	Choices []Choice
	// Status tells whether the game goes on, and how it ended.
	Status Status
	// Image, Track and Sound are the media names to show, "" for none. As in the reference,
	// an image stays from screen to screen until another one is named.
	Image, Track, Sound string
	// LocationImage is the image field of the location's text shown (in the location phases),
	// and JumpImage that of the last jump taken (after the first jump): what the screen's own
	// parts name, never carried over from earlier screens. "" for none. Players that show an
	// image only where it is named use these instead of Image.
	LocationImage, JumpImage string
}

// Choice is one button of a [View].
type Choice struct {
	// JumpID is the action to pass to [Quest.Perform]: a jump id or one of the pseudo ids
	// JumpIAgree, JumpNext, JumpBackToShip.
	JumpID int
	Text   string
	Active bool
}

// Start begins a game with the given seed (the reference's initGame): it computes the starting
// parameter values, drawing from the seeded PRNG, and shows the quest's task.
func (q *Quest) Start(seed string) (_ State, err error) {
	defer recoverFormula(&err)
	if q.start < 0 {
		return State{}, ErrNoStartLocation
	}
	rnd := alea.New(seed)
	n := len(q.params)
	s := State{
		Seed:       seed,
		Phase:      PhaseStarting,
		LocationID: q.locs[q.start].id,
		CritParam:  NoCrit,
		Params:     make([]int, n),
		Shown:      make(Flags, n),
	}
	for i := range q.params {
		p := &q.params[i]
		s.Shown[i] = true
		switch {
		case !p.active:
		case p.isMoney:
			// A money parameter: the reference evaluates "[m]", a one-value range that
			// draws once.
			rnd.Random(1)
			s.Params[i] = p.money
		default:
			v, err := p.starting.eval(nil, rnd)
			if err != nil {
				return State{}, err
			}
			s.Params[i] = v
		}
	}
	s.Alea = rnd.State()
	return s, nil
}

// Perform takes the action jumpID (a jump id, or JumpIAgree, JumpNext, JumpBackToShip) and
// returns the new state (the reference's performJump). The action must be one of the active
// choices of the state's view; otherwise Perform returns an error matching [ErrNotAChoice]. On
// any error the returned state is s, unchanged. s itself is never modified.
func (q *Quest) Perform(s State, jumpID int) (State, error) {
	return q.PerformWith(s, jumpID, Options{})
}

// PerformWith is Perform under options o (see [Options]); Perform is PerformWith with zero
// options, the reference player.
func (q *Quest) PerformWith(s State, jumpID int, o Options) (State, error) {
	ns, err := q.perform(s, jumpID, &o)
	if err != nil {
		return s, err
	}
	return ns, nil
}

func (q *Quest) perform(s State, jumpID int, o *Options) (_ State, err error) {
	defer recoverFormula(&err)
	if err := q.check(&s); err != nil {
		return s, err
	}
	var buf [8]choiceRef
	choices, err := q.choiceList(&s, buf[:0])
	if err != nil {
		return s, err
	}
	ok := false
	for _, c := range choices {
		if c.id == jumpID && c.active {
			ok = true
			break
		}
	}
	if !ok {
		return s, fmt.Errorf("%w: %d in phase %v at location %d", ErrNotAChoice, jumpID,
			s.Phase, s.LocationID)
	}

	// The engine works on a copy of the state; it copies the state's slices before it first
	// writes to them.
	e := enginePool.Get().(*engine)
	e.st = s
	e.st.Sound = ""
	e.rndv = *alea.FromState(s.Alea)
	e.q, e.s, e.rnd = q, &e.st, &e.rndv
	e.topPriority, e.passed = o.TopPriority, o.Passed
	err = e.perform(jumpID)
	ns := e.st
	ns.Alea = e.rnd.State()
	e.release()
	if err != nil {
		return s, err
	}
	return ns, nil
}

// replay rebuilds a game from its seed and the list of actions taken, checking each action as
// [Quest.Perform] does.
func (q *Quest) replay(seed string, actions []int) (State, error) {
	return q.ReplayWith(seed, actions, Options{})
}

// ReplayWith is replay under options o (see [Options]).
func (q *Quest) ReplayWith(seed string, actions []int, o Options) (State, error) {
	s, err := q.Start(seed)
	if err != nil {
		return s, err
	}
	for i, a := range actions {
		s, err = q.PerformWith(s, a, o)
		if err != nil {
			return s, fmt.Errorf("action %d (%d): %w", i+1, a, err)
		}
	}
	return s, nil
}

// check verifies that s fits q well enough to be played without indexing out of range.
func (q *Quest) check(s *State) error {
	n := len(q.params)
	switch {
	case len(s.Params) != n || len(s.Shown) != n:
		return fmt.Errorf("%w: %d parameter values for %d parameters", ErrBadState,
			len(s.Params), n)
	case int(s.Phase) >= len(phaseNames):
		return fmt.Errorf("%w: phase %d", ErrBadState, s.Phase)
	case s.CritParam < NoCrit || s.CritParam >= n:
		return fmt.Errorf("%w: critical parameter %d", ErrBadState, s.CritParam)
	}
	return nil
}

// choiceRef is a choice before its text is substituted.
type choiceRef struct {
	id     int
	active bool
	jump   int32 // index of the jump whose text is shown; -1 for a pseudo choice
}

// choiceList returns the choices of the state's view, without their texts. It draws nothing.
func (q *Quest) choiceList(s *State, out []choiceRef) ([]choiceRef, error) {
	pseudo := func(id int) []choiceRef { return append(out, choiceRef{id: id, active: true, jump: -1}) }
	switch s.Phase {
	case PhaseStarting:
		return pseudo(JumpIAgree), nil
	case PhaseJump:
		if q.lastJump(s) < 0 {
			return nil, fmt.Errorf("%w: no last jump %d", ErrBadState, s.LastJumpID)
		}
		return pseudo(JumpNext), nil
	case PhaseLocation, PhaseCritOnLocation:
		li, ok := q.location(s.LocationID)
		if !ok {
			return nil, fmt.Errorf("%w: no location %d", ErrBadState, s.LocationID)
		}
		l := &q.locs[li]
		switch {
		case s.Phase == PhaseCritOnLocation:
			return pseudo(JumpNext), nil
		case l.fail || l.deadly:
			return out, nil
		case l.success:
			return pseudo(JumpBackToShip), nil
		}
		for _, o := range s.Jumps {
			k, ok := q.jumpIndex(o.ID)
			if !ok {
				return nil, fmt.Errorf("%w: no jump %d", ErrBadState, o.ID)
			}
			out = append(out, choiceRef{id: o.ID, active: o.Active, jump: k})
		}
		return out, nil
	case PhaseJumpAndNextCrit:
		if s.CritParam == NoCrit || q.lastJump(s) < 0 {
			return nil, fmt.Errorf("%w: critical parameter or last jump missing", ErrBadState)
		}
		return pseudo(JumpNext), nil
	case PhaseCritOnJump, PhaseCritOnLocationLastMessage:
		if s.CritParam == NoCrit {
			return nil, fmt.Errorf("%w: no critical parameter", ErrBadState)
		}
		if q.params[s.CritParam].typ == qmm.ParamWin {
			return pseudo(JumpBackToShip), nil
		}
		return out, nil
	}
	return out, nil // PhaseReturnedEnding
}

// Choices returns the ids of the choices the state's view offers and whether each is active,
// without building the view's texts.
func (q *Quest) Choices(s State) ([]Choice, error) {
	if err := q.check(&s); err != nil {
		return nil, err
	}
	refs, err := q.choiceList(&s, nil)
	if err != nil {
		return nil, err
	}
	out := make([]Choice, len(refs))
	for i, r := range refs {
		out[i] = Choice{JumpID: r.id, Active: r.active}
	}
	return out, nil
}

// emptyText is the compiled empty text.
var emptyText = &text{plain: true, diamond: -1}

// Built-in texts of the pseudo choices.
var (
	textsRus = [3]string{"Я берусь за это задание", "Далее", "Вернуться на корабль"}
	textsEng = [3]string{"I agree", "Next", "Go back to ship"}
)

// View builds what the player sees of state s (the reference's getUIState). Texts that draw
// random numbers (ranges in {…} formulas, random text selection) draw from a copy of the game's
// PRNG, so View never changes the game and gives the same result every time.
func (q *Quest) View(s State, p Player) (View, error) {
	return q.ViewWith(s, p, Options{})
}

// ViewWith is View under options o (see [Options]); only DescribedText changes what it shows.
func (q *Quest) ViewWith(s State, p Player, o Options) (_ View, err error) {
	defer recoverFormula(&err)
	if err := q.check(&s); err != nil {
		return View{}, err
	}
	var buf [8]choiceRef
	refs, err := q.choiceList(&s, buf[:0])
	if err != nil {
		return View{}, err
	}
	rnd := alea.FromState(s.Alea)
	t := substituter{q: q, params: s.Params, shown: s.Shown, rnd: rnd, player: p, days: s.Days}
	v := View{Image: s.Image, Track: resetTrack(s.Track), Sound: s.Sound}
	if k := q.lastJump(&s); k >= 0 && s.Phase != PhaseStarting && s.Phase != PhaseReturnedEnding {
		v.JumpImage = q.jumps[k].media.image
	}

	// The main text, in the phase's way.
	var text *text
	switch s.Phase {
	case PhaseStarting:
		text = q.taskText
		v.Image, v.Track, v.Sound = "", "", ""
	case PhaseReturnedEnding:
		text = q.successText
		v.Image, v.Track, v.Sound = "", "", ""
		v.Status = Win
	case PhaseJump, PhaseJumpAndNextCrit:
		text = q.jumps[q.lastJump(&s)].tdesc
	case PhaseLocation, PhaseCritOnLocation:
		li, _ := q.location(s.LocationID)
		l := &q.locs[li]
		ti, err := textIndex(l, &s, rnd)
		if err != nil {
			return View{}, err
		}
		text = emptyText
		if ti >= 0 && ti < len(l.ttexts) {
			text = l.ttexts[ti]
			v.LocationImage = l.media[ti].image
		}
		if l.empty {
			if k := q.lastJump(&s); k >= 0 && q.jumps[k].desc != "" {
				if o.DescribedText && text != emptyText && l.texts[ti] != "" {
					// The description, then the location's own text.
					desc, err := t.render(q.jumps[k].tdesc)
					if err != nil {
						return View{}, err
					}
					own, err := t.render(text)
					if err != nil {
						return View{}, err
					}
					v.Text, text = desc+"\n\n"+own, nil
				} else {
					text = q.jumps[k].tdesc
				}
			}
		}
		switch {
		case l.deadly:
			v.Status = Dead
		case l.fail:
			v.Status = Fail
		}
	case PhaseCritOnJump, PhaseCritOnLocationLastMessage:
		c := s.CritParam
		var ch *change
		if s.Phase == PhaseCritOnJump {
			k := q.lastJump(&s)
			if k < 0 {
				return View{}, fmt.Errorf("%w: no last jump %d", ErrBadState, s.LastJumpID)
			}
			ch = findChange(q.jumps[k].changes.list, c)
		} else {
			li, ok := q.location(s.LocationID)
			if !ok {
				return View{}, fmt.Errorf("%w: no location %d", ErrBadState, s.LocationID)
			}
			ch = findChange(q.locs[li].changes.list, c)
		}
		text = q.params[c].critText
		if ch != nil && ch.critText.src != "" {
			text = ch.critText
		}
		switch q.params[c].typ {
		case qmm.ParamWin:
			v.Status = Running
		case qmm.ParamFail:
			v.Status = Fail
		default:
			v.Status = Dead
		}
	}
	if text != nil {
		if v.Text, err = t.render(text); err != nil {
			return View{}, err
		}
	}

	// The parameters (none before the start and after the win).
	if s.Phase != PhaseStarting && s.Phase != PhaseReturnedEnding {
		if v.Params, err = t.paramsState(); err != nil {
			return View{}, err
		}
	}

	// The choices.
	builtin := &textsEng
	if p.Lang == Russian {
		builtin = &textsRus
	}
	v.Choices = make([]Choice, len(refs))
	for i, r := range refs {
		c := Choice{JumpID: r.id, Active: r.active}
		switch {
		case r.jump >= 0:
			if c.Text, err = t.render(q.jumps[r.jump].ttext); err != nil {
				return View{}, err
			}
			if c.Text == "" {
				c.Text = builtin[1]
			}
		case r.id == JumpIAgree:
			c.Text = builtin[0]
		case r.id == JumpNext:
			c.Text = builtin[1]
		default:
			c.Text = builtin[2]
		}
		v.Choices[i] = c
	}
	return v, nil
}

// paramsState builds the display strings of the shown parameters: for each active, shown
// parameter whose value is non-zero (or shown when zero), the first display range holding the
// value, with "<>" standing for the value.
func (t *substituter) paramsState() ([]string, error) {
	out := make([]string, 0, 8)
	shown := t.shown
	for i := range t.q.params {
		p := &t.q.params[i]
		if !shown[i] || !p.active {
			continue
		}
		val := t.params[i]
		if val == 0 && !p.showWhenZero {
			continue
		}
		for _, r := range p.ranges {
			if val >= r.from && val <= r.to {
				str, err := t.render(r.text)
				if err != nil {
					return nil, err
				}
				out = append(out, str)
				break
			}
		}
	}
	return out, nil
}
