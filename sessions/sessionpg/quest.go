package sessionpg

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/questbot/questbot/sessions"
)

// DB is what the stores need of a database: a transaction (pgx.Tx), or a pool for the statements
// that need none.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Quests keeps the quest sessions (tables quest_session, quest_session_player,
// quest_session_block, session_type) in one transaction: every session it returns is locked
// until the transaction ends.
//
// A player row points at its game through live_game, a foreign key to the game that the database
// sets to NULL when the game's row is deleted (the game ended, was cancelled or replaced): that
// is how a session learns that a player is gone, without reading the games.
type Quests struct {
	db DB
}

var _ sessions.QuestStore = (*Quests)(nil)

// NewQuests returns the quest sessions as seen by tx, the caller's transaction.
func NewQuests(tx pgx.Tx) *Quests { return &Quests{db: tx} }

// joinLockSpace is the first key of the advisory locks that serialise the joins of a quest.
const joinLockSpace = 0x6d70 // "mp"

const readSessionSQL = `
	SELECT s.id, s.service_id, s.state, s.round, s.deadline, s.end_reason, s.ended_by, s.ended_at,
	       t.id, t.min_players, t.max_players, t.index_param, t.start_param, t.param_count, s.quest, s.sandbox
	FROM quest_session s JOIN session_type t ON t.id = s.type_id
	WHERE s.id = $1`

// lock reads a session with its players and the blocks of its round, locked for the transaction;
// nil when it does not exist (or, with skipLocked, when another transaction holds it).
func lock(ctx context.Context, db DB, id int64, skipLocked bool) (*sessions.QuestSession, error) {
	if skipLocked {
		return read(ctx, db, id, " FOR UPDATE OF s SKIP LOCKED")
	}
	return read(ctx, db, id, " FOR UPDATE OF s")
}

// read reads a session with its players and the blocks of its round, the session row taken with
// the locking clause lockClause (none when empty); nil when it does not exist or is locked
// elsewhere with SKIP LOCKED.
func read(ctx context.Context, db DB, id int64, lockClause string) (*sessions.QuestSession, error) {
	q := readSessionSQL + lockClause
	var s sessions.QuestSession
	var state string
	var deadline, endedAt *time.Time
	var reason, by *string
	err := db.QueryRow(ctx, q, id).Scan(&s.ID, &s.Service, &state, &s.Round, &deadline, &reason, &by, &endedAt,
		&s.Type.ID, &s.Type.Min, &s.Type.Max, &s.Type.Index, &s.Type.Start, &s.Type.Count, &s.Quest, &s.Sandbox)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read quest session %d: %w", id, err)
	}
	var ok bool
	if s.Status, ok = sessions.ParseQuestStatus(state); !ok {
		return nil, fmt.Errorf("quest session %d: unknown state %q", id, state)
	}
	if deadline != nil {
		s.Deadline = *deadline
	}
	if endedAt != nil {
		s.EndedAt = *endedAt
	}
	if reason != nil {
		s.Reason = sessions.EndReason(*reason)
	}
	if by != nil {
		s.EndedBy = *by
	}
	b := &pgx.Batch{}
	b.Queue(`SELECT game_id, num, service_id, user_id, chat_id, name, lang, waiting, live_game IS NULL
		FROM quest_session_player WHERE session_id = $1 ORDER BY num`, s.ID).Query(func(rows pgx.Rows) error {
		var err error
		s.Players, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (sessions.QuestPlayer, error) {
			var p sessions.QuestPlayer
			err := r.Scan(&p.Game, &p.Num, &p.Service, &p.User, &p.Chat, &p.Name, &p.Lang, &p.Waiting, &p.Gone)
			return p, err
		})
		return err
	})
	s.Blocks = map[int][]int{}
	b.Queue(`SELECT num, vals FROM quest_session_block WHERE session_id = $1 AND round = $2`, s.ID, s.Round).
		Query(func(rows pgx.Rows) error {
			var num int
			var vals []int32
			_, err := pgx.ForEachRow(rows, []any{&num, &vals}, func() error {
				block := make([]int, len(vals))
				for i, v := range vals {
					block[i] = int(v)
				}
				s.Blocks[num] = block
				return nil
			})
			return err
		})
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("read quest session %d: %w", id, err)
	}
	return &s, nil
}

// SessionOf implements sessions.QuestStore.
func (q *Quests) SessionOf(ctx context.Context, game int64) (*sessions.QuestSession, error) {
	var id int64
	err := q.db.QueryRow(ctx, `SELECT session_id FROM quest_session_player WHERE game_id = $1`, game).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session of game %d: %w", game, err)
	}
	s, err := lock(ctx, q.db, id, false)
	if err != nil || s == nil {
		return nil, err
	}
	// Whoever held the lock may have moved the game out meanwhile.
	if s.Player(game) == nil {
		return nil, nil
	}
	return s, nil
}

// TypeOf implements sessions.QuestStore.
func (q *Quests) TypeOf(ctx context.Context, id int) (*sessions.Type, error) {
	var t sessions.Type
	err := q.db.QueryRow(ctx, `
		SELECT id, min_players, max_players, index_param, start_param, param_count FROM session_type WHERE id = $1`, id).
		Scan(&t.ID, &t.Min, &t.Max, &t.Index, &t.Start, &t.Count)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session type %d: %w", id, err)
	}
	return &t, nil
}

// OtherGames implements sessions.QuestStore.
func (q *Quests) OtherGames(ctx context.Context, service int, user, game int64) ([]int64, error) {
	rows, err := q.db.Query(ctx, `SELECT game_id FROM quest_session_player
		WHERE service_id = $1 AND user_id = $2 AND game_id <> $3`, service, user, game)
	if err != nil {
		return nil, fmt.Errorf("earlier games of user %d: %w", user, err)
	}
	games, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("earlier games of user %d: %w", user, err)
	}
	return games, nil
}

// OpenSession implements sessions.QuestStore with a transaction-scoped advisory lock on the key,
// so players joining at the same instant fill one session rather than opening one each.
func (q *Quests) OpenSession(ctx context.Context, key sessions.JoinKey) (*sessions.QuestSession, error) {
	name := strconv.Itoa(key.Service) + "/" + strconv.Itoa(key.Type) + "/" + strconv.FormatBool(key.Sandbox) + "/" + key.Quest
	if _, err := q.db.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, joinLockSpace, name); err != nil {
		return nil, fmt.Errorf("join %s: %w", name, err)
	}
	var id int64
	err := q.db.QueryRow(ctx, `
		SELECT id FROM quest_session
		WHERE service_id = $1 AND type_id = $2 AND quest = $3 AND sandbox = $4 AND state = 'open' AND players < max_players
		ORDER BY id LIMIT 1`, key.Service, key.Type, key.Quest, key.Sandbox).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open session of %s: %w", name, err)
	}
	return lock(ctx, q.db, id, false)
}

// Save implements sessions.QuestStore. The players and the blocks of the round are written as
// the session holds them; blocks of earlier rounds are kept (they are the session's history, and
// go with it).
func (q *Quests) Save(ctx context.Context, s *sessions.QuestSession) error {
	if s.ID == 0 {
		err := q.db.QueryRow(ctx, `
			INSERT INTO quest_session (service_id, type_id, quest, sandbox, max_players, deadline)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			s.Service, s.Type.ID, s.Quest, s.Sandbox, s.Type.Max, nullTime(s.Deadline)).Scan(&s.ID)
		if err != nil {
			return fmt.Errorf("create quest session: %w", err)
		}
		if len(s.Players) == 0 {
			return nil
		}
	}
	b := &pgx.Batch{}
	if len(s.Players) == 0 {
		b.Queue(`DELETE FROM quest_session WHERE id = $1`, s.ID)
	} else {
		games := make([]int64, len(s.Players))
		nums := make([]int32, len(s.Players))
		services := make([]int32, len(s.Players))
		users, chats := make([]int64, len(s.Players)), make([]int64, len(s.Players))
		names, langs := make([]string, len(s.Players)), make([]string, len(s.Players))
		waiting := make([]bool, len(s.Players))
		for i, p := range s.Players {
			games[i], nums[i], services[i] = p.Game, int32(p.Num), int32(p.Service)
			users[i], chats[i], names[i], langs[i], waiting[i] = p.User, p.Chat, p.Name, p.Lang, p.Waiting
		}
		b.Queue(`DELETE FROM quest_session_player WHERE session_id = $1 AND NOT game_id = ANY($2)`, s.ID, games)
		// A new player's row points at its game (live_game); the database clears the pointer
		// when the game's row goes.
		b.Queue(`
			INSERT INTO quest_session_player AS p (game_id, session_id, num, service_id, user_id, chat_id, name, lang,
				waiting, live_game)
			SELECT g, $1, n, sv, u, c, nm, l, w, g
			FROM unnest($2::bigint[], $3::int[], $4::int[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::bool[])
				AS x (g, n, sv, u, c, nm, l, w)
			ON CONFLICT (game_id) DO UPDATE SET num = EXCLUDED.num, waiting = EXCLUDED.waiting
			WHERE (p.num, p.waiting) IS DISTINCT FROM (EXCLUDED.num, EXCLUDED.waiting)`,
			s.ID, games, nums, services, users, chats, names, langs, waiting)
		var reason, by *string
		if s.Status == sessions.QuestEnded {
			r := string(s.Reason)
			reason, by = &r, &s.EndedBy
		}
		b.Queue(`UPDATE quest_session SET state = $2, round = $3, players = $4, deadline = $5, end_reason = $6,
			ended_by = $7, ended_at = $8 WHERE id = $1`,
			s.ID, s.Status.String(), s.Round, len(s.Players), nullTime(s.Deadline), reason, by, nullTime(s.EndedAt))
		for num, vals := range s.Blocks {
			block := make([]int32, len(vals))
			for i, v := range vals {
				block[i] = int32(v)
			}
			b.Queue(`INSERT INTO quest_session_block (session_id, round, num, vals) VALUES ($1, $2, $3, $4)
				ON CONFLICT DO NOTHING`, s.ID, s.Round, num, block)
		}
	}
	if err := q.db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("save quest session %d: %w", s.ID, err)
	}
	return nil
}

// dueSQL finds the quest sessions to settle: those whose deadline has passed, and those with a
// player whose game is over.
const dueSQL = `
	SELECT id, service_id FROM quest_session WHERE state <> 'ended' AND deadline <= $1
	UNION
	SELECT s.id, s.service_id FROM quest_session s
	WHERE s.id IN (SELECT session_id FROM quest_session_player WHERE live_game IS NULL)
	LIMIT $2`

// Due is a quest session that needs settling, and its bot.
type Due struct {
	ID      int64
	Service int
}

// DueQuestSessions returns up to limit quest sessions that need settling at now: their deadline
// has passed, or a player's game is over. The caller settles each in a transaction of its own
// (LockQuestSession).
func DueQuestSessions(ctx context.Context, db DB, now time.Time, limit int) ([]Due, error) {
	rows, err := db.Query(ctx, dueSQL, now, limit)
	if err != nil {
		return nil, fmt.Errorf("due quest sessions: %w", err)
	}
	due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Due, error) {
		var d Due
		err := r.Scan(&d.ID, &d.Service)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("due quest sessions: %w", err)
	}
	return due, nil
}

// LockQuestSession claims a quest session for settling: it returns it locked for the transaction,
// or nil when it is gone or another transaction holds it (FOR UPDATE SKIP LOCKED), so that two
// processes never settle one session at once.
func (q *Quests) LockQuestSession(ctx context.Context, id int64) (*sessions.QuestSession, error) {
	return lock(ctx, q.db, id, true)
}

// PurgeQuestSessions removes the ended sessions that ended before t: their players have long been
// told, or are no longer playing.
func PurgeQuestSessions(ctx context.Context, db DB, before time.Time) error {
	if _, err := db.Exec(ctx, `DELETE FROM quest_session WHERE state = 'ended' AND ended_at < $1`, before); err != nil {
		return fmt.Errorf("purge quest sessions: %w", err)
	}
	return nil
}

// TypeID returns the id of the session type of that name; 0 when there is none.
func TypeID(ctx context.Context, db DB, name string) (int, error) {
	var id int
	err := db.QueryRow(ctx, `SELECT id FROM session_type WHERE name = $1`, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("session type %q: %w", name, err)
	}
	return id, nil
}

// QuestSessionsOf returns the quest sessions of a bot, oldest first, with their players and the
// blocks of their rounds, as they stand (nothing is locked): for operators and tests.
func QuestSessionsOf(ctx context.Context, db DB, service int) ([]*sessions.QuestSession, error) {
	rows, err := db.Query(ctx, `SELECT id FROM quest_session WHERE service_id = $1 ORDER BY id`, service)
	if err != nil {
		return nil, fmt.Errorf("quest sessions of bot %d: %w", service, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("quest sessions of bot %d: %w", service, err)
	}
	var out []*sessions.QuestSession
	for _, id := range ids {
		s, err := read(ctx, db, id, "")
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// nullTime is NULL for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}
