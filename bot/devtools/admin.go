package devtools

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/scripts"
)

// maxListed bounds the quests /quests lists.
const maxListed = 50

// quests is dev.quests (/quests [text], admins): the uploaded quests of the bot, newest first,
// those whose name, common name or owner contain the text when one is given. Each line has the
// number (for /load and /setquest), the name, version, language, whether it is listed, the
// credits of a win and of a death, and the owner.
func (t *Tools) quests(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	db := tx.DB()
	if _, admin, err := role(ctx, db, u); err != nil || !admin {
		return forbidden, err
	}
	filter := strings.ToLower(strings.TrimSpace(args["filter"]))
	rows, err := db.Query(ctx, `
		SELECT s.id, s.name, s.common_name, s.version, s.language, s.listed, s.win_bonus, s.death_penalty,
		       COALESCE(dev_who(s.owner_id), '?'), count(*) OVER ()
		FROM script s
		WHERE s.uploaded AND (s.service_id IS NULL OR s.service_id = $1)
			AND ($2 = '' OR strpos(lower(s.name), $2) > 0 OR strpos(lower(s.common_name), $2) > 0
				OR strpos(lower(COALESCE(dev_who(s.owner_id), '')), $2) > 0)
		ORDER BY s.created_at DESC, s.id DESC LIMIT $3`, u.Service, filter, maxListed)
	if err != nil {
		return nil, fmt.Errorf("devtools: quests: %w", err)
	}
	txt := textsFor(lang(u))
	var lines []string
	var total int64
	for rows.Next() {
		var id int64
		var name, common, language, owner string
		var version, bonus, penalty int
		var listed bool
		if err := rows.Scan(&id, &name, &common, &version, &language, &listed, &bonus, &penalty, &owner, &total); err != nil {
			return nil, err
		}
		status := txt.private
		if listed {
			status = txt.listed
		}
		lines = append(lines, escapef("<b>%s</b> «%s» v%s %s, %s, %s, +%s/−%s, ", id, name, version, language, common, status,
			bonus, penalty)+escapef(txt.by, owner))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("devtools: quests: %w", err)
	}
	if len(lines) == 0 {
		return &scripts.Result{Code: "none"}, nil
	}
	text := escapef(txt.questsHead, len(lines), total) + "\n" + strings.Join(lines, "\n")
	if err := say(ctx, tx, u, text); err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, nil
}

// ApplyRoles applies the role configuration at start: admins are the Telegram ids the
// configuration names (ADMINS; an id no longer named loses the role the configuration gave it,
// admins made with SQL keep theirs), and, when newUsersDevelopers is set, the bots of services
// make every user who first writes to them a developer (or stop doing so).
func ApplyRoles(ctx context.Context, pool *pgxpool.Pool, services []int, newUsersDevelopers *bool, admins []int64) error {
	if admins == nil {
		admins = []int64{} // no configured admins, rather than an unknown list
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`UPDATE users SET is_admin = false
			WHERE id IN (SELECT user_id FROM configured_admin) AND NOT id = ANY($1)`, admins)
		b.Queue(`DELETE FROM configured_admin WHERE NOT user_id = ANY($1)`, admins)
		b.Queue(`INSERT INTO configured_admin (user_id) SELECT unnest($1::bigint[]) ON CONFLICT DO NOTHING`, admins)
		b.Queue(`UPDATE users SET is_admin = true WHERE id = ANY($1) AND NOT is_admin`, admins)
		if newUsersDevelopers != nil {
			b.Queue(`UPDATE service SET new_users_developers = $2 WHERE id = ANY($1)`, services, *newUsersDevelopers)
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("devtools: apply roles: %w", err)
		}
		return nil
	})
}
