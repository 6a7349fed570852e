package telegram

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/telegram/tgstore"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// # Games a whole chat sees
//
// Besides the boards in the players' own chats, a game may be played in one message that a whole
// chat sees (migration 027, tgstore.Shared):
//
//   - Inline mode: "@<bot> query" in any chat lists the games, each with each time control of
//     the catalogue (no clock first), whose name (in the user's language), variant or clock
//     contains every word of the query, with a line about the game, fifty at a time with the
//     offset of the next ones, every game on the first page (HandleInlineQuery).
//     Choosing one posts the challenge "<who> wants to play <game>" with Join and Withdraw; the
//     chosen result (HandleChosenInlineResult; BotFather's inline feedback must be on) opens the
//     game, waiting, as an invitation, and records it against the inline_message_id.
//   - Groups: /games in a group (HandleGroupGames) posts the bot's message asking the member
//     which game (with an argument naming one game, that game is chosen), then with which clock
//     of the catalogue (no clock first); the member's choices turn it into the challenge. The
//     message is edited by its ref until a press tells its message_id, then by chat_id and
//     message_id (the transport forgets refs after two days; a game by correspondence lasts
//     longer).
//
// The first other user to press Join redeems the invitation and plays (the sides drawn by the
// service); the message then is the board, edited in place: the board's picture (White's or the
// first side's view) captioned, or, for an inline message of a bot without PUBLIC_URL, the board as
// text (the engine's diagram in a fixed-width block; sharedpicture.go says which and why), with the
// players, the clocks, the last move, whose turn it is or the result, and under it one keyboard for
// both: the squares of the player to move (the same two-press flow as in a private chat, the
// squares tapped carried in the buttons' data, so nobody else's selection is kept anywhere), then
// take back, offer a draw and resign, or accept and decline an offer. Every press counts as its
// presser's: a tap of the player not to move is refused as not their turn, a resignation asks its
// presser to confirm (the confirmation names them, and its two answers carry their seat: the
// other player pressing one is told whose question it is; the player to move keeps her squares
// under it while her clock runs, and her tap of one takes the question away, to be asked again),
// an offer or an acceptance is the presser's (the offerer's answer to their own offer is told
// whose it is). Anyone but the two players gets a short answer naming them, and nothing
// changes. Every change, whoever makes it (a typed move, the web, a job), comes through the
// service's views (View.Changed and the others start with sharedChanged) and edits the message. The
// texts are in the challenger's language: the message is one for everybody.
//
// A challenge nobody joins within the invitation's lifetime (boards.InviteLifetime) says so
// when Join is pressed after it, and the clean-up closes it (a week) and says so too; the
// challenger may withdraw it. A finished game shows its result and no buttons.
//
// A shared board's button data starts with SharedPrefix: "G:j" and "G:x" (join and withdraw the
// challenge of an inline message, found by its inline_message_id), "G:j:<board>" and "G:x:<board>"
// (of a group message), "G:o:<variant>:<user>" and "G:c:<variant>:<clock>:<user>" (the group
// member's choice of a game, and of its clock), and "G:<board>:<ply>:<op>…", a board button as
// data.go writes it (the answers to a resignation to confirm with the seat asked after their op:
// "R<seat>" resigns, "N<seat>" plays on). Data is checked as any input, since a client may send
// data of its own making: a member's choice counts only as a button of the message pressed
// (onMessage: so only on their own menu), a board's button only under that board's own message,
// and anything else is refused with words and changes nothing.

// SharedPrefix is the callback prefix of the buttons of a shared board.
const SharedPrefix = "G"

// sharedInvite marks the "link" of an invitation a shared board is opened with: the Join button
// of its message is its link, so the waiting notice of a private chat is not shown for it.
const sharedInvite = "shared:"

// sharedState is the state (bot.Request.State) of a shared board's message.
func sharedState(id int64) string { return fmt.Sprintf("shared:%d", id) }

// inlinePage is how many results one answer to an inline query holds: as many as Telegram takes.
const inlinePage = 50

// HandleInlineQuery answers an inline query with the games it names (all of them for an empty
// query), each with every time control of the catalogue (no clock first): the query filters by
// the game's name or variant, and by the clock's name when it names one ("chess blitz"). The
// results come fifty at a time, the client asking for the next ones with the offset the answer
// gave (next_offset) when the user scrolls to the end. When they fit in one answer, each game's
// clocks come together; when they do not (an empty query lists the 22 games with 4 clocks each),
// they come clock by clock, every game with no clock first, so that the first answer holds
// every game. An offset no answer gave (not a number, past the end) is read as the start.
func (v *View) HandleInlineQuery(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	q := u.InlineQuery
	c := texts.For(u.User.Language)
	tcs, err := v.svc.Store(tx.DB()).TimeControls(ctx)
	if err != nil {
		return err
	}
	who := html.EscapeString(displayName(u))
	kb := bot.Keyboard{{{Text: c.Shared.Join, Data: SharedPrefix + ":j"}, {Text: c.Shared.Withdraw, Data: SharedPrefix + ":x"}}}
	words := strings.Fields(strings.ToLower(q.Query))
	type offer struct{ variant, control string }
	var offers []offer
	for _, variant := range boards.Games {
		for _, tc := range tcs {
			if matches(words, c.Game(variant)+" "+variant+" "+c.Control(tc.Name)+" "+tc.Name) {
				offers = append(offers, offer{variant, tc.Name})
			}
		}
	}
	if len(offers) > inlinePage {
		rank := map[string]int{}
		for i, tc := range tcs {
			rank[tc.Name] = i
		}
		slices.SortStableFunc(offers, func(a, b offer) int { return rank[a.control] - rank[b.control] })
	}
	start, err := strconv.Atoi(q.Offset)
	if err != nil || start < 0 || start >= len(offers) {
		start = 0
	}
	end := min(start+inlinePage, len(offers))
	pics := map[string]startPicture{} // by game
	var results []bot.InlineResult
	for _, o := range offers[start:end] {
		pic, ok := pics[o.variant]
		if !ok {
			if pic, err = v.startPicture(o.variant); err != nil {
				return err
			}
			pics[o.variant] = pic
		}
		results = append(results, inlineChallenge(c, o.variant, o.control, who, kb, pic))
	}
	next := ""
	if end < len(offers) {
		next = strconv.Itoa(end)
	}
	// The challenge names the user who asks: the answer is theirs alone.
	req, err := bot.AnswerInline(u.Chat, q.ID, results, bot.InlineAnswer{CacheTime: 60, Personal: true, NextOffset: next})
	if err != nil {
		return err
	}
	return tx.Send(ctx, req)
}

// matches reports whether every word of a query is in text (lower case).
func matches(words []string, text string) bool {
	text = strings.ToLower(text)
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// gameAndClock names a game and its clock (plain): the game alone without one.
func gameAndClock(c *texts.Catalog, variant, control string) string {
	if control == "" || control == "none" {
		return c.Game(variant)
	}
	return c.Game(variant) + ", " + c.Control(control)
}

// displayName is the name of an update's sender as a challenge shows it (plain).
func displayName(u *bot.Update) string {
	return boards.PlayerName(&boards.Profile{ID: u.User.ID, FirstName: u.User.FirstName, Username: u.User.Username}, u.User.ID)
}

// maxInlineMessageID bounds the inline_message_id of a message a game is recorded against:
// Telegram's are a few dozen characters; anything far longer is no id of Telegram's, and is
// neither stored nor looked up.
const maxInlineMessageID = 256

// HandleChosenInlineResult opens the game of a challenge posted from the inline results and
// records it against its inline message. A result of no game offered, or without a message to
// play in (or with an id past maxInlineMessageID), is logged and changes nothing.
func (v *View) HandleChosenInlineResult(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	r := u.ChosenInlineResult
	variant, control, picture := chosenResult(r.ResultID)
	if !boards.Offered(variant) || r.InlineMessageID == "" {
		v.log.Warn("A chosen inline result names no game or no message", slog.String("result", r.ResultID))
		return nil
	}
	if len(r.InlineMessageID) > maxInlineMessageID {
		v.log.Warn("A chosen inline result names a message by an id longer than Telegram gives",
			slog.Int("length", len(r.InlineMessageID)), slog.Int("max", maxInlineMessageID))
		return nil
	}
	st := tgstore.New(tx.DB())
	if _, ok, err := st.SharedByInline(ctx, r.InlineMessageID); ok || err != nil {
		return err // told twice
	}
	bd, code, err := v.openShared(ctx, tx, u, variant, control)
	if userError(err) {
		v.log.Warn("A chosen inline result names no game offered", slog.String("result", r.ResultID), slog.Any("error", err))
		return nil
	}
	if err != nil {
		return err
	}
	// The message already shows the challenge, as the result posted it.
	return st.PlaceShared(ctx, tgstore.Shared{Board: bd.ID, InlineMessageID: r.InlineMessageID, Invite: code, Picture: picture, Opened: bd.Created})
}

// openShared opens a game between players, waiting for whoever joins by the message's button,
// and returns the digest of its invitation's code (boards.InviteDigest).
func (v *View) openShared(ctx context.Context, tx bot.Tx, u *bot.Update, variant, control string) (*board.Board, string, error) {
	var digest string
	if control == "" {
		control = "none"
	}
	// The message keeps the digest of its invitation's code, which only its Join redeems
	// (boards.RedeemDigest): the code itself, a link's, is kept nowhere.
	bd, _, err := v.svc.Open(ctx, tx, player(u), boards.Opening{Variant: variant, Control: control,
		Invite: func(c string) string { digest = boards.InviteDigest(c); return sharedInvite }})
	return bd, digest, err
}

// HandleGroupGames is /games in a group: the member's challenge, posted by the bot, for the
// group's members. The message asks the member which game, then which clock; with an argument
// naming one game (its name or variant, in part), it asks the clock at once. It reports false
// for a chat that is not a group (the command tree's /games serves private chats).
func (v *View) HandleGroupGames(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	if u.Message == nil || u.Message.Chat == nil || (u.Message.Chat.Type != "group" && u.Message.Chat.Type != "supergroup") {
		return false, nil
	}
	c := texts.For(u.User.Language)
	chat := u.Message.Chat.ID
	query := strings.ToLower(strings.TrimSpace(u.Args))
	var match []string
	for _, variant := range boards.Games {
		if query == "" || strings.Contains(strings.ToLower(c.Game(variant)), query) || strings.Contains(variant, query) {
			match = append(match, variant)
		}
	}
	// A game named exactly (its id or its whole name) is that game, though others contain the
	// words too ("chess" and "Chess960").
	for _, variant := range match {
		if query != "" && (variant == query || strings.ToLower(c.Game(variant)) == query) {
			match = []string{variant}
			break
		}
	}
	if len(match) == 1 {
		return true, v.askClock(ctx, tx, u, chat, 0, match[0])
	}
	if len(match) == 0 {
		match = boards.Games
	}
	var kb bot.Keyboard
	for _, variant := range match {
		kb = append(kb, []bot.Button{{Text: c.Game(variant),
			Data: fmt.Sprintf("%s:o:%s:%d", SharedPrefix, variant, u.User.ID)}})
	}
	reqs, err := bot.SendHTML(chat, fmt.Sprintf(c.Shared.Choose, html.EscapeString(displayName(u))), kb)
	if err != nil {
		return true, err
	}
	return true, tx.Send(ctx, reqs...)
}

// askClock asks a member of a group with which clock of the catalogue (no clock first) to play
// variant: in the message msgID (the member's choice of the game was pressed under it), or in
// a new message.
func (v *View) askClock(ctx context.Context, tx bot.Tx, u *bot.Update, chat int64, msgID int, variant string) error {
	c := texts.For(u.User.Language)
	tcs, err := v.svc.Store(tx.DB()).TimeControls(ctx)
	if err != nil {
		return err
	}
	var kb bot.Keyboard
	for _, tc := range tcs {
		kb = append(kb, []bot.Button{{Text: c.Control(tc.Name),
			Data: fmt.Sprintf("%s:c:%s:%s:%d", SharedPrefix, variant, tc.Name, u.User.ID)}})
	}
	text := fmt.Sprintf(c.Shared.ChooseClock, html.EscapeString(displayName(u)), html.EscapeString(c.Game(variant)))
	if msgID != 0 {
		req, err := bot.EditHTML(chat, msgID, text, kb)
		if err != nil {
			return err
		}
		return tx.Send(ctx, req)
	}
	reqs, err := bot.SendHTML(chat, text, kb)
	if err != nil {
		return err
	}
	return tx.Send(ctx, reqs...)
}

// challengeInGroup opens a game for a member of a group and shows its challenge, a photo
// (sharedpicture.go), in the message msgID: the bot's question under which the member chose the
// clock.
func (v *View) challengeInGroup(ctx context.Context, tx bot.Tx, u *bot.Update, chat int64, msgID int, variant, control string) error {
	bd, code, err := v.openShared(ctx, tx, u, variant, control)
	if err != nil {
		return err
	}
	sh := tgstore.Shared{Board: bd.ID, Chat: chat, MessageID: msgID, Invite: code, Picture: true, Opened: bd.Created}
	if err := tgstore.New(tx.DB()).PlaceShared(ctx, sh); err != nil {
		return err
	}
	return v.showSharedBoard(ctx, tx, bd, sh, sharedLook{})
}

// sharedPress is the data of a shared board's button, decoded.
type sharedPress struct {
	// kind: 'j' join, 'x' withdraw, 'o' and 'c' a group member's choice of a game and of its
	// clock, 'g' a board button.
	kind    byte
	board   int64 // 0: the inline message's board
	variant string
	control string
	user    int64
	p       press
	seat    int  // of a resignation to confirm, answered
	no      bool // "No, play on" under a resignation to confirm (p is a plain view)
}

// parseShared reads a shared board's button data; errForged for anything no button carries.
func parseShared(data string) (sharedPress, error) {
	parts := strings.Split(data, ":")
	if len(parts) < 2 || parts[0] != SharedPrefix {
		return sharedPress{}, fmt.Errorf("%w: %q", errForged, data)
	}
	switch {
	case (parts[1] == "j" || parts[1] == "x") && len(parts) <= 3:
		sp := sharedPress{kind: parts[1][0]}
		if len(parts) == 3 {
			id, err := strconv.ParseInt(parts[2], 10, 64)
			if err != nil || id <= 0 {
				return sharedPress{}, fmt.Errorf("%w: %q", errForged, data)
			}
			sp.board = id
		}
		return sp, nil
	case parts[1] == "o" && len(parts) == 4:
		user, err := strconv.ParseInt(parts[3], 10, 64)
		if err != nil || !boards.Offered(parts[2]) {
			return sharedPress{}, fmt.Errorf("%w: %q", errForged, data)
		}
		return sharedPress{kind: 'o', variant: parts[2], user: user}, nil
	case parts[1] == "c" && len(parts) == 5:
		user, err := strconv.ParseInt(parts[4], 10, 64)
		if err != nil || !boards.Offered(parts[2]) || parts[3] == "" {
			return sharedPress{}, fmt.Errorf("%w: %q", errForged, data)
		}
		return sharedPress{kind: 'c', variant: parts[2], control: parts[3], user: user}, nil
	}
	sp := sharedPress{kind: 'g'}
	if len(parts) == 4 && len(parts[3]) == 2 && (parts[3][0] == byte(opResignYes) || parts[3][0] == sharedNo) {
		sp.seat = int(parts[3][1] - '0')
		if sp.seat != 0 && sp.seat != 1 {
			return sharedPress{}, fmt.Errorf("%w: %q", errForged, data)
		}
		if sp.no = parts[3][0] == sharedNo; sp.no {
			parts[3] = string(opTap)
		} else {
			parts[3] = parts[3][:1]
		}
	}
	parts[0] = CallbackPrefix
	p, err := parsePress(strings.Join(parts, ":"))
	if err != nil {
		return sharedPress{}, err
	}
	if p.op == opView || p.op == opCancel {
		return sharedPress{}, fmt.Errorf("%w: %q", errForged, data)
	}
	sp.p, sp.board = p, p.board
	return sp, nil
}

// onMessage reports whether data is the data of a button of the message pressed, as Telegram
// gives that message with the press. A client may send any data for a press (Telegram's own
// apps send only their buttons', but its API lets any client send more), while the message is
// Telegram's copy of what the bot posted: so a menu made for one member (its buttons carry
// their id) is pressed by nobody else with data of their own. An inline message comes without
// its content, and a message too old may too: onMessage is false then.
func onMessage(cq *tgbotapi.CallbackQuery, data string) bool {
	if cq.Message == nil || cq.Message.ReplyMarkup == nil {
		return false
	}
	for _, row := range cq.Message.ReplyMarkup.InlineKeyboard {
		for _, b := range row {
			if b.CallbackData != nil && *b.CallbackData == data {
				return true
			}
		}
	}
	return false
}

// sharedNo is the op of "No, play on" under a resignation to confirm on a shared board, with
// the seat of the player asked after it, as "Yes, I resign" has: only they answer it.
const sharedNo = 'N'

// sharedData is the data of a board button of a shared board.
func sharedData(p press) string { return SharedPrefix + strings.TrimPrefix(p.data(), CallbackPrefix) }

// HandleShared handles a press of a shared board's button, in the update's transaction with the
// board locked. Presses of anyone but the players (and of the challenger, before the game, on
// Join) are answered and change nothing.
func (v *View) HandleShared(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	cq := u.CallbackQuery
	c := texts.For(u.User.Language)
	answer := func(text string) error { return tx.Send(ctx, bot.AnswerCallback(u.Chat, cq.ID, text)) }
	sp, err := parseShared(cq.Data)
	if err == nil {
		var text string
		text, err = v.sharedPressed(ctx, tx, u, sp)
		if err == nil {
			return answer(text)
		}
	}
	switch {
	case errors.Is(err, errForged), errors.Is(err, board.ErrNotFound):
		return answer(c.Bot.Stale)
	case errors.Is(err, board.ErrAlreadySeated):
		return answer(c.Shared.OwnChallenge)
	case userError(err):
		return answer(c.Error(err))
	}
	return err
}

// sharedPressed carries out a press of a shared board's button and returns the answer to it
// ("" for none).
func (v *View) sharedPressed(ctx context.Context, tx bot.Tx, u *bot.Update, sp sharedPress) (string, error) {
	cq := u.CallbackQuery
	c := texts.For(u.User.Language)
	st := tgstore.New(tx.DB())
	if sp.kind == 'o' || sp.kind == 'c' {
		if cq.Message == nil || cq.Message.Chat == nil {
			return "", errForged
		}
		if sp.user != u.User.ID {
			return fmt.Sprintf(c.Shared.OnlyCreator, v.userName(ctx, tx, sp.user)), nil
		}
		if !onMessage(cq, cq.Data) {
			// Data of the presser's own making on somebody else's menu, or on a board.
			return "", errForged
		}
		if _, chosen, err := st.SharedByMessage(ctx, cq.Message.Chat.ID, cq.Message.MessageID); chosen || err != nil {
			if err != nil {
				return "", err
			}
			return "", errForged // a second press of the choice, before its edit came
		}
		if sp.kind == 'o' {
			return "", v.askClock(ctx, tx, u, cq.Message.Chat.ID, cq.Message.MessageID, sp.variant)
		}
		return "", v.challengeInGroup(ctx, tx, u, cq.Message.Chat.ID, cq.Message.MessageID, sp.variant, sp.control)
	}
	// The message pressed, and its board.
	var sh tgstore.Shared
	var ok bool
	var err error
	if len(cq.InlineMessageID) > maxInlineMessageID {
		return "", errForged
	}
	if cq.InlineMessageID != "" {
		sh, ok, err = st.SharedByInline(ctx, cq.InlineMessageID)
		if err == nil && ok && sp.board != 0 && sp.board != sh.Board {
			ok = false
		}
	} else if sp.board != 0 && cq.Message != nil && cq.Message.Chat != nil {
		sh, ok, err = st.SharedOf(ctx, sp.board)
		ok = ok && sh.Chat == cq.Message.Chat.ID
		switch {
		case err != nil || !ok || sh.MessageID == cq.Message.MessageID:
		case sh.MessageID != 0:
			ok = false // the board's button pressed under another message
		default:
			// A board whose message_id is not known yet (edited by its ref) learns it from a
			// press of its own button under a message that is no other board's.
			var other bool
			if _, other, err = st.SharedByMessage(ctx, sh.Chat, cq.Message.MessageID); err == nil {
				if ok = !other && onMessage(cq, cq.Data); ok {
					sh.MessageID = cq.Message.MessageID
					err = st.SetSharedMessage(ctx, sh.Board, sh.MessageID)
				}
			}
		}
	}
	switch {
	case err != nil:
		return "", err
	case !ok && cq.InlineMessageID != "" && sp.kind == 'j':
		return c.Shared.NotReady, nil
	case !ok:
		return "", errForged
	}
	bd, err := v.svc.Store(tx.DB()).Get(ctx, sh.Board)
	if err != nil {
		return "", err
	}
	switch sp.kind {
	case 'j':
		return v.joinShared(ctx, tx, u, bd, sh)
	case 'x':
		if u.User.ID != bd.Creator {
			return fmt.Sprintf(c.Shared.OnlyCreator, v.userName(ctx, tx, bd.Creator)), nil
		}
		h, err := v.svc.Take(ctx, tx, player(u), bd.ID)
		if err != nil {
			return "", err
		}
		return "", h.Cancel(ctx)
	}
	seat, err := bd.SeatOf(u.User.ID)
	asked := -1 // the seat a question pressed under is for, when it is not the presser's
	switch {
	case err != nil:
	case (sp.p.op == opResignYes || sp.no) && sp.seat != seat:
		asked = sp.seat
	case (sp.p.op == opAccept || sp.p.op == opDecline) && bd.Offer != nil && bd.Offer.Seat == seat:
		asked = 1 - seat
	}
	if err != nil || asked >= 0 {
		sc, perr := v.svc.Players(ctx, tx.DB(), bd)
		if perr != nil {
			return "", perr
		}
		if err == nil {
			// The other player's answer to a resignation to confirm, or the offerer's to their
			// own draw offer: the question is not theirs, and their press changes nothing.
			return fmt.Sprintf(c.Shared.OnlyAnswerer, htmlName(c, sc, asked)), nil
		}
		return fmt.Sprintf(c.Shared.Between, htmlName(c, sc, 0), htmlName(c, sc, 1)), nil
	}
	return "", v.playShared(ctx, tx, u, sh, sp)
}

// joinShared seats the presser of Join in the challenge's game. A challenge whose invitation has
// expired is closed, and says so.
func (v *View) joinShared(ctx context.Context, tx bot.Tx, u *bot.Update, bd *board.Board, sh tgstore.Shared) (string, error) {
	c := texts.For(u.User.Language)
	if bd.Status != board.Waiting {
		if _, err := bd.SeatOf(u.User.ID); err == nil {
			return "", nil
		}
		return "", board.ErrFull
	}
	if bd.Creator == u.User.ID {
		return c.Shared.OwnChallenge, nil
	}
	err := v.svc.RedeemDigest(ctx, tx, player(u), sh.Invite)
	if errors.Is(err, board.ErrInviteExpired) {
		// Closed for its creator: the message says the challenge expired.
		h, terr := v.svc.Take(ctx, tx, boards.Player{Service: u.Service, User: bd.Creator, By: boards.ByClock}, bd.ID)
		if terr != nil {
			return "", terr
		}
		if cerr := h.Cancel(ctx); cerr != nil {
			return "", cerr
		}
		return c.Shared.TooLate, nil
	}
	if err != nil {
		return "", err
	}
	return c.Shared.Joined, nil
}

// playShared carries out a player's press of a shared board's game buttons, as pressed does in
// a private chat.
func (v *View) playShared(ctx context.Context, tx bot.Tx, u *bot.Update, sh tgstore.Shared, sp sharedPress) error {
	p := sp.p
	h, err := v.svc.Take(ctx, tx, player(u), p.board)
	if err != nil {
		return err
	}
	bd := h.Board
	if goOn, err := h.InPlay(ctx, p.ply); !goOn {
		return err
	}
	switch p.op {
	case opTap, opChoose:
		if p.op == opTap && len(p.path) == 0 && bd.ToMove != h.Seat {
			// "No, play on" under a resignation to confirm, or "back" of the player to move.
			return v.showSharedBoard(ctx, tx, bd, sh, sharedLook{})
		}
		if bd.ToMove != h.Seat {
			return board.ErrNotYourTurn
		}
		g, err := bd.Game()
		if err != nil {
			return err
		}
		ent, err := resolveEntry(g, p.path)
		if err != nil {
			return err
		}
		if p.op == opChoose {
			if p.choice >= len(ent.steps.Moves) {
				return errForged
			}
			return h.Act(ctx, boards.Action{Op: boards.OpMove, Move: ent.steps.Moves[p.choice].String(), Ply: p.ply})
		}
		if m, ok := ent.steps.Done(); ok && len(p.path) > 0 {
			return h.Act(ctx, boards.Action{Op: boards.OpMove, Move: m.String(), Ply: p.ply})
		}
		if err := h.Seen(ctx); err != nil {
			return err
		}
		return v.showSharedBoard(ctx, tx, bd, sh, sharedLook{ent: ent})
	case opResign:
		if err := h.Seen(ctx); err != nil {
			return err
		}
		return v.showSharedBoard(ctx, tx, bd, sh, sharedLook{confirm: h.Seat + 1})
	case opResignYes:
		if sp.seat != h.Seat {
			return board.ErrNotSeated
		}
	}
	o, ok := ops[p.op]
	if !ok {
		return errForged
	}
	return h.Act(ctx, boards.Action{Op: o})
}

// userName is a user's name as the texts show it (HTML), "…" for nobody.
func (v *View) userName(ctx context.Context, tx bot.Tx, user int64) string {
	p, err := v.svc.Profile(ctx, tx.DB(), user)
	if err != nil || p == nil {
		return "…"
	}
	return html.EscapeString(boards.PlayerName(p, p.ID))
}

// sharedLook is how a shared board's message is to show: a note of what happened, the move being
// entered, a resignation to confirm (the seat + 1; 0 for none).
type sharedLook struct {
	note    string
	ent     *entry
	confirm int
}

// sharedChanged shows a change of a shared board in its message, and reports whether the board
// is shared (so the players' chats show nothing of it). A board being opened for a shared
// message is shown by its opener, once the message is recorded.
func (v *View) sharedChanged(ctx context.Context, tx bot.Tx, ch *boards.Change, sh tgstore.Shared) error {
	var notes []string
	c := v.sharedCatalog(ch.Scene)
	for _, ev := range ch.Events {
		switch ev.Kind {
		case board.EventUndone:
			notes = append(notes, fmt.Sprintf(c.Board.UndoneThem, htmlName(c, ch.Scene, ev.Seat)))
		case board.EventDrawDeclined:
			// The whole chat reads it: who declined, not "your offer".
			notes = append(notes, fmt.Sprintf(c.Shared.DeclinedBy, htmlName(c, ch.Scene, ev.Seat)))
		}
	}
	return v.showShared(ctx, tx, ch.Scene, sh, sharedLook{note: strings.Join(notes, "\n")})
}

// isShared reports whether a board is played in a shared message. Its news need no notification
// (Notify): the message showed them when they happened, and showing it again would wipe the
// squares a player has tapped.
func (v *View) isShared(ctx context.Context, tx bot.Tx, sc *boards.Scene) (bool, error) {
	_, ok, err := tgstore.New(tx.DB()).SharedOf(ctx, sc.Board.ID)
	return ok, err
}

// sharedShown shows a shared board in its message as it is (for Refresh and Remind: the chat
// sees the board, there is nobody's chat to ring), and reports whether the board is shared.
func (v *View) sharedShown(ctx context.Context, tx bot.Tx, sc *boards.Scene) (bool, error) {
	sh, ok, err := tgstore.New(tx.DB()).SharedOf(ctx, sc.Board.ID)
	if !ok || err != nil {
		return false, err
	}
	return true, v.showShared(ctx, tx, sc, sh, sharedLook{})
}

// sharedView is a player's /mygames button of a board played in a shared message: the board is
// that message, shown again there as it is (not copied to the player's chat, where it would go
// stale); it reports whether the board is shared.
func (v *View) sharedView(ctx context.Context, tx bot.Tx, bd *board.Board) (bool, error) {
	sh, ok, err := tgstore.New(tx.DB()).SharedOf(ctx, bd.ID)
	if !ok || err != nil {
		return false, err
	}
	return true, v.showSharedBoard(ctx, tx, bd, sh, sharedLook{})
}

// sharedCatalog is the language of a shared board's message: its challenger's.
func (v *View) sharedCatalog(sc *boards.Scene) *texts.Catalog {
	if seat, err := sc.Board.SeatOf(sc.Board.Creator); err == nil && sc.Players[seat] != nil {
		return texts.For(sc.Players[seat].Lang)
	}
	return texts.For("")
}

// showSharedBoard reads the scene of a board and shows it in its shared message.
func (v *View) showSharedBoard(ctx context.Context, tx bot.Tx, bd *board.Board, sh tgstore.Shared, l sharedLook) error {
	sc, err := v.svc.Scene(ctx, tx.DB(), bd)
	if err != nil {
		return err
	}
	return v.showShared(ctx, tx, sc, sh, l)
}

// showShared edits a shared board's message to show the board: by its inline_message_id, or in
// the group by its message_id, or by its ref until a press told the message_id. A photo message
// is sharedpicture.go's.
func (v *View) showShared(ctx context.Context, tx bot.Tx, sc *boards.Scene, sh tgstore.Shared, l sharedLook) error {
	if sh.Picture {
		return v.showSharedPicture(ctx, tx, sc, sh, l)
	}
	text, kb := v.sharedText(sc, sh, l)
	var req bot.Request
	var err error
	switch {
	case sh.InlineMessageID != "":
		req, err = bot.EditInlineHTML(sh.InlineMessageID, text, kb)
	case sh.MessageID != 0:
		req, err = bot.EditHTML(sh.Chat, sh.MessageID, text, kb)
		if err == nil && kb == nil {
			req.Params["reply_markup"] = `{"inline_keyboard":[]}`
		}
	default:
		req, err = bot.EditHTMLRef(sh.Chat, sharedState(sh.Board), text, kb)
		if err == nil && kb == nil {
			req.Params["reply_markup"] = `{"inline_keyboard":[]}`
		}
	}
	if err != nil {
		return err
	}
	req.State = sharedState(sh.Board)
	return tx.Send(ctx, req)
}

// sharedText is the text and keyboard of a shared board's message: the challenge while it
// waits, its end when withdrawn or expired, else the board (as a diagram in a text message; a
// photo's caption leaves it to the picture).
func (v *View) sharedText(sc *boards.Scene, sh tgstore.Shared, l sharedLook) (string, bot.Keyboard) {
	c := v.sharedCatalog(sc)
	bd := sc.Board
	game := html.EscapeString(gameAndClock(c, bd.Variant, bd.Control.Name))
	creator := "…"
	if seat, err := bd.SeatOf(bd.Creator); err == nil {
		creator = htmlName(c, sc, seat)
	}
	switch bd.Status {
	case board.Waiting:
		join, withdraw := SharedPrefix+":j", SharedPrefix+":x"
		if sh.InlineMessageID == "" {
			join, withdraw = fmt.Sprintf("%s:%d", join, bd.ID), fmt.Sprintf("%s:%d", withdraw, bd.ID)
		}
		return fmt.Sprintf(c.Shared.Challenge, creator, game),
			bot.Keyboard{{{Text: c.Shared.Join, Data: join}, {Text: c.Shared.Withdraw, Data: withdraw}}}
	case board.Aborted:
		if v.svc.Now().Sub(bd.Created) >= v.svc.InviteLifetime() {
			return fmt.Sprintf(c.Shared.Expired, creator, game), nil
		}
		return fmt.Sprintf(c.Shared.Withdrawn, creator, game), nil
	}
	t := &c.Board
	now := v.svc.Now()
	// The move number, the clocks and the last move as the players' own boards write them
	// (caption.go).
	lines := []string{fmt.Sprintf(t.Title, game, sc.CurrentMove())}
	timed := boards.GameClock(bd)
	clocks := bd.Clocks(now)
	for i := range bd.Seats {
		mark := "▫️ "
		if bd.Status == board.Active && bd.ToMove == i {
			mark = "▶️ "
		}
		line := mark + fmt.Sprintf(t.Seat, html.EscapeString(side(c, sc, i)), htmlName(c, sc, i))
		if timed && bd.Status == board.Active {
			line += fmt.Sprintf(t.Clock, c.Duration(clocks[i]))
		}
		lines = append(lines, line)
	}
	if !sh.Picture {
		diagram := strings.TrimRight(sc.Game.Diagram(engine.Player(0)), "\n")
		lines = append(lines, "<pre>"+html.EscapeString(diagram)+"</pre>")
	}
	if n := bd.Ply(); n > 0 {
		last := bd.Moves[n-1]
		lines = append(lines, fmt.Sprintf(t.LastMove, html.EscapeString(sc.Numbered(n)), htmlName(c, sc, last.Seat)))
	}
	switch bd.Status {
	case board.Finished:
		if o := bd.Outcome; o != nil {
			if o.Draw {
				lines = append(lines, fmt.Sprintf(t.Draw, htmlReason(c, sc)))
			} else {
				lines = append(lines, fmt.Sprintf(t.Win, htmlName(c, sc, o.Winner), htmlReason(c, sc)))
			}
		}
	case board.Active:
		lines = append(lines, fmt.Sprintf(c.Shared.Turn, htmlName(c, sc, bd.ToMove)))
		if !bd.Deadline.IsZero() {
			lines = append(lines, fmt.Sprintf(t.TimeLeft, c.Duration(bd.Deadline.Sub(now))))
		}
		if o := bd.Offer; o != nil {
			lines = append(lines, fmt.Sprintf(t.Offers, htmlName(c, sc, o.Seat)))
		}
	}
	if l.note != "" {
		lines = append(lines, l.note)
	}
	if ent := l.ent; ent != nil && len(ent.squares) > 0 {
		lines = append(lines, fmt.Sprintf(t.Selected, html.EscapeString(strings.Join(ent.squares, "-"))))
	}
	if l.confirm > 0 {
		lines = append(lines, fmt.Sprintf(c.Shared.ResignAsk, htmlName(c, sc, l.confirm-1)))
	}
	return strings.Join(lines, "\n"), v.sharedKeyboard(c, sc, l)
}

// sharedKeyboard is the one keyboard of a shared board, for both players: the squares of the
// player to move (and the moves to choose, and "back" once a square is tapped), then take back
// (the player who just moved), offer a draw and resign, or accept and decline an offer. A
// resignation to confirm shows its answers instead of that last row, and, when the player not
// to move asks it, under the squares of the player to move, whose clock runs meanwhile (the
// player to move who asks it sees only the answers); a finished game has no keyboard.
func (v *View) sharedKeyboard(c *texts.Catalog, sc *boards.Scene, l sharedLook) bot.Keyboard {
	bd, t := sc.Board, &c.Board
	if bd.Status != board.Active {
		return nil
	}
	btn := func(label string, p press) bot.Button {
		p.board, p.ply = bd.ID, bd.Ply()
		return bot.Button{Text: label, Data: sharedData(p)}
	}
	kb, selecting := moveButtons(c, sc, l.ent, btn)
	if l.confirm > 0 {
		yes := btn(t.ResignYes, press{op: opResignYes})
		yes.Data += strconv.Itoa(l.confirm - 1)
		no := bot.Button{Text: t.ResignNo, Data: fmt.Sprintf("%s:%d:%d:%c%d", SharedPrefix, bd.ID, bd.Ply(), sharedNo, l.confirm-1)}
		answers := []bot.Button{yes, no}
		if l.confirm-1 == bd.ToMove {
			return bot.Keyboard{answers}
		}
		// The player not to move asks: the one to move keeps her squares, her clock running.
		return append(kb, answers)
	}
	if selecting {
		return kb
	}
	if bd.Offer != nil {
		return append(kb, []bot.Button{btn(t.Accept, press{op: opAccept}), btn(t.Decline, press{op: opDecline})})
	}
	var row []bot.Button
	if boards.CanUndo(bd, 1-bd.ToMove) {
		row = append(row, btn(t.Undo, press{op: opUndo}))
	}
	row = append(row, btn(t.OfferDraw, press{op: opDraw}), btn(t.Resign, press{op: opResign}))
	return append(kb, row)
}

// ExpireChallengesSpec is how often the bot runs ExpireChallenges as a scheduled job.
const ExpireChallengesSpec = "@every 1m"

// expireBatch bounds the challenges one run closes.
const expireBatch = 100

// ExpireChallenges closes the challenges of shared messages that nobody joined within the
// invitation's lifetime (boards.InviteLifetime), each in a transaction of its own through do
// with its board locked (a board another run closed meanwhile is left), as a withdrawal by the
// clock: its message says the challenge expired.
func (v *View) ExpireChallenges(ctx context.Context, do Doer) error {
	var refs []board.Ref
	err := do.Do(ctx, 0, func(ctx context.Context, tx bot.Tx) error {
		// A board waits for an opponent board.WaitingLifetime at most (the service's Cleanup
		// closes it then): the shared messages of older boards hold no challenge.
		now := v.svc.Now()
		ids, err := tgstore.New(tx.DB()).Challenges(ctx, now.Add(-board.WaitingLifetime), now.Add(-v.svc.InviteLifetime()))
		if err != nil || len(ids) == 0 {
			return err
		}
		refs, err = v.svc.Store(tx.DB()).WaitingAmong(ctx, ids, now.Add(-v.svc.InviteLifetime()), expireBatch)
		return err
	})
	if err != nil {
		return fmt.Errorf("telegram: stale challenges: %w", err)
	}
	var failed error
	for _, ref := range refs {
		err := do.Do(ctx, ref.Service, func(ctx context.Context, tx bot.Tx) error {
			bd, err := v.svc.Store(tx.DB()).Get(ctx, ref.ID)
			if err != nil {
				return err
			}
			h, err := v.svc.Take(ctx, tx, boards.Player{Service: ref.Service, User: bd.Creator, By: boards.ByClock}, ref.ID)
			if err != nil || h.Board.Status != board.Waiting {
				return err
			}
			return h.Cancel(ctx)
		})
		if err != nil {
			failed = errors.Join(failed, fmt.Errorf("telegram: expire the challenge of board %d: %w", ref.ID, err))
		}
	}
	return failed
}
