package devtools

import (
	"context"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/scripts"
)

// maxListed bounds the quests /quests lists.
const maxListed = 50

// quests is dev.quests (/quests [text], admins): the uploaded quests of the bot, newest first,
// those whose name, common name or owner contain the text when one is given. Each line has the
// number (for /load and /setquest), the name, version, language, whether it is listed, the
// credits of a win and of a death, and the owner.
func (t *Tools) quests(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	r, err := t.roles(ctx, tx, u)
	if err != nil || !r.Admin {
		return forbidden, err
	}
	filter := strings.ToLower(strings.TrimSpace(args["filter"]))
	list, err := t.store.Uploaded(ctx, tx.DB(), u.Service, filter, maxListed)
	if err != nil {
		return nil, err
	}
	txt := texts.For(u.User.Language).Dev
	var lines []string
	var total int64
	for _, l := range list {
		status := txt.Private
		if l.Listed {
			status = txt.Listed
		}
		lines = append(lines, escapef("<b>%s</b> «%s» v%s %s, %s, %s, +%s/−%s, ", l.ID, l.Name, l.Version, l.Lang,
			l.CommonName, status, l.WinBonus, l.Penalty)+escapef(txt.By, l.Owner))
		total = l.Total
	}
	if len(lines) == 0 {
		return &scripts.Result{Code: "none"}, nil
	}
	text := escapef(txt.QuestsHead, len(lines), total) + "\n" + strings.Join(lines, "\n")
	if err := say(ctx, tx, u, text); err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, nil
}
