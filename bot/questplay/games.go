package questplay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/multiplayer"
	"github.com/questbot/questbot/quest"
)

// Config configures Games.
type Config struct {
	// Root is the folder that script.file names are relative to (UPLOADS_DIR); "" is "uploads".
	Root string
	// Log receives the errors of broken quests; nil discards them.
	Log *slog.Logger
	// CacheBytes bounds the memory of the compiled quests kept (an estimate); 0 is 256 MB.
	CacheBytes int64
	// Now is the clock of the quests' dates; nil is time.Now.
	Now func() time.Time
	// Sessions keeps the sessions of multiplayer quests (multi.go); nil makes one with the
	// defaults (its timeouts then act only where its timer job runs).
	Sessions *multiplayer.Manager
	// Images finds quest images beyond the quest's own folder (the images developers upload,
	// dev.go); nil looks only beside the quest file.
	Images ImageFinder
}

// Games plays quests for Telegram users; safe for concurrent use.
type Games struct {
	root  string
	log   *slog.Logger
	now   func() time.Time
	cache *cache
	live  *live
	// seed gives the seed of a new game's random generator; tests fix it.
	seed func() string
	mp   *multiplayer.Manager
	// images is Config.Images (dev.go).
	images ImageFinder
}

// New returns the quest player of the bots.
func New(cfg Config) *Games {
	g := &Games{root: cfg.Root, log: cfg.Log, now: cfg.Now, cache: newCache(cfg.CacheBytes), live: newLive(maxLive), mp: cfg.Sessions}
	if g.root == "" {
		g.root = "uploads"
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	g.seed = func() string {
		var b [12]byte
		rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}
	if g.now == nil {
		g.now = time.Now
	}
	if g.mp == nil {
		g.mp = multiplayer.New(multiplayer.Config{Now: g.now, Log: g.log})
	}
	g.images = cfg.Images
	if cfg.CacheBytes <= 0 {
		g.cache.max = 256 << 20
	}
	return g
}

// CacheStats reports how many compiled quests are cached and their estimated bytes.
func (g *Games) CacheStats() (quests int, bytes int64) { return g.cache.stats() }

// script is a row of the script table as a game needs it.
type script struct {
	id           int64
	file         string
	lang         string
	winBonus     int64
	deathPenalty int64
	commonName   string
}

// game is a user's running game with its script.
type game struct {
	id         int64
	step       int
	nonce      int64
	state      quest.State
	sandbox    bool
	moneyParam int
	script     script
	// mp is what a game of a multiplayer quest shows beyond its state (multi.go).
	mp *mpState
	// ranger is the player's name in the quest's texts a developer set (/set Ranger, dev.go);
	// "" is the user's own name.
	ranger string
}

// path resolves a script's file against the quest root.
func (g *Games) path(file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(g.root, file)
}

func dirOf(path string) string { return filepath.Dir(path) }

// image returns the file of an image a quest names, looked for beside the quest file and in its
// images folder, or "" when there is none. Names are reduced to their base name, so a quest
// cannot reach other folders.
func (c *compiled) image(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	if name == "." || name == "/" || name == ".." {
		return ""
	}
	for _, p := range []string{filepath.Join(c.dir, name), filepath.Join(c.dir, "images", name)} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// who is the user an update is about.
func who(u *bot.Update) (service int, user, chat int64, err error) {
	if u.User == nil {
		return 0, 0, 0, errors.New("questplay: update without a user")
	}
	chat = u.Chat
	if chat == 0 {
		chat = u.User.ChatID
	}
	return u.Service, u.User.ID, chat, nil
}

// name is the player's name in quest texts: the first name, else the username.
func name(u *bot.Update) string {
	if u.User.FirstName != "" {
		return u.User.FirstName
	}
	if u.User.Username != "" {
		return u.User.Username
	}
	return "Ranger"
}

func questLang(lang string) quest.Lang {
	if lang == "ru" {
		return quest.Russian
	}
	return quest.English
}

// player is who plays, for the quest's View: the reference's default player in the script's
// language, with the player's name (as rangerMark, see render.go) and the clock.
func (g *Games) player(lang string, money int64) quest.Player {
	p := quest.DefaultPlayer(questLang(lang), g.now())
	p.Ranger, p.Player = rangerMark, rangerMark
	p.Money = strconv.FormatInt(money, 10)
	return p
}

// money is the current value of a game's money parameter, 0 without one.
func money(s *quest.State, idx int) int64 {
	if idx >= 0 && idx < len(s.Params) {
		return int64(s.Params[idx])
	}
	return 0
}

// screenOf builds the requests of a game's current screen: the image, then the text with the
// buttons.
func (g *Games) screenOf(chat int64, c *compiled, gm *game, name string) (quest.View, []bot.Request, error) {
	if gm.ranger != "" {
		name = gm.ranger
	}
	v, err := c.q.View(gm.state, g.player(gm.script.lang, money(&gm.state, gm.moneyParam)))
	if err != nil {
		return v, nil, err
	}
	g.multiView(c, gm, &v, name)
	sc := render(c, v, gm.id, gm.step, name)
	g.findImage(gm.script.id, v, &sc)
	var reqs []bot.Request
	if sc.image != "" {
		r, err := bot.SendPhoto(chat, sc.image, "", nil)
		if err != nil {
			return v, nil, err
		}
		reqs = append(reqs, r)
	}
	msgs, err := bot.SendHTML(chat, sc.html, sc.kb)
	if err != nil {
		return v, nil, err
	}
	return v, g.multiScreen(gm, append(reqs, msgs...)), nil
}

// show sends a game's current screen.
func (g *Games) show(ctx context.Context, tx bot.Tx, chat int64, c *compiled, gm *game, name string) error {
	_, reqs, err := g.screenOf(chat, c, gm, name)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

const loadGameSQL = `
	SELECT g.game_id, g.step, g.nonce, g.state, g.sandbox, g.money_param, COALESCE(g.ranger, ''),
	       s.id, s.file, s.language, s.win_bonus, s.death_penalty, s.common_name
	FROM game g JOIN script s ON s.id = g.script_id
	WHERE g.service_id = $1 AND g.user_id = $2`

// loadGame reads the user's running game; nil when there is none.
func loadGame(ctx context.Context, db pgx.Tx, service int, user int64) (*game, error) {
	var gm game
	var raw []byte
	err := db.QueryRow(ctx, loadGameSQL, service, user).Scan(&gm.id, &gm.step, &gm.nonce, &raw, &gm.sandbox, &gm.moneyParam, &gm.ranger,
		&gm.script.id, &gm.script.file, &gm.script.lang, &gm.script.winBonus, &gm.script.deathPenalty, &gm.script.commonName)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("questplay: load game: %w", err)
	}
	if err := json.Unmarshal(raw, &gm.state); err != nil {
		return nil, fmt.Errorf("questplay: game %d: state: %w", gm.id, err)
	}
	return &gm, nil
}

// abandonSQL ends the user's game without a result: the row is deleted and, unless it was a
// sandbox game, the money parameter's current value is paid back to the credits (money.go).
const abandonSQL = `
	WITH old AS (
		DELETE FROM game WHERE service_id = $1 AND user_id = $2
		RETURNING sandbox, CASE WHEN money_param >= 0
			THEN COALESCE((state->'params'->>money_param)::bigint, 0) ELSE 0 END AS back)
	UPDATE user_stats u SET credits = LEAST(GREATEST(u.credits + old.back, 0), ` + maxCreditsSQL + `)
	FROM old WHERE NOT old.sandbox AND u.service_id = $1 AND u.user_id = $2`

// loadScript reads script id as offered in bot service; pgx.ErrNoRows when the bot does not
// offer it.
func loadScript(ctx context.Context, db pgx.Tx, service int, id int64) (script, error) {
	sc := script{id: id}
	err := db.QueryRow(ctx, `
		SELECT file, language, win_bonus, death_penalty, common_name FROM script
		WHERE id = $1 AND (service_id IS NULL OR service_id = $2)`, id, service).
		Scan(&sc.file, &sc.lang, &sc.winBonus, &sc.deathPenalty, &sc.commonName)
	return sc, err
}

// Launch starts script scriptID (a row of the script table) for the update's user, replacing
// any running game, and sends the first screen. A script that is not offered in this bot, or
// whose file cannot be played, gets an apology and changes nothing.
func (g *Games) Launch(ctx context.Context, tx bot.Tx, u *bot.Update, scriptID int64) error {
	service, user, chat, err := who(u)
	if err != nil {
		return err
	}
	db := tx.DB()
	sc, err := loadScript(ctx, db, service, scriptID)
	if errors.Is(err, pgx.ErrNoRows) {
		return g.apology(ctx, tx, chat, msgsFor(bot.Language(u.User.Language)).noQuest)
	}
	if err != nil {
		return fmt.Errorf("questplay: launch: %w", err)
	}
	c, err := g.cache.get(g.path(sc.file))
	if err != nil {
		g.log.Error("quest cannot be loaded", "script", scriptID, "err", err)
		return g.apology(ctx, tx, chat, msgsFor(sc.lang).noQuest)
	}
	st, err := c.q.Start(g.seed())
	if err != nil {
		g.log.Error("quest cannot start", "script", scriptID, "err", err)
		return g.apology(ctx, tx, chat, msgsFor(sc.lang).noQuest)
	}

	// Give up the running game, then read the credits the new stake comes from.
	g.live.forget(service, user)
	var credits int64
	b := &pgx.Batch{}
	b.Queue(abandonSQL, service, user)
	b.Queue(`
		INSERT INTO user_stats AS s (service_id, user_id) VALUES ($1, $2)
		ON CONFLICT (service_id, user_id) DO UPDATE SET credits = s.credits
		RETURNING credits`, service, user).QueryRow(func(r pgx.Row) error { return r.Scan(&credits) })
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("questplay: launch: %w", err)
	}
	stake := stakeFor(credits, c)
	if c.money >= 0 {
		st.Params[c.money] = int(stake)
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	gm := &game{state: st, moneyParam: c.money, script: sc, nonce: newNonce()}
	b = &pgx.Batch{}
	b.Queue(`UPDATE user_stats SET credits = credits - $3, launches = launches + 1
		WHERE service_id = $1 AND user_id = $2`, service, user, stake)
	b.Queue(`INSERT INTO user_script_stats AS s (service_id, user_id, script_id, launches) VALUES ($1, $2, $3, 1)
		ON CONFLICT (service_id, user_id, script_id) DO UPDATE SET launches = s.launches + 1`, service, user, scriptID)
	b.Queue(`INSERT INTO game (service_id, user_id, script_id, state, stake, money_param, nonce)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING game_id`, service, user, scriptID, raw, stake, c.money, gm.nonce).
		QueryRow(func(r pgx.Row) error { return r.Scan(&gm.id) })
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("questplay: launch: %w", err)
	}
	if err := g.show(ctx, tx, chat, c, gm, name(u)); err != nil {
		return fmt.Errorf("questplay: launch script %d: %w", scriptID, err)
	}
	g.live.put(service, user, *gm)
	return nil
}

// apology sends a short text.
func (g *Games) apology(ctx context.Context, tx bot.Tx, chat int64, text string) error {
	reqs, err := bot.SendHTML(chat, escape(text), nil)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// Running reports the user's running game in this bot, if any.
func (g *Games) Running(ctx context.Context, tx bot.Tx, u *bot.Update) (scriptID int64, ok bool, err error) {
	service, user, _, err := who(u)
	if err != nil {
		return 0, false, err
	}
	err = tx.DB().QueryRow(ctx, `SELECT script_id FROM game WHERE service_id = $1 AND user_id = $2`, service, user).Scan(&scriptID)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("questplay: running: %w", err)
	}
	return scriptID, true, nil
}

// Cancel ends the user's running game without a result (money.go says what happens to its
// money). Its buttons left in the chat are stale from then on. Without a game it does nothing.
func (g *Games) Cancel(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	service, user, _, err := who(u)
	if err != nil {
		return err
	}
	g.live.forget(service, user)
	if _, err := tx.DB().Exec(ctx, abandonSQL, service, user); err != nil {
		return fmt.Errorf("questplay: cancel: %w", err)
	}
	return nil
}

// Retry re-shows the current screen and applies nothing again: the screen is rebuilt from the
// stored state, which showing never changes. Without a game it says so.
func (g *Games) Retry(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	service, user, chat, err := who(u)
	if err != nil {
		return err
	}
	gm, err := loadGame(ctx, tx.DB(), service, user)
	if err != nil {
		return err
	}
	if gm == nil {
		lang := bot.Language(u.User.Language)
		return g.apology(ctx, tx, chat, msgsFor(lang).noGame)
	}
	c, err := g.cache.get(g.path(gm.script.file))
	if err != nil {
		g.log.Error("quest cannot be loaded", "script", gm.script.id, "err", err)
		return g.apology(ctx, tx, chat, msgsFor(gm.script.lang).noQuest)
	}
	if shown, err := g.multiShow(ctx, tx, u, c, gm); err != nil || shown {
		return err
	}
	if err := g.show(ctx, tx, chat, c, gm, name(u)); err != nil {
		g.log.Error("quest screen failed", "script", gm.script.id, "err", err)
		return g.apology(ctx, tx, chat, msgsFor(gm.script.lang).brokenNow)
	}
	return nil
}

// SwitchLanguage continues the running game in the version of the same quest (same common name)
// in lang, if one exists (the "refresh" action); reports whether it switched. The versions must
// have the same structure (the game's state must fit the other file); otherwise nothing changes.
func (g *Games) SwitchLanguage(ctx context.Context, tx bot.Tx, u *bot.Update, lang string) (bool, error) {
	service, user, chat, err := who(u)
	if err != nil {
		return false, err
	}
	db := tx.DB()
	gm, err := loadGame(ctx, db, service, user)
	if err != nil || gm == nil || gm.script.lang == lang {
		return false, err
	}
	sc := script{commonName: gm.script.commonName, lang: lang}
	err = db.QueryRow(ctx, `
		SELECT id, file, win_bonus, death_penalty FROM script
		WHERE common_name = $1 AND language = $2 AND (service_id IS NULL OR service_id = $3)
			AND (listed OR NOT uploaded) -- never a developer's private upload (dev.go)
		ORDER BY version DESC, id DESC LIMIT 1`, gm.script.commonName, lang, service).
		Scan(&sc.id, &sc.file, &sc.winBonus, &sc.deathPenalty)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("questplay: switch language: %w", err)
	}
	c, err := g.cache.get(g.path(sc.file))
	if err != nil || c.money != gm.moneyParam || c.q.ParamsCount() != len(gm.state.Params) {
		if err != nil {
			g.log.Error("quest cannot be loaded", "script", sc.id, "err", err)
		}
		return false, nil
	}
	if _, err := c.q.View(gm.state, g.player(lang, 0)); err != nil {
		return false, nil // the other version does not fit this game's state
	}
	gm.script = sc
	gm.step++
	g.live.forget(service, user)
	if _, err := db.Exec(ctx, `UPDATE game SET script_id = $3, step = $4, nonce = $5, updated_at = now()
		WHERE service_id = $1 AND user_id = $2`, service, user, sc.id, gm.step, newNonce()); err != nil {
		return false, fmt.Errorf("questplay: switch language: %w", err)
	}
	if err := g.multiNames(ctx, tx, c, gm); err != nil {
		return false, err
	}
	if err := g.show(ctx, tx, chat, c, gm, name(u)); err != nil {
		return false, fmt.Errorf("questplay: switch language: %w", err)
	}
	return true, nil
}

// parseData reads callback data "q:<game>:<step>:<action>".
func parseData(data string) (gameID int64, step, action int, ok bool) {
	rest, found := strings.CutPrefix(data, "q:")
	if !found {
		return 0, 0, 0, false
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	gameID, err1 := strconv.ParseInt(parts[0], 36, 64)
	s, err2 := strconv.ParseInt(parts[1], 10, 32)
	a, err3 := strconv.ParseInt(parts[2], 10, 32)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, 0, false
	}
	return gameID, int(s), int(a), true
}

// HandleCallback handles a button press whose callback data starts with "q:" (yours);
// handled=false for any other data. Every press it handles is answered. A press is performed
// only when it belongs to the current screen of the running game and is one of its active
// choices; anything else is answered "this choice is no longer available" and changes nothing.
//
// The game is taken from memory when this process remembers it at the pressed step, else read;
// the new state is written only where the row is still the one the step started from (its
// nonce), so a step costs one statement when the game is remembered and two when it is not.
func (g *Games) HandleCallback(ctx context.Context, tx bot.Tx, u *bot.Update) (handled bool, err error) {
	cq := u.CallbackQuery
	if cq == nil || !strings.HasPrefix(cq.Data, "q:") {
		return false, nil
	}
	service, user, chat, err := who(u)
	if err != nil {
		return true, err
	}
	lang := bot.Language(u.User.Language)
	gameID, step, action, ok := parseData(cq.Data)
	if !ok {
		return true, tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, msgsFor(lang).stale))
	}
	db := tx.DB()
	gm, remembered := g.live.get(service, user)
	if !remembered || gm.id != gameID || gm.step != step {
		// Not remembered at this step (the memory may also be ahead of a rolled-back step).
		loaded, err := loadGame(ctx, db, service, user)
		if err != nil {
			return true, err
		}
		if loaded == nil {
			g.live.forget(service, user)
			return true, tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, msgsFor(lang).stale))
		}
		gm, remembered = *loaded, false
	}
	if gm.id != gameID || gm.step != step {
		g.live.put(service, user, gm)
		text, err := g.staleAnswer(ctx, tx, &gm)
		if err != nil {
			return true, err
		}
		return true, tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, text))
	}
	lang = gm.script.lang
	c, err := g.cache.get(g.path(gm.script.file))
	if err != nil {
		g.log.Error("quest cannot be loaded", "script", gm.script.id, "err", err)
		return true, tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, msgsFor(lang).noQuest))
	}
	if _, ok := c.points[action]; ok {
		// A multiplayer jump is taken only when its session says so (multi.go); its button on
		// a waiting screen tells what the game waits for.
		text, err := g.staleAnswer(ctx, tx, &gm)
		if err != nil {
			return true, err
		}
		return true, tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, text))
	}
	old := gm.state
	next, err := c.q.Perform(old, action)
	if errors.Is(err, quest.ErrNotAChoice) {
		return true, tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, msgsFor(lang).stale))
	}
	if err != nil {
		g.log.Error("quest step failed", "script", gm.script.id, "action", action, "err", err)
		return true, tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, msgsFor(lang).brokenNow))
	}
	prev := gm
	gm.state = next
	gm.step++
	gm.nonce = newNonce()
	if retry, err := g.multiStep(ctx, tx, u, c, &gm, prev.nonce); err != nil {
		return true, err
	} else if retry {
		g.live.forget(service, user)
		if remembered {
			return g.HandleCallback(ctx, tx, u)
		}
		return true, tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, msgsFor(lang).stale))
	}
	v, screen, err := g.screenOf(chat, c, &gm, name(u))
	if err != nil {
		// The new state cannot be shown (a broken formula in its text): keep the old one.
		g.log.Error("quest screen failed", "script", gm.script.id, "err", err)
		return true, tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, msgsFor(lang).brokenNow))
	}

	var done pgconn.CommandTag
	b := &pgx.Batch{}
	if v.Status.Over() {
		queueEnding(b, service, user, &prev, &gm, v.Status).Exec(func(ct pgconn.CommandTag) error { done = ct; return nil })
	} else {
		raw, err := json.Marshal(gm.state)
		if err != nil {
			return true, err
		}
		b.Queue(`UPDATE game SET state = $3, step = $4, nonce = $5, updated_at = now()
			WHERE service_id = $1 AND user_id = $2 AND game_id = $6 AND nonce = $7`,
			service, user, raw, gm.step, gm.nonce, gm.id, prev.nonce).
			Exec(func(ct pgconn.CommandTag) error { done = ct; return nil })
	}
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return true, fmt.Errorf("questplay: step: %w", err)
	}
	if done.RowsAffected() != 1 {
		g.live.forget(service, user)
		if remembered {
			// The row changed behind the memory: read it and judge the press again.
			return g.HandleCallback(ctx, tx, u)
		}
		return true, tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, msgsFor(lang).stale))
	}

	reqs := make([]bot.Request, 0, len(screen)+2)
	reqs = append(reqs, bot.AnswerCallback(chat, cq.ID, ""))
	// The screen left stays as transcript without its buttons, unless it is a screen of the
	// starting location or of an empty one.
	if m := cq.Message; m != nil {
		if (old.Phase == quest.PhaseLocation || old.Phase == quest.PhaseCritOnLocation) && c.plain[old.LocationID] {
			reqs = append(reqs, bot.Delete(chat, m.MessageID))
		} else if r, err := bot.EditKeyboard(chat, m.MessageID, nil); err == nil {
			reqs = append(reqs, r)
		}
	}
	if err := tx.Send(ctx, append(reqs, screen...)...); err != nil {
		return true, err
	}
	if v.Status.Over() {
		g.live.forget(service, user)
	} else {
		g.live.put(service, user, gm)
	}
	return true, nil
}

// queueEnding queues the statement that settles a game that has just ended (money.go) and
// deletes it, provided the row is still prev; the statement affects one row when it did.
func queueEnding(b *pgx.Batch, service int, user int64, prev, gm *game, st quest.Status) *pgx.QueuedQuery {
	delta := money(&gm.state, gm.moneyParam)
	var win, fail, dead int
	switch st {
	case quest.Win:
		win, delta = 1, delta+gm.script.winBonus
	case quest.Dead:
		dead, delta = 1, delta-gm.script.deathPenalty
	default:
		fail = 1
	}
	return b.Queue(`
		WITH ended AS (
			DELETE FROM game WHERE service_id = $1 AND user_id = $2 AND game_id = $3 AND nonce = $4
			RETURNING sandbox, script_id),
		counted AS (
			UPDATE user_script_stats s SET wins = s.wins + $6, failures = s.failures + $7, deaths = s.deaths + $8
			FROM ended WHERE NOT ended.sandbox AND s.service_id = $1 AND s.user_id = $2 AND s.script_id = ended.script_id),
		paid AS (
			UPDATE user_stats s SET credits = LEAST(GREATEST(s.credits + $5, 0), `+maxCreditsSQL+`),
				wins = s.wins + $6, failures = s.failures + $7, deaths = s.deaths + $8
			FROM ended WHERE NOT ended.sandbox AND s.service_id = $1 AND s.user_id = $2)
		SELECT FROM ended`, service, user, prev.id, prev.nonce, delta, win, fail, dead)
}
