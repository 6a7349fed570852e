package boards

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"strings"
	"unicode/utf8"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/scripts"
	"github.com/questbot/questbot/sessions/board"
)

// Games are the engine variants the bot offers, in menu order.
var Games = []string{"russian", "turkish", "international", "brazilian", "chess", "chase", "foxgeese13", "foxgeese15", "foxgeese17"}

// Builtins returns the built-in operations the command tree calls (migration 015_boards.sql), by
// name. Each answers with a result code for the tree to branch on, and sends the boards itself:
//
//   - board.games: the games, as a list for a list menu, in the field "games"; code ok.
//   - board.controls: the time controls of the catalogue, likewise in "controls"; code ok.
//   - board.bot (game, level): a game against the bot at once; code ok, or invalid.
//   - board.find (game, control): joins the oldest game of the same game and clock waiting for an
//     opponent, or opens one and waits; code ok, or invalid.
//   - board.invite (game, control): opens a game for a friend and gives its invite link; code
//     ok, or invalid.
//   - board.mine: the user's games, as buttons that bring each board back; code ok, or none.
//   - board.rating: the user's results per game as a table (plain text) in "table"; code ok, or
//     none.
//   - board.notify: the user's notification setting, with buttons to change it (notify.go);
//     code ok.
func (b *Boards) Builtins() map[string]Builtin {
	return map[string]Builtin{
		"board.games":    b.games,
		"board.controls": b.controls,
		"board.bot":      b.playBot,
		"board.find":     b.find,
		"board.invite":   b.inviteFriend,
		"board.mine":     b.mine,
		"board.rating":   b.rating,
		"board.notify":   b.notifyMenu,
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

func (b *Boards) games(_ context.Context, _ bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	c := texts.For(u.User.Language)
	list := make([]item, len(Games))
	for i, v := range Games {
		list[i] = item{Value: v, Label: c.Game(v)}
	}
	return result("ok", map[string]any{"games": list})
}

func (b *Boards) controls(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	tcs, err := b.store(tx.DB()).TimeControls(ctx)
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

// offered reports whether the bot offers a game.
func offered(variant string) bool {
	for _, v := range Games {
		if v == variant {
			return true
		}
	}
	return false
}

// control finds a time control of the catalogue by name.
func (b *Boards) control(ctx context.Context, st Store, name string) (board.TimeControl, error) {
	tcs, err := st.TimeControls(ctx)
	if err != nil {
		return board.TimeControl{}, err
	}
	for _, tc := range tcs {
		if tc.Name == name {
			return tc, nil
		}
	}
	return board.TimeControl{}, fmt.Errorf("%w: time control %q", board.ErrInvalid, name)
}

// playBot starts a game against the bot: the player's side is drawn at random, no clock runs.
func (b *Boards) playBot(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	level, err := board.ParseBotLevel(args["level"])
	if err != nil || level == board.NoBot || !offered(args["game"]) {
		return &scripts.Result{Code: "invalid"}, nil
	}
	spec := board.Spec{Service: u.Service, Creator: u.User.ID, Variant: args["game"], Seed: b.seed(),
		Control: board.TimeControl{Name: "none"}, Side: board.SideRandom, Bot: level}
	bd, ev, err := board.Open(spec, b.now())
	if err != nil {
		return nil, err
	}
	st := b.store(tx.DB())
	if err := st.Create(ctx, bd); err != nil {
		return nil, err
	}
	seat, _ := bd.SeatOf(u.User.ID)
	sc, err := b.newScene(ctx, tx, bd)
	if err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, b.announce(ctx, tx, sc, ev, seat, byPlayer)
}

// spec reads the game and the clock of a game between players; ok is false when they are not
// offered.
func (b *Boards) spec(ctx context.Context, st Store, u *bot.Update, args map[string]string) (board.Spec, bool, error) {
	if !offered(args["game"]) {
		return board.Spec{}, false, nil
	}
	tc, err := b.control(ctx, st, args["control"])
	if errors.Is(err, board.ErrInvalid) {
		return board.Spec{}, false, nil
	}
	if err != nil {
		return board.Spec{}, false, err
	}
	return board.Spec{Service: u.Service, Creator: u.User.ID, Variant: args["game"], Seed: b.seed(),
		Control: tc, Side: board.SideRandom}, true, nil
}

// find joins the oldest game of the same game and clock that waits for an opponent, or opens one
// and waits (a player already waiting for the same gets their notice again).
func (b *Boards) find(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	st := b.store(tx.DB())
	spec, ok, err := b.spec(ctx, st, u, args)
	if err != nil || !ok {
		return &scripts.Result{Code: "invalid"}, err
	}
	mine, err := st.UserBoards(ctx, u.Service, u.User.ID, 0)
	if err != nil {
		return nil, err
	}
	for _, bi := range mine {
		if bi.Status == board.Waiting && bi.Variant == spec.Variant && bi.Control == spec.Control.Name {
			bd, err := st.Get(ctx, bi.ID)
			if err != nil {
				return nil, err
			}
			if !bd.Private {
				return &scripts.Result{Code: "ok"}, b.showWaiting(ctx, tx, bd, "")
			}
		}
	}
	bd, err := st.ClaimWaiting(ctx, spec)
	if errors.Is(err, board.ErrNotFound) {
		bd, _, err = board.Open(spec, b.now())
		if err == nil {
			err = st.Create(ctx, bd)
		}
		if err != nil {
			return nil, err
		}
		return &scripts.Result{Code: "ok"}, b.showWaiting(ctx, tx, bd, "")
	}
	if err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, b.join(ctx, tx, st, bd, u.User.ID, byPlayer)
}

// join seats a user in a waiting board and starts the game.
func (b *Boards) join(ctx context.Context, tx bot.Tx, st Store, bd *board.Board, user int64, src source) error {
	ev, err := bd.Join(user, b.now())
	if err != nil {
		return err
	}
	seat, _ := bd.SeatOf(user)
	if src == byWeb {
		if err := b.markWeb(ctx, tx, bd.ID, seat); err != nil {
			return err
		}
	}
	return b.commit(ctx, tx, st, bd, ev, seat, src)
}

// inviteFriend opens a game only an invite joins, and gives its link.
func (b *Boards) inviteFriend(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	st := b.store(tx.DB())
	spec, ok, err := b.spec(ctx, st, u, args)
	if err != nil || !ok {
		return &scripts.Result{Code: "invalid"}, err
	}
	spec.Private = true
	bd, _, err := board.Open(spec, b.now())
	if err != nil {
		return nil, err
	}
	if err := st.Create(ctx, bd); err != nil {
		return nil, err
	}
	code, err := st.CreateInvite(ctx, bd.ID, b.now(), b.invite)
	if err != nil {
		return nil, err
	}
	link := fmt.Sprintf("https://t.me/%s?start=g%s", u.Bot, code)
	return &scripts.Result{Code: "ok"}, b.showWaiting(ctx, tx, bd, link)
}

// HandleStart takes /start with an invite link's argument ("g" and the invite's code): the user
// joins the game, or is told why not (used, expired, their own). It reports whether it took the
// command; any other /start is left to the command tree.
func (b *Boards) HandleStart(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	code, ok := strings.CutPrefix(strings.TrimSpace(u.Args), "g")
	if !ok || len(code) < 8 || strings.ContainsAny(code, " \t\n") {
		return false, nil
	}
	st := b.store(tx.DB())
	bd, err := st.RedeemInvite(ctx, code, u.User.ID, b.now())
	if err == nil {
		err = b.join(ctx, tx, st, bd, u.User.ID, byPlayer)
	}
	if userError(err) {
		return true, say(ctx, tx, u.Chat, html.EscapeString(texts.For(u.User.Language).Error(err)), 0)
	}
	return true, err
}

// showWaiting sends the notice of a board that waits for an opponent to its creator, under the
// board's ref (the board replaces it when the game starts), with the invite link when there is
// one, and a button to stop waiting.
func (b *Boards) showWaiting(ctx context.Context, tx bot.Tx, bd *board.Board, link string) error {
	p, err := b.users.Profile(ctx, tx.DB(), bd.Creator)
	if err != nil {
		return err
	}
	c := texts.For(p.Lang)
	game, clock := html.EscapeString(c.Game(bd.Variant)), html.EscapeString(c.Control(bd.Control.Name))
	text := fmt.Sprintf(c.Board.Waiting, game, clock)
	if link != "" {
		text = fmt.Sprintf(c.Board.Invite, game, clock, html.EscapeString(link), c.Duration(b.invite))
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
func (b *Boards) mine(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	list, err := b.store(tx.DB()).UserBoards(ctx, u.Service, u.User.ID, maxMine)
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
			opponent = fmt.Sprintf(t.Bot, t.Levels[bi.Opponent.Bot.String()])
		case bi.Opponent.User != 0:
			p, err := b.users.Profile(ctx, tx.DB(), bi.Opponent.User)
			if err != nil && !errors.Is(err, botpg.ErrNoUser) {
				return nil, err
			}
			if p != nil {
				opponent = p.FirstName
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
func (b *Boards) rating(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	stats, err := b.store(tx.DB()).UserStats(ctx, u.Service, u.User.ID)
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
