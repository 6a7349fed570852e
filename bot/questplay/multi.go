package questplay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/formula/alea"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questlog"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/sessionpg"
)

// # Multiplayer quests
//
// A jump whose text starts with "!session" or "!wait" (package sessions) is never a plain button:
// when a game's screen offers one, the game is at a multiplayer point, and the sessions say what
// happens. Either the player waits, parked at the jump: the screen shows the location with a line
// saying for whom the player waits and one button that answers the same, sent under a message
// ref so that it can be removed when the wait ends. Or the game writes the values the session
// gives into its parameters (the player's number, the blocks of a round, or zeros against the
// bot), takes the jump and goes on to its next screen, which may be another point. A point settled
// by one player can move other waiting players on: their games are read under a lock, moved
// through their jumps the same way, written and shown, all in the transaction of the update (or
// of the timer job, jobs.go) that settled the point. Every game touched by one such run is kept
// in memory until the run ends, so a game moved twice in a run is moved on its newest state.
//
// A press on a waiting game is answered with what it waits for, and a press on a multiplayer
// jump (only the waiting screen's button has one; any other is forged) never takes it. In the
// texts of a quest with multiplayer points, <1>, <2>, … are the session's players' names;
// outside a session <1> is the player and the others are the bot. A '<' in a name is shown as
// '‹', so that a name is never read as quest markup.
//
// A player who leaves a game played with others (cancels it, or starts another quest, which the
// bot asks first) leaves its session in that transaction (quitSession): the others hear of it at
// once, in a message in their chats, that the bot takes the seat; those who waited for the
// leaver go on against the bot at once, the others at their next move, without a second word.

// maxPointsPerRun bounds the multiplayer points one run settles, so that a quest whose points
// follow each other without a choice between them cannot loop for ever.
const maxPointsPerRun = 256

// mpState is what a game of a multiplayer quest shows beyond its quest state.
type mpState struct {
	// names are the session's players by number; nil outside a session.
	names []string
	// wait is what the game waits for, nil when it does not.
	wait *sessions.Waiting
	// pre are requests to send before the screen: the removal of the last waiting screen and
	// the notices.
	pre []bot.Request
}

// pointAt returns the multiplayer jump a state offers, if any.
func pointAt(c *compiled, st quest.State) (jump int, pt sessions.Point, ok bool) {
	if len(c.points) == 0 {
		return 0, pt, false
	}
	choices, err := c.Choices(st)
	if err != nil {
		return 0, pt, false
	}
	for _, ch := range choices {
		if p, found := c.points[ch.JumpID]; found && ch.Active {
			return ch.JumpID, p, true
		}
	}
	return 0, pt, false
}

// memberOf is the player of a game as the sessions know it.
func memberOf(u *bot.Update, gm *game) sessions.Member {
	service, user, chat, _ := who(u)
	return sessions.Member{Service: service, User: user, Chat: chat, Game: gm.ID, Name: gm.ranger(name(u)), Lang: gm.Script.Lang}
}

// questOf is a game's quest as the sessions know it.
func questOf(gm *game) sessions.Quest {
	return sessions.Quest{Script: gm.Script.ID, Type: gm.Script.SessionType, Name: gm.Script.CommonName,
		Params: len(gm.State.Params), Sandbox: gm.Sandbox}
}

// errGameChanged means a game's row is no longer the one a run read under its lock.
var errGameChanged = errors.New("questplay: the game changed under its lock")

// multiStep settles the multiplayer points a game reaches after a step of its player (the
// update's game, which HandleCallback then writes and shows) and moves on the other games the
// points settle. It reports retry when the game's row changed since it was read: nothing was
// done, and the press is to be judged again.
func (g *Games) multiStep(ctx context.Context, tx bot.Tx, u *bot.Update, c *compiled, gm *game, nonce int64) (retry bool, err error) {
	if len(c.points) == 0 {
		return false, nil
	}
	if _, _, at := pointAt(c, gm.State); at {
		// The point changes other rows: make sure this game's row will take the step.
		locked, err := g.store.LockRunning(ctx, tx.DB(), gm.Service, gm.User, gm.ID)
		if errors.Is(err, questpg.ErrNoGame) || err == nil && locked.Nonce != nonce {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("questplay: %w", err)
		}
	}
	r := g.newRun(tx)
	gm.mp = nil // what a remembered copy of the game showed before
	mg := &runGame{gm: gm, c: c, me: memberOf(u, gm), own: true}
	r.add(mg)
	if err := r.advance(ctx, mg); err != nil {
		return false, err
	}
	return false, r.finish(ctx)
}

// multiShow prepares a game's screen to be shown again (Retry): the names, and what it waits
// for. A game at a point that was never settled (a game from before its quest had a session
// type, say) has it settled now, and is then written and shown by the run: shown reports that.
func (g *Games) multiShow(ctx context.Context, tx bot.Tx, u *bot.Update, c *compiled, gm *game) (shown bool, err error) {
	if len(c.points) == 0 {
		return false, nil
	}
	if _, _, at := pointAt(c, gm.State); at {
		w, err := g.mp.Waiting(ctx, sessionpg.NewQuests(tx.DB()), gm.ID)
		if err != nil {
			return false, err
		}
		if w == nil {
			r := g.newRun(tx)
			mg, err := r.load(ctx, memberOf(u, gm))
			if err != nil || mg == nil {
				return false, err
			}
			if err := r.advance(ctx, mg); err != nil {
				return false, err
			}
			if err := r.finish(ctx); err != nil || mg.broken {
				return false, err
			}
			return true, nil
		}
		gm.mp = &mpState{wait: w}
	}
	return false, g.multiNames(ctx, tx, c, gm)
}

// multiNames reads the names of a game's session, and what it waits for, for its screen.
func (g *Games) multiNames(ctx context.Context, tx bot.Tx, c *compiled, gm *game) error {
	if len(c.points) == 0 {
		return nil
	}
	if gm.mp == nil {
		gm.mp = &mpState{}
	}
	st := sessionpg.NewQuests(tx.DB())
	var err error
	if gm.mp.names, err = g.mp.Names(ctx, st, gm.ID); err != nil {
		return err
	}
	if _, _, at := pointAt(c, gm.State); at && gm.mp.wait == nil {
		gm.mp.wait, err = g.mp.Waiting(ctx, st, gm.ID)
	}
	return err
}

// staleAnswer is the answer to a press that is not a choice of the game's current screen: what
// the game waits for when it waits, else that the choice is gone.
func (g *Games) staleAnswer(ctx context.Context, tx bot.Tx, gm *game) (string, error) {
	t := texts.For(gm.Script.Lang)
	c, err := g.open(gm.Script.File)
	if err == nil {
		if _, _, at := pointAt(c, gm.State); at {
			w, err := g.mp.Waiting(ctx, sessionpg.NewQuests(tx.DB()), gm.ID)
			if err != nil {
				return "", err
			}
			if w != nil {
				return waitAnswer(t, w), nil
			}
		}
	}
	return t.Quest.Stale, nil
}

// waitText is the line of a waiting screen at now.
func waitText(t *texts.Catalog, w *sessions.Waiting, now time.Time) string {
	left := t.Left(w.Deadline.Sub(now))
	switch {
	case w.Kind == sessions.Barrier:
		return fmt.Sprintf(t.Session.WaitFor, t.List(w.For), left)
	case w.Need <= 2:
		return fmt.Sprintf(t.Session.WaitOpponent, left)
	}
	return fmt.Sprintf(t.Session.WaitPlayers, t.List(w.Joined), len(w.Joined), w.Need, left)
}

// waitAnswer is the short answer to a button pressed while waiting.
func waitAnswer(t *texts.Catalog, w *sessions.Waiting) string {
	if w.Kind == sessions.Barrier {
		return fmt.Sprintf(t.Session.AnswerFor, t.List(w.For))
	}
	return t.Session.AnswerJoin
}

// noticeText is what a player who now plays the bot is told.
func noticeText(t *texts.Catalog, n *sessions.Notice) string {
	switch {
	case n == nil:
		return ""
	case n.Reason == sessions.ReasonAlone:
		return t.Session.Alone
	case n.Reason == sessions.ReasonTimeout && n.Self:
		return t.Session.TimeoutSelf
	case n.Reason == sessions.ReasonTimeout:
		return fmt.Sprintf(t.Session.Timeout, n.By)
	case n.Reason == sessions.ReasonLeft:
		return fmt.Sprintf(t.Session.Left, n.By)
	}
	return ""
}

// multiView puts the players' names into a view of a multiplayer quest and, at a point, takes
// its buttons away and says what the game waits for.
func (g *Games) multiView(c *compiled, gm *game, v *quest.View, own string) {
	if len(c.points) == 0 {
		return
	}
	st := mpState{}
	if gm.mp != nil {
		st = *gm.mp
	}
	names := st.names
	if names == nil {
		names = []string{own}
	}
	t := texts.For(gm.Script.Lang)
	v.Text = playerNames(v.Text, names, t.Session.Bot)
	for i := range v.Params {
		v.Params[i] = playerNames(v.Params[i], names, t.Session.Bot)
	}
	for i := range v.Choices {
		v.Choices[i].Text = playerNames(v.Choices[i].Text, names, t.Session.Bot)
	}
	if jump, _, at := pointAt(c, gm.State); at {
		v.Choices = nil
		if st.wait != nil {
			line := waitText(t, st.wait, g.now())
			if strings.TrimSpace(v.Text) != "" {
				line = v.Text + "\n\n" + line
			}
			v.Text = line
			// One button, which answers what the game waits for (HandleCallback).
			v.Choices = []quest.Choice{{JumpID: jump, Text: t.Session.Button, Active: true}}
		}
	}
}

// multiScreen puts a game's waiting screen (reqs) under its ref, after the requests due before
// it: the multiplayer ones, then the lead given.
func (g *Games) multiScreen(gm *game, lead, reqs []bot.Request) []bot.Request {
	if gm.mp == nil {
		return append(slices.Clip(lead), reqs...)
	}
	if gm.mp.wait != nil {
		reqs = bot.WithRef(gm.mp.wait.Ref, reqs...)
	}
	out := make([]bot.Request, 0, len(gm.mp.pre)+len(lead)+len(reqs))
	return append(append(append(out, gm.mp.pre...), lead...), reqs...)
}

// multiText puts the players' names into a text of a multiplayer quest, as multiView does.
func (g *Games) multiText(c *compiled, gm *game, s, own string) string {
	if len(c.points) == 0 {
		return s
	}
	names := []string{own}
	if gm.mp != nil && gm.mp.names != nil {
		names = gm.mp.names
	}
	return playerNames(s, names, texts.For(gm.Script.Lang).Session.Bot)
}

// playerNames replaces the tags <1>, <2>, … of a text by the players' names: names[k-1], or
// botName for a number beyond them or an empty name (a seat of an ended session whose player
// went on against the bot, sessions.QuestSession.Names).
func playerNames(s string, names []string, botName string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '<' {
			j := i + 1
			for j < len(s) && j-i <= 2 && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j > i+1 && j < len(s) && s[j] == '>' && s[i+1] != '0' {
				k := 0
				for _, d := range s[i+1 : j] {
					k = k*10 + int(d-'0')
				}
				n := botName
				if k <= len(names) && names[k-1] != "" {
					n = names[k-1]
				}
				b.WriteString(inert(n))
				i = j + 1
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// inert makes a name safe to put into quest markup: no tag can start in it, and it holds no
// mark of the player's own name.
func inert(name string) string {
	return strings.NewReplacer("<", "‹", rangerMark, "").Replace(name)
}

// run is one settling of multiplayer points: the games it moves, by id, and the players still to
// move on.
type run struct {
	g     *Games
	tx    bot.Tx
	st    *sessionpg.Quests
	games map[int64]*runGame
	order []*runGame
	queue []sessions.Resume
	steps int
}

// runGame is a game a run moves.
type runGame struct {
	gm *game
	// prevNonce is the nonce of the game's row as read, for the conditional write; unused for
	// the own game.
	prevNonce int64
	c         *compiled
	me        sessions.Member
	// own marks the update's game, which its handler writes and shows.
	own bool
	// broken marks a game whose quest failed in the run (a formula that cannot be evaluated):
	// it is left as it was.
	broken bool
}

func (g *Games) newRun(tx bot.Tx) *run {
	return &run{g: g, tx: tx, st: sessionpg.NewQuests(tx.DB()), games: map[int64]*runGame{}}
}

func (r *run) add(mg *runGame) {
	if mg.gm.mp == nil {
		mg.gm.mp = &mpState{}
	}
	r.games[mg.gm.ID] = mg
	r.order = append(r.order, mg)
}

// advance settles the points a game meets, one after another, until it waits or reaches a
// screen with choices.
func (r *run) advance(ctx context.Context, mg *runGame) error {
	mp := r.g.mp
	for {
		jump, pt, ok := pointAt(mg.c, mg.gm.State)
		if !ok {
			break
		}
		if r.steps++; r.steps > maxPointsPerRun {
			return fmt.Errorf("questplay: script %d: more than %d multiplayer points in a row", mg.gm.Script.ID, maxPointsPerRun)
		}
		q := questOf(mg.gm)
		var out sessions.QuestOutcome
		var err error
		if pt.Kind == sessions.Join {
			out, err = mp.Join(ctx, r.st, mg.me, q, pt)
		} else {
			out, err = mp.Post(ctx, r.st, mg.me, q, pt, mg.gm.State.Params)
		}
		if err != nil {
			return err
		}
		r.queue = append(r.queue, out.Resume...)
		r.notice(mg, out.Notice)
		if !out.Proceed {
			mg.gm.mp.wait = out.Wait
			break
		}
		if err := r.take(mg, jump, out.Set, out.Seed); err != nil {
			return r.fail(mg, err)
		}
	}
	names, err := mp.Names(ctx, r.st, mg.gm.ID)
	mg.gm.mp.names = names
	return err
}

// take writes values into a game's parameters, reseeds its random generator when seed is set
// (sessions.QuestOutcome.Seed), and takes its multiplayer jump.
func (r *run) take(mg *runGame, jump int, set sessions.Values, seed string) error {
	st := mg.gm.State
	st.Params = append([]int(nil), st.Params...)
	written := map[int]int{}
	for i, v := range set {
		if i >= 0 && i < len(st.Params) {
			st.Params[i] = v
			written[i] = v
		}
	}
	if seed != "" {
		st.Alea = alea.New(seed).State()
	}
	next, err := mg.c.PerformWith(st, jump, options(mg.gm, func(p quest.Passage) { mg.gm.passed = append(mg.gm.passed, p) }))
	if err != nil {
		return fmt.Errorf("questplay: script %d: multiplayer jump %d: %w", mg.gm.Script.ID, jump, err)
	}
	if len(written) > 0 {
		mg.gm.Moves = append(mg.gm.Moves, questlog.Move{Set: written})
	}
	if seed != "" {
		mg.gm.Moves = append(mg.gm.Moves, questlog.Move{Seed: seed})
	}
	mg.gm.Moves = append(mg.gm.Moves, questlog.Act(jump))
	mg.gm.State = next
	mg.gm.mp.wait = nil
	return nil
}

// fail handles the failure of a game's quest in the run: the update's own game fails the update
// (its handler answers the player); another player's game is left as it was, and logged, so
// that a broken quest holds nobody else up.
func (r *run) fail(mg *runGame, err error) error {
	if mg.own {
		return err
	}
	r.g.log.Error("Multiplayer game cannot go on", slog.Int64("script", mg.gm.Script.ID), slog.Int64("game", mg.gm.ID),
		slog.Any("error", err))
	mg.broken = true
	return nil
}

// tell sends a player the notice of why they now play the bot, in a message of its own.
func (g *Games) tell(ctx context.Context, tx bot.Tx, me sessions.Member, n *sessions.Notice) error {
	text := noticeText(texts.For(me.Lang), n)
	if text == "" {
		return nil
	}
	reqs, err := bot.SendHTML(me.Chat, escape(text), nil)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// quitSession takes the user's running game out of its multiplayer session, in the transaction
// that cancels or replaces it (Cancel, Launch), so that the other players hear of it at once, in
// their chats and languages, and of what happens next: those who wait go on against the bot now,
// the others are told that the bot takes the seat (sessions.QuestSession.Quit). Without a game,
// or with one in no session, it does nothing.
func (g *Games) quitSession(ctx context.Context, tx bot.Tx, service int, user int64) error {
	gm, err := g.running(ctx, tx.DB(), service, user)
	if err != nil || gm == nil || gm.Script.SessionType == 0 {
		return err
	}
	rs, err := g.mp.Quit(ctx, sessionpg.NewQuests(tx.DB()), gm.ID)
	if err != nil || len(rs) == 0 {
		return err
	}
	r := g.newRun(tx)
	r.queue = rs
	return r.finish(ctx)
}

func (r *run) notice(mg *runGame, n *sessions.Notice) {
	text := noticeText(texts.For(mg.me.Lang), n)
	if text == "" {
		return
	}
	if reqs, err := bot.SendHTML(mg.me.Chat, escape(text), nil); err == nil {
		mg.gm.mp.pre = append(mg.gm.mp.pre, reqs...)
	}
}

// load reads and locks the game of a member for the run; nil when it is over or is another game.
func (r *run) load(ctx context.Context, me sessions.Member) (*runGame, error) {
	if mg, ok := r.games[me.Game]; ok {
		return mg, nil
	}
	locked, err := r.g.store.LockRunning(ctx, r.tx.DB(), me.Service, me.User, me.Game)
	if errors.Is(err, questpg.ErrNoGame) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("questplay: %w", err)
	}
	gm := &game{Game: *locked}
	c, err := r.g.open(gm.Script.File)
	if err != nil {
		r.g.log.Error("Quest cannot be loaded", slog.Int64("script", gm.Script.ID), slog.Any("error", err))
		return nil, nil
	}
	mg := &runGame{gm: gm, prevNonce: gm.Nonce, c: c, me: me}
	gm.Step++
	gm.Nonce = questpg.NewNonce()
	r.add(mg)
	return mg, nil
}

// finish moves on the players the run's points released, then writes and shows every game it
// moved but the update's own.
func (r *run) finish(ctx context.Context) error {
	for len(r.queue) > 0 {
		rs := r.queue[0]
		r.queue = r.queue[1:]
		if rs.Tell {
			// A player seated in a session that a quit ended: told now, moved on later.
			if err := r.g.tell(ctx, r.tx, rs.Member, rs.Notice); err != nil {
				return err
			}
			continue
		}
		mg, err := r.load(ctx, rs.Member)
		if err != nil {
			return err
		}
		if mg == nil || mg.broken {
			continue
		}
		jump, pt, ok := pointAt(mg.c, mg.gm.State)
		if !ok || pt.Kind != rs.Kind {
			continue // the game is not waiting there (any more)
		}
		if rs.Ref != "" && !mg.own {
			mg.gm.mp.pre = append(mg.gm.mp.pre, bot.DeleteRef(mg.me.Chat, rs.Ref))
		}
		r.notice(mg, rs.Notice)
		if err := r.take(mg, jump, rs.Set, rs.Seed); err != nil {
			if err := r.fail(mg, err); err != nil {
				return err
			}
			continue
		}
		if err := r.advance(ctx, mg); err != nil {
			return err
		}
	}
	for _, mg := range r.order {
		if !mg.own && !mg.broken {
			if err := r.save(ctx, mg); err != nil {
				return err
			}
		}
	}
	return nil
}

// save writes a game the run moved, and shows its screen.
func (r *run) save(ctx context.Context, mg *runGame) error {
	g, gm, me := r.g, mg.gm, mg.me
	v, screen, err := g.screenOf(ctx, r.tx.DB(), me.Chat, mg.c, gm, me.Name)
	if err != nil {
		return r.fail(mg, fmt.Errorf("questplay: script %d: screen: %w", gm.Script.ID, err))
	}
	var done bool
	b := &pgx.Batch{}
	if v.Status.Over() {
		g.store.QueueEnd(b, &gm.Game, mg.prevNonce, v.Status, func(ok bool) { done = ok })
	} else if err := g.store.QueueStep(b, &gm.Game, mg.prevNonce, func(ok bool) { done = ok }); err != nil {
		return err
	}
	if err := r.tx.DB().SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("questplay: multiplayer step: %w", err)
	}
	g.live.forget(me.Service, me.User)
	if !done {
		// Cannot happen: the row is locked by this transaction since it was read.
		g.log.Error("Multiplayer game changed under its lock", slog.Int64("game", gm.ID))
		return errGameChanged
	}
	return r.tx.Send(ctx, screen...)
}
