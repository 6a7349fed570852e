package boards

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/board/boardpg"
)

// # The record of events
//
// What happened on a board is said once: the one path of changes (changed, play.go) writes
// every event of a Change into the board's record (the table board_event, kept by boardpg), in
// the transaction of the change, numbered, with who made it, from where, the ply after it, how
// each seat hears of it and the data a view needs to render it without reading the game again
// (EventData). A seat's mark of what it has seen moving on (the opponent's undo button going
// with it), a switch of spectators and, on a finished board, its rematch offered or answered are
// recorded too, so that a view that follows the record misses nothing its board shows: the
// record is all the web's streams send. The
// transaction announces the record's new events on boardpg.EventChannel at its commit; the Feed
// (feed.go) follows the announcements of every process and hands the events to the views of
// this one. The events of a board are kept as long as the board: they are its game record.

// The kinds of events of the record: the events of package board, by stable names, and the
// changes of what a board shows that are no event of the game.
const (
	EventKindOpened       = "opened"
	EventKindStarted      = "started"
	EventKindMoved        = "moved"
	EventKindUndone       = "undone"
	EventKindDrawOffered  = "draw_offered"
	EventKindDrawDeclined = "draw_declined"
	EventKindFinished     = "finished"
	EventKindAborted      = "aborted"
	// EventKindSeen: a seat (Actor) has seen the board up to a ply (EventData.Seen), so that
	// the moves of the other seat (Seat) up to it are no longer news to it and can no longer be
	// taken back (a player's undo button went with it). Recorded whenever a seat's mark of what
	// it has seen moves on but by its own move (the move's event says it): the record says
	// what each seat has not seen (NewsOf).
	EventKindSeen = "seen"
	// EventKindSpectators: a player (Actor) switched whether anyone may watch the board.
	EventKindSpectators = "spectators"
	// EventKindRematch: on a finished board, its rematch (Data.Rematch) was offered or answered
	// (accepted, declined, withdrawn or dropped unanswered), by its player Actor (NoSeat: the
	// clock); the rematch's state is the new board's, which the finished board's state shows.
	EventKindRematch = "rematch"
)

// eventKinds names the events of package board.
var eventKinds = map[board.EventKind]string{
	board.EventOpened: EventKindOpened, board.EventStarted: EventKindStarted, board.EventMoved: EventKindMoved,
	board.EventUndone: EventKindUndone, board.EventDrawOffered: EventKindDrawOffered,
	board.EventDrawDeclined: EventKindDrawDeclined, board.EventFinished: EventKindFinished,
	board.EventAborted: EventKindAborted,
}

var sourceNames = [...]string{ByTelegram: "telegram", ByWeb: "web", ByBot: "bot", ByClock: "clock"}

// String is the source's stable name, as the record keeps it.
func (s Source) String() string {
	if int(s) >= 0 && int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

var hearingNames = [...]string{Unheard: "unheard", HearNow: "now", HearLater: "later"}

// String is the hearing's stable name, as the record keeps it.
func (h Hearing) String() string {
	if int(h) >= 0 && int(h) < len(hearingNames) {
		return hearingNames[h]
	}
	return fmt.Sprintf("Hearing(%d)", int(h))
}

// Event is one numbered event of a board's record.
type Event struct {
	// ID is the event's number: increasing, and in commit order among a board's events.
	ID    int64  `json:"id"`
	Board int64  `json:"board"`
	Kind  string `json:"kind"`
	// Seat is the seat the event is of (the mover, the one who offers...), Actor the seat that
	// made the change; NoSeat for none (the clock).
	Seat  int `json:"seat"`
	Actor int `json:"actor"`
	// By is where the change came from: telegram, web, bot or clock.
	By string `json:"by"`
	// Ply is the board's ply after the event.
	Ply int `json:"ply"`
	// Heard is how each seat hears of the change (Hearing's names).
	Heard [2]string `json:"heard"`
	Data  EventData `json:"data"`
	At    time.Time `json:"at"`
}

// EventData is what a view needs to render an event without reading the game again: the board
// as the change left it, and what the event itself carries. A move's or an undo's event carries
// the position as the web's state of the board gives it (the picture's version, the legal moves
// of the player to move with their paths, who may take a move back), so that a page draws the
// opponent's move from it alone.
//
// Its size, an event as the stream sends it (measured in the web's tests): some 350 bytes for a
// move with no legal moves in it (the bot to move), and about 50 bytes more per legal move of
// the player to move: 1.3 KB for a chess move in the opening (20 answers), some 2 KB in a
// middle game of 35.
type EventData struct {
	// Move is a move's notation as the engine writes it (what the API reads back), Written
	// as people read it, numbered ("3. Nf3", "3… Nc6").
	Move    string `json:"move,omitempty"`
	Written string `json:"written,omitempty"`
	// Undone is the number of plies an undo took back.
	Undone int `json:"undone,omitempty"`
	// Outcome is how a finished game ended.
	Outcome *EventOutcome `json:"outcome,omitempty"`
	// Status is the board's status after the change, and ToMove the seat to move.
	Status string `json:"status"`
	ToMove int    `json:"to_move"`
	// Offer is the seat whose draw offer is pending after the change (nil: none).
	Offer *int `json:"offer"`
	// ClocksMS are the seats' main times left at the start of the turn, in milliseconds, for a
	// clock of the game (GameClock); Deadline is when the seat to move runs out of time.
	ClocksMS *[2]int64  `json:"clocks_ms,omitempty"`
	Deadline *time.Time `json:"deadline,omitempty"`
	// Spectators is whether anyone may watch the board (EventKindSpectators).
	Spectators *bool `json:"spectators,omitempty"`
	// Legal are the legal moves of the seat to move after a move, an undo or the start, when
	// it is a player's (none for the bot's turn, or in a game that ended), as the web's state
	// gives them (LegalMoves).
	Legal []LegalMove `json:"legal,omitempty"`
	// CanUndo is whether each seat may take a move back after the change (CanUndo), in a game
	// in play; nil otherwise.
	CanUndo *[2]bool `json:"can_undo,omitempty"`
	// Seen is the ply up to which the seat that made a seen event (EventKindSeen) has seen the
	// board; 0 in seen events recorded before it was kept, whose Ply says it.
	Seen int `json:"seen,omitempty"`
	// Revision is the board's stored revision after the change (the state's revision), so that
	// a view that renders the event knows which revision it shows; 0 in events recorded before
	// it was kept.
	Revision int64 `json:"revision,omitempty"`
	// Rematch is the new board of a finished board's rematch (EventKindRematch).
	Rematch int64 `json:"rematch,omitempty"`
	// Picture is the version of the board's picture after a move or an undo (PictureVersion),
	// with which a page asks for the new picture without reading the game.
	Picture string `json:"picture,omitempty"`
}

// EventOutcome is the result of a finished game: a draw, or the winning seat; how it ended
// (board.End's names) and the rule's detail.
type EventOutcome struct {
	Draw   bool   `json:"draw"`
	Winner *int   `json:"winner,omitempty"`
	End    string `json:"end"`
	Detail string `json:"detail,omitempty"`
}

// LegalMove is a legal move and the squares a player taps to make it: the origin, then each
// landing square (engine.Game.Describe). Text is the engine's notation, what a client posts;
// Shown is the move as people read it (engine.Game.Display: "e8=Q+" in chess).
type LegalMove struct {
	Text  string   `json:"text"`
	Shown string   `json:"shown"`
	Path  []string `json:"path"`
}

// LegalMoves lists the legal moves of the side to move of g, as a view shows them to the player
// to move (the web's state and the events of the record both).
func LegalMoves(g *engine.Game) []LegalMove {
	out := []LegalMove{}
	for _, mv := range g.LegalMoves() {
		path, _ := g.Describe(mv)
		out = append(out, LegalMove{Text: mv.String(), Shown: g.Display(mv), Path: path})
	}
	return out
}

// boardData is the part of EventData the board after the change gives.
func boardData(bd *board.Board) EventData {
	d := EventData{Status: bd.Status.String(), ToMove: bd.ToMove}
	if bd.Status == board.Active {
		d.CanUndo = &[2]bool{CanUndo(bd, 0), CanUndo(bd, 1)}
	}
	if bd.Offer != nil {
		s := bd.Offer.Seat
		d.Offer = &s
	}
	if bd.Status == board.Active && GameClock(bd) {
		d.ClocksMS = &[2]int64{bd.Seats[0].Clock.Milliseconds(), bd.Seats[1].Clock.Milliseconds()}
	}
	if !bd.Deadline.IsZero() && bd.Status == board.Active {
		dl := bd.Deadline
		d.Deadline = &dl
	}
	return d
}

// record writes the events of a change into the board's record, in tx, and keeps them in the
// change (Recorded); the seats' pending notifications the change decided (notices) are written
// with them, in the same round trip.
func (b *Boards) record(ctx context.Context, tx Tx, ch *Change, notices []board.NoticeWrite) error {
	bd := ch.Board
	rows := make([]boardpg.EventRow, 0, len(ch.Events))
	heard := [2]string{ch.Heard[0].String(), ch.Heard[1].String()}
	now := b.now()
	for _, ev := range ch.Events {
		kind, ok := eventKinds[ev.Kind]
		if !ok {
			return fmt.Errorf("board %d: an event of kind %v has no name in the record", bd.ID, ev.Kind)
		}
		d := boardData(bd)
		d.Move, d.Undone = ev.Move, ev.Undone
		d.Revision = bd.Revision()
		position := ev.Kind == board.EventMoved || ev.Kind == board.EventUndone || ev.Kind == board.EventStarted
		if position && ch.Scene != nil && ch.Game != nil {
			if ev.Kind != board.EventStarted {
				d.Picture = PictureVersion(ch.Game)
			}
			if bd.Status == board.Active && bd.Seats[bd.ToMove].Human() {
				d.Legal = LegalMoves(ch.Game)
			}
		}
		if ev.Kind == board.EventMoved && ch.Scene != nil && ch.Game != nil {
			// The scene's game is the board after the change: a move later in the same change
			// (none today) would still be numbered by its own ply.
			d.Written = ch.Scene.Numbered(ev.Ply)
		}
		if o := ev.Outcome; o != nil {
			eo := &EventOutcome{Draw: o.Draw, End: o.End.String(), Detail: o.Detail}
			if !o.Draw {
				w := o.Winner
				eo.Winner = &w
			}
			d.Outcome = eo
		}
		rows = append(rows, b.eventRow(bd.ID, kind, ev.Seat, ch.Actor, ch.By, ev.Ply, heard, d, now))
	}
	evs, err := b.appendEvents(ctx, tx, rows, notices)
	ch.Recorded = evs
	return err
}

// recordOne writes one event that is no event of package board (seen, spectators) and returns
// it, numbered.
func (b *Boards) recordOne(ctx context.Context, tx Tx, bd *board.Board, kind string, seat, actor int, by Source, d EventData) ([]Event, error) {
	d.Revision = bd.Revision()
	row := b.eventRow(bd.ID, kind, seat, actor, by, bd.Ply(), [2]string{Unheard.String(), Unheard.String()}, d, b.now())
	return b.appendEvents(ctx, tx, []boardpg.EventRow{row}, nil)
}

// recordRematch records on the finished board whose rematch bd is that the rematch was offered
// (bd opened) or answered (bd started, or aborted), so that the finished board's views read its
// state again: the finished board is locked and saved (its state, which shows the rematch, is at
// a new revision, which the event names) and the event appended. A board that is no rematch
// records nothing.
func (b *Boards) recordRematch(ctx context.Context, tx Tx, bd *board.Board, ch *Change) error {
	answers := false
	for _, ev := range ch.Events {
		switch ev.Kind {
		case board.EventOpened, board.EventStarted, board.EventAborted:
			answers = true
		}
	}
	if !answers {
		return nil
	}
	old, ok, err := b.archives(tx.DB()).RematchFrom(ctx, bd.ID)
	if err != nil || !ok {
		return err
	}
	st := b.store(tx.DB())
	ob, err := st.Lock(ctx, old)
	if err != nil {
		return err
	}
	if err := st.Save(ctx, ob); err != nil {
		return err
	}
	// The player who acted, by their seat in the finished board (the colours are swapped).
	actor := NoSeat
	if ch.Actor >= 0 && ch.Actor < len(bd.Seats) {
		if s, err := ob.SeatOf(bd.Seats[ch.Actor].User); err == nil {
			actor = s
		}
	}
	d := boardData(ob)
	d.Rematch = bd.ID
	_, err = b.recordOne(ctx, tx, ob, EventKindRematch, actor, actor, ch.By, d)
	return err
}

// eventRow is an event as the record stores it.
func (b *Boards) eventRow(id int64, kind string, seat, actor int, by Source, ply int, heard [2]string, d EventData, at time.Time) boardpg.EventRow {
	data, _ := json.Marshal(d) // plain data: it always marshals
	if seat < 0 || seat > 1 {
		seat = NoSeat
	}
	if actor < 0 || actor > 1 {
		actor = NoSeat
	}
	return boardpg.EventRow{Board: id, Kind: kind, Seat: seat, Actor: actor, Source: by.String(), Ply: ply,
		Heard: heard, Data: data, At: at}
}

// appendEvents appends rows to the record in tx, with the notification policy's writes, and
// returns them as events, numbered.
func (b *Boards) appendEvents(ctx context.Context, tx Tx, rows []boardpg.EventRow, notices []board.NoticeWrite) ([]Event, error) {
	if len(rows) == 0 && len(notices) == 0 {
		return nil, nil
	}
	if err := b.store(tx.DB()).AppendEvents(ctx, rows, notices); err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(rows))
	for _, r := range rows {
		e, err := eventOf(r)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// eventOf reads an event of the record as stored.
func eventOf(r boardpg.EventRow) (Event, error) {
	e := Event{ID: r.ID, Board: r.Board, Kind: r.Kind, Seat: r.Seat, Actor: r.Actor, By: r.Source, Ply: r.Ply,
		Heard: r.Heard, At: r.At}
	if len(r.Data) > 0 {
		if err := json.Unmarshal(r.Data, &e.Data); err != nil {
			return Event{}, fmt.Errorf("board %d: event %d: %w", r.Board, r.ID, err)
		}
	}
	return e, nil
}

// EventsAfter returns, in order, at most limit events of a board numbered above after, read in
// db (a transaction, a pool): what a view that rendered the board's events up to after missed.
func EventsAfter(ctx context.Context, db boardpg.DB, board, after int64, limit int) ([]Event, error) {
	rows, err := boardpg.EventsAfter(ctx, db, map[int64]int64{board: after}, limit)
	if err != nil {
		return nil, err
	}
	return eventsOf(rows)
}

// eventsOf reads events of the record as stored.
func eventsOf(rows []boardpg.EventRow) ([]Event, error) {
	out := make([]Event, 0, len(rows))
	for _, r := range rows {
		e, err := eventOf(r)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// LastEvent returns the number of a board's last event (0: none), read in db.
func LastEvent(ctx context.Context, db boardpg.DB, board int64) (int64, error) {
	return boardpg.LastEvent(ctx, db, board)
}

// SeatNews is what the record says of a seat of a board beyond the board's own state: the
// opponent's moves it has not seen, and whether its draw offer of this move was declined.
type SeatNews struct {
	// Unseen are the plies of the opponent's moves the seat has not seen, in order.
	Unseen []int
	// Declined is whether the seat's draw offer of this move was declined (by the opponent, or
	// by the bot at once) in a game that goes on.
	Declined bool
}

// newsKinds are the kinds of events NewsOf reads the last of.
var newsKinds = []string{EventKindOpened, EventKindStarted, EventKindMoved, EventKindUndone, EventKindSeen, EventKindDrawOffered,
	EventKindDrawDeclined}

// NewsOf reads, in one query of db, the last events of the record that say what a seat of bd
// has not seen and whether its draw offer was declined, and tells them (SeatNews). A seat has
// seen the board up to the ply of its last own move or of its last seen event, whichever came
// last; an undo after both takes the mark back to the ply it left (as board.Board.Undo does).
// Its offer of this move was declined when it is newer than the last move and undo and a
// decline by the opponent came after it. ok is false for a board whose record has neither its
// opening nor its start (one begun before the record was kept), which only the board itself can
// tell of.
func NewsOf(ctx context.Context, db boardpg.DB, bd *board.Board, seat int) (news SeatNews, ok bool, err error) {
	rows, err := boardpg.LastEvents(ctx, db, bd.ID, newsKinds)
	if err != nil {
		return SeatNews{}, false, err
	}
	evs, err := eventsOf(rows)
	if err != nil {
		return SeatNews{}, false, err
	}
	var opened bool
	// The last event of a kind by seat: last[kind][seat+1], seat -1 for none.
	last := map[string]*[3]*Event{}
	for i := range evs {
		e := &evs[i]
		if e.Kind == EventKindOpened || e.Kind == EventKindStarted {
			opened = true
		}
		if last[e.Kind] == nil {
			last[e.Kind] = &[3]*Event{}
		}
		if e.Seat >= NoSeat && e.Seat <= 1 {
			last[e.Kind][e.Seat+1] = e
		}
	}
	if !opened {
		return SeatNews{}, false, nil
	}
	of := func(kind string, s int) *Event {
		if l := last[kind]; l != nil {
			return l[s+1]
		}
		return nil
	}
	newest := func(evs ...*Event) *Event {
		var n *Event
		for _, e := range evs {
			if e != nil && (n == nil || e.ID > n.ID) {
				n = e
			}
		}
		return n
	}
	undone := newest(of(EventKindUndone, 0), of(EventKindUndone, 1))
	moved := of(EventKindMoved, seat)
	seen := of(EventKindSeen, 1-seat)
	if seen != nil && seen.Actor != seat {
		seen = nil
	}
	// mark is the ply the seat has seen the board up to.
	mark, after := 0, false
	for _, e := range []*Event{moved, seen} {
		if e == nil {
			continue
		}
		ply := e.Ply
		if e.Kind == EventKindSeen && e.Data.Seen > 0 {
			ply = e.Data.Seen
		}
		if undone != nil && e.ID > undone.ID {
			if !after {
				mark, after = 0, true
			}
			mark = max(mark, ply)
		} else if !after {
			mark = max(mark, ply)
		}
	}
	if undone != nil && !after {
		mark = min(mark, undone.Ply)
	}
	news.Unseen = []int{}
	for _, m := range bd.Moves {
		if m.Seat != seat && m.Ply > mark {
			news.Unseen = append(news.Unseen, m.Ply)
		}
	}
	if bd.Status == board.Active && bd.Offer == nil {
		offered := of(EventKindDrawOffered, seat)
		declined := of(EventKindDrawDeclined, 1-seat)
		change := newest(undone, of(EventKindMoved, 0), of(EventKindMoved, 1))
		news.Declined = offered != nil && declined != nil && declined.ID > offered.ID &&
			(change == nil || offered.ID > change.ID)
	}
	return news, true, nil
}
