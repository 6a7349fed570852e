package quest

import (
	"errors"
	"fmt"

	"github.com/questbot/questbot/formula/alea"
)

// The moves a quest's developer makes by hand in a game of their own, which the reference
// player does not have: entering any location at once (Goto), and offering again the current
// location's choices after its parameters were changed by hand (Reoffer).

// ErrNoLocation reports a location id the quest does not have.
var ErrNoLocation = errors.New("quest: no such location")

// Goto enters location id with the state's parameters, as the starting location is entered
// when the task is accepted: the visit is counted, the location's changes are made, its choices
// offered, and automatic jumps followed, under options o. The last jump is forgotten and no
// parameter is critical before it. A location the quest does not have is an error matching
// [ErrNoLocation]; on any error the state is s, unchanged.
func (q *Quest) Goto(s State, id int, o Options) (_ State, err error) {
	defer recoverFormula(&err)
	if err := q.check(&s); err != nil {
		return s, err
	}
	if _, ok := q.location(id); !ok {
		return s, fmt.Errorf("%w: %d", ErrNoLocation, id)
	}
	e := enginePool.Get().(*engine)
	e.st = s
	e.st.Phase, e.st.LocationID, e.st.CritParam = PhaseStarting, id, NoCrit
	e.st.LastJumpID, e.st.HasLastJump, e.st.Sound = 0, false, ""
	e.rndv = *alea.FromState(s.Alea)
	e.q, e.s, e.rnd = q, &e.st, &e.rndv
	e.topPriority, e.passed = o.TopPriority, o.Passed
	err = e.perform(JumpIAgree)
	ns := e.st
	ns.Alea = e.rnd.State()
	e.release()
	if err != nil {
		return s, err
	}
	return ns, nil
}

// Reoffer offers the choices of the current location again, computed from the state's
// parameters as they are now (their conditions, order and texts as on entering it), without
// entering the location again: no visit is counted, no change made, no automatic jump taken.
// The draws it needs come from a copy of the game's generator, so the game's draws to come stay
// as they were. Outside a location's screen (PhaseLocation) there are no choices to offer, and s
// is returned as it is.
func (q *Quest) Reoffer(s State, o Options) (_ State, err error) {
	defer recoverFormula(&err)
	if err := q.check(&s); err != nil {
		return s, err
	}
	if s.Phase != PhaseLocation {
		return s, nil
	}
	li, ok := q.location(s.LocationID)
	if !ok {
		return s, fmt.Errorf("%w: no location %d", ErrBadState, s.LocationID)
	}
	e := enginePool.Get().(*engine)
	e.st = s
	e.rndv = *alea.FromState(s.Alea)
	e.q, e.s, e.rnd = q, &e.st, &e.rndv
	e.topPriority = o.TopPriority
	err = e.offer(&q.locs[li])
	ns := e.st
	e.release()
	if err != nil {
		return s, err
	}
	return ns, nil
}
