package relaypg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// ActiveNews is a news item that has not ended.
type ActiveNews struct {
	ID int64
	// Service is the bot it is for; nil: every bot.
	Service *int
}

const currentNewsSQL = `
			SELECT id, service_id, min(starts_at) FILTER (WHERE starts_at > now()) OVER ()
			FROM news WHERE ends_at IS NULL OR ends_at > now() ORDER BY id`

// CurrentNews lists the news items that have not ended, in the order they were written, and
// when the first of them not yet started starts (nil when all have).
func (s *Store) CurrentNews(ctx context.Context, db pgx.Tx) ([]ActiveNews, *time.Time, error) {
	var next *time.Time
	rows, err := db.Query(ctx, currentNewsSQL)
	if err != nil {
		return nil, nil, err
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ActiveNews, error) {
		var n ActiveNews
		err := row.Scan(&n.ID, &n.Service, &next)
		return n, err
	})
	if err != nil {
		return nil, nil, err
	}
	return items, next, nil
}

// NewsItem is a news item to deliver.
type NewsItem struct {
	ID int64
	// En is the English text; Ru the Russian one, nil when there is none.
	En string
	Ru *string
}

// takeNewsSQL picks the news for a user ($2) of a bot ($3), who joined it at $4, among the
// current items $1, and writes their receipts.
const takeNewsSQL = `
	WITH cand AS (
		SELECT n.id, n.text_en, n.text_ru FROM news n
		WHERE n.id = ANY($1) AND (n.service_id IS NULL OR n.service_id = $3)
			AND n.starts_at <= now() AND (n.ends_at IS NULL OR n.ends_at > now())
			AND (n.audience = 'all'
				OR (n.audience = 'new' AND $4::timestamptz >= n.created_at)
				OR (n.audience = 'existing' AND $4::timestamptz < n.created_at))
			AND NOT EXISTS (SELECT 1 FROM news_receipt r WHERE r.news_id = n.id AND r.user_id = $2)),
	got AS (
		INSERT INTO news_receipt (news_id, user_id) SELECT id, $2 FROM cand
		ON CONFLICT DO NOTHING RETURNING news_id)
	SELECT c.id, c.text_en, c.text_ru FROM cand c JOIN got ON got.news_id = c.id ORDER BY c.id`

// TakeNews returns the items among ids that are current in a bot, are for a user of it who joined
// it at joined (nil: not known) and that the user has not had, in order, and writes the user's
// receipts of them in db: each user is given each item once.
func (s *Store) TakeNews(ctx context.Context, db pgx.Tx, ids []int64, user int64, service int, joined *time.Time) ([]NewsItem, error) {
	rows, err := db.Query(ctx, takeNewsSQL, ids, user, service, joined)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (NewsItem, error) {
		var it NewsItem
		err := row.Scan(&it.ID, &it.En, &it.Ru)
		return it, err
	})
}
