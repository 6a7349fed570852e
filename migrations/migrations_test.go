package migrations_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/questbot/questbot/migrations"
	"github.com/questbot/questbot/migrations/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// schema lists every column of every table in the public schema, as one comparable string per
// column, in a stable order.
func schema(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `
		SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
		FROM information_schema.columns WHERE table_schema = 'public'
		ORDER BY table_name, ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// Ensure applying the migrations to an empty database creates the schema, and applying them again
// changes nothing.
func TestApplyTwice(t *testing.T) {
	ctx := context.Background()
	conn := emptyDatabase(t, "apply_twice")

	if err := migrations.Apply(ctx, conn); err != nil {
		t.Fatalf("first apply: %v", err)
	}
	first := schema(t, conn)
	if len(first) == 0 {
		t.Fatal("no tables after the first apply")
	}
	if err := migrations.Apply(ctx, conn); err != nil {
		t.Fatalf("second apply: %v", err)
	}
	second := schema(t, conn)
	if len(first) != len(second) {
		t.Fatalf("second apply changed the schema: %d columns, then %d", len(first), len(second))
	}
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("second apply changed column %d: %q, then %q", i, first[i], second[i])
		}
	}
	latest, err := migrations.Latest()
	if err != nil {
		t.Fatal(err)
	}
	got, err := migrations.Current(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if got != latest {
		t.Fatalf("schema version %d, want %d", got, latest)
	}
}

// Ensure the first schema holds users keyed by Telegram id, bots and memberships.
func TestUsersSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)

	var svc int
	if err := pool.QueryRow(ctx, `INSERT INTO service (username) VALUES ('quest_bot') RETURNING id`).Scan(&svc); err != nil {
		t.Fatal(err)
	}
	// A Telegram id beyond 32 bits, and a user without a username.
	const uid = int64(7_000_000_001)
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, chat_id, first_name, language) VALUES ($1, $1, 'Ann', 'ru')`, uid); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO user_service (user_id, service_id, is_developer) VALUES ($1, $2, true)`, uid, svc); err != nil {
		t.Fatal(err)
	}
	var dev, admin bool
	var lang string
	err := pool.QueryRow(ctx, `
		SELECT us.is_developer, u.is_admin, u.language
		FROM users u JOIN user_service us ON us.user_id = u.id
		WHERE u.id = $1 AND us.service_id = $2`, uid, svc).Scan(&dev, &admin, &lang)
	if err != nil {
		t.Fatal(err)
	}
	if !dev || admin || lang != "ru" {
		t.Fatalf("got developer=%v admin=%v language=%q, want true false ru", dev, admin, lang)
	}

	_, err = pool.Exec(ctx, `INSERT INTO users (id, chat_id) VALUES ($1, $1)`, uid)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("duplicate user: got %v, want a unique violation", err)
	}
}

// emptyDatabase returns a connection to a new, empty database of the test cluster named name,
// closed at the end of the test. The cluster outlives a run (go test -count=N runs the test
// again on it), so a database left by an earlier run is dropped first.
func emptyDatabase(t *testing.T, name string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	c := pgtest.Cluster(t)
	admin, err := pgx.Connect(ctx, c.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, c.ConnString(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
