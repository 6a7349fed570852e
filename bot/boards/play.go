package boards

import (
	"context"
	"fmt"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/board"
)

// source is who made a change to a board.
type source int

const (
	// byPlayer: a player in Telegram, with a button or a typed move.
	byPlayer source = iota
	// byWeb: a player on the web, on the game's page or through the API.
	byWeb
	// byBot: the AI, playing the bot's seat.
	byBot
	// byClock: a scheduled job (a timeout).
	byClock
)

// noSeat is the actor of a change no player made.
const noSeat = -1

// play plays a move for user on a board locked in tx: text as written (or a legal move's
// notation) at the ply the player saw. It is the one path of every move, a player's (a button,
// a typed move) and the bot's: the board's rules check it (turn, ply, clock, engine) and a refused
// move changes nothing; a move played is saved with the messages that show it.
func (b *Boards) play(ctx context.Context, tx bot.Tx, st Store, bd *board.Board, user int64, text string, ply int, actor int, src source) error {
	ev, err := bd.Move(user, text, ply, b.now())
	if err != nil {
		return err
	}
	return b.commit(ctx, tx, st, bd, ev, actor, src)
}

// commit saves what an operation changed on a board and shows it to the players (announce).
func (b *Boards) commit(ctx context.Context, tx bot.Tx, st Store, bd *board.Board, ev []board.Event, actor int, src source) error {
	if len(ev) == 0 {
		return nil
	}
	if err := st.Save(ctx, bd); err != nil {
		return err
	}
	sc, err := b.newScene(ctx, tx, bd)
	if err != nil {
		return err
	}
	return b.announce(ctx, tx, sc, ev, actor, src)
}

// announce shows the players what events did, and counts them. The seat that acted (actor) and
// the bot's answers change the board in place; the other player is notified of a move, a draw
// offer, the start and the end of the game, a timeout notifies both: with a new message at once,
// or after their delay, the board being changed in place silently meanwhile (see show.go and
// notify.go).
func (b *Boards) announce(ctx context.Context, tx bot.Tx, sc *scene, events []board.Event, actor int, src source) error {
	bd := sc.bd
	if err := b.botTurn(ctx, tx, bd); err != nil {
		return err
	}
	for _, ev := range events {
		switch ev.Kind {
		case board.EventStarted:
			b.metrics.Started.WithLabelValues(bd.Variant).Inc()
		case board.EventMoved:
			by := "human"
			if bd.Seats[ev.Seat].Bot != board.NoBot {
				by = "bot"
			}
			b.metrics.Moves.WithLabelValues(bd.Variant, by).Inc()
		case board.EventFinished:
			b.metrics.Finished.WithLabelValues(bd.Variant, ev.Outcome.End.String()).Inc()
		}
	}
	for seat := range bd.Seats {
		if sc.players[seat] == nil {
			continue
		}
		c := texts.For(sc.players[seat].Lang)
		mode, note, n := b.effect(c, sc, seat, events, actor, src)
		if n != nil && !sc.players[seat].Blocked {
			var err error
			if mode, err = b.notice(ctx, tx, sc, seat, *n); err != nil {
				return err
			}
		}
		if err := b.show(ctx, tx, sc, seat, mode, note, nil, false, 0); err != nil {
			return err
		}
	}
	return nil
}

// effect is how events change a seat's board message, the note that tells what happened, and
// the news they are for the seat when it comes from elsewhere (nil when none): the opponent
// moved, offered a draw or joined, or the game ended by the opponent's or the clock's doing.
// News raises to a new message, which notice may then hold back.
func (b *Boards) effect(c *texts.Catalog, sc *scene, seat int, events []board.Event, actor int, src source) (showMode, string, *news) {
	t := &c.Board
	mode := showCaption
	raise := func(m showMode) { mode = max(mode, m) }
	var n *news
	// tell records news of a kind; a move outranks the rest, the end an offer or a start.
	tell := func(kind string) {
		rank := map[string]int{newsStart: 0, newsOffer: 1, newsEnd: 2, newsMove: 3}
		if n == nil || rank[kind] > rank[n.kind] {
			n = &news{kind: kind, ply: sc.bd.Ply(), actor: actor}
		}
	}
	// notify raises to a new message for a seat the news reaches from elsewhere.
	notify := func(kind string) {
		if src == byClock || ((src == byPlayer || src == byWeb) && seat != actor) {
			raise(showNew)
			tell(kind)
		} else {
			raise(showPicture)
		}
	}
	var notes []string
	for _, ev := range events {
		switch ev.Kind {
		case board.EventStarted:
			raise(showNew)
			if seat != actor && actor != noSeat {
				notes = append(notes, fmt.Sprintf(t.Joined, sc.name(c, actor)))
				tell(newsStart)
			}
		case board.EventMoved:
			notify(newsMove)
		case board.EventFinished:
			notify(newsEnd)
		case board.EventUndone:
			raise(showPicture)
			if ev.Seat == seat {
				notes = append(notes, t.UndoneYou)
			} else {
				notes = append(notes, fmt.Sprintf(t.UndoneThem, sc.name(c, ev.Seat)))
			}
		case board.EventDrawOffered:
			if ev.Seat != seat {
				notify(newsOffer)
			}
		case board.EventDrawDeclined:
			switch {
			case sc.bd.Seats[ev.Seat].Bot != board.NoBot:
				notes = append(notes, t.BotDeclines)
			case ev.Seat == seat:
				notes = append(notes, t.YouDeclined)
			default:
				notes = append(notes, t.Declined)
			}
		}
	}
	return mode, strings.Join(notes, "\n"), n
}

// userError reports whether err is a refusal to tell the player (a rule of the game, a stale or
// foreign button: any kind of sessions.KindOf), not a failure of the bot.
func userError(err error) bool { return sessions.KindOf(err) != sessions.KindNone }

// say sends an HTML text to a chat, as a reply to a message when replyTo is not 0.
func say(ctx context.Context, tx bot.Tx, chat int64, html string, replyTo int) error {
	reqs, err := bot.SendHTML(chat, html, nil)
	if err != nil {
		return err
	}
	if replyTo != 0 {
		reqs[0].Params["reply_to_message_id"] = fmt.Sprint(replyTo)
		reqs[0].Params["allow_sending_without_reply"] = "true"
	}
	return tx.Send(ctx, reqs...)
}
