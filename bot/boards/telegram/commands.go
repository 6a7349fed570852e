package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"strings"
	"unicode/utf8"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/scripts"
	"github.com/questbot/questbot/sessions/board"
)

// Builtins returns the built-in operations the command tree calls (migration 015_boards.sql), by
// name. Each answers with a result code for the tree to branch on, and sends the boards itself:
//
//   - board.games: the games, as a list for a list menu, in the field "games"; code ok.
//   - board.controls: the time controls of the catalogue, likewise in "controls"; code ok.
//   - board.levels (game): the bot's levels the game offers, weakest first, labelled with their
//     measured ratings in that game where there are some ("Strong ≈2000"), likewise in
//     "levels" (migration 032_board_levels.sql); code ok (an empty list for a game not offered).
//   - board.bot (game, level): a game against the bot at once; code ok, or invalid.
//   - board.find (game, control): joins the oldest game of the same game and clock waiting for an
//     opponent, or opens one and waits; code ok, or invalid.
//   - board.invite (game, control): opens a game for a friend and gives its invite link; code
//     ok, or invalid.
//   - board.mine: the user's games, as buttons that bring each board back; code ok, or none.
//   - board.rating: the chart of the user's ratings (rating.go); without rated games their
//     results per game as a table (plain text) in "table", code ok; code none without games.
//   - board.top (args, or game): the leaderboard of a game, or the menu of the games (rating.go).
//   - board.notify: the user's notification setting, with buttons to change it (notify.go);
//     code ok.
func (v *View) Builtins() map[string]Builtin {
	return map[string]Builtin{
		"board.games":    v.games,
		"board.controls": v.controls,
		"board.levels":   v.levels,
		"board.bot":      v.playBot,
		"board.find":     v.find,
		"board.invite":   v.inviteFriend,
		"board.mine":     v.mine,
		"board.rating":   v.ratingChart,
		"board.top":      v.top,
		"board.notify":   v.notifyMenu,
	}
}

// result builds a builtin's answer: a code and JSON fields.
func result(code string, fields map[string]any) (*scripts.Result, error) {
	res := &scripts.Result{Code: code, Fields: map[string]json.RawMessage{}}
	for k, v := range fields {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		res.Fields[k] = raw
	}
	return res, nil
}

// item is an entry of a list menu.
type item struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

func (v *View) games(_ context.Context, _ bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	c := texts.For(u.User.Language)
	list := make([]item, len(boards.Games))
	for i, g := range boards.Games {
		list[i] = item{Value: g, Label: c.Game(g)}
	}
	return result("ok", map[string]any{"games": list})
}

func (v *View) controls(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	tcs, err := v.svc.Store(tx.DB()).TimeControls(ctx)
	if err != nil {
		return nil, err
	}
	c := texts.For(u.User.Language)
	list := make([]item, len(tcs))
	for i, tc := range tcs {
		list[i] = item{Value: tc.Name, Label: c.Control(tc.Name)}
	}
	return result("ok", map[string]any{"controls": list})
}

func (v *View) levels(_ context.Context, _ bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	c := texts.For(u.User.Language)
	list := []item{}
	for _, l := range boards.Levels(args["game"]) {
		list = append(list, item{Value: l.String(), Label: c.LevelChoice(args["game"], l)})
	}
	return result("ok", map[string]any{"levels": list})
}

// player is the user of an update as the board service knows them.
func player(u *bot.Update) boards.Player {
	return boards.Player{Service: u.Service, User: u.User.ID, By: boards.ByTelegram}
}

// open opens a game as o asks, and answers the command tree: ok, or invalid for a game, level
// or clock not offered. A player already waiting for the same game gets their notice again.
func (v *View) open(ctx context.Context, tx bot.Tx, u *bot.Update, o boards.Opening) (*scripts.Result, error) {
	bd, again, err := v.svc.Open(ctx, tx, player(u), o)
	switch {
	case errors.Is(err, board.ErrInvalid):
		return &scripts.Result{Code: "invalid"}, nil
	case err != nil:
		return nil, err
	case again:
		return &scripts.Result{Code: "ok"}, v.showWaiting(ctx, tx, bd, "")
	}
	return &scripts.Result{Code: "ok"}, nil
}

// playBot starts a game against the bot: the player's side is drawn at random, no clock runs.
func (v *View) playBot(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	level, err := board.ParseBotLevel(args["level"])
	if err != nil || level == board.NoBot {
		return &scripts.Result{Code: "invalid"}, nil
	}
	return v.open(ctx, tx, u, boards.Opening{Variant: args["game"], Level: level})
}

// find joins the oldest game of the same game and clock that waits for an opponent, or opens one
// and waits (a player already waiting for the same gets their notice again).
func (v *View) find(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	return v.open(ctx, tx, u, boards.Opening{Variant: args["game"], Control: args["control"]})
}

// inviteFriend opens a game only an invite joins, and gives its link: t.me/<bot>?start=g<code>.
func (v *View) inviteFriend(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	link := func(code string) string { return fmt.Sprintf("https://t.me/%s?start=g%s", u.Bot, code) }
	return v.open(ctx, tx, u, boards.Opening{Variant: args["game"], Control: args["control"], Invite: link})
}

// HandleStart takes /start with an invite link's argument ("g" and the invite's code): the user
// joins the game, or is told why not (used, expired, their own). It reports whether it took the
// command; any other /start is left to the command tree.
func (v *View) HandleStart(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	code, ok := strings.CutPrefix(strings.TrimSpace(u.Args), "g")
	if !ok || len(code) < 8 || strings.ContainsAny(code, " \t\n") {
		return false, nil
	}
	err := v.svc.Redeem(ctx, tx, player(u), code)
	if userError(err) {
		return true, say(ctx, tx, u.Chat, html.EscapeString(texts.For(u.User.Language).Error(err)), 0)
	}
	return true, err
}

// showWaiting sends the notice of a board that waits for an opponent to its creator, under the
// board's ref (the board replaces it when the game starts), with the invite link when there is
// one, and a button to stop waiting.
func (v *View) showWaiting(ctx context.Context, tx bot.Tx, bd *board.Board, link string) error {
	p, err := v.svc.Profile(ctx, tx.DB(), bd.Creator)
	if err != nil || p == nil {
		return err // a user row removed by hand: nobody to tell
	}
	c := texts.For(p.Lang)
	game, clock := html.EscapeString(c.Game(bd.Variant)), html.EscapeString(c.Control(bd.Control.Name))
	text := fmt.Sprintf(c.Board.Waiting, game, clock)
	if link != "" {
		text = fmt.Sprintf(c.Board.Invite, game, clock, html.EscapeString(link), c.Duration(v.svc.InviteLifetime()))
	}
	cancel := press{board: bd.ID, op: opCancel}
	reqs, err := bot.SendHTML(p.Chat, text, bot.Keyboard{{{Text: c.Board.Cancel, Data: cancel.data()}}})
	if err != nil {
		return err
	}
	return tx.Send(ctx, append([]bot.Request{bot.DeleteRef(p.Chat, ref(bd.ID))}, bot.WithRef(ref(bd.ID), reqs...)...)...)
}

// maxMine bounds the games /mygames lists.
const maxMine = 20

// mine lists the user's games, those where it is their turn first, each a button that brings
// the board back.
func (v *View) mine(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	list, err := v.svc.Store(tx.DB()).UserBoards(ctx, u.Service, u.User.ID, maxMine)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return &scripts.Result{Code: "none"}, nil
	}
	c := texts.For(u.User.Language)
	t := &c.Board
	var kb bot.Keyboard
	for _, bi := range list {
		state := t.MineWait
		switch {
		case bi.Status == board.Waiting:
			state = t.MineWaiting
		case bi.MyTurn:
			state = t.MineTurn
		}
		opponent := "…"
		switch {
		case bi.Opponent.Bot != board.NoBot:
			opponent = c.BotName(bi.Variant, bi.Opponent.Bot)
		case bi.Opponent.User != 0:
			p, err := v.svc.Profile(ctx, tx.DB(), bi.Opponent.User)
			if err != nil {
				return nil, err
			}
			if p != nil {
				opponent = boards.PlayerName(p, p.ID)
			}
		}
		label := fmt.Sprintf(t.MineEntry, c.Game(bi.Variant), opponent, state)
		view := press{board: bi.ID, op: opView}
		kb = append(kb, []bot.Button{{Text: label, Data: view.data()}})
	}
	reqs, err := bot.SendHTML(u.Chat, t.Mine, kb)
	if err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, tx.Send(ctx, reqs...)
}

// rating gives the user's results per game as a fixed-width table: played, won, lost, drawn and
// the Elo rating (of rated games, those between players).
func (v *View) rating(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	stats, err := v.svc.Store(tx.DB()).UserStats(ctx, u.Service, u.User.ID)
	if err != nil {
		return nil, err
	}
	if len(stats) == 0 {
		return &scripts.Result{Code: "none"}, nil
	}
	c := texts.For(u.User.Language)
	rows := [][]string{strings.Fields(c.Board.RatingHead)}
	for _, s := range stats {
		elo := c.Board.Unrated
		if s.Rated > 0 {
			elo = fmt.Sprint(s.Rating)
		}
		rows = append(rows, []string{c.Game(s.Variant), fmt.Sprint(s.Played), fmt.Sprint(s.Won), fmt.Sprint(s.Lost),
			fmt.Sprint(s.Drawn), elo})
	}
	return result("ok", map[string]any{"table": table(rows)})
}

// table lays out rows in columns: the first left-aligned, the others right-aligned.
func table(rows [][]string) string {
	var widths []int
	for _, r := range rows {
		for i, cell := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	var lines []string
	for _, r := range rows {
		var b strings.Builder
		for i, cell := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if i == 0 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	return strings.Join(lines, "\n")
}
