package migrations

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"
)

// MigrateTo brings the database behind conn to the schema of one version, for the tests of a
// migration's handling of the data before it.
func MigrateTo(ctx context.Context, conn *pgx.Conn, version int32) error {
	m, err := migrate.NewMigrator(ctx, conn, versionTable)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := m.LoadMigrations(files); err != nil {
		return fmt.Errorf("migrate: load: %w", err)
	}
	return m.MigrateTo(ctx, version)
}
