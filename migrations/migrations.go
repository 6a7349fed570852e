// Package migrations holds the database schema of Questbot as numbered SQL files, embedded in the
// binary and applied at start-up.
//
// Files are named NNN_description.sql and applied in numeric order, each in its own transaction, by
// the tern migration library, which records the applied version in the schema_version table and
// holds an advisory lock while it works, so two processes starting at once do not race. Numbering
// is forward-only: a merged file is never edited; a change is a new file. Files are read as Go text
// templates by tern, so a literal "{{" must be written as {{"{{"}}.
package migrations

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"
)

//go:embed *.sql
var files embed.FS

// versionTable is the table in which the applied schema version is kept.
const versionTable = "public.schema_version"

// Apply brings the database behind conn up to the newest schema. Applying an up-to-date database
// is a no-op.
func Apply(ctx context.Context, conn *pgx.Conn) error {
	m, err := migrate.NewMigrator(ctx, conn, versionTable)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := m.LoadMigrations(files); err != nil {
		return fmt.Errorf("migrate: load: %w", err)
	}
	if err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// latest returns the version number of the newest embedded migration.
func latest() (int32, error) {
	names, err := migrate.FindMigrations(files)
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	return int32(len(names)), nil
}

// current returns the schema version the database behind conn is at (0 for an empty database).
func current(ctx context.Context, conn *pgx.Conn) (int32, error) {
	m, err := migrate.NewMigrator(ctx, conn, versionTable)
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	return m.GetCurrentVersion(ctx)
}
