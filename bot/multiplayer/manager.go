package multiplayer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// Config configures a Manager.
type Config struct {
	// Now is the clock of the deadlines; nil is time.Now.
	Now func() time.Time
	// Log receives the session types that do not fit their quests and the job's failures.
	Log *slog.Logger
	// JoinTimeout and RoundTimeout are the timeouts of the jumps that give none;
	// DefaultJoinTimeout and DefaultRoundTimeout unless set.
	JoinTimeout, RoundTimeout time.Duration
}

// Manager keeps the sessions of multiplayer quests in the database; safe for concurrent use.
// Its methods take the transaction of the update (or of the timer job) they are part of.
type Manager struct {
	now          func() time.Time
	log          *slog.Logger
	joinTimeout  time.Duration
	roundTimeout time.Duration
}

// New returns a Manager.
func New(cfg Config) *Manager {
	m := &Manager{now: cfg.Now, log: cfg.Log, joinTimeout: cfg.JoinTimeout, roundTimeout: cfg.RoundTimeout}
	if m.now == nil {
		m.now = time.Now
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.joinTimeout <= 0 {
		m.joinTimeout = DefaultJoinTimeout
	}
	if m.roundTimeout <= 0 {
		m.roundTimeout = DefaultRoundTimeout
	}
	return m
}

// Member is a player's game as the sessions know it.
type Member struct {
	Service int
	User    int64
	// Chat is where the player's messages go.
	Chat int64
	// Game is the game's id (game.game_id): a session holds games, not users, so a user's next
	// game is never taken for the one that joined.
	Game int64
	// Name is what <k> stands for in the other players' texts.
	Name string
	// Lang is the language of the player's notices ("en" or "ru").
	Lang string
}

// Quest is the quest a game plays: its script, which names the session type, and its number of
// parameters (a type whose parameters the quest lacks is not used).
type Quest struct {
	Script int64
	Params int
	// Sandbox is a developer's private run (no credits, no statistics, parameters changed at
	// will with /set): it meets only other sandbox games, never a counted game it could skew.
	Sandbox bool
}

// Values are parameter values to write, by 0-based parameter index.
type Values map[int]int

// Outcome is what a player at a multiplayer jump does now.
type Outcome struct {
	// Proceed: write Set into the parameters and take the jump. Otherwise the player waits.
	Proceed bool
	Set     Values
	// Seed, when not empty, reseeds the game's random generator before the jump: every player
	// of a completed round gets the same, so that the random choices the quest makes on the
	// exchanged values (a round's result) come out the same in all their games.
	Seed string
	// Notice, when not empty, is to be told the player first (why they now play the bot).
	Notice string
	// Wait is what the player waits for, when not Proceed.
	Wait *Waiting
	// Resume are other players' games that move on now, each through the jump it waits at.
	Resume []Resume
}

// Resume is a waiting player's game to move on: write Set into its parameters and take the
// multiplayer jump it waits at.
type Resume struct {
	Member
	// Kind is the kind of jump the game waits at.
	Kind Kind
	// Ref names the waiting message the player was shown (see Waiting.Ref), to be removed.
	Ref    string
	Set    Values
	Seed   string
	Notice string
}

// Waiting is what a waiting player waits for.
type Waiting struct {
	Kind Kind
	// Ref is the message ref (bot.Request.Ref) to show the waiting screen under, so that it can
	// be removed when the wait ends. It is the same for every showing of one wait.
	Ref string
	// Joined are the players in the session so far, in order, and Need the most it takes
	// (Join).
	Joined []string
	Need   int
	// For are the players who have not posted their blocks yet (Barrier).
	For []string
	// Deadline is when the wait ends at the latest.
	Deadline time.Time
}

// sessionType is a session_type row, with the common name of the quest it is used for.
type sessionType struct {
	id, min, max        int
	index, start, count int // 1-based parameter numbers and the block size
	quest               string
}

// fits reports whether a quest with n parameters has every parameter the type uses.
func (t *sessionType) fits(n int) bool {
	return t.index <= n && t.start-1+t.count <= n && t.start-1+t.count*(t.max+1) <= n
}

// fallback is what a player who plays the bot gets at a barrier: the index parameter and every
// per-player slot 0.
func (t *sessionType) fallback() Values {
	v := Values{t.index - 1: 0}
	for k := 1; k <= t.max; k++ {
		for i := range t.count {
			v[t.start-1+t.count*k+i] = 0
		}
	}
	return v
}

// exchange is what every player gets when a round completes: each player's block in its slots.
func (t *sessionType) exchange(blocks map[int][]int32) Values {
	v := Values{}
	for k, vals := range blocks {
		for i, x := range vals {
			if i < t.count {
				v[t.start-1+t.count*k+i] = int(x)
			}
		}
	}
	return v
}

// session is a quest_session row, read under its lock.
type session struct {
	id       int64
	service  int
	state    string // open, playing, ended
	round    int
	players  int
	deadline *time.Time
	reason   *string
	by       *string
	t        sessionType
}

// player is a quest_session_player row.
type player struct {
	Member
	num     int
	waiting bool
}

// Session states.
const (
	stateOpen    = "open"
	statePlaying = "playing"
	stateEnded   = "ended"
)

// Why sessions end.
const (
	reasonAlone   = "alone"
	reasonTimeout = "timeout"
	reasonLeft    = "left"
)

// joinLockSpace is the first key of the advisory locks that serialise the joins of a quest.
const joinLockSpace = 0x6d70 // "mp"

// waitRef is the message ref of the waiting screen of a game in a session: round 0 is the wait
// for the session to start.
func waitRef(game, session int64, round int) string {
	return "mpw:" + strconv.FormatInt(game, 36) + ":" + strconv.FormatInt(session, 36) + ":" + strconv.Itoa(round)
}

const lockSessionSQL = `
	SELECT s.id, s.service_id, s.state, s.round, s.players, s.deadline, s.end_reason, s.ended_by,
	       t.id, t.min_players, t.max_players, t.index_param, t.start_param, t.param_count, s.quest
	FROM quest_session s JOIN session_type t ON t.id = s.type_id
	WHERE s.id = $1 FOR UPDATE OF s`

// lockSession reads a session and locks it for the transaction; nil when it does not exist (or,
// with skipLocked, when another transaction holds it).
func lockSession(ctx context.Context, db pgx.Tx, id int64, skipLocked bool) (*session, error) {
	q := lockSessionSQL
	if skipLocked {
		q += " SKIP LOCKED"
	}
	var s session
	err := db.QueryRow(ctx, q, id).Scan(&s.id, &s.service, &s.state, &s.round, &s.players, &s.deadline, &s.reason, &s.by,
		&s.t.id, &s.t.min, &s.t.max, &s.t.index, &s.t.start, &s.t.count, &s.t.quest)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("multiplayer: lock session %d: %w", id, err)
	}
	return &s, nil
}

// seat returns a game's session, locked, and the game's player row; nil when the game is in no
// session.
func seat(ctx context.Context, db pgx.Tx, game int64) (*session, *player, error) {
	var id int64
	err := db.QueryRow(ctx, `SELECT session_id FROM quest_session_player WHERE game_id = $1`, game).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("multiplayer: seat: %w", err)
	}
	s, err := lockSession(ctx, db, id, false)
	if err != nil || s == nil {
		return nil, nil, err
	}
	// Read the player again under the session's lock: whoever held it may have moved it.
	ps, err := players(ctx, db, s.id)
	if err != nil {
		return nil, nil, err
	}
	for i := range ps {
		if ps[i].Game == game {
			return s, &ps[i], nil
		}
	}
	return nil, nil, nil
}

// players returns the players of a session by number.
func players(ctx context.Context, db pgx.Tx, session int64) ([]player, error) {
	rows, err := db.Query(ctx, `
		SELECT game_id, num, service_id, user_id, chat_id, name, lang, waiting
		FROM quest_session_player WHERE session_id = $1 ORDER BY num`, session)
	if err != nil {
		return nil, fmt.Errorf("multiplayer: players: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (player, error) {
		var p player
		err := r.Scan(&p.Game, &p.num, &p.Service, &p.User, &p.Chat, &p.Name, &p.Lang, &p.waiting)
		return p, err
	})
}

// typeOf returns the session type of a quest's script, nil when it has none or none that fits
// the quest.
func (m *Manager) typeOf(ctx context.Context, db pgx.Tx, q Quest) (*sessionType, error) {
	var t sessionType
	err := db.QueryRow(ctx, `
		SELECT t.id, t.min_players, t.max_players, t.index_param, t.start_param, t.param_count, s.common_name
		FROM script s JOIN session_type t ON t.id = s.session_type_id WHERE s.id = $1`, q.Script).
		Scan(&t.id, &t.min, &t.max, &t.index, &t.start, &t.count, &t.quest)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("multiplayer: session type: %w", err)
	}
	if !t.fits(q.Params) {
		m.log.Error("session type does not fit the quest: the quest is played against the bot",
			slog.Int64("script", q.Script), slog.Int("type", t.id), slog.Int("params", q.Params))
		return nil, nil
	}
	return &t, nil
}

// Join is a player at a "!session" jump. A game already in a session gets what its session
// says (so showing a screen again never joins twice): it waits while the session is open, and
// proceeds with its number once it plays, or with 0 once it has ended. Otherwise the game joins
// the oldest open session of its quest with room, or opens one, and waits; the player who fills
// a session proceeds at once, and so do the players who waited (Outcome.Resume). A quest without
// a session type proceeds at once and sets nothing.
func (m *Manager) Join(ctx context.Context, db pgx.Tx, me Member, q Quest, pt Point) (Outcome, error) {
	s, p, err := seat(ctx, db, me.Game)
	if err != nil {
		return Outcome{}, err
	}
	if s != nil {
		switch s.state {
		case stateOpen:
			w, err := waitingOf(ctx, db, s, me.Game)
			return Outcome{Wait: w}, err
		case statePlaying:
			return Outcome{Proceed: true, Set: Values{s.t.index - 1: p.num}}, nil
		}
		return m.consume(ctx, db, s, p, Join)
	}
	t, err := m.typeOf(ctx, db, q)
	if err != nil || t == nil {
		return Outcome{Proceed: true}, err
	}
	var out Outcome
	// The user's earlier games leave their sessions: a user plays one game at a time.
	if out.Resume, err = m.leaveEarlier(ctx, db, me); err != nil {
		return Outcome{}, err
	}
	key := strconv.Itoa(me.Service) + "/" + strconv.Itoa(t.id) + "/" + strconv.FormatBool(q.Sandbox) + "/" + t.quest
	if _, err := db.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, joinLockSpace, key); err != nil {
		return Outcome{}, fmt.Errorf("multiplayer: join: %w", err)
	}
	var id int64
	err = db.QueryRow(ctx, `
		SELECT id FROM quest_session
		WHERE service_id = $1 AND type_id = $2 AND quest = $3 AND sandbox = $4 AND state = 'open' AND players < max_players
		ORDER BY id LIMIT 1 FOR UPDATE`, me.Service, t.id, t.quest, q.Sandbox).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		err = db.QueryRow(ctx, `
			INSERT INTO quest_session (service_id, type_id, quest, sandbox, max_players, deadline)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			me.Service, t.id, t.quest, q.Sandbox, t.max, m.now().Add(pt.timeout(m.joinTimeout))).Scan(&id)
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("multiplayer: join: %w", err)
	}
	var num int
	err = db.QueryRow(ctx, `UPDATE quest_session SET players = players + 1 WHERE id = $1 RETURNING players`, id).Scan(&num)
	if err != nil {
		return Outcome{}, fmt.Errorf("multiplayer: join: %w", err)
	}
	if _, err := db.Exec(ctx, `
		INSERT INTO quest_session_player (game_id, session_id, num, service_id, user_id, chat_id, name, lang, waiting)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, true)`,
		me.Game, id, num, me.Service, me.User, me.Chat, me.Name, me.Lang); err != nil {
		return Outcome{}, fmt.Errorf("multiplayer: join: %w", err)
	}
	s, err = lockSession(ctx, db, id, false)
	if err != nil {
		return Outcome{}, err
	}
	if num < t.max {
		out.Wait, err = waitingOf(ctx, db, s, me.Game)
		return out, err
	}
	rs, err := start(ctx, db, s, me.Game)
	if err != nil {
		return Outcome{}, err
	}
	out.Proceed, out.Set, out.Resume = true, Values{t.index - 1: num}, append(out.Resume, rs...)
	return out, nil
}

// Post is a player at a "!wait" jump: it posts the player's outgoing block (taken from params,
// the game's parameter values) for the session's round. When every player has posted, everyone
// proceeds with all blocks in their slots (the others through Outcome.Resume); otherwise the
// player waits. Posting again in the same round (showing the screen again) changes nothing. A
// game in no session, or in one that has ended, proceeds against the bot (see the package doc).
func (m *Manager) Post(ctx context.Context, db pgx.Tx, me Member, q Quest, pt Point, params []int) (Outcome, error) {
	s, p, err := seat(ctx, db, me.Game)
	if err != nil {
		return Outcome{}, err
	}
	if s == nil {
		t, err := m.typeOf(ctx, db, q)
		if err != nil || t == nil {
			return Outcome{Proceed: true}, err
		}
		return Outcome{Proceed: true, Set: t.fallback()}, nil
	}
	switch {
	case s.state == stateEnded:
		return m.consume(ctx, db, s, p, Barrier)
	case s.state == stateOpen, len(params) < s.t.start-1+s.t.count:
		// A barrier before the session started (a quest that waits before it joins) plays the
		// bot, and the game leaves the session it was joining.
		rs, err := m.leave(ctx, db, s, p)
		return Outcome{Proceed: true, Set: s.t.fallback(), Resume: rs}, err
	}
	block := make([]int32, s.t.count)
	for i := range block {
		block[i] = int32(params[s.t.start-1+i])
	}
	tag, err := db.Exec(ctx, `INSERT INTO quest_session_block (session_id, round, num, vals) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING`, s.id, s.round, p.num, block)
	if err != nil {
		return Outcome{}, fmt.Errorf("multiplayer: post: %w", err)
	}
	if tag.RowsAffected() == 1 && s.deadline == nil {
		// The round's first block starts its clock.
		d := m.now().Add(pt.timeout(m.roundTimeout))
		if _, err := db.Exec(ctx, `UPDATE quest_session SET deadline = $2 WHERE id = $1`, s.id, d); err != nil {
			return Outcome{}, fmt.Errorf("multiplayer: post: %w", err)
		}
		s.deadline = &d
	}
	ps, blocks, err := roundBlocks(ctx, db, s)
	if err != nil {
		return Outcome{}, err
	}
	if len(blocks) < len(ps) {
		if _, err := db.Exec(ctx, `UPDATE quest_session_player SET waiting = true WHERE game_id = $1`, me.Game); err != nil {
			return Outcome{}, fmt.Errorf("multiplayer: post: %w", err)
		}
		w, err := waitingOf(ctx, db, s, me.Game)
		return Outcome{Wait: w}, err
	}
	// The round is complete: everybody gets every block.
	set := s.t.exchange(blocks)
	seed := roundSeed(s.id, s.round)
	out := Outcome{Proceed: true, Set: set, Seed: seed}
	for _, o := range ps {
		if o.Game != me.Game && o.waiting {
			out.Resume = append(out.Resume, Resume{Member: o.Member, Kind: Barrier, Ref: waitRef(o.Game, s.id, s.round),
				Set: set, Seed: seed})
		}
	}
	b := &pgx.Batch{}
	b.Queue(`UPDATE quest_session SET round = round + 1, deadline = NULL WHERE id = $1`, s.id)
	b.Queue(`UPDATE quest_session_player SET waiting = false WHERE session_id = $1 AND waiting`, s.id)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return Outcome{}, fmt.Errorf("multiplayer: post: %w", err)
	}
	return out, nil
}

// roundSeed is the random seed all players of a session share after a round.
func roundSeed(session int64, round int) string {
	return "session " + strconv.FormatInt(session, 10) + " round " + strconv.Itoa(round)
}

// roundBlocks returns the players of a session and the blocks posted in its round, by number.
func roundBlocks(ctx context.Context, db pgx.Tx, s *session) ([]player, map[int][]int32, error) {
	ps, err := players(ctx, db, s.id)
	if err != nil {
		return nil, nil, err
	}
	rows, err := db.Query(ctx, `SELECT num, vals FROM quest_session_block WHERE session_id = $1 AND round = $2`, s.id, s.round)
	if err != nil {
		return nil, nil, fmt.Errorf("multiplayer: blocks: %w", err)
	}
	blocks := map[int][]int32{}
	var num int
	var vals []int32
	_, err = pgx.ForEachRow(rows, []any{&num, &vals}, func() error {
		blocks[num] = vals
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("multiplayer: blocks: %w", err)
	}
	// Blocks of players no longer in the session do not count.
	in := map[int]bool{}
	for _, p := range ps {
		in[p.num] = true
	}
	for n := range blocks {
		if !in[n] {
			delete(blocks, n)
		}
	}
	return ps, blocks, nil
}

// waitingOf describes what a player of a session waits for.
func waitingOf(ctx context.Context, db pgx.Tx, s *session, game int64) (*Waiting, error) {
	w := &Waiting{Kind: Join, Need: s.t.max}
	if s.deadline != nil {
		w.Deadline = *s.deadline
	}
	if s.state == stateOpen {
		w.Ref = waitRef(game, s.id, 0)
		ps, err := players(ctx, db, s.id)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			w.Joined = append(w.Joined, p.Name)
		}
		return w, nil
	}
	w.Kind, w.Ref = Barrier, waitRef(game, s.id, s.round)
	ps, blocks, err := roundBlocks(ctx, db, s)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if _, ok := blocks[p.num]; !ok {
			w.For = append(w.For, p.Name)
		}
	}
	return w, nil
}

// start starts an open session: its waiting players proceed with their numbers, except game
// (the player who filled it, who proceeds by itself).
func start(ctx context.Context, db pgx.Tx, s *session, game int64) ([]Resume, error) {
	ps, err := players(ctx, db, s.id)
	if err != nil {
		return nil, err
	}
	b := &pgx.Batch{}
	b.Queue(`UPDATE quest_session SET state = 'playing', round = 1, deadline = NULL WHERE id = $1`, s.id)
	b.Queue(`UPDATE quest_session_player SET waiting = false WHERE session_id = $1`, s.id)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("multiplayer: start: %w", err)
	}
	var rs []Resume
	for _, p := range ps {
		if p.Game != game {
			rs = append(rs, Resume{Member: p.Member, Kind: Join, Ref: waitRef(p.Game, s.id, 0), Set: Values{s.t.index - 1: p.num}})
		}
	}
	s.state, s.round, s.deadline = statePlaying, 1, nil
	return rs, nil
}

// end ends a session for reason, caused by the players named by: its waiting players proceed
// against the bot, told why, and leave it. The others are told when they next reach a
// multiplayer jump (consume).
func (m *Manager) end(ctx context.Context, db pgx.Tx, s *session, reason, by string) ([]Resume, error) {
	ps, err := players(ctx, db, s.id)
	if err != nil {
		return nil, err
	}
	wasOpen, round := s.state == stateOpen, s.round
	if _, err := db.Exec(ctx, `UPDATE quest_session SET state = 'ended', end_reason = $2, ended_by = $3,
		ended_at = $4, deadline = NULL WHERE id = $1`, s.id, reason, by, m.now()); err != nil {
		return nil, fmt.Errorf("multiplayer: end: %w", err)
	}
	s.state, s.reason, s.by, s.deadline = stateEnded, &reason, &by, nil
	var rs []Resume
	var gone []int64
	for _, p := range ps {
		if !p.waiting {
			continue
		}
		r := Resume{Member: p.Member, Notice: notice(p.Lang, reason, by, false)}
		if wasOpen {
			r.Kind, r.Ref, r.Set = Join, waitRef(p.Game, s.id, 0), Values{s.t.index - 1: 0}
		} else {
			r.Kind, r.Ref, r.Set = Barrier, waitRef(p.Game, s.id, round), s.t.fallback()
		}
		rs = append(rs, r)
		gone = append(gone, p.Game)
	}
	return rs, removePlayers(ctx, db, s, gone)
}

// removePlayers takes games out of a session, and deletes the session when nobody is left.
func removePlayers(ctx context.Context, db pgx.Tx, s *session, games []int64) error {
	if len(games) > 0 {
		if _, err := db.Exec(ctx, `DELETE FROM quest_session_player WHERE game_id = ANY($1)`, games); err != nil {
			return fmt.Errorf("multiplayer: remove players: %w", err)
		}
	}
	_, err := db.Exec(ctx, `DELETE FROM quest_session s WHERE id = $1
		AND NOT EXISTS (SELECT 1 FROM quest_session_player p WHERE p.session_id = s.id)`, s.id)
	if err != nil {
		return fmt.Errorf("multiplayer: remove session: %w", err)
	}
	return nil
}

// consume is a player of an ended session at a multiplayer jump: told why (once), it proceeds
// against the bot and leaves the session.
func (m *Manager) consume(ctx context.Context, db pgx.Tx, s *session, p *player, k Kind) (Outcome, error) {
	out := Outcome{Proceed: true, Set: s.t.fallback()}
	if k == Join {
		out.Set = Values{s.t.index - 1: 0}
	}
	reason, by := "", ""
	if s.reason != nil {
		reason = *s.reason
	}
	if s.by != nil {
		by = *s.by
	}
	out.Notice = notice(p.Lang, reason, by, k == Barrier && reason == reasonTimeout)
	return out, removePlayers(ctx, db, s, []int64{p.Game})
}

// leave takes a player out of a session: from an open one it just leaves (the later players
// move up a number); a session being played ends, its waiting players going on against the bot;
// from an ended one it is forgotten.
func (m *Manager) leave(ctx context.Context, db pgx.Tx, s *session, p *player) ([]Resume, error) {
	switch s.state {
	case stateOpen:
		b := &pgx.Batch{}
		b.Queue(`DELETE FROM quest_session_player WHERE game_id = $1`, p.Game)
		b.Queue(`UPDATE quest_session_player SET num = num - 1 WHERE session_id = $1 AND num > $2`, s.id, p.num)
		b.Queue(`UPDATE quest_session SET players = players - 1 WHERE id = $1`, s.id)
		if err := db.SendBatch(ctx, b).Close(); err != nil {
			return nil, fmt.Errorf("multiplayer: leave: %w", err)
		}
		s.players--
		return nil, removePlayers(ctx, db, s, nil)
	case statePlaying:
		if err := removePlayers(ctx, db, s, []int64{p.Game}); err != nil {
			return nil, err
		}
		return m.end(ctx, db, s, reasonLeft, p.Name)
	}
	return nil, removePlayers(ctx, db, s, []int64{p.Game})
}

// leaveEarlier takes the user's earlier games out of their sessions.
func (m *Manager) leaveEarlier(ctx context.Context, db pgx.Tx, me Member) ([]Resume, error) {
	rows, err := db.Query(ctx, `SELECT game_id FROM quest_session_player
		WHERE service_id = $1 AND user_id = $2 AND game_id <> $3`, me.Service, me.User, me.Game)
	if err != nil {
		return nil, fmt.Errorf("multiplayer: earlier games: %w", err)
	}
	games, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("multiplayer: earlier games: %w", err)
	}
	var rs []Resume
	for _, g := range games {
		s, p, err := seat(ctx, db, g)
		if err != nil {
			return nil, err
		}
		if s == nil {
			continue
		}
		r, err := m.leave(ctx, db, s, p)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r...)
	}
	return rs, nil
}

// Names returns the names of the players of a game's session, by number (<1> is Names[0]); nil
// when the game is in no session or its session has ended.
func (m *Manager) Names(ctx context.Context, db pgx.Tx, game int64) ([]string, error) {
	var names []string
	err := db.QueryRow(ctx, `
		SELECT array_agg(o.name ORDER BY o.num)
		FROM quest_session_player p JOIN quest_session s ON s.id = p.session_id AND s.state <> 'ended'
		JOIN quest_session_player o ON o.session_id = s.id
		WHERE p.game_id = $1`, game).Scan(&names)
	if err != nil {
		return nil, fmt.Errorf("multiplayer: names: %w", err)
	}
	return names, nil
}

// Waiting returns what a game waits for, nil when it does not wait.
func (m *Manager) Waiting(ctx context.Context, db pgx.Tx, game int64) (*Waiting, error) {
	var s session
	var waiting bool
	err := db.QueryRow(ctx, `
		SELECT s.id, s.state, s.round, s.deadline, t.max_players, p.waiting
		FROM quest_session_player p JOIN quest_session s ON s.id = p.session_id
		JOIN session_type t ON t.id = s.type_id WHERE p.game_id = $1`, game).
		Scan(&s.id, &s.state, &s.round, &s.deadline, &s.t.max, &waiting)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && (!waiting || s.state == stateEnded) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("multiplayer: waiting: %w", err)
	}
	return waitingOf(ctx, db, &s, game)
}
