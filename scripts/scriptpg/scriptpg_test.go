package scriptpg_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/migrations/pgtest"
	"github.com/questbot/questbot/scripts"
	"github.com/questbot/questbot/scripts/scriptpg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// Ensure the seeded tree loads without problems and has the seeded commands.
func TestSeededTree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var svc int
	if err := pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('b') RETURNING id`).Scan(&svc); err != nil {
		t.Fatal(err)
	}
	s := scriptpg.New()
	s.Builtins = seededBuiltins(t, pool)
	tree, err := s.Tree(ctx, pool, svc)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Problems) > 0 {
		t.Fatalf("problems in the seeded tree:\n%v", tree.Problems)
	}
	for _, name := range []string{"start", "quest", "lang", "score", "retry", "help"} {
		if tree.Commands[name] == nil {
			t.Errorf("no command %q", name)
		}
	}
}

// Ensure a change to the tree is picked up, a broken command is refused with its problems, and
// the others stay.
func TestReloadAndRefuse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var svc int
	if err := pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('b') RETURNING id`).Scan(&svc); err != nil {
		t.Fatal(err)
	}
	s := scriptpg.New()
	s.CheckEvery = 0
	s.Builtins = []string{"quest.catalogue", "quest.offer"} // the quest player's, which the seeded /quest calls
	first, err := s.Tree(ctx, pool, svc)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := s.Tree(ctx, pool, svc)
	if again != first {
		t.Fatal("an unchanged tree was reloaded")
	}
	// A cycle in /help's actions, and an own version of /quest for this bot with an unknown type.
	_, err = pool.Exec(ctx, `
		INSERT INTO action (id, command_id, parent_id, type) VALUES (900, 6, NULL, 'folder'), (901, 6, 900, 'folder');
		UPDATE action SET parent_id = 901 WHERE id = 900;
		INSERT INTO action_type (name, description) VALUES ('teleport', 'not known to the code');
		INSERT INTO command (id, service_id, name) VALUES (950, `+strconv.Itoa(svc)+`, 'quest');
		INSERT INTO localized_string (command_id, lang, text) VALUES (950, 'en', 'Mine');
		INSERT INTO action (id, command_id, type) VALUES (951, 950, 'teleport');`)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := s.Tree(ctx, pool, svc)
	if err != nil {
		t.Fatal(err)
	}
	if tree == first || tree.Revision == first.Revision {
		t.Fatal("the changed tree was not reloaded")
	}
	if tree.Commands["help"] != nil || tree.Commands["quest"] != nil {
		t.Fatal("a broken command is runnable")
	}
	if tree.Commands["lang"] == nil {
		t.Fatal("a sound command was refused")
	}
	if len(tree.Problems) < 2 {
		t.Fatalf("problems: %v", tree.Problems)
	}
	// Another bot still has the common /quest.
	var other int
	pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('c') RETURNING id`).Scan(&other)
	ot, err := s.Tree(ctx, pool, other)
	if err != nil || ot.Commands["quest"] == nil {
		t.Fatalf("other bot: %v, %v", err, ot.Problems)
	}
}

// Ensure a dialogue is saved, loaded and deleted with its values.
func TestContexts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var svc int
	pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('b') RETURNING id`).Scan(&svc)
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id) VALUES (42, 42)`); err != nil {
		t.Fatal(err)
	}
	s := scriptpg.New()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		id, err := s.NewID(ctx, tx)
		if err != nil {
			return err
		}
		st := &scripts.State{ID: id, Command: 1, Waiting: 110, Menu: 2, Values: map[string]string{"LIST": `[1,2]`, "X": "'; DROP TABLE users; --"}}
		if err := s.Save(ctx, tx, svc, 42, st); err != nil {
			return err
		}
		got, err := s.Load(ctx, tx, svc, 42)
		if err != nil {
			return err
		}
		if got.ID != id || got.Waiting != 110 || got.Menu != 2 || got.Values["X"] != st.Values["X"] {
			t.Errorf("loaded %+v, want %+v", got, st)
		}
		st.Waiting = 0
		if err := s.Save(ctx, tx, svc, 42, st); err != nil {
			return err
		}
		got, err = s.Load(ctx, tx, svc, 42)
		if got != nil || err != nil {
			t.Errorf("a finished dialogue was kept: %+v, %v", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Ensure the example of an operator's command in docs/operators.md loads as a sound command.
func TestOperatorExample(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var svc int
	pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('b') RETURNING id`).Scan(&svc)
	_, err := pool.Exec(ctx, `
		WITH c AS (INSERT INTO command (name, visible) VALUES ('ping', false) RETURNING id),
		     a AS (INSERT INTO action (command_id, type, guard)
		           SELECT id, 'output', 'DEVELOPER == true' FROM c RETURNING id)
		INSERT INTO localized_string (action_id, lang, text) SELECT id, 'en', 'pong, {NAME}' FROM a;
		-- The same with the helpers, as docs/operators.md shows it too.
		SELECT tree_action(tree_command('ping2', 'Ping', 'Пинг'), NULL, 1, 'output', NULL, NULL, NULL,
		    'DEVELOPER == true', 'pong, {NAME}', 'понг, {NAME}');`)
	if err != nil {
		t.Fatal(err)
	}
	s := scriptpg.New()
	s.Builtins = seededBuiltins(t, pool)
	tree, err := s.Tree(ctx, pool, svc)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Problems) > 0 {
		t.Fatalf("refused: %v", tree.Problems)
	}
	for _, name := range []string{"ping", "ping2"} {
		c := tree.Commands[name]
		if c == nil {
			t.Fatalf("%s is missing", name)
		}
		for _, dev := range []bool{false, true} {
			st := scripts.Start(tree, c, 1, "", scripts.Env{Lang: "en", Name: "Ann", Developer: dev})
			effects, err := scripts.Run(tree, st, scripts.Input{})
			if err != nil || (len(effects) == 1) != dev {
				t.Errorf("%s, developer %v: %+v, %v", name, dev, effects, err)
			}
		}
	}
}

// seededBuiltins returns the built-in operations the seeded commands call (bot/devtools
// implements them), as the bot tells its store.
func seededBuiltins(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT DISTINCT request FROM action WHERE type = 'builtin' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}
