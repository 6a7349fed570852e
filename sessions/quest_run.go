package sessions

import (
	"context"
	"time"
)

// QuestStore keeps quest sessions for QuestSessions. An implementation works inside one
// transaction (sessions/sessionpg binds one to the caller's): every session it returns is locked
// until that transaction ends, so the rules applied to it and the Save that follows are never
// interleaved with another transaction's.
type QuestStore interface {
	// SessionOf returns the session a game is seated in, locked; nil when it is in none.
	SessionOf(ctx context.Context, game int64) (*QuestSession, error)
	// TypeOf returns a session type; nil when there is none of that id.
	TypeOf(ctx context.Context, id int) (*Type, error)
	// OtherGames returns the games of a user seated in sessions of a bot, other than game.
	OtherGames(ctx context.Context, service int, user, game int64) ([]int64, error)
	// OpenSession serialises the joins of one quest (key) until the transaction ends, and
	// returns, locked, its oldest open session that has room; nil when there is none.
	OpenSession(ctx context.Context, key JoinKey) (*QuestSession, error)
	// Save stores a session as the rules left it: a new one (ID 0) is created and gets its ID;
	// one that no player is left in is deleted.
	Save(ctx context.Context, s *QuestSession) error
}

// JoinKey names the sessions a game may join: those of one quest of one type in one bot, with
// sandbox games apart.
type JoinKey struct {
	Service int
	Type    int
	Quest   string
	Sandbox bool
}

// Quest is the quest a game plays, as its catalogue row and its file describe it.
type Quest struct {
	// Script is the catalogue row (for the log).
	Script int64
	// Type is the session type the catalogue names for it, 0 for none.
	Type int
	// Name is the quest's common name: its language versions share their sessions.
	Name string
	// Params is the quest's number of parameters: a type whose parameters the quest lacks is
	// not used.
	Params int
	// Sandbox is a developer's private run, which meets only other sandbox games.
	Sandbox bool
}

// QuestSessions applies the rules of quest sessions to the sessions of a QuestStore, with the
// time and the default timeouts it is configured with. It keeps no state: every call is
// complete inside the caller's transaction.
type QuestSessions struct {
	// Now is the clock of the deadlines; nil is time.Now.
	Now func() time.Time
	// JoinTimeout and RoundTimeout are the timeouts of the jumps that give none;
	// DefaultJoinTimeout and DefaultRoundTimeout when 0.
	JoinTimeout, RoundTimeout time.Duration
	// Misfit, when set, is told of a session type that does not fit its quest (the quest is
	// then played against the bot).
	Misfit func(script int64, t Type, params int)
}

func (m *QuestSessions) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}

func (m *QuestSessions) joinTimeout(p Point) time.Duration {
	if m.JoinTimeout > 0 {
		return p.timeout(m.JoinTimeout)
	}
	return p.timeout(DefaultJoinTimeout)
}

func (m *QuestSessions) roundTimeout(p Point) time.Duration {
	if m.RoundTimeout > 0 {
		return p.timeout(m.RoundTimeout)
	}
	return p.timeout(DefaultRoundTimeout)
}

// typeOf returns the session type of a quest that fits it, nil when it has none that fits.
func (m *QuestSessions) typeOf(ctx context.Context, st QuestStore, q Quest) (*Type, error) {
	if q.Type == 0 {
		return nil, nil
	}
	t, err := st.TypeOf(ctx, q.Type)
	if err != nil || t == nil {
		return nil, err
	}
	if !t.Fits(q.Params) {
		if m.Misfit != nil {
			m.Misfit(q.Script, *t, q.Params)
		}
		return nil, nil
	}
	return t, nil
}

// Join is a player at a "!session" jump. A game already in a session gets what its session says
// (so showing a screen again never joins twice). Otherwise the user's earlier games leave their
// sessions (a user plays one game at a time), and the game joins the oldest open session of its
// quest with room, or opens one, and waits; the player who fills a session proceeds at once, and
// so do the players who waited (QuestOutcome.Resume). A quest without a session type proceeds at once
// and sets nothing.
func (m *QuestSessions) Join(ctx context.Context, st QuestStore, me Member, q Quest, pt Point) (QuestOutcome, error) {
	s, err := st.SessionOf(ctx, me.Game)
	if err != nil {
		return QuestOutcome{}, err
	}
	if s != nil {
		out := s.Rejoin(me.Game)
		if s.Player(me.Game) != nil {
			return out, nil // waiting or playing: nothing changed
		}
		return out, st.Save(ctx, s)
	}
	t, err := m.typeOf(ctx, st, q)
	if err != nil || t == nil {
		return QuestOutcome{Proceed: true}, err
	}
	earlier, err := m.leaveEarlier(ctx, st, me)
	if err != nil {
		return QuestOutcome{}, err
	}
	s, err = st.OpenSession(ctx, JoinKey{Service: me.Service, Type: t.ID, Quest: q.Name, Sandbox: q.Sandbox})
	if err != nil {
		return QuestOutcome{}, err
	}
	if s == nil {
		s = NewQuestSession(me.Service, *t, q.Name, q.Sandbox, m.now().Add(m.joinTimeout(pt)))
		// Stored first, so that the waiting screen's ref names the session.
		if err := st.Save(ctx, s); err != nil {
			return QuestOutcome{}, err
		}
	}
	out := s.Add(me)
	if err := st.Save(ctx, s); err != nil {
		return QuestOutcome{}, err
	}
	out.Resume = append(earlier, out.Resume...)
	return out, nil
}

// leaveEarlier takes the user's earlier games out of their sessions.
func (m *QuestSessions) leaveEarlier(ctx context.Context, st QuestStore, me Member) ([]Resume, error) {
	games, err := st.OtherGames(ctx, me.Service, me.User, me.Game)
	if err != nil {
		return nil, err
	}
	var rs []Resume
	for _, g := range games {
		s, err := st.SessionOf(ctx, g)
		if err != nil {
			return nil, err
		}
		if s == nil {
			continue
		}
		rs = append(rs, s.Leave(g, m.now())...)
		if err := st.Save(ctx, s); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// Post is a player at a "!wait" jump (QuestSession.Post). A game in no session proceeds against
// the bot: with its type's fallback values, or with nothing set when its quest has no type.
func (m *QuestSessions) Post(ctx context.Context, st QuestStore, me Member, q Quest, pt Point, params []int) (QuestOutcome, error) {
	s, err := st.SessionOf(ctx, me.Game)
	if err != nil {
		return QuestOutcome{}, err
	}
	if s == nil {
		t, err := m.typeOf(ctx, st, q)
		if err != nil || t == nil {
			return QuestOutcome{Proceed: true}, err
		}
		return QuestOutcome{Proceed: true, Set: t.Fallback()}, nil
	}
	out := s.Post(me.Game, params, m.now(), m.roundTimeout(pt))
	return out, st.Save(ctx, s)
}

// Quit takes a game out of its session because its player leaves it on purpose, before the game
// is cancelled or replaced (QuestSession.Quit), and returns the players to resume or to tell; none
// when the game is in no session.
func (m *QuestSessions) Quit(ctx context.Context, st QuestStore, game int64) ([]Resume, error) {
	s, err := st.SessionOf(ctx, game)
	if err != nil || s == nil {
		return nil, err
	}
	rs := s.Quit(game, m.now())
	return rs, st.Save(ctx, s)
}

// Names returns the names of the players of a game's session by number (<1> is Names[0]); nil
// when the game is in no session or its session has ended.
func (m *QuestSessions) Names(ctx context.Context, st QuestStore, game int64) ([]string, error) {
	s, err := st.SessionOf(ctx, game)
	if err != nil || s == nil {
		return nil, err
	}
	return s.Names(), nil
}

// Waiting returns what a game waits for, nil when it does not wait.
func (m *QuestSessions) Waiting(ctx context.Context, st QuestStore, game int64) (*Waiting, error) {
	s, err := st.SessionOf(ctx, game)
	if err != nil || s == nil {
		return nil, err
	}
	return s.Waiting(game), nil
}

// Settle settles a session the caller has locked (QuestSession.Settle at the configured time)
// and saves it; it returns the players to resume.
func (m *QuestSessions) Settle(ctx context.Context, st QuestStore, s *QuestSession) ([]Resume, error) {
	rs := s.Settle(m.now())
	return rs, st.Save(ctx, s)
}
