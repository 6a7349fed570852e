package botpg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

const programsSQL = `
	SELECT DISTINCT user_id FROM web_api_token WHERE service_id = $1 AND user_id = ANY($2)`

// Programs returns which of users are programs in a bot: those an API token was ever issued to
// act as (revoked or not: a program's past games stay a program's). Leaderboards mark them as
// bots.
func (Credentials) Programs(ctx context.Context, db pgx.Tx, service int, users []int64) (map[int64]bool, error) {
	rows, _ := db.Query(ctx, programsSQL, service, users)
	out := map[int64]bool{}
	var u int64
	if _, err := pgx.ForEachRow(rows, []any{&u}, func() error { out[u] = true; return nil }); err != nil {
		return nil, fmt.Errorf("programs: %w", err)
	}
	return out, nil
}
