package questplay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/multiplayer"
	"github.com/questbot/questbot/formula/alea"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// # Multiplayer quests
//
// A jump whose text starts with "!session" or "!wait" (package multiplayer) is never a plain
// button: when a game's screen offers one, the game is at a multiplayer point, and
// bot/multiplayer says what happens. Either the player waits, parked at the jump: the screen
// shows the location with a line saying for whom the player waits and one button that answers
// the same, sent under a message ref so that it can be removed when the wait ends. Or the game
// writes the values the session gives into its parameters (the player's number, the blocks of
// a round, or zeros against the bot), takes the jump and goes on to its next screen, which may
// be another point. A point settled by one player can move other waiting players on: their
// games are read under a lock, moved through their jumps the same way, written and shown, all
// in the transaction of the update (or of the timer job) that settled the point. Every game
// touched by one such run is kept in memory until the run ends, so a game moved twice in a run
// is moved on its newest state.
//
// A press on a waiting game is answered with what it waits for, and a press on a multiplayer
// jump (only the waiting screen's button has one; any other is forged) never takes it. In the
// texts of a quest with multiplayer points, <1>, <2>, … are the session's players' names;
// outside a session <1> is the player and the others are the bot. A '<' in a name is shown as
// '‹', so that a name is never read as quest markup.

// maxPointsPerRun bounds the multiplayer points one run settles, so that a quest whose points
// follow each other without a choice between them cannot loop for ever.
const maxPointsPerRun = 256

// mpState is what a game of a multiplayer quest shows beyond its quest state.
type mpState struct {
	// names are the session's players by number; nil outside a session.
	names []string
	// wait is what the game waits for, nil when it does not.
	wait *multiplayer.Waiting
	// pre are requests to send before the screen: the removal of the last waiting screen and
	// the notices.
	pre []bot.Request
}

// pointsOf returns the multiplayer jumps of a quest by jump id.
func pointsOf(d *qmm.Quest) map[int]multiplayer.Point {
	var out map[int]multiplayer.Point
	for i := range d.Jumps {
		if p, ok := multiplayer.ParsePoint(d.Jumps[i].Text); ok {
			if out == nil {
				out = map[int]multiplayer.Point{}
			}
			out[int(d.Jumps[i].ID)] = p
		}
	}
	return out
}

// pointAt returns the multiplayer jump a state offers, if any.
func pointAt(c *compiled, st quest.State) (jump int, pt multiplayer.Point, ok bool) {
	if len(c.points) == 0 {
		return 0, pt, false
	}
	choices, err := c.q.Choices(st)
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
func memberOf(u *bot.Update, gm *game) multiplayer.Member {
	service, user, chat, _ := who(u)
	return multiplayer.Member{Service: service, User: user, Chat: chat, Game: gm.id, Name: name(u), Lang: gm.script.lang}
}

// errGameChanged means a game's row is no longer the one a step started from.
var errGameChanged = errors.New("questplay: the game changed")

// multiStep settles the multiplayer points a game reaches after a step of its player (the
// update's game, which HandleCallback then writes and shows) and moves on the other games the
// points settle. It reports retry when the game's row changed since it was read: nothing was
// done, and the press is to be judged again.
func (g *Games) multiStep(ctx context.Context, tx bot.Tx, u *bot.Update, c *compiled, gm *game, nonce int64) (retry bool, err error) {
	if len(c.points) == 0 {
		return false, nil
	}
	if _, _, at := pointAt(c, gm.state); at {
		// The point changes other rows: make sure this game's row will take the step.
		var id, n int64
		err := tx.DB().QueryRow(ctx, `SELECT game_id, nonce FROM game WHERE service_id = $1 AND user_id = $2 FOR UPDATE`,
			u.Service, u.User.ID).Scan(&id, &n)
		if errors.Is(err, pgx.ErrNoRows) || err == nil && (id != gm.id || n != nonce) {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("questplay: lock game: %w", err)
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

// Resume implements multiplayer.Resumer: the timer job's settled sessions move their waiting
// players on.
func (g *Games) Resume(ctx context.Context, tx bot.Tx, rs []multiplayer.Resume) error {
	r := g.newRun(tx)
	r.queue = rs
	return r.finish(ctx)
}

// multiShow prepares a game's screen to be shown again (Retry): the names, and what it waits
// for. A game at a point that was never settled (a game from before its quest had a session
// type, say) has it settled now, and is then written and shown by the run: shown reports that.
func (g *Games) multiShow(ctx context.Context, tx bot.Tx, u *bot.Update, c *compiled, gm *game) (shown bool, err error) {
	if len(c.points) == 0 {
		return false, nil
	}
	if _, _, at := pointAt(c, gm.state); at {
		w, err := g.mp.Waiting(ctx, tx.DB(), gm.id)
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
	var err error
	if gm.mp.names, err = g.mp.Names(ctx, tx.DB(), gm.id); err != nil {
		return err
	}
	if _, _, at := pointAt(c, gm.state); at && gm.mp.wait == nil {
		gm.mp.wait, err = g.mp.Waiting(ctx, tx.DB(), gm.id)
	}
	return err
}

// staleAnswer is the answer to a press that is not a choice of the game's current screen:
// what the game waits for when it waits, else that the choice is gone.
func (g *Games) staleAnswer(ctx context.Context, tx bot.Tx, gm *game) (string, error) {
	c, err := g.cache.get(g.path(gm.script.file))
	if err == nil {
		if _, _, at := pointAt(c, gm.state); at {
			w, err := g.mp.Waiting(ctx, tx.DB(), gm.id)
			if err != nil {
				return "", err
			}
			if w != nil {
				return w.Answer(gm.script.lang), nil
			}
		}
	}
	return msgsFor(gm.script.lang).stale, nil
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
	botName := multiplayer.BotName(gm.script.lang)
	v.Text = playerNames(v.Text, names, botName)
	for i := range v.Params {
		v.Params[i] = playerNames(v.Params[i], names, botName)
	}
	for i := range v.Choices {
		v.Choices[i].Text = playerNames(v.Choices[i].Text, names, botName)
	}
	if jump, _, at := pointAt(c, gm.state); at {
		v.Choices = nil
		if st.wait != nil {
			line := st.wait.Text(gm.script.lang, g.now())
			if strings.TrimSpace(v.Text) != "" {
				line = v.Text + "\n\n" + line
			}
			v.Text = line
			// One button, which answers what the game waits for (HandleCallback).
			v.Choices = []quest.Choice{{JumpID: jump, Text: st.wait.Button(gm.script.lang), Active: true}}
		}
	}
}

// multiScreen puts a game's waiting screen under its ref and the requests due before it first.
func (g *Games) multiScreen(gm *game, reqs []bot.Request) []bot.Request {
	if gm.mp == nil {
		return reqs
	}
	if gm.mp.wait != nil {
		reqs = bot.WithRef(gm.mp.wait.Ref, reqs...)
	}
	if len(gm.mp.pre) == 0 {
		return reqs
	}
	return append(append([]bot.Request(nil), gm.mp.pre...), reqs...)
}

// playerNames replaces the tags <1>, <2>, … of a text by the players' names: names[k-1], or
// botName for a number beyond them.
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
				if k <= len(names) {
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
	games map[int64]*runGame
	order []*runGame
	queue []multiplayer.Resume
	steps int
}

// runGame is a game a run moves.
type runGame struct {
	gm *game
	// prev is the game as read, for the conditional write; unused for the own game.
	prev game
	c    *compiled
	me   multiplayer.Member
	// own marks the update's game, which its handler writes and shows.
	own bool
	// broken marks a game whose quest failed in the run (a formula that cannot be evaluated):
	// it is left as it was.
	broken bool
}

func (g *Games) newRun(tx bot.Tx) *run {
	return &run{g: g, tx: tx, games: map[int64]*runGame{}}
}

func (r *run) add(mg *runGame) {
	if mg.gm.mp == nil {
		mg.gm.mp = &mpState{}
	}
	r.games[mg.gm.id] = mg
	r.order = append(r.order, mg)
}

// advance settles the points a game meets, one after another, until it waits or reaches a
// screen with choices.
func (r *run) advance(ctx context.Context, mg *runGame) error {
	mp, db := r.g.mp, r.tx.DB()
	for {
		jump, pt, ok := pointAt(mg.c, mg.gm.state)
		if !ok {
			break
		}
		if r.steps++; r.steps > maxPointsPerRun {
			return fmt.Errorf("questplay: script %d: more than %d multiplayer points in a row", mg.gm.script.id, maxPointsPerRun)
		}
		q := multiplayer.Quest{Script: mg.gm.script.id, Params: len(mg.gm.state.Params), Sandbox: mg.gm.sandbox}
		var out multiplayer.Outcome
		var err error
		if pt.Kind == multiplayer.Join {
			out, err = mp.Join(ctx, db, mg.me, q, pt)
		} else {
			out, err = mp.Post(ctx, db, mg.me, q, pt, mg.gm.state.Params)
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
	names, err := mp.Names(ctx, db, mg.gm.id)
	mg.gm.mp.names = names
	return err
}

// take writes values into a game's parameters, reseeds its random generator when seed is set
// (multiplayer.Outcome.Seed), and takes its multiplayer jump.
func (r *run) take(mg *runGame, jump int, set multiplayer.Values, seed string) error {
	st := mg.gm.state
	st.Params = append([]int(nil), st.Params...)
	for i, v := range set {
		if i >= 0 && i < len(st.Params) {
			st.Params[i] = v
		}
	}
	if seed != "" {
		st.Alea = alea.New(seed).State()
	}
	next, err := mg.c.q.Perform(st, jump)
	if err != nil {
		return fmt.Errorf("questplay: script %d: multiplayer jump %d: %w", mg.gm.script.id, jump, err)
	}
	mg.gm.state = next
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
	r.g.log.Error("multiplayer game cannot go on", "script", mg.gm.script.id, "game", mg.gm.id, "err", err)
	mg.broken = true
	return nil
}

func (r *run) notice(mg *runGame, text string) {
	if text == "" {
		return
	}
	if reqs, err := bot.SendHTML(mg.me.Chat, escape(text), nil); err == nil {
		mg.gm.mp.pre = append(mg.gm.mp.pre, reqs...)
	}
}

// load reads and locks the game of a member for the run; nil when it is over or is another game.
func (r *run) load(ctx context.Context, me multiplayer.Member) (*runGame, error) {
	if mg, ok := r.games[me.Game]; ok {
		return mg, nil
	}
	db := r.tx.DB()
	var id int64
	err := db.QueryRow(ctx, `SELECT game_id FROM game WHERE service_id = $1 AND user_id = $2 FOR UPDATE`, me.Service, me.User).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && id != me.Game {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("questplay: lock game: %w", err)
	}
	gm, err := loadGame(ctx, db, me.Service, me.User)
	if err != nil || gm == nil {
		return nil, err
	}
	c, err := r.g.cache.get(r.g.path(gm.script.file))
	if err != nil {
		r.g.log.Error("quest cannot be loaded", "script", gm.script.id, "err", err)
		return nil, nil
	}
	mg := &runGame{gm: gm, prev: *gm, c: c, me: me}
	gm.step++
	gm.nonce = newNonce()
	r.add(mg)
	return mg, nil
}

// finish moves on the players the run's points released, then writes and shows every game it
// moved but the update's own.
func (r *run) finish(ctx context.Context) error {
	for len(r.queue) > 0 {
		rs := r.queue[0]
		r.queue = r.queue[1:]
		mg, err := r.load(ctx, rs.Member)
		if err != nil {
			return err
		}
		if mg == nil || mg.broken {
			continue
		}
		jump, pt, ok := pointAt(mg.c, mg.gm.state)
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
	v, screen, err := g.screenOf(me.Chat, mg.c, gm, me.Name)
	if err != nil {
		return r.fail(mg, fmt.Errorf("questplay: script %d: screen: %w", gm.script.id, err))
	}
	var done pgconn.CommandTag
	b := &pgx.Batch{}
	if v.Status.Over() {
		queueEnding(b, me.Service, me.User, &mg.prev, gm, v.Status).Exec(func(ct pgconn.CommandTag) error { done = ct; return nil })
	} else {
		raw, err := json.Marshal(gm.state)
		if err != nil {
			return err
		}
		b.Queue(`UPDATE game SET state = $3, step = $4, nonce = $5, updated_at = now()
			WHERE service_id = $1 AND user_id = $2 AND game_id = $6 AND nonce = $7`,
			me.Service, me.User, raw, gm.step, gm.nonce, gm.id, mg.prev.nonce).
			Exec(func(ct pgconn.CommandTag) error { done = ct; return nil })
	}
	if err := r.tx.DB().SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("questplay: multiplayer step: %w", err)
	}
	g.live.forget(me.Service, me.User)
	if done.RowsAffected() != 1 {
		// Cannot happen: the row is locked by this transaction since it was read.
		g.log.Error("multiplayer game changed under its lock", slog.Int64("game", gm.id))
		return errGameChanged
	}
	return r.tx.Send(ctx, screen...)
}
