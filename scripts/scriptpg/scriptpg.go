// Package scriptpg keeps the command trees of package scripts in PostgreSQL: it loads and
// validates a bot's tree, caches it, and stores the users' running dialogues.
//
// Trees are cached per bot. Every change to the tree tables bumps the one-row script_revision
// table (statement triggers, migration 003); a cached tree older than CheckEvery is checked
// against it with one small query and reloaded when it moved. An operator's UPDATE of a text or
// INSERT of a command therefore takes effect within CheckEvery (a second by default), without a
// restart or a release.
package scriptpg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/scripts"
)

// defaultCheckEvery is how often a cached tree is checked against the stored revision.
const defaultCheckEvery = time.Second

// Store loads command trees and keeps running dialogues.
type Store struct {
	// CheckEvery is how long a cached tree is used before the revision is checked again; 0
	// checks on every call. Set it before first use.
	CheckEvery time.Duration
	// Builtins are the names of the built-in operations the bot implements
	// (scripts.Definition.Builtins). Set it before first use.
	Builtins []string

	mu    sync.Mutex
	trees map[int]*cached
}

type cached struct {
	tree    *scripts.Tree
	checked time.Time
}

// New returns a store with the default check interval.
func New() *Store {
	return &Store{CheckEvery: defaultCheckEvery, trees: map[int]*cached{}}
}

// DB is what loading a tree needs of the database: the transaction of the update that needs the
// tree, or a pool.
type DB interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Tree returns the command tree of a bot, from the cache while it is current, read through db:
// an update's transaction uses its own connection, never a second one of the pool. Problems of
// the stored tree are in the tree's Problems; the error is a failure of the database.
//
// A tree loaded through a transaction in read-committed isolation may mix two revisions when an
// operator commits a change while it loads; the change moves the revision, so the next check
// (within CheckEvery) loads the tree again.
func (s *Store) Tree(ctx context.Context, db DB, serviceID int) (*scripts.Tree, error) {
	s.mu.Lock()
	c := s.trees[serviceID]
	s.mu.Unlock()
	now := time.Now()
	if c != nil && now.Sub(c.checked) < s.CheckEvery {
		return c.tree, nil
	}
	var rev int64
	if err := db.QueryRow(ctx, `SELECT revision FROM script_revision`).Scan(&rev); err != nil {
		return nil, fmt.Errorf("tree of service %d: revision: %w", serviceID, err)
	}
	if c != nil && c.tree.Revision == rev {
		s.mu.Lock()
		s.trees[serviceID] = &cached{tree: c.tree, checked: now}
		s.mu.Unlock()
		return c.tree, nil
	}
	d, err := load(ctx, db, serviceID)
	if err != nil {
		return nil, fmt.Errorf("tree of service %d: %w", serviceID, err)
	}
	d.Builtins = s.Builtins
	t := scripts.Build(d)
	s.mu.Lock()
	s.trees[serviceID] = &cached{tree: t, checked: now}
	s.mu.Unlock()
	return t, nil
}

// Commands of the bot: its own, and the common ones it does not override.
const commandsSQL = `
	SELECT id, name, visible, order_num FROM command c
	WHERE service_id = $1 OR (service_id IS NULL AND NOT EXISTS (
		SELECT 1 FROM command o WHERE o.service_id = $1 AND o.name = c.name))
	ORDER BY order_num, id`

// load reads a bot's definitions in one snapshot.
func load(ctx context.Context, tx DB, service int) (scripts.Definition, error) {
	var d scripts.Definition
	if err := tx.QueryRow(ctx, `SELECT revision FROM script_revision`).Scan(&d.Revision); err != nil {
		return d, err
	}
	cmds := map[int64]*scripts.Command{}
	var ids []int64
	rows, _ := tx.Query(ctx, commandsSQL, service)
	for rows.Next() {
		c := &scripts.Command{Descriptions: map[string]string{}}
		if err := rows.Scan(&c.ID, &c.Name, &c.Visible, &c.Order); err != nil {
			return d, fmt.Errorf("commands: %w", err)
		}
		d.Commands = append(d.Commands, c)
		cmds[c.ID] = c
		ids = append(ids, c.ID)
	}
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("commands: %w", err)
	}

	rows, _ = tx.Query(ctx, `SELECT name, COALESCE(default_value, ''), hidden FROM param_type ORDER BY name`)
	for rows.Next() {
		p := &scripts.ParamType{}
		if err := rows.Scan(&p.Name, &p.Default, &p.Hidden); err != nil {
			return d, fmt.Errorf("parameter types: %w", err)
		}
		d.Params = append(d.Params, p)
	}
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("parameter types: %w", err)
	}

	rows, _ = tx.Query(ctx, `SELECT command_id, param, COALESCE(default_value, '') FROM command_param
		WHERE command_id = ANY($1) ORDER BY command_id, order_num`, ids)
	for rows.Next() {
		var id int64
		var p scripts.CommandParam
		if err := rows.Scan(&id, &p.Param, &p.Default); err != nil {
			return d, fmt.Errorf("command parameters: %w", err)
		}
		cmds[id].Params = append(cmds[id].Params, p)
	}
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("command parameters: %w", err)
	}

	rows, _ = tx.Query(ctx, `SELECT command_id, lang, text FROM localized_string WHERE command_id = ANY($1)`, ids)
	for rows.Next() {
		var id int64
		var lang, text string
		if err := rows.Scan(&id, &lang, &text); err != nil {
			return d, fmt.Errorf("command texts: %w", err)
		}
		cmds[id].Descriptions[lang] = text
	}
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("command texts: %w", err)
	}

	actions := map[int64]*scripts.Action{}
	rows, _ = tx.Query(ctx, `SELECT id, command_id, COALESCE(parent_id, 0), order_num, type, width,
			COALESCE(param, ''), COALESCE(request, ''), COALESCE(method, ''), COALESCE(timeout_ms, 0),
			result_code, COALESCE(guard, '')
		FROM action WHERE command_id = ANY($1) ORDER BY id`, ids)
	for rows.Next() {
		a := &scripts.Action{Texts: map[string]string{}}
		if err := rows.Scan(&a.ID, &a.Command, &a.Parent, &a.Order, &a.TypeName, &a.Width, &a.Param,
			&a.Request, &a.Method, &a.TimeoutMS, &a.ResultCode, &a.Guard); err != nil {
			return d, fmt.Errorf("actions: %w", err)
		}
		a.Kind, _ = scripts.ParseKind(a.TypeName)
		d.Actions = append(d.Actions, a)
		actions[a.ID] = a
	}
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("actions: %w", err)
	}

	rows, _ = tx.Query(ctx, `SELECT s.action_id, s.lang, s.text FROM localized_string s
		JOIN action a ON a.id = s.action_id WHERE a.command_id = ANY($1)`, ids)
	for rows.Next() {
		var id int64
		var lang, text string
		if err := rows.Scan(&id, &lang, &text); err != nil {
			return d, fmt.Errorf("action texts: %w", err)
		}
		actions[id].Texts[lang] = text
	}
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("action texts: %w", err)
	}

	rows, _ = tx.Query(ctx, `SELECT r.action_id, r.name, COALESCE(r.param, ''), COALESCE(r.default_value, '')
		FROM request_param r JOIN action a ON a.id = r.action_id
		WHERE a.command_id = ANY($1) ORDER BY r.action_id, r.order_num`, ids)
	for rows.Next() {
		var id int64
		var p scripts.RequestParam
		if err := rows.Scan(&id, &p.Name, &p.Param, &p.Default); err != nil {
			return d, fmt.Errorf("request parameters: %w", err)
		}
		actions[id].RequestParams = append(actions[id].RequestParams, p)
	}
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("request parameters: %w", err)
	}

	rows, _ = tx.Query(ctx, `SELECT r.action_id, r.name, r.param
		FROM response_param r JOIN action a ON a.id = r.action_id
		WHERE a.command_id = ANY($1) ORDER BY r.action_id, r.name`, ids)
	for rows.Next() {
		var id int64
		var p scripts.ResponseParam
		if err := rows.Scan(&id, &p.Name, &p.Param); err != nil {
			return d, fmt.Errorf("response parameters: %w", err)
		}
		actions[id].ResponseParams = append(actions[id].ResponseParams, p)
	}
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("response parameters: %w", err)
	}
	return d, nil
}

// Load returns the running dialogue of a user in a bot, or nil when there is none. db is the
// update's transaction; the row is locked until it ends.
func (s *Store) Load(ctx context.Context, db pgx.Tx, service int, user int64) (*scripts.State, error) {
	var raw []byte
	var values map[string]string
	err := db.QueryRow(ctx, `
		SELECT c.state, COALESCE((SELECT jsonb_object_agg(v.param, v.value)
			FROM script_context_value v WHERE v.context_id = c.id), '{}')
		FROM script_context c WHERE c.service_id = $1 AND c.user_id = $2 FOR UPDATE`,
		service, user).Scan(&raw, &values)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load dialogue of user %d: %w", user, err)
	}
	st := &scripts.State{}
	if err := json.Unmarshal(raw, st); err != nil {
		return nil, fmt.Errorf("load dialogue of user %d: %w", user, err)
	}
	st.Values = values
	return st, nil
}

// NewID returns a fresh dialogue id.
func (s *Store) NewID(ctx context.Context, db pgx.Tx) (int64, error) {
	var id int64
	if err := db.QueryRow(ctx, `SELECT nextval('script_context_seq')`).Scan(&id); err != nil {
		return 0, fmt.Errorf("new dialogue id: %w", err)
	}
	return id, nil
}

// Save stores the user's dialogue st, replacing any other, or deletes it when it is done.
func (s *Store) Save(ctx context.Context, db pgx.Tx, service int, user int64, st *scripts.State) error {
	if st == nil || st.Done() {
		return s.Delete(ctx, db, service, user)
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("save dialogue of user %d: %w", user, err)
	}
	params := make([]string, 0, len(st.Values))
	values := make([]string, 0, len(st.Values))
	for k, v := range st.Values {
		params = append(params, k)
		values = append(values, v)
	}
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM script_context WHERE service_id = $1 AND user_id = $2 AND id <> $3`, service, user, st.ID)
	b.Queue(`INSERT INTO script_context (service_id, user_id, id, command_id, state) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (service_id, user_id) DO UPDATE SET state = EXCLUDED.state, updated_at = now()`,
		service, user, st.ID, st.Command, raw)
	b.Queue(`DELETE FROM script_context_value WHERE context_id = $1`, st.ID)
	b.Queue(`INSERT INTO script_context_value (context_id, param, value)
		SELECT $1, * FROM unnest($2::text[], $3::text[])`, st.ID, params, values)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("save dialogue of user %d: %w", user, err)
	}
	return nil
}

// Delete ends the user's dialogue, if any.
func (s *Store) Delete(ctx context.Context, db pgx.Tx, service int, user int64) error {
	if _, err := db.Exec(ctx, `DELETE FROM script_context WHERE service_id = $1 AND user_id = $2`, service, user); err != nil {
		return fmt.Errorf("end dialogue of user %d: %w", user, err)
	}
	return nil
}
