package boards

import (
	"context"

	"github.com/questbot/questbot/sessions/board"
)

// commit saves what an operation did to a board locked in tx and hands it on (changed).
func (b *Boards) commit(ctx context.Context, tx Tx, st Store, bd *board.Board, ev []board.Event, actor int, by Source) error {
	_, err := b.commitChange(ctx, tx, st, bd, ev, actor, by)
	return err
}

// commitChange is commit, returning the change it handed on (nil when there was none).
func (b *Boards) commitChange(ctx context.Context, tx Tx, st Store, bd *board.Board, ev []board.Event, actor int, by Source) (*Change, error) {
	if len(ev) == 0 {
		return nil, nil
	}
	if err := st.Save(ctx, bd); err != nil {
		return nil, err
	}
	ch := &Change{Events: ev, Actor: actor, By: by}
	return ch, b.change(ctx, tx, bd, ch)
}

// changed is the one path of every change of bd after it is stored: the board's scene is read,
// once, the bot is woken when it is its turn, the change is counted, each human seat's hearing
// of it is decided (notice), its events are written into the board's record (events.go) with
// the seats' pending notifications as decided, in one round trip, and the views show it.
func (b *Boards) changed(ctx context.Context, tx Tx, bd *board.Board, c Change) error {
	return b.change(ctx, tx, bd, &c)
}

// change is changed on a change the caller keeps: its scene and recorded events are filled in.
func (b *Boards) change(ctx context.Context, tx Tx, bd *board.Board, ch *Change) error {
	sc, err := b.Scene(ctx, tx.DB(), bd)
	if err != nil {
		return err
	}
	ch.Scene = sc
	if err := b.botTurn(ctx, tx, bd); err != nil {
		return err
	}
	b.count(bd, ch.Events)
	var notices []board.NoticeWrite
	for seat := range bd.Seats {
		p := sc.Players[seat]
		if p == nil || p.Blocked {
			continue
		}
		if n := newsFor(bd, seat, ch); n != nil {
			var w board.NoticeWrite
			ch.Heard[seat], w = b.notice(sc, seat, *n)
			notices = append(notices, w)
		}
	}
	if err := b.record(ctx, tx, ch, notices); err != nil {
		return err
	}
	if err := b.recordRematch(ctx, tx, bd, ch); err != nil {
		return err
	}
	for _, h := range ch.Heard {
		if h == HearNow {
			b.metrics.Notifications.WithLabelValues("at_once").Inc()
		}
	}
	for _, v := range b.views {
		if err := v.Changed(ctx, tx, ch); err != nil {
			return err
		}
	}
	if b.tourney != nil {
		// A tournament's game that finished records its result, and the tournament goes on.
		return b.tourney.boardChanged(ctx, tx, bd, ch)
	}
	return nil
}

// count counts the games started and finished and the moves played.
func (b *Boards) count(bd *board.Board, events []board.Event) {
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
}

// newsFor is the news a change is for a seat, nil when none: what reaches it from elsewhere.
// The opponent moved, offered a draw or joined, or the game ended by the opponent's or the
// clock's doing; a move outranks the rest, the end an offer or a start. The seat's own doing and
// the bot's answers to it are no news.
func newsFor(bd *board.Board, seat int, ch *Change) *News {
	elsewhere := ch.By == ByClock || ((ch.By == ByTelegram || ch.By == ByWeb) && seat != ch.Actor)
	rank := map[string]int{NewsStart: 0, NewsOffer: 1, NewsEnd: 2, NewsMove: 3}
	var n *News
	tell := func(kind string) {
		if n == nil || rank[kind] > rank[n.Kind] {
			n = &News{Kind: kind, Ply: bd.Ply(), Actor: ch.Actor}
		}
	}
	for _, ev := range ch.Events {
		switch ev.Kind {
		case board.EventStarted:
			if seat != ch.Actor && ch.Actor != NoSeat {
				tell(NewsStart)
			}
		case board.EventMoved:
			if elsewhere {
				tell(NewsMove)
			}
		case board.EventFinished:
			if elsewhere {
				tell(NewsEnd)
			}
		case board.EventDrawOffered:
			if ev.Seat != seat && elsewhere {
				tell(NewsOffer)
			}
		}
	}
	return n
}
