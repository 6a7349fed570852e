// Package tournamentpg stores tournaments (sessions/tournament's records) in PostgreSQL, within
// the caller's transaction: a round is paired in the transaction that creates its boards, and a
// result is recorded in the one that finishes the board. It is the only code on the tables of
// migration 029_tournaments.sql, and on the tournaments' record of events (tournament_event,
// migration 042, events.go), which the tournament service writes in the transaction of each
// change and the web's tournament streams read.
package tournamentpg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/tournament"
)

// Store keeps tournaments within one transaction, the caller's. It holds nothing else, so
// making one per transaction costs nothing.
type Store struct {
	tx pgx.Tx
}

// New returns the tournament store of a transaction.
func New(tx pgx.Tx) *Store { return &Store{tx: tx} }

// ErrPaired is returned by AddPairing for a player already paired in the round: the round was
// paired by someone else.
var ErrPaired = errors.New("tournamentpg: the player is paired in this round already")

// columns are the tournament's columns, in the order scan reads them.
const columns = `id, service_id, variant, control, system, rounds, duration_us, max_players, starts_at,
	ends_at, state, cancelled, round, created_by, created_at, finished_at`

// scan reads a tournament row.
func scan(row pgx.Row) (*tournament.Tournament, error) {
	var t tournament.Tournament
	var system, state string
	var duration int64
	var ends, finished *time.Time
	err := row.Scan(&t.ID, &t.Service, &t.Variant, &t.Control, &system, &t.Rounds, &duration, &t.MaxPlayers,
		&t.StartsAt, &ends, &state, &t.Cancelled, &t.Round, &t.Creator, &t.Created, &finished)
	if err != nil {
		return nil, err
	}
	t.System, t.State, t.Duration = tournament.System(system), tournament.State(state), time.Duration(duration)*time.Microsecond
	if ends != nil {
		t.EndsAt = *ends
	}
	if finished != nil {
		t.Finished = *finished
	}
	return &t, nil
}

// nullTime is a time for a nullable column: NULL for the zero time.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

const createSQL = `
	INSERT INTO tournament (service_id, variant, control, system, rounds, duration_us, max_players,
		starts_at, state, created_by, created_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
	RETURNING id`

// Create stores a new tournament and sets its ID.
func (s *Store) Create(ctx context.Context, t *tournament.Tournament) error {
	return s.tx.QueryRow(ctx, createSQL, t.Service, t.Variant, t.Control, string(t.System), t.Rounds,
		t.Duration.Microseconds(), t.MaxPlayers, t.StartsAt, string(t.State), t.Creator, t.Created).Scan(&t.ID)
}

// Get reads a tournament; nil when there is none.
func (s *Store) Get(ctx context.Context, id int64) (*tournament.Tournament, error) {
	return s.one(ctx, `SELECT `+columns+` FROM tournament WHERE id = $1`, id)
}

// Lock reads a tournament and locks it until the transaction ends; nil when there is none.
func (s *Store) Lock(ctx context.Context, id int64) (*tournament.Tournament, error) {
	return s.one(ctx, `SELECT `+columns+` FROM tournament WHERE id = $1 FOR UPDATE`, id)
}

func (s *Store) one(ctx context.Context, sql string, id int64) (*tournament.Tournament, error) {
	t, err := scan(s.tx.QueryRow(ctx, sql, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return t, err
}

const saveSQL = `
	UPDATE tournament SET state = $2, round = $3, ends_at = $4, cancelled = $5, finished_at = $6
	WHERE id = $1`

// Save stores what running a tournament changes: its state, round, end and cancellation.
func (s *Store) Save(ctx context.Context, t *tournament.Tournament) error {
	tag, err := s.tx.Exec(ctx, saveSQL, t.ID, string(t.State), t.Round, nullTime(t.EndsAt), t.Cancelled, nullTime(t.Finished))
	if err == nil && tag.RowsAffected() == 0 {
		err = fmt.Errorf("tournament %d: %w", t.ID, pgx.ErrNoRows)
	}
	return err
}

// List returns at most limit tournaments of a bot in the given states, the soonest to start
// first.
func (s *Store) List(ctx context.Context, service int, states []tournament.State, limit int) ([]tournament.Tournament, error) {
	names := make([]string, len(states))
	for i, st := range states {
		names[i] = string(st)
	}
	rows, err := s.tx.Query(ctx, `SELECT `+columns+` FROM tournament
		WHERE service_id = $1 AND state = ANY($2) ORDER BY starts_at, id LIMIT $3`, service, names, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tournament.Tournament
	for rows.Next() {
		t, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *t)
	}
	return out, rows.Err()
}

// CountOpen counts a user's tournaments of a bot that are created or running.
func (s *Store) CountOpen(ctx context.Context, service int, creator int64) (int, error) {
	var n int
	err := s.tx.QueryRow(ctx, `SELECT count(*) FROM tournament
		WHERE service_id = $1 AND created_by = $2 AND state <> 'finished'`, service, creator).Scan(&n)
	return n, err
}

// Enter enters a player; false when they are entered already.
func (s *Store) Enter(ctx context.Context, id int64, e tournament.Entrant) (bool, error) {
	tag, err := s.tx.Exec(ctx, `INSERT INTO tournament_entrant (tournament_id, user_id, joined_at, rating, program)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, id, e.User, e.Joined, e.Rating, e.Program)
	return err == nil && tag.RowsAffected() == 1, err
}

// Leave withdraws a player; false when they were not entered.
func (s *Store) Leave(ctx context.Context, id int64, user int64) (bool, error) {
	tag, err := s.tx.Exec(ctx, `DELETE FROM tournament_entrant WHERE tournament_id = $1 AND user_id = $2`, id, user)
	return err == nil && tag.RowsAffected() == 1, err
}

// Entrants returns a tournament's players in the order they joined.
func (s *Store) Entrants(ctx context.Context, id int64) ([]tournament.Entrant, error) {
	rows, err := s.tx.Query(ctx, `SELECT user_id, joined_at, rating, program, free_since, message_at
		FROM tournament_entrant WHERE tournament_id = $1 ORDER BY joined_at, user_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tournament.Entrant
	for rows.Next() {
		var e tournament.Entrant
		var free, msg *time.Time
		if err := rows.Scan(&e.User, &e.Joined, &e.Rating, &e.Program, &free, &msg); err != nil {
			return nil, err
		}
		if free != nil {
			e.FreeSince = *free
		}
		if msg != nil {
			e.MessageAt = *msg
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// SetRating records the rating a player is seeded by.
func (s *Store) SetRating(ctx context.Context, id int64, user int64, rating float64) error {
	_, err := s.tx.Exec(ctx, `UPDATE tournament_entrant SET rating = $3 WHERE tournament_id = $1 AND user_id = $2`,
		id, user, rating)
	return err
}

// SetFree records when a player of an arena became free for a game (zero: they play).
func (s *Store) SetFree(ctx context.Context, id int64, user int64, since time.Time) error {
	_, err := s.tx.Exec(ctx, `UPDATE tournament_entrant SET free_since = $3 WHERE tournament_id = $1 AND user_id = $2`,
		id, user, nullTime(since))
	return err
}

// MarkMessage records when a player's standings message was sent.
func (s *Store) MarkMessage(ctx context.Context, id int64, user int64, at time.Time) error {
	_, err := s.tx.Exec(ctx, `UPDATE tournament_entrant SET message_at = $3 WHERE tournament_id = $1 AND user_id = $2`,
		id, user, at)
	return err
}

// pairedKeys are the unique constraints that keep a player to one game a round.
var pairedKeys = map[string]bool{
	"tournament_pairing_tournament_id_round_white_key": true,
	"tournament_pairing_tournament_id_round_black_key": true,
}

// AddPairing stores a pairing and sets its ID. Returns ErrPaired when a player of it is paired
// in the round already.
func (s *Store) AddPairing(ctx context.Context, id int64, p *tournament.Pairing) error {
	var black, boardID *int64
	if !p.Bye() {
		black = &p.Black
	}
	if p.Board != 0 {
		boardID = &p.Board
	}
	err := s.tx.QueryRow(ctx, `INSERT INTO tournament_pairing (tournament_id, round, white, black, board_id)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, id, p.Round, p.White, black, boardID).Scan(&p.ID)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgxUnique(pgErr) {
		return fmt.Errorf("%w: %w", ErrPaired, err)
	}
	return err
}

func pgxUnique(e *pgconn.PgError) bool { return pairedKeys[e.ConstraintName] }

// results are the stored names of the results.
var results = map[tournament.Result]string{tournament.WhiteWins: "white", tournament.Draw: "draw", tournament.BlackWins: "black"}

func parseResult(s *string) tournament.Result {
	if s == nil {
		return tournament.Pending
	}
	for r, name := range results {
		if name == *s {
			return r
		}
	}
	return tournament.Pending
}

const pairingColumns = `id, round, white, black, board_id, result, finished_at`

func scanPairing(row pgx.Row) (tournament.Pairing, error) {
	var p tournament.Pairing
	var black, boardID *int64
	var result *string
	var finished *time.Time
	if err := row.Scan(&p.ID, &p.Round, &p.White, &black, &boardID, &result, &finished); err != nil {
		return p, err
	}
	if black != nil {
		p.Black = *black
	}
	if boardID != nil {
		p.Board = *boardID
	}
	if finished != nil {
		p.Finished = *finished
	}
	p.Result = parseResult(result)
	return p, nil
}

// Pairings returns a tournament's pairings: the finished games in the order they finished, then
// the others (byes, and games being played) by round and id.
func (s *Store) Pairings(ctx context.Context, id int64) ([]tournament.Pairing, error) {
	rows, err := s.tx.Query(ctx, `SELECT `+pairingColumns+` FROM tournament_pairing WHERE tournament_id = $1
		ORDER BY finished_at IS NULL, finished_at, round, id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tournament.Pairing
	for rows.Next() {
		p, err := scanPairing(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// BoardPairing returns the tournament and the pairing of a board; false when the board is no
// tournament's game.
func (s *Store) BoardPairing(ctx context.Context, boardID int64) (int64, tournament.Pairing, bool, error) {
	var tid int64
	row := s.tx.QueryRow(ctx, `SELECT tournament_id, `+pairingColumns+` FROM tournament_pairing WHERE board_id = $1`, boardID)
	var p tournament.Pairing
	var black, bid *int64
	var result *string
	var finished *time.Time
	err := row.Scan(&tid, &p.ID, &p.Round, &p.White, &black, &bid, &result, &finished)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, p, false, nil
	}
	if err != nil {
		return 0, p, false, err
	}
	if black != nil {
		p.Black = *black
	}
	if bid != nil {
		p.Board = *bid
	}
	if finished != nil {
		p.Finished = *finished
	}
	p.Result = parseResult(result)
	return tid, p, true, nil
}

// FinishPairing records a game's result; false when it had one already.
func (s *Store) FinishPairing(ctx context.Context, pairing int64, r tournament.Result, at time.Time) (bool, error) {
	name, ok := results[r]
	if !ok {
		return false, fmt.Errorf("tournamentpg: no result %d to record", r)
	}
	tag, err := s.tx.Exec(ctx, `UPDATE tournament_pairing SET result = $2, finished_at = $3
		WHERE id = $1 AND result IS NULL`, pairing, name, at)
	return err == nil && tag.RowsAffected() == 1, err
}

// claimSQL finds the tournaments the job has work on: those due to start; the rounds of a round
// robin or a Swiss all of whose games have finished (to pair the next, or to finish); the
// arenas past their end, or with players free to pair. It locks them, skipping those another
// transaction holds.
const claimSQL = `
	SELECT id, service_id FROM tournament t
	WHERE (state = 'created' AND starts_at <= $1)
	   OR (state = 'running' AND system <> 'arena' AND NOT EXISTS (
		SELECT 1 FROM tournament_pairing p
		WHERE p.tournament_id = t.id AND p.round = t.round AND p.result IS NULL AND p.black IS NOT NULL))
	   OR (state = 'running' AND system = 'arena' AND (ends_at <= $1 OR (
		SELECT count(*) FROM tournament_entrant e WHERE e.tournament_id = t.id AND e.free_since IS NOT NULL) >= 2))
	ORDER BY id
	LIMIT $2
	FOR UPDATE SKIP LOCKED`

// ClaimDue locks and returns at most limit tournaments the tournament job has work on at now.
func (s *Store) ClaimDue(ctx context.Context, now time.Time, limit int) ([]board.Ref, error) {
	rows, err := s.tx.Query(ctx, claimSQL, now, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (board.Ref, error) {
		var r board.Ref
		err := row.Scan(&r.ID, &r.Service)
		return r, err
	})
}

// Setting returns who may create tournaments in a bot (tournament.DefaultSetting without a row).
func (s *Store) Setting(ctx context.Context, service int) (tournament.Setting, error) {
	st := tournament.DefaultSetting
	err := s.tx.QueryRow(ctx, `SELECT users_may_create, max_open FROM tournament_setting WHERE service_id = $1`,
		service).Scan(&st.UsersMayCreate, &st.MaxOpen)
	if errors.Is(err, pgx.ErrNoRows) {
		return tournament.DefaultSetting, nil
	}
	return st, err
}

// SaveSetting stores who may create tournaments in a bot.
func (s *Store) SaveSetting(ctx context.Context, service int, st tournament.Setting) error {
	_, err := s.tx.Exec(ctx, `INSERT INTO tournament_setting (service_id, users_may_create, max_open) VALUES ($1, $2, $3)
		ON CONFLICT (service_id) DO UPDATE SET users_may_create = $2, max_open = $3`, service, st.UsersMayCreate, st.MaxOpen)
	return err
}
