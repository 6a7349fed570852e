package boards

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/board/boardpg"
)

// # The record of events
//
// What happened on a board is said once: the one path of changes (changed, play.go) writes
// every event of a Change into the board's record (the table board_event, kept by boardpg), in
// the transaction of the change, numbered, with who made it, from where, the ply after it, how
// each seat hears of it and the data a view needs to render it without reading the game again
// (EventData). The refresh of a seat's board (its undo button went) and a switch of spectators
// are recorded too, so that a view that follows the record misses nothing its board shows. The
// transaction announces the record's new events on boardpg.EventChannel at its commit; the Feed
// (feed.go) follows the announcements of every process and hands the events to the views of
// this one. The events of a board are kept as long as the board: they are its game record.

// The kinds of events of the record: the events of package board, by stable names, and the two
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
	// EventKindSeen: a seat's board lost its undo button (Seat), the opponent (Actor) having
	// seen the move.
	EventKindSeen = "seen"
	// EventKindSpectators: a player (Actor) switched whether anyone may watch the board.
	EventKindSpectators = "spectators"
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
// as the change left it, and what the event itself carries.
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
	// Revision is the board's stored revision after the change (what the board_changed
	// notification of its save names), so that a view that renders the event knows which
	// revision it shows; 0 in events recorded before it was kept.
	Revision int64 `json:"revision,omitempty"`
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

// boardData is the part of EventData the board after the change gives.
func boardData(bd *board.Board) EventData {
	d := EventData{Status: bd.Status.String(), ToMove: bd.ToMove}
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
// change (Recorded).
func (b *Boards) record(ctx context.Context, tx Tx, ch *Change) error {
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
		if (ev.Kind == board.EventMoved || ev.Kind == board.EventUndone) && ch.Scene != nil && ch.Game != nil {
			d.Picture = PictureVersion(ch.Game)
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
	evs, err := b.appendEvents(ctx, tx, rows)
	ch.Recorded = evs
	return err
}

// recordOne writes one event that is no event of package board (seen, spectators).
func (b *Boards) recordOne(ctx context.Context, tx Tx, bd *board.Board, kind string, seat, actor int, by Source, d EventData) error {
	d.Revision = bd.Revision()
	row := b.eventRow(bd.ID, kind, seat, actor, by, bd.Ply(), [2]string{Unheard.String(), Unheard.String()}, d, b.now())
	_, err := b.appendEvents(ctx, tx, []boardpg.EventRow{row})
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

// appendEvents appends rows to the record in tx and returns them as events, numbered.
func (b *Boards) appendEvents(ctx context.Context, tx Tx, rows []boardpg.EventRow) ([]Event, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	if err := b.store(tx.DB()).AppendEvents(ctx, rows); err != nil {
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
