package sessions

import (
	"slices"
	"strconv"
	"time"
)

// QuestStatus is the stage of a quest session.
type QuestStatus uint8

// The stages of a quest session.
const (
	// QuestOpen: players are joining; the deadline is when joining ends.
	QuestOpen QuestStatus = iota
	// QuestPlaying: the players exchange blocks round by round; the deadline is when the round
	// ends, set by its first block.
	QuestPlaying
	// QuestEnded: a player left or missed a round, or nobody joined in time; the players still
	// in their games play the bot, and are told why when they next reach a multiplayer jump (at
	// once, when a player quit: Quit).
	QuestEnded
)

var questStatusNames = [...]string{QuestOpen: "open", QuestPlaying: "playing", QuestEnded: "ended"}

// String returns the stored name of the status: open, playing or ended.
func (s QuestStatus) String() string {
	if int(s) < len(questStatusNames) {
		return questStatusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// ParseQuestStatus reads a stored status name.
func ParseQuestStatus(name string) (QuestStatus, bool) {
	i := slices.Index(questStatusNames[:], name)
	return QuestStatus(max(i, 0)), i >= 0
}

// EndReason is why a quest session ended.
type EndReason string

// The reasons a quest session ends.
const (
	// ReasonAlone: the joining deadline passed with fewer players than the minimum.
	ReasonAlone EndReason = "alone"
	// ReasonTimeout: a player missed a round's deadline.
	ReasonTimeout EndReason = "timeout"
	// ReasonLeft: a player's game ended, was cancelled or replaced while the session was played.
	ReasonLeft EndReason = "left"
)

// Type is a session type: how the players of a quest are grouped and what they exchange.
// Parameter numbers are those of the quest's formulas ([p1] is 1).
type Type struct {
	ID       int
	Min, Max int
	// Index is the parameter that receives the player's number (0 against the bot).
	Index int
	// Start and Count are the player's outgoing block: Count parameters from Start.
	Start, Count int
}

// Fits reports whether a quest with n parameters has every parameter the type uses.
func (t Type) Fits(n int) bool {
	return t.Index <= n && t.Start-1+t.Count <= n && t.Start-1+t.Count*(t.Max+1) <= n
}

// Fallback is what a player who plays the bot gets at a barrier: the index parameter and every
// per-player slot 0.
func (t Type) Fallback() Values {
	v := Values{t.Index - 1: 0}
	for k := 1; k <= t.Max; k++ {
		for i := range t.Count {
			v[t.Start-1+t.Count*k+i] = 0
		}
	}
	return v
}

// exchange is what every player gets when a round completes: each player's block in its slots.
func (t Type) exchange(blocks map[int][]int) Values {
	v := Values{}
	for k, vals := range blocks {
		for i, x := range vals {
			if i < t.Count {
				v[t.Start-1+t.Count*k+i] = x
			}
		}
	}
	return v
}

// Values are parameter values to write, by 0-based parameter index.
type Values map[int]int

// Member is a player's game as the sessions know it.
type Member struct {
	Service int
	User    int64
	// Chat is where the player's messages go.
	Chat int64
	// Game identifies the game from its launch to its end: a session holds games, not users, so
	// a user's next game is never taken for the one that joined.
	Game int64
	// Name is what <k> stands for in the other players' texts.
	Name string
	// Lang is the language of the player's notices.
	Lang string
}

// QuestPlayer is a player of a quest session.
type QuestPlayer struct {
	Member
	// Num is the player's number: 1, 2, … in joining order, renumbered while the session is open
	// when a player leaves.
	Num int
	// Waiting: parked at a !session or !wait jump until the session starts or the round
	// completes. Once the session has ended (its waiting players leave it as it ends), it marks
	// instead a player already told why it ended (Quit), who is not told again (consume).
	Waiting bool
	// Gone: the player's game is over (ended, cancelled or replaced); Settle takes it out.
	Gone bool
}

// QuestSession is one session of a quest in a bot.
type QuestSession struct {
	// ID is 0 until the session is stored.
	ID      int64
	Service int
	Type    Type
	// Quest is the common name of the quest.
	Quest   string
	Sandbox bool
	Status  QuestStatus
	// Round is the round being played, 1 for the first.
	Round int
	// Deadline is when joining or the round ends; zero when nothing waits.
	Deadline time.Time
	// Reason and EndedBy say why an ended session ended and which players caused it.
	Reason  EndReason
	EndedBy string
	EndedAt time.Time
	// Players are ordered by number.
	Players []QuestPlayer
	// Blocks are the blocks posted in the current round, by player number.
	Blocks map[int][]int
}

// QuestOutcome is what a player at a multiplayer jump does now.
type QuestOutcome struct {
	// Proceed: write Set into the parameters and take the jump. Otherwise the player waits.
	Proceed bool
	Set     Values
	// Seed, when not empty, reseeds the game's random generator before the jump.
	Seed string
	// Notice, when set, is to be told the player first: why they now play the bot.
	Notice *Notice
	// Wait is what the player waits for, when not Proceed.
	Wait *Waiting
	// Resume are other players' games that move on now, each through the jump it waits at.
	Resume []Resume
}

// Notice tells a player why they now play the bot.
type Notice struct {
	Reason EndReason
	// By names the players who caused it.
	By string
	// Self: the player themself missed the round.
	Self bool
}

// Resume is a waiting player's game to move on: write Set into its parameters, reseed with Seed
// when set, and take the multiplayer jump it waits at, of kind Kind.
type Resume struct {
	Member
	Kind Kind
	// Ref names the waiting screen the player was shown (Waiting.Ref), to be removed.
	Ref    string
	Set    Values
	Seed   string
	Notice *Notice
	// Tell: the player does not wait, and only the Notice is for now: it goes on against the bot
	// when it next reaches a multiplayer jump (Quit).
	Tell bool
}

// Waiting is what a waiting player waits for.
type Waiting struct {
	Kind Kind
	// Ref names the waiting screen, so that it can be removed when the wait ends; the same for
	// every showing of one wait.
	Ref string
	// Joined are the players in the session so far, and Need the most it takes (Join).
	Joined []string
	Need   int
	// For are the players who have not posted their blocks yet (Barrier).
	For []string
	// Deadline is when the wait ends at the latest.
	Deadline time.Time
}

// NewQuestSession returns an open session of a quest, not yet stored, whose joining ends at
// deadline.
func NewQuestSession(service int, t Type, quest string, sandbox bool, deadline time.Time) *QuestSession {
	return &QuestSession{Service: service, Type: t, Quest: quest, Sandbox: sandbox, Status: QuestOpen, Round: 1,
		Deadline: deadline, Blocks: map[int][]int{}}
}

// waitRef is the message ref of a game's waiting screen: round 0 is the wait for the start.
func waitRef(game, session int64, round int) string {
	return "mpw:" + strconv.FormatInt(game, 36) + ":" + strconv.FormatInt(session, 36) + ":" + strconv.Itoa(round)
}

// roundSeed is the random seed all players of a session share after a round.
func roundSeed(session int64, round int) string {
	return "session " + strconv.FormatInt(session, 10) + " round " + strconv.Itoa(round)
}

// Player returns the player of a game, nil when the game is not in the session.
func (s *QuestSession) Player(game int64) *QuestPlayer {
	for i := range s.Players {
		if s.Players[i].Game == game {
			return &s.Players[i]
		}
	}
	return nil
}

// Full reports whether the session has its maximum of players.
func (s *QuestSession) Full() bool { return len(s.Players) >= s.Type.Max }

// Names returns the players' names by number (<1> is Names()[0]). Once the session has ended,
// they are the names of the players still seated in it, who have not reached a multiplayer jump
// since, so that their screens until then, which are of the rounds played with the others, name
// those players: a seat whose player left is named by EndedBy when it is the only empty one (a
// session being played ends as its first player leaves, its game over or replaced; so the winner
// of a last round whose opponent went on first still sees the opponent), any other empty seat
// (its player went on against the bot) is "". Nil once nobody is seated.
func (s *QuestSession) Names() []string {
	if s.Status != QuestEnded {
		names := make([]string, len(s.Players))
		for i, p := range s.Players {
			names[i] = p.Name
		}
		return names
	}
	if len(s.Players) == 0 {
		return nil
	}
	// Players are ordered by number; a session played had at least the type's minimum.
	names := make([]string, max(s.Type.Min, s.Players[len(s.Players)-1].Num))
	for _, p := range s.Players {
		names[p.Num-1] = p.Name
	}
	if s.Reason == ReasonLeft {
		empty := -1
		for i, n := range names {
			if n == "" {
				if empty >= 0 {
					return names
				}
				empty = i
			}
		}
		if empty >= 0 {
			names[empty] = s.EndedBy
		}
	}
	return names
}

// Rejoin is a game already in the session at a "!session" jump (its screen shown again): it waits
// while the session is open, proceeds with its number once it plays, and once it has ended
// proceeds against the bot, told why, and leaves it.
func (s *QuestSession) Rejoin(game int64) QuestOutcome {
	p := s.Player(game)
	switch {
	case p == nil:
		return QuestOutcome{Proceed: true, Set: Values{s.Type.Index - 1: 0}}
	case s.Status == QuestOpen:
		return QuestOutcome{Wait: s.Waiting(game)}
	case s.Status == QuestPlaying:
		return QuestOutcome{Proceed: true, Set: Values{s.Type.Index - 1: p.Num}}
	}
	return s.consume(p, Join)
}

// Add seats a game in an open session with room. The player waits, unless it fills the session,
// which then starts: the player proceeds with its number, the others through QuestOutcome.Resume.
func (s *QuestSession) Add(me Member) QuestOutcome {
	num := len(s.Players) + 1
	s.Players = append(s.Players, QuestPlayer{Member: me, Num: num, Waiting: true})
	if !s.Full() {
		return QuestOutcome{Wait: s.Waiting(me.Game)}
	}
	rs := s.start(me.Game)
	return QuestOutcome{Proceed: true, Set: Values{s.Type.Index - 1: num}, Resume: rs}
}

// start starts an open session: its waiting players proceed with their numbers, except game (the
// player who filled it, who proceeds by itself).
func (s *QuestSession) start(game int64) []Resume {
	var rs []Resume
	for i := range s.Players {
		p := &s.Players[i]
		if p.Game != game {
			rs = append(rs, Resume{Member: p.Member, Kind: Join, Ref: waitRef(p.Game, s.ID, 0),
				Set: Values{s.Type.Index - 1: p.Num}})
		}
		p.Waiting = false
	}
	s.Status, s.Round, s.Deadline = QuestPlaying, 1, time.Time{}
	return rs
}

// Post is a game of the session at a "!wait" jump: it posts the game's outgoing block, taken
// from params (the game's parameter values), for the current round, whose clock starts with its
// first block (now + timeout). When every player has posted, everyone proceeds with all blocks in
// their slots (the others through QuestOutcome.Resume); otherwise the player waits. Posting again in
// the same round changes nothing. In an ended session the player proceeds against the bot, told
// why; in one still open (a quest that waits before it joins) it plays the bot and leaves.
func (s *QuestSession) Post(game int64, params []int, now time.Time, timeout time.Duration) QuestOutcome {
	p := s.Player(game)
	switch {
	case p == nil:
		return QuestOutcome{Proceed: true, Set: s.Type.Fallback()}
	case s.Status == QuestEnded:
		return s.consume(p, Barrier)
	case s.Status == QuestOpen, len(params) < s.Type.Start-1+s.Type.Count:
		rs := s.Leave(game, now)
		return QuestOutcome{Proceed: true, Set: s.Type.Fallback(), Resume: rs}
	}
	if _, posted := s.Blocks[p.Num]; !posted {
		block := make([]int, s.Type.Count)
		copy(block, params[s.Type.Start-1:])
		if s.Blocks == nil {
			s.Blocks = map[int][]int{}
		}
		s.Blocks[p.Num] = block
		if s.Deadline.IsZero() {
			s.Deadline = now.Add(timeout)
		}
	}
	if len(s.Blocks) < len(s.Players) {
		p.Waiting = true
		return QuestOutcome{Wait: s.Waiting(game)}
	}
	// The round is complete: everybody gets every block.
	set := s.Type.exchange(s.Blocks)
	seed := roundSeed(s.ID, s.Round)
	out := QuestOutcome{Proceed: true, Set: set, Seed: seed}
	for i := range s.Players {
		o := &s.Players[i]
		if o.Game != game && o.Waiting {
			out.Resume = append(out.Resume, Resume{Member: o.Member, Kind: Barrier, Ref: waitRef(o.Game, s.ID, s.Round),
				Set: set, Seed: seed})
		}
		o.Waiting = false
	}
	s.Round++
	s.Deadline = time.Time{}
	s.Blocks = map[int][]int{}
	return out
}

// Leave takes a game out of the session: from an open one it just leaves (the later players move
// up a number); a session being played ends, its waiting players going on against the bot; from
// an ended one it is forgotten. It returns the players to resume.
func (s *QuestSession) Leave(game int64, now time.Time) []Resume {
	p := s.Player(game)
	if p == nil {
		return nil
	}
	num, name := p.Num, p.Name
	s.remove(game)
	switch s.Status {
	case QuestOpen:
		for i := range s.Players {
			if s.Players[i].Num > num {
				s.Players[i].Num--
			}
		}
		// A block of a player still joining cannot exist: blocks are posted only while playing.
	case QuestPlaying:
		delete(s.Blocks, num)
		return s.end(ReasonLeft, name, now)
	}
	return nil
}

// Quit is a game leaving its session on purpose (its player cancelled it or started another
// quest): it leaves as Leave says, and when that ends the session, the players still seated, who
// do not wait, are told at once (a Resume that only tells, Resume.Tell) that the bot takes the
// seat; they are not told again when they next reach a multiplayer jump and go on against the
// bot. The names of their session stay (Names) for their screens until then.
func (s *QuestSession) Quit(game int64, now time.Time) []Resume {
	playing := s.Status == QuestPlaying && s.Player(game) != nil
	rs := s.Leave(game, now)
	if !playing {
		return rs
	}
	for i := range s.Players {
		p := &s.Players[i]
		if !p.Waiting {
			p.Waiting = true // told (see QuestPlayer.Waiting)
			rs = append(rs, Resume{Member: p.Member, Tell: true, Notice: &Notice{Reason: s.Reason, By: s.EndedBy}})
		}
	}
	return rs
}

// remove takes a game's player out of the list.
func (s *QuestSession) remove(game int64) {
	s.Players = slices.DeleteFunc(s.Players, func(p QuestPlayer) bool { return p.Game == game })
}

// end ends the session for reason, caused by the players named by: its waiting players proceed
// against the bot, told why, and leave it. The others are told when they next reach a multiplayer
// jump (consume).
func (s *QuestSession) end(reason EndReason, by string, now time.Time) []Resume {
	wasOpen, round := s.Status == QuestOpen, s.Round
	s.Status, s.Reason, s.EndedBy, s.EndedAt, s.Deadline = QuestEnded, reason, by, now, time.Time{}
	var rs []Resume
	var gone []int64
	for _, p := range s.Players {
		if !p.Waiting {
			continue
		}
		r := Resume{Member: p.Member, Notice: &Notice{Reason: reason, By: by}}
		if wasOpen {
			r.Kind, r.Ref, r.Set = Join, waitRef(p.Game, s.ID, 0), Values{s.Type.Index - 1: 0}
		} else {
			r.Kind, r.Ref, r.Set = Barrier, waitRef(p.Game, s.ID, round), s.Type.Fallback()
		}
		rs = append(rs, r)
		gone = append(gone, p.Game)
	}
	for _, g := range gone {
		s.remove(g)
	}
	return rs
}

// consume is a player of an ended session at a multiplayer jump: told why (unless it was told
// as the session ended, Quit), it proceeds against the bot and leaves the session.
func (s *QuestSession) consume(p *QuestPlayer, k Kind) QuestOutcome {
	out := QuestOutcome{Proceed: true, Set: s.Type.Fallback()}
	if k == Join {
		out.Set = Values{s.Type.Index - 1: 0}
	}
	if !p.Waiting { // not told yet (Quit)
		out.Notice = &Notice{Reason: s.Reason, By: s.EndedBy, Self: k == Barrier && s.Reason == ReasonTimeout}
	}
	s.remove(p.Game)
	return out
}

// Settle settles the session at now: the players whose games are over leave it (one at a time,
// as a player leaving an open session renumbers the others), then a passed deadline starts an
// open session that has its minimum or ends it, and ends a session whose round was missed. It
// returns the players to resume.
func (s *QuestSession) Settle(now time.Time) []Resume {
	var rs []Resume
	for {
		i := slices.IndexFunc(s.Players, func(p QuestPlayer) bool { return p.Gone })
		if i < 0 {
			break
		}
		rs = append(rs, s.Leave(s.Players[i].Game, now)...)
	}
	if s.Status == QuestEnded || s.Deadline.IsZero() || s.Deadline.After(now) {
		return rs
	}
	switch {
	case s.Status == QuestOpen && len(s.Players) >= s.Type.Min:
		rs = append(rs, s.start(0)...)
	case s.Status == QuestOpen:
		rs = append(rs, s.end(ReasonAlone, "", now)...)
	default:
		rs = append(rs, s.end(ReasonTimeout, joinNames(s.late()), now)...)
	}
	return rs
}

// late returns the names of the players who have not posted in the round.
func (s *QuestSession) late() []string {
	var names []string
	for _, p := range s.Players {
		if _, ok := s.Blocks[p.Num]; !ok {
			names = append(names, p.Name)
		}
	}
	return names
}

// joinNames lists names for a notice: "A, B".
func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// Waiting describes what a game of the session waits for; nil when it does not wait (it is not
// seated, not parked, or the session has ended).
func (s *QuestSession) Waiting(game int64) *Waiting {
	p := s.Player(game)
	if p == nil || s.Status == QuestEnded {
		return nil
	}
	w := &Waiting{Kind: Join, Need: s.Type.Max, Deadline: s.Deadline}
	if s.Status == QuestOpen {
		w.Ref = waitRef(game, s.ID, 0)
		for _, o := range s.Players {
			w.Joined = append(w.Joined, o.Name)
		}
		return w
	}
	if !p.Waiting {
		return nil
	}
	w.Kind, w.Ref = Barrier, waitRef(game, s.ID, s.Round)
	w.For = s.late()
	return w
}
