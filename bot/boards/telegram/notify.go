package telegram

import (
	"context"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/scripts"
	"github.com/questbot/questbot/sessions/board"
)

// noticeNote is the note of a notification: who did what in which game, and the link to the
// game's web page when there is a web game server.
func (v *View) noticeNote(c *texts.Catalog, sc *boards.Scene, seat int, n boards.News) string {
	bd, t := sc.Board, &c.Board
	game := html.EscapeString(c.Game(bd.Variant))
	var note string
	switch n.Kind {
	case boards.NewsMove:
		m := bd.Moves[n.Ply-1]
		note = fmt.Sprintf(t.NotifyMoved, htmlName(c, sc, m.Seat), html.EscapeString(sc.Numbered(n.Ply)), game)
	case boards.NewsOffer:
		note = fmt.Sprintf(t.NotifyOffer, htmlName(c, sc, bd.Offer.Seat), game)
	case boards.NewsStart:
		note = fmt.Sprintf(t.NotifyStart, htmlName(c, sc, 1-seat), game)
	default:
		note = fmt.Sprintf(t.NotifyEnd, game)
	}
	if url := v.svc.PlayURL(bd.ID); url != "" {
		note += "\n" + fmt.Sprintf(t.WebLink, html.EscapeString(url))
	}
	return note
}

// # /notify
//
// The built-in board.notify sends the user's setting with buttons to change it; a press
// ("g:n:<what>", see parseNotifyPress) saves the change and edits the message in place.

// notifyPrefix is the start of the callback data of /notify's buttons.
const notifyPrefix = CallbackPrefix + ":n:"

// quietPresets are the quiet hours offered, as [from, to).
var quietPresets = [][2]int{{22, 7}, {23, 8}, {0, 9}}

// maxOffset and minOffset bound the UTC offsets, in minutes.
const (
	minOffset = -12 * 60
	maxOffset = 14 * 60
)

// notifyMenu is the built-in board.notify: the user's setting, with buttons to change it.
func (v *View) notifyMenu(ctx context.Context, tx bot.Tx, u *bot.Update, _ map[string]string) (*scripts.Result, error) {
	set, err := v.svc.Store(tx.DB()).NotifySetting(ctx, u.User.ID)
	if err != nil {
		return nil, err
	}
	text, kb := v.notifyView(texts.For(u.User.Language), set)
	reqs, err := bot.SendHTML(u.Chat, text, kb)
	if err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, tx.Send(ctx, reqs...)
}

// notifyPressed carries out a press of /notify's buttons: the setting changed and saved, the
// message edited to show it. Data no button of ours carries changes nothing.
func (v *View) notifyPressed(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	cq := u.CallbackQuery
	c := texts.For(u.User.Language)
	set, err := v.svc.Store(tx.DB()).NotifySetting(ctx, u.User.ID)
	if err != nil {
		return err
	}
	set, err = parseNotifyPress(cq.Data, set)
	if err != nil {
		return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, c.Bot.Stale))
	}
	if err := v.svc.Store(tx.DB()).SaveNotifySetting(ctx, u.User.ID, set); err != nil {
		return err
	}
	reqs := []bot.Request{bot.AnswerCallback(u.Chat, cq.ID, c.Board.NotifySaved)}
	if m := cq.Message; m != nil {
		text, kb := v.notifyView(c, set)
		edit, err := bot.EditHTML(u.Chat, m.MessageID, text, kb)
		if err != nil {
			return err
		}
		reqs = append(reqs, edit)
	}
	return tx.Send(ctx, reqs...)
}

// parseNotifyPress applies a press of /notify's buttons to a setting: "d" (the default delay),
// "d<delay>", "q" (no quiet hours), "q<from>-<to>" (a preset), "o+" and "o-" (the UTC offset an
// hour east or west). Returns errForged for anything else.
func parseNotifyPress(data string, s board.NotifySetting) (board.NotifySetting, error) {
	arg, ok := strings.CutPrefix(data, notifyPrefix)
	if !ok || arg == "" {
		return s, fmt.Errorf("%w: %q", errForged, data)
	}
	what, val := arg[0], arg[1:]
	switch what {
	case 'd':
		if val != "" && !slices.Contains(boards.Delays, val) {
			return s, fmt.Errorf("%w: %q", errForged, data)
		}
		s.Delay = val
		return s, nil
	case 'q':
		if val == "" {
			s.Quiet, s.From, s.To = false, 0, 0
			return s, nil
		}
		for _, q := range quietPresets {
			if val == fmt.Sprintf("%d-%d", q[0], q[1]) {
				s.Quiet, s.From, s.To = true, q[0], q[1]
				return s, nil
			}
		}
	case 'o':
		step := map[string]int{"+": 60, "-": -60}[val]
		if step != 0 {
			s.Offset = min(max(s.Offset+step, minOffset), maxOffset)
			return s, nil
		}
	}
	return s, fmt.Errorf("%w: %q", errForged, data)
}

// notifyView is /notify's message for a setting, and its keyboard (the current choices ticked).
func (v *View) notifyView(c *texts.Catalog, s board.NotifySetting) (string, bot.Keyboard) {
	t := &c.Board
	tick := func(on bool, label string) string {
		if on {
			return "✓ " + label
		}
		return label
	}
	btn := func(label, arg string) bot.Button { return bot.Button{Text: label, Data: notifyPrefix + arg} }
	delay := t.NotifyByGame
	if s.Delay != "" {
		delay = t.Delays[s.Delay]
	}
	quiet := t.QuietNone
	if s.Quiet {
		quiet = hours(s.From, s.To)
	}
	local := v.svc.Now().UTC().Add(time.Duration(s.Offset) * time.Minute).Format("15:04")
	text := fmt.Sprintf(t.NotifyMenu, html.EscapeString(delay), html.EscapeString(quiet), local, offsetText(s.Offset))
	var kb bot.Keyboard
	var row []bot.Button
	for _, d := range boards.Delays {
		row = append(row, btn(tick(s.Delay == d, t.Delays[d]), "d"+d))
		if len(row) == 2 {
			kb, row = append(kb, row), nil
		}
	}
	kb = append(kb, []bot.Button{btn(tick(s.Delay == "", t.NotifyDefault), "d")})
	row = []bot.Button{btn(tick(!s.Quiet, "🔔 "+t.QuietNone), "q")}
	for _, q := range quietPresets {
		on := s.Quiet && s.From == q[0] && s.To == q[1]
		row = append(row, btn(tick(on, "🌙 "+hours(q[0], q[1])), fmt.Sprintf("q%d-%d", q[0], q[1])))
	}
	kb = append(kb, row)
	kb = append(kb, []bot.Button{btn(fmt.Sprintf(t.NotifyOffset, "−1"), "o-"), btn(fmt.Sprintf(t.NotifyOffset, "+1"), "o+")})
	return text, kb
}

// hours writes quiet hours.
func hours(from, to int) string { return fmt.Sprintf("%02d:00–%02d:00", from, to) }

// offsetText writes a UTC offset in minutes: "+3", "−5", "+5:30", "" for UTC itself.
func offsetText(m int) string {
	if m == 0 {
		return ""
	}
	sign := "+"
	if m < 0 {
		sign, m = "−", -m
	}
	s := sign + strconv.Itoa(m/60)
	if m%60 != 0 {
		s += fmt.Sprintf(":%02d", m%60)
	}
	return s
}
