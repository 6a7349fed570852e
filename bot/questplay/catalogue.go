package questplay

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/scripts"
)

// # The catalogue
//
// /quest shows the catalogue a page at a time (the built-in quest.catalogue the command tree
// calls, migration 016): the page's quests in its text, each under its title in the player's
// language (given at import, quest/questpg), with a mark when it is new to the player, the
// languages it plays in (EN/RU), how many players won it and its description, and a button for
// each, with buttons to the pages before and after, which edit the message in place. /quest with
// a name searches the names and the titles in every language. The buttons' callback data are
// "qc:<verb>[:<argument>…]":
//
//	qc:p:<page>:<query>  show that page in place (the query cut to fit Telegram's 64 bytes)
//	qc:l                 show the first page in a new message (the ending's "another quest")
//	qc:s:<script>        start the quest chosen in the catalogue
//	qc:r:<script>        start the quest of an ending again
//	qc:y:<script>        start it, leaving the game played (the answer to Leave)
//	qc:n                 keep the game played
//
// A quest is started only when the bot offers it to everyone (listed, or shipped); a player who
// plays another quest is asked first, from the catalogue, an ending, /quest <name> and /start
// <id> alike (quest.offer), and told when the game they would leave is played with others, who
// go on against the bot, told so at once when the player leaves (quitSession, multi.go).

// CataloguePrefix is the prefix of the callback data of the catalogue's buttons and of the
// endings' buttons.
const CataloguePrefix = "qc"

// cataloguePage is how many quests a page of the catalogue shows.
const cataloguePage = 10

// maxQuery bounds the bytes of a search carried in a page button's callback data.
const maxQuery = 40

// Builtins returns the built-in operations the command tree calls that the quest player
// implements, by name: quest.catalogue (argument name) shows the first page of the catalogue, of
// the quests whose name holds name when it is not empty; quest.settings (argument what) shows or
// changes the player's names (settings.go); quest.offer (argument script) starts the quest that
// /quest <name> or /start <id> names, asking first when the player plays another (startChosen).
func (g *Games) Builtins() map[string]func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	return map[string]func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error){
		"quest.catalogue": func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
			if err := g.showCatalogue(ctx, tx, u, 0, 0, args["name"]); err != nil {
				return nil, err
			}
			return &scripts.Result{Code: "ok"}, nil
		},
		"quest.settings": g.settingsBuiltin,
		"quest.offer": func(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
			id, err := strconv.ParseInt(strings.TrimSpace(args["script"]), 10, 64)
			if err != nil || id <= 0 {
				return &scripts.Result{Code: "unknown"}, nil
			}
			if err := g.startChosen(ctx, tx, u, "o", id, 0); err != nil {
				return nil, err
			}
			return &scripts.Result{Code: "ok"}, nil
		},
	}
}

// cutQuery cuts a search to maxQuery bytes, at a character's boundary, lower case.
func cutQuery(q string) string {
	q = strings.ToLower(strings.TrimSpace(q))
	for len(q) > maxQuery {
		_, size := utf8.DecodeLastRuneInString(q)
		q = q[:len(q)-size]
	}
	return q
}

// showCatalogue shows page page of the catalogue (of the quests whose name holds query): in
// message msg when it is not 0, else in a new message.
func (g *Games) showCatalogue(ctx context.Context, tx bot.Tx, u *bot.Update, msg, page int, query string) error {
	_, user, chat, err := who(u)
	if err != nil {
		return err
	}
	t := texts.For(u.User.Language)
	query = cutQuery(query)
	at := func(page int) questpg.Page {
		return questpg.Page{Service: u.Service, User: user, Lang: t.Lang, Query: query, Offset: page * cataloguePage,
			Limit: cataloguePage}
	}
	list, total, err := g.store.Catalogue(ctx, tx.DB(), at(page))
	if err != nil {
		return fmt.Errorf("questplay: %w", err)
	}
	pages := max(1, (total+cataloguePage-1)/cataloguePage)
	if page >= pages && total > 0 {
		page = pages - 1
		if list, total, err = g.store.Catalogue(ctx, tx.DB(), at(page)); err != nil {
			return fmt.Errorf("questplay: %w", err)
		}
	}
	var b strings.Builder
	var kb bot.Keyboard
	switch {
	case total == 0 && query != "":
		b.WriteString(escape(fmt.Sprintf(t.Quest.NoMatch, query)))
	case total == 0:
		b.WriteString(escape(t.Quest.Empty))
	default:
		if query != "" {
			b.WriteString(escape(fmt.Sprintf(t.Quest.Found, query)))
		} else {
			b.WriteString(escape(t.Quest.Catalogue))
		}
		b.WriteString("\n")
		anyNew := false
		var row []bot.Button
		for i, e := range list {
			fmt.Fprintf(&b, "\n%d. <b>%s</b>", page*cataloguePage+i+1, escape(e.Name))
			if e.New {
				b.WriteString(" " + t.Quest.NewMark)
				anyNew = true
			}
			if len(e.Langs) > 0 {
				b.WriteString(" · " + escape(strings.ToUpper(strings.Join(e.Langs, "/"))))
			}
			if e.Finished > 0 {
				b.WriteString(" · " + escape(fmt.Sprintf(t.Quest.Finished, e.Finished)))
			}
			if d := strings.TrimSpace(e.Description); d != "" {
				b.WriteString("\n<i>" + escape(cutWords(d, maxDescription)) + "</i>")
			}
			row = append(row, bot.Button{Text: e.Name, Data: CataloguePrefix + ":s:" + strconv.FormatInt(e.ID, 10)})
			if len(row) == 2 {
				kb, row = append(kb, row), nil
			}
		}
		if row != nil {
			kb = append(kb, row)
		}
		var nav []bot.Button
		if page > 0 {
			nav = append(nav, bot.Button{Text: t.Quest.Previous, Data: pageData(page-1, query)})
		}
		if page+1 < pages {
			nav = append(nav, bot.Button{Text: t.Quest.Next, Data: pageData(page+1, query)})
		}
		if nav != nil {
			kb = append(kb, nav)
		}
		if pages > 1 {
			b.WriteString("\n\n" + escape(fmt.Sprintf(t.Quest.Page, page+1, pages)))
		}
		if anyNew || query == "" {
			b.WriteString("\n\n<i>" + escape(t.Quest.Legend) + "</i>")
		}
	}
	if msg != 0 {
		r, err := bot.EditHTML(chat, msg, b.String(), kb)
		if err != nil {
			return err
		}
		return tx.Send(ctx, r)
	}
	reqs, err := bot.SendHTML(chat, b.String(), kb)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// maxDescription bounds the characters of a quest's description the catalogue shows.
const maxDescription = 120

// cutWords cuts s to at most n characters, at a space when it can, with "…" when it cut.
func cutWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	c := cut(s, n-1)
	if k := strings.LastIndexByte(c, ' '); k > len(c)/2 {
		c = c[:k]
	}
	return strings.TrimRight(c, " ,.;:") + "…"
}

// pageData is the callback data of a page button.
func pageData(page int, query string) string {
	return CataloguePrefix + ":p:" + strconv.Itoa(page) + ":" + query
}

// HandleCatalogue handles a press of a catalogue's or an ending's button ("qc:..." data); every
// press is answered.
func (g *Games) HandleCatalogue(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	cq := u.CallbackQuery
	_, _, chat, err := who(u)
	if err != nil {
		return err
	}
	t := texts.For(u.User.Language)
	msg := 0
	if cq.Message != nil {
		msg = cq.Message.MessageID
	}
	answer := func(text string) error { return tx.Send(ctx, bot.AnswerCallback(chat, cq.ID, text)) }
	parts := strings.SplitN(strings.TrimPrefix(cq.Data, CataloguePrefix+":"), ":", 3)
	id := int64(0)
	if len(parts) >= 2 {
		id, _ = strconv.ParseInt(parts[1], 10, 64)
	}
	switch {
	case parts[0] == "p" && len(parts) == 3 && msg != 0:
		page, err := strconv.Atoi(parts[1])
		if err != nil || page < 0 {
			return answer(t.Quest.Stale)
		}
		if err := g.showCatalogue(ctx, tx, u, msg, page, parts[2]); err != nil {
			return err
		}
	case parts[0] == "l":
		if err := g.showCatalogue(ctx, tx, u, 0, 0, ""); err != nil {
			return err
		}
	case parts[0] == "n" && msg != 0:
		r, err := bot.EditHTML(chat, msg, escape(t.Quest.CarryOn), nil)
		if err != nil {
			return err
		}
		if err := tx.Send(ctx, r); err != nil {
			return err
		}
	case (parts[0] == "s" || parts[0] == "r" || parts[0] == "y") && id > 0:
		if err := g.startChosen(ctx, tx, u, parts[0], id, msg); err != nil {
			return err
		}
	default:
		return answer(t.Quest.Stale)
	}
	return answer("")
}

// startChosen starts the quest a catalogue's or an ending's button names (verb s, r or y, see
// The catalogue; o for quest.offer, without a message), once the player has said to leave the
// game they play.
func (g *Games) startChosen(ctx context.Context, tx bot.Tx, u *bot.Update, verb string, id int64, msg int) error {
	service, user, chat, err := who(u)
	if err != nil {
		return err
	}
	t := texts.For(u.User.Language)
	sc, err := g.store.Offered(ctx, tx.DB(), service, id)
	if errors.Is(err, questpg.ErrNoScript) {
		return g.apology(ctx, tx, chat, t.Error(err))
	}
	if err != nil {
		return fmt.Errorf("questplay: %w", err)
	}
	running, err := g.running(ctx, tx.DB(), service, user)
	if err != nil {
		return err
	}
	var reqs []bot.Request
	switch {
	case running != nil && verb != "y":
		// Ask first, in the catalogue's message (an ending's stays as it is).
		leave := t.Quest.Leave
		if running.Script.SessionType != 0 {
			leave = t.Quest.LeaveShared
		}
		html := escape(fmt.Sprintf(leave, running.Script.Name, sc.Name))
		kb := bot.Keyboard{{{Text: t.Quest.Yes, Data: CataloguePrefix + ":y:" + strconv.FormatInt(id, 10)},
			{Text: t.Quest.No, Data: CataloguePrefix + ":n"}}}
		if verb == "s" && msg != 0 {
			r, err := bot.EditHTML(chat, msg, html, kb)
			if err != nil {
				return err
			}
			return tx.Send(ctx, r)
		}
		if msg != 0 {
			if r, err := bot.EditKeyboard(chat, msg, nil); err == nil {
				reqs = append(reqs, r)
			}
		}
		ask, err := bot.SendHTML(chat, html, kb)
		if err != nil {
			return err
		}
		return tx.Send(ctx, append(reqs, ask...)...)
	case verb == "r" && msg != 0:
		// The ending stays, without its buttons.
		if r, err := bot.EditKeyboard(chat, msg, nil); err == nil {
			reqs = append(reqs, r)
		}
	case msg != 0:
		r, err := bot.EditHTML(chat, msg, escape(fmt.Sprintf(t.Quest.Starting, sc.Name)), nil)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
	}
	if len(reqs) > 0 {
		if err := tx.Send(ctx, reqs...); err != nil {
			return err
		}
	}
	return g.Launch(ctx, tx, u, sc.ID)
}
