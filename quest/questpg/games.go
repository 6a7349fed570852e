// Package questpg keeps the quests of the bots in PostgreSQL: the catalogue (script) with the
// developers' uploads (dev_upload), the running games (game) and the players' credits and
// statistics (user_stats, user_script_stats). It is the only code that reads or writes these
// tables; the quest player (bot/questplay), the developers' tools and the relay ask it.
//
// Every method takes the caller's transaction: a step of a game is written in the transaction of
// the update that made it, together with the messages it sends.
//
// # Games
//
// A user has at most one running game in a bot: the row is created by a launch and deleted when
// the game ends or is given up. Each change writes a new random nonce; a change made on a game
// read earlier is conditional on the nonce being still the one read (Step, End, Update), so a
// change made meanwhile elsewhere (another process, a stale button, a rolled-back transaction
// whose result was remembered) is detected instead of overwritten. See state.go for how the
// quest state is stored. Each game also keeps its log (quest/questlog): every write appends the
// moves made since (Game.Moves), and Log reads them, for a developer's /log and /positions.
//
// # Money
//
// A player has credits (10 000 to begin with, never below 0 nor above maxCredits). A quest with a
// money parameter plays with part of them: at launch the stake (chosen by the caller from the
// credits) is taken from the credits and becomes the money parameter's value; when the game ends,
// the parameter's final value is paid back, then a win adds the quest's win bonus and a death
// takes its death penalty; a game given up pays back the parameter's current value. A game is
// settled exactly once, in the statement that deletes its row, so neither a retry nor a stale
// button can pay twice. A sandbox game moves no credits and counts in no statistics.
package questpg

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questlog"
)

// Errors of the store.
var (
	// ErrNoGame: the user runs no game in the bot (or not the one asked for).
	ErrNoGame = errors.New("questpg: no running game")
	// ErrNoScript: the bot offers no quest of that id.
	ErrNoScript = errors.New("questpg: no such quest")
)

// maxCredits bounds a player's credits.
const maxCredits = 1_000_000

// maxCreditsSQL is maxCredits in the SQL text (a test checks that they agree).
const maxCreditsSQL = "1000000"

// Script is a quest of the catalogue, as a game needs it.
type Script struct {
	ID int64
	// Name is the name shown in menus; CommonName groups the language versions.
	Name, CommonName string
	// File is the quest file, relative to the quest root unless absolute.
	File string
	// Lang is the quest's language, "en" or "ru".
	Lang                   string
	WinBonus, DeathPenalty int64
	// SessionType is the session type of a multiplayer quest, 0 for none.
	SessionType int
	// Dialect is how the quest is played.
	Dialect Dialect
}

// Dialect is how a quest of the catalogue is played and shown (the script's dialect column); the
// quest player says what each one changes.
type Dialect string

// The dialects.
const (
	// DialectReference plays as the reference player does, exactly.
	DialectReference Dialect = "reference"
	// DialectDagazBot plays as the original Telegram bot (DagazBotV3) did, for the quests
	// written for it.
	DialectDagazBot Dialect = "dagazbot"
)

// dialects lists the dialects, the default first.
var dialects = []Dialect{DialectReference, DialectDagazBot}

// ErrBadDialect reports a dialect name that is none of dialects.
var ErrBadDialect = errors.New("questpg: unknown dialect")

// ParseDialect returns the dialect named s (case ignored).
func ParseDialect(s string) (Dialect, error) {
	for _, d := range dialects {
		if strings.EqualFold(s, string(d)) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w %q: it is reference or dagazbot", ErrBadDialect, s)
}

// Game is a user's running game.
type Game struct {
	ID      int64
	Service int
	User    int64
	Script  Script
	// Step counts the changes; a button carries the step it was shown at.
	Step int
	// Nonce is a random value written with every change.
	Nonce   int64
	State   quest.State
	Sandbox bool
	// Stake is the credits taken at launch; MoneyParam the index of the quest's money
	// parameter, -1 when it has none.
	Stake      int64
	MoneyParam int
	// Ranger is the player's name in the quest's texts set by a developer, "" for the user's own.
	Ranger string
	// Names are the names the user gave the player tags (see The player's names), read with the
	// game; never written with it.
	Names Names
	// Moves are the moves of the game's log (quest/questlog) made since it was read or written:
	// the next write appends them to the stored log (the first, Launch or StartSandbox, starts
	// the log with them), and the caller clears them once written. The log is never read with
	// the game: Log reads it.
	Moves []questlog.Move
}

// movesJSON is the JSON array of moves, "[]" for none.
func movesJSON(moves []questlog.Move) ([]byte, error) {
	if len(moves) == 0 {
		return []byte("[]"), nil
	}
	b, err := json.Marshal(moves)
	if err != nil {
		return nil, fmt.Errorf("encode moves: %w", err)
	}
	return b, nil
}

// Store is the PostgreSQL store of the quests. The zero value is ready; it holds no state.
type Store struct{}

// New returns the store.
func New() *Store { return &Store{} }

// NewNonce returns a random nonce for a game row.
func NewNonce() int64 {
	var b [8]byte
	rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

const gameColumns = `g.game_id, g.service_id, g.user_id, g.step, g.nonce, g.state_version, g.phase, g.location, g.state,
	g.sandbox, g.stake, g.money_param, COALESCE(g.ranger, ''),
	s.id, s.name, s.common_name, s.file, s.language, s.win_bonus, s.death_penalty, COALESCE(s.session_type_id, 0),
	s.dialect, COALESCE(n.ranger, ''), COALESCE(n.from_planet, ''), COALESCE(n.from_star, ''),
	COALESCE(n.to_planet, ''), COALESCE(n.to_star, '')`

// gameTables are the tables gameColumns reads.
const gameTables = `game g JOIN script s ON s.id = g.script_id LEFT JOIN player_names n ON n.user_id = g.user_id`

func scanGame(row pgx.Row) (*Game, error) {
	var g Game
	var version int
	var phase string
	var location int
	var doc []byte
	err := row.Scan(&g.ID, &g.Service, &g.User, &g.Step, &g.Nonce, &version, &phase, &location, &doc,
		&g.Sandbox, &g.Stake, &g.MoneyParam, &g.Ranger,
		&g.Script.ID, &g.Script.Name, &g.Script.CommonName, &g.Script.File, &g.Script.Lang, &g.Script.WinBonus,
		&g.Script.DeathPenalty, &g.Script.SessionType, &g.Script.Dialect,
		&g.Names.Ranger, &g.Names.FromPlanet, &g.Names.FromStar, &g.Names.ToPlanet, &g.Names.ToStar)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNoGame
	}
	if err != nil {
		return nil, err
	}
	if g.State, err = decodeState(version, phase, location, doc); err != nil {
		return nil, fmt.Errorf("game %d: %w", g.ID, err)
	}
	return &g, nil
}

// Running returns the user's running game in a bot; ErrNoGame when there is none.
func (s *Store) Running(ctx context.Context, db pgx.Tx, service int, user int64) (*Game, error) {
	g, err := scanGame(db.QueryRow(ctx, `SELECT `+gameColumns+`
		FROM `+gameTables+` WHERE g.service_id = $1 AND g.user_id = $2`, service, user))
	if err != nil && !errors.Is(err, ErrNoGame) {
		return nil, fmt.Errorf("running game of user %d: %w", user, err)
	}
	return g, err
}

// LockRunning reads the user's running game and locks its row until the transaction ends;
// ErrNoGame when there is none, or when game is not 0 and the running game is another.
func (s *Store) LockRunning(ctx context.Context, db pgx.Tx, service int, user, game int64) (*Game, error) {
	g, err := scanGame(db.QueryRow(ctx, `SELECT `+gameColumns+`
		FROM `+gameTables+` WHERE g.service_id = $1 AND g.user_id = $2
		FOR UPDATE OF g`, service, user))
	switch {
	case errors.Is(err, ErrNoGame):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("lock game of user %d: %w", user, err)
	case game != 0 && g.ID != game:
		return nil, ErrNoGame
	}
	return g, nil
}

// Script returns quest id as offered in a bot; ErrNoScript when the bot does not offer it.
func (s *Store) Script(ctx context.Context, db pgx.Tx, service int, id int64) (*Script, error) {
	sc := &Script{ID: id}
	err := db.QueryRow(ctx, `
		SELECT name, common_name, file, language, win_bonus, death_penalty, COALESCE(session_type_id, 0), dialect
		FROM script WHERE id = $1 AND (service_id IS NULL OR service_id = $2)`, id, service).
		Scan(&sc.Name, &sc.CommonName, &sc.File, &sc.Lang, &sc.WinBonus, &sc.DeathPenalty, &sc.SessionType, &sc.Dialect)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNoScript
	}
	if err != nil {
		return nil, fmt.Errorf("quest %d: %w", id, err)
	}
	return sc, nil
}

// Translation returns the newest version in lang of a quest (by common name) offered in a bot,
// never a developer's private upload; ErrNoScript when there is none.
func (s *Store) Translation(ctx context.Context, db pgx.Tx, service int, commonName, lang string) (*Script, error) {
	sc := &Script{CommonName: commonName, Lang: lang}
	err := db.QueryRow(ctx, `
		SELECT id, name, file, win_bonus, death_penalty, COALESCE(session_type_id, 0), dialect FROM script
		WHERE common_name = $1 AND language = $2 AND (service_id IS NULL OR service_id = $3)
			AND (listed OR NOT uploaded)
		ORDER BY version DESC, id DESC LIMIT 1`, commonName, lang, service).
		Scan(&sc.ID, &sc.Name, &sc.File, &sc.WinBonus, &sc.DeathPenalty, &sc.SessionType, &sc.Dialect)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNoScript
	}
	if err != nil {
		return nil, fmt.Errorf("translation of %s: %w", commonName, err)
	}
	return sc, nil
}

// abandonSQL ends the user's game without a result: the row is deleted and, unless it was a
// sandbox game, the money parameter's current value is paid back to the credits. (The document of
// version 0 and of version 1 both keep the parameters under "params".)
const abandonSQL = `
	WITH old AS (
		DELETE FROM game WHERE service_id = $1 AND user_id = $2
		RETURNING sandbox, CASE WHEN money_param >= 0
			THEN COALESCE((state->'params'->>money_param)::bigint, 0) ELSE 0 END AS back)
	UPDATE user_stats u SET credits = LEAST(GREATEST(u.credits + old.back, 0), ` + maxCreditsSQL + `)
	FROM old WHERE NOT old.sandbox AND u.service_id = $1 AND u.user_id = $2`

// Abandon ends the user's running game without a result (see Money); without one it does nothing.
func (s *Store) Abandon(ctx context.Context, db pgx.Tx, service int, user int64) error {
	if _, err := db.Exec(ctx, abandonSQL, service, user); err != nil {
		return fmt.Errorf("abandon game of user %d: %w", user, err)
	}
	return nil
}

// Launch starts g (its Service, User, Script, State and MoneyParam set) as the user's counted
// game, giving up the running one first. The stake is stake(credits), taken from the credits and
// written into the money parameter; the launch is counted. It sets g's ID, Nonce, Step and Stake.
func (s *Store) Launch(ctx context.Context, db pgx.Tx, g *Game, stake func(credits int64) int64) error {
	var credits int64
	b := &pgx.Batch{}
	b.Queue(abandonSQL, g.Service, g.User)
	b.Queue(`
		INSERT INTO user_stats AS s (service_id, user_id) VALUES ($1, $2)
		ON CONFLICT (service_id, user_id) DO UPDATE SET credits = s.credits
		RETURNING credits`, g.Service, g.User).QueryRow(func(r pgx.Row) error { return r.Scan(&credits) })
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("launch quest %d: %w", g.Script.ID, err)
	}
	g.Stake, g.Sandbox, g.Step, g.Nonce = 0, false, 0, NewNonce()
	if g.MoneyParam >= 0 && g.MoneyParam < len(g.State.Params) {
		g.Stake = stake(credits)
		g.State.Params[g.MoneyParam] = int(g.Stake)
	}
	phase, location, doc, err := encodeState(&g.State)
	if err != nil {
		return err
	}
	moves, err := movesJSON(g.Moves)
	if err != nil {
		return err
	}
	b = &pgx.Batch{}
	b.Queue(`UPDATE user_stats SET credits = credits - $3, launches = launches + 1
		WHERE service_id = $1 AND user_id = $2`, g.Service, g.User, g.Stake)
	b.Queue(`INSERT INTO user_script_stats AS s (service_id, user_id, script_id, launches) VALUES ($1, $2, $3, 1)
		ON CONFLICT (service_id, user_id, script_id) DO UPDATE SET launches = s.launches + 1`, g.Service, g.User, g.Script.ID)
	b.Queue(`INSERT INTO game (service_id, user_id, script_id, state_version, phase, location, state, stake, money_param, nonce, moves)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING game_id`,
		g.Service, g.User, g.Script.ID, stateVersion, phase, location, doc, g.Stake, g.MoneyParam, g.Nonce, moves).
		QueryRow(func(r pgx.Row) error { return r.Scan(&g.ID) })
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("launch quest %d: %w", g.Script.ID, err)
	}
	return nil
}

// StartSandbox starts g as the user's sandbox game (no stake, nothing counted), giving up the
// running one first. It sets g's ID, Nonce, Step and Stake.
func (s *Store) StartSandbox(ctx context.Context, db pgx.Tx, g *Game) error {
	g.Stake, g.Sandbox, g.Step, g.Nonce = 0, true, 0, NewNonce()
	phase, location, doc, err := encodeState(&g.State)
	if err != nil {
		return err
	}
	moves, err := movesJSON(g.Moves)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(abandonSQL, g.Service, g.User)
	b.Queue(`INSERT INTO game (service_id, user_id, script_id, state_version, phase, location, state, sandbox, stake,
			money_param, nonce, ranger, moves)
		VALUES ($1, $2, $3, $4, $5, $6, $7, true, 0, $8, $9, NULLIF($10, ''), $11) RETURNING game_id`,
		g.Service, g.User, g.Script.ID, stateVersion, phase, location, doc, g.MoneyParam, g.Nonce, g.Ranger, moves).
		QueryRow(func(r pgx.Row) error { return r.Scan(&g.ID) })
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("start sandbox of quest %d: %w", g.Script.ID, err)
	}
	return nil
}

// QueueStep adds to b the write of g's new State, Step and Nonce (as the caller moved them on),
// provided the row is still the game at prevNonce. done is told whether it was. It lets a step
// share a round trip with the statements around it.
func (s *Store) QueueStep(b *pgx.Batch, g *Game, prevNonce int64, done func(bool)) error {
	phase, location, doc, err := encodeState(&g.State)
	if err != nil {
		return err
	}
	moves, err := movesJSON(g.Moves)
	if err != nil {
		return err
	}
	b.Queue(`UPDATE game SET state_version = $3, phase = $4, location = $5, state = $6, step = $7, nonce = $8,
			ranger = NULLIF($9, ''), moves = moves || $12::jsonb, updated_at = now()
		WHERE service_id = $1 AND user_id = $2 AND game_id = $10 AND nonce = $11`,
		g.Service, g.User, stateVersion, phase, location, doc, g.Step, g.Nonce, g.Ranger, g.ID, prevNonce, moves).
		Exec(func(ct pgconn.CommandTag) error { done(ct.RowsAffected() == 1); return nil })
	return nil
}

// Step writes g's new State, Step and Nonce (and Ranger), provided the row is still the game at
// prevNonce; it reports whether it was.
func (s *Store) Step(ctx context.Context, db pgx.Tx, g *Game, prevNonce int64) (bool, error) {
	var ok bool
	b := &pgx.Batch{}
	if err := s.QueueStep(b, g, prevNonce, func(done bool) { ok = done }); err != nil {
		return false, err
	}
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return false, fmt.Errorf("step game %d: %w", g.ID, err)
	}
	return ok, nil
}

// QueueEnd adds to b the settling of g, which has just ended with status st (see Money), and the
// deletion of its row, provided the row is still the game at prevNonce; done is told whether it
// was.
func (s *Store) QueueEnd(b *pgx.Batch, g *Game, prevNonce int64, st quest.Status, done func(bool)) {
	delta := int64(0)
	if g.MoneyParam >= 0 && g.MoneyParam < len(g.State.Params) {
		delta = int64(g.State.Params[g.MoneyParam])
	}
	var win, fail, dead int
	switch st {
	case quest.Win:
		win, delta = 1, delta+g.Script.WinBonus
	case quest.Dead:
		dead, delta = 1, delta-g.Script.DeathPenalty
	default:
		fail = 1
	}
	b.Queue(`
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
		SELECT FROM ended`, g.Service, g.User, g.ID, prevNonce, delta, win, fail, dead).
		Exec(func(ct pgconn.CommandTag) error { done(ct.RowsAffected() == 1); return nil })
}

// SwitchScript moves the user's running game to another version of its quest (a translation),
// with g's new Step and Nonce.
func (s *Store) SwitchScript(ctx context.Context, db pgx.Tx, g *Game) error {
	_, err := db.Exec(ctx, `UPDATE game SET script_id = $3, step = $4, nonce = $5, updated_at = now()
		WHERE service_id = $1 AND user_id = $2 AND game_id = $6`, g.Service, g.User, g.Script.ID, g.Step, g.Nonce, g.ID)
	if err != nil {
		return fmt.Errorf("switch game %d to quest %d: %w", g.ID, g.Script.ID, err)
	}
	return nil
}

// Log returns the log of the user's running game (its moves from its start), and false when
// the game began before logs were kept; ErrNoGame when the user runs none.
func (s *Store) Log(ctx context.Context, db pgx.Tx, service int, user int64) ([]questlog.Move, bool, error) {
	var raw []byte
	err := db.QueryRow(ctx, `SELECT moves FROM game WHERE service_id = $1 AND user_id = $2`, service, user).Scan(&raw)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, false, ErrNoGame
	case err != nil:
		return nil, false, fmt.Errorf("log of user %d: %w", user, err)
	case raw == nil:
		return nil, false, nil
	}
	var moves []questlog.Move
	if err := json.Unmarshal(raw, &moves); err != nil {
		return nil, false, fmt.Errorf("log of user %d: %w", user, err)
	}
	return moves, true, nil
}

// CountRunning returns how many games run in a bot.
func (s *Store) CountRunning(ctx context.Context, db pgx.Tx, service int) (int, error) {
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM game WHERE service_id = $1`, service).Scan(&n); err != nil {
		return 0, fmt.Errorf("count games: %w", err)
	}
	return n, nil
}

// Position is where a user is in their running game.
type Position struct {
	// Quest is the quest's name.
	Quest    string
	Location int
	Step     int
}

// Position returns where the user is in their running game; ErrNoGame when they run none.
func (s *Store) Position(ctx context.Context, db pgx.Tx, service int, user int64) (*Position, error) {
	var p Position
	err := db.QueryRow(ctx, `
		SELECT s.name, g.location, g.step FROM game g JOIN script s ON s.id = g.script_id
		WHERE g.service_id = $1 AND g.user_id = $2`, service, user).Scan(&p.Quest, &p.Location, &p.Step)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNoGame
	}
	if err != nil {
		return nil, fmt.Errorf("position of user %d: %w", user, err)
	}
	return &p, nil
}
