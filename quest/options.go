package quest

import (
	"fmt"

	"github.com/questbot/questbot/formula/alea"
)

// Options change how a game is played and shown where the player a quest was written for
// differs from the reference. The zero value is the reference player, which the golden traces
// check: [Quest.Perform] and [Quest.View] are [Quest.PerformWith] and [Quest.ViewWith] with zero
// Options.
//
// Many quests were written for the original Telegram bot (DagazBotV3), whose own interpreter
// differs from the reference in one rule of play (TopPriority) and in what it shows of the
// locations an action walks through (DescribedText, Passed). Only TopPriority changes the game;
// the others change what is shown, never the state nor the random draws.
type Options struct {
	// TopPriority is the original bot's rule for jumps that share a text: only those of the
	// highest priority can be taken, one of them drawn by weight (uniformly, as their priorities
	// are equal). The reference keeps every jump whose priority is at least a hundredth of the
	// highest and draws among them by weight, so that a jump at priority 10 or 1 next to ones at
	// 100 is still taken now and then. The draws from the game's generator are the same in number
	// and order either way; only the jump drawn can differ.
	TopPriority bool

	// DescribedText makes a view of an empty location entered through a jump with a description
	// show the description followed by the location's own text; the reference shows only the
	// description. It changes only what ViewWith shows.
	DescribedText bool

	// Passed, when not nil, is told of each location an action passes through, in order: a
	// location entered and left at once by an automatic jump, which the reference never shows.
	// It observes only: the game's state and its random draws are the same with or without it.
	// PerformWith calls it before it returns, from the goroutine that called PerformWith.
	Passed func(Passage)
}

// Passage is a location an action passed through (see [Options.Passed]) with what is needed to
// show it: the values of the game as the location was left.
type Passage struct {
	// LocationID is the location passed through.
	LocationID int
	// JumpID is the jump that entered the location within the action, whose description (if it
	// has one) was not shown on a screen of its own; 0 when the location was entered otherwise
	// (after a description screen, or from the task).
	JumpID int
	// TextIndex is the index of the location's text selected as the location was entered.
	TextIndex int
	// Image is the image the selected text names, "" for none.
	Image string

	params []int
	shown  Flags
	days   int
	alea   [4]float64
}

// passage records the location the engine is about to leave by an automatic jump, entered
// through jump via (0 for none) with text ti selected.
func (e *engine) passage(via, ti int) Passage {
	s := e.s
	p := Passage{LocationID: s.LocationID, JumpID: via, TextIndex: ti,
		params: append([]int(nil), s.Params...), shown: append(Flags(nil), s.Shown...), days: s.Days,
		alea: e.rnd.State()}
	if li, ok := e.q.location(s.LocationID); ok && ti >= 0 && ti < len(e.q.locs[li].media) {
		p.Image = e.q.locs[li].media[ti].image
	}
	return p
}

// PassageText returns what a passage has to show: the description of the jump that entered
// the location (desc, "" when there is none or it was shown already) and the location's
// selected text (text, "" when it has none), substituted with the game's values as the
// location was left. Formulas in the texts that draw random numbers draw from a copy of the
// game's generator, as View's do.
func (q *Quest) PassageText(p Passage, pl Player) (desc, text string, err error) {
	defer recoverFormula(&err)
	li, ok := q.location(p.LocationID)
	if !ok || len(p.params) != len(q.params) || len(p.shown) != len(q.params) {
		return "", "", fmt.Errorf("%w: passage of location %d", ErrBadState, p.LocationID)
	}
	l := &q.locs[li]
	t := substituter{q: q, params: p.params, shown: p.shown, rnd: alea.FromState(p.alea), player: pl, days: p.days}
	if p.JumpID != 0 {
		if k, ok := q.jumpIndex(p.JumpID); ok && q.jumps[k].desc != "" {
			if desc, err = t.render(q.jumps[k].tdesc); err != nil {
				return "", "", err
			}
		}
	}
	if p.TextIndex >= 0 && p.TextIndex < len(l.ttexts) && l.texts[p.TextIndex] != "" {
		if text, err = t.render(l.ttexts[p.TextIndex]); err != nil {
			return "", "", err
		}
	}
	return desc, text, nil
}
