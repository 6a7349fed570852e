package questplay

// The quest player as the developers' tools (bot/devtools) use it: sandbox games, started from
// any quest or from a restored save, and the running game read and changed by hand.
//
// A sandbox game is a game row with sandbox set: it takes no stake and pays nothing back, and
// its ending settles nothing (queueEnding and abandonSQL skip sandboxes), so no credits move and
// no statistics count, whatever a developer did to it. A change made by hand is written like a
// step: under a new nonce and a new step, so that the buttons of the screen shown before are
// stale and a process that remembered the game reads it again.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/quest"
)

// ImageFinder finds the image files of quests outside the quest file's own folder.
type ImageFinder interface {
	// FindImage returns the file to show for image name in quest script (a row of the script
	// table), or "" when it knows none; the quest's own folder is looked in then. It is called
	// while a screen is built and must be quick.
	FindImage(script int64, name string) string
}

// findImage puts into sc the image the ImageFinder gives for the view's image, if any.
func (g *Games) findImage(script int64, v quest.View, sc *screen) {
	name := strings.TrimSpace(v.Image)
	if g.images == nil || name == "" {
		return
	}
	if _, err := strconv.Atoi(name); err == nil {
		return // a number of buttons a row, not an image (render.go)
	}
	if p := g.images.FindImage(script, name); p != "" {
		sc.image = p
	}
}

// ErrUnplayable reports a quest that cannot be played: its file is missing or broken, it does
// not start, or a state given for it does not fit it. The message says why, without the file's
// path (it is shown to developers).
var ErrUnplayable = errors.New("questplay: the quest cannot be played")

// unplayable wraps why a quest cannot be played into ErrUnplayable, without the file's path.
func unplayable(err error) error {
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("%w: its file cannot be read", ErrUnplayable)
	case strings.HasPrefix(err.Error(), "quest file ") && errors.Unwrap(err) != nil:
		err = errors.Unwrap(err) // compileFile names the path
	}
	return fmt.Errorf("%w: %v", ErrUnplayable, err)
}

// DevGame is a user's running game as the developers' tools see and change it.
type DevGame struct {
	ID       int64
	Step     int
	ScriptID int64
	// File is the script's file (relative to the quest root unless absolute); see QuestPath.
	File    string
	Lang    string
	Sandbox bool
	State   quest.State
	// Ranger is the player's name in the quest's texts set by hand, "" for the user's own.
	Ranger string
	// MoneyParam is the index of the quest's money parameter, -1 when it has none.
	MoneyParam int

	nonce int64
}

// DevGame returns the user's running game, nil when there is none.
func (g *Games) DevGame(ctx context.Context, tx bot.Tx, u *bot.Update) (*DevGame, error) {
	service, user, _, err := who(u)
	if err != nil {
		return nil, err
	}
	gm, err := loadGame(ctx, tx.DB(), service, user)
	if err != nil || gm == nil {
		return nil, err
	}
	return &DevGame{ID: gm.id, Step: gm.step, ScriptID: gm.script.id, File: gm.script.file, Lang: gm.script.lang,
		Sandbox: gm.sandbox, State: gm.state, Ranger: gm.ranger, MoneyParam: gm.moneyParam, nonce: gm.nonce}, nil
}

// QuestPath resolves a script's file against the quest root.
func (g *Games) QuestPath(file string) string { return g.path(file) }

// Quest returns the compiled quest of a script's file, from the cache shared with the games.
// An error matches ErrUnplayable.
func (g *Games) Quest(file string) (*quest.Quest, error) {
	c, err := g.cache.get(g.path(file))
	if err != nil {
		return nil, unplayable(err)
	}
	return c.q, nil
}

// NewSeed returns a fresh seed for a game's random generator.
func (g *Games) NewSeed() string { return g.seed() }

// StartSandbox starts quest scriptID (a row of the script table offered in this bot) for the
// update's user as a sandbox game, in state st, or from its beginning when st is nil, and
// sends its screen. A running game is given up first, as a launch gives it up (money.go). The
// caller decides who may open which quest. A quest that cannot be played, or a state that does
// not fit it, is an error matching ErrUnplayable, and nothing changes.
func (g *Games) StartSandbox(ctx context.Context, tx bot.Tx, u *bot.Update, scriptID int64, st *quest.State, ranger string) error {
	service, user, chat, err := who(u)
	if err != nil {
		return err
	}
	db := tx.DB()
	sc, err := loadScript(ctx, db, service, scriptID)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: there is no quest %d", ErrUnplayable, scriptID)
	}
	if err != nil {
		return fmt.Errorf("questplay: sandbox: %w", err)
	}
	c, err := g.cache.get(g.path(sc.file))
	if err != nil {
		return unplayable(err)
	}
	var state quest.State
	if st == nil {
		if state, err = c.q.Start(g.seed()); err != nil {
			return unplayable(err)
		}
	} else {
		state = st.Clone()
	}
	if _, err := c.q.View(state, g.player(sc.lang, money(&state, c.money))); err != nil {
		return unplayable(err)
	}
	raw, err := json.Marshal(state)
	if err != nil {
		return err
	}
	g.live.forget(service, user)
	gm := &game{state: state, sandbox: true, moneyParam: c.money, script: sc, nonce: newNonce(), ranger: ranger}
	b := &pgx.Batch{}
	b.Queue(abandonSQL, service, user)
	b.Queue(`INSERT INTO game (service_id, user_id, script_id, state, sandbox, stake, money_param, nonce, ranger)
		VALUES ($1, $2, $3, $4, true, 0, $5, $6, NULLIF($7, '')) RETURNING game_id`,
		service, user, scriptID, raw, c.money, gm.nonce, ranger).
		QueryRow(func(r pgx.Row) error { return r.Scan(&gm.id) })
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("questplay: sandbox: %w", err)
	}
	if err := g.show(ctx, tx, chat, c, gm, name(u)); err != nil {
		return unplayable(err)
	}
	g.live.put(service, user, *gm)
	return nil
}

// UpdateDev writes gm's State and Ranger into the user's running game, as a step: the step
// moves on, so the buttons shown before are stale (Retry shows the new screen). It reports
// false, changing nothing, when the game is no longer the one DevGame read. The state must fit
// the quest (the caller changes parameter values within their bounds).
func (g *Games) UpdateDev(ctx context.Context, tx bot.Tx, u *bot.Update, gm *DevGame) (bool, error) {
	service, user, _, err := who(u)
	if err != nil {
		return false, err
	}
	raw, err := json.Marshal(gm.State)
	if err != nil {
		return false, err
	}
	g.live.forget(service, user)
	nonce := newNonce()
	tag, err := tx.DB().Exec(ctx, `
		UPDATE game SET state = $3, ranger = NULLIF($4, ''), step = step + 1, nonce = $5, updated_at = now()
		WHERE service_id = $1 AND user_id = $2 AND game_id = $6 AND nonce = $7`,
		service, user, raw, gm.Ranger, nonce, gm.ID, gm.nonce)
	if err != nil {
		return false, fmt.Errorf("questplay: update game: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return false, nil
	}
	gm.Step++
	gm.nonce = nonce
	return true, nil
}
