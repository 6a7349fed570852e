package boards

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/questbot/questbot/sessions/tournament"
	"github.com/questbot/questbot/sessions/tournament/tournamentpg"
)

// # The record of a tournament's events
//
// What happened in a tournament is said once, as a board's is (events.go): the one place every
// change of a tournament passes (tell) writes it into the tournament's record (the table
// tournament_event, kept by tournamentpg), in the transaction of the change, numbered, with
// what a page needs to render it (TournamentEventData). The kinds are those of the changes
// (TournamentCreated, TournamentJoined, ...), but for a result: every game of the tournament
// that finishes is recorded (TournamentResult, with its game), before what follows from it (the
// next round paired, the end), while the views hear of a result as a change of its own only
// when nothing follows from it. The transaction announces the new events on
// tournamentpg.EventChannel at its commit; the Feed (feed.go) follows the announcements of
// every process and hands the events to the subscribers of this one (the web's tournament
// streams, bot/boards/web tournament.go). The events are public, as the tournament's page is:
// they name the players by their numbers in the tournament and their public names, never by
// their Telegram ids. A tournament's events stay as long as the tournament.

// TournamentEvent is one numbered event of a tournament's record.
type TournamentEvent struct {
	// ID is the event's number: increasing, and in commit order among a tournament's events.
	ID         int64               `json:"id"`
	Tournament int64               `json:"tournament"`
	Kind       string              `json:"kind"`
	Data       TournamentEventData `json:"data"`
	At         time.Time           `json:"at"`
}

// TournamentEventData is what a page needs to render a tournament's event: the tournament as
// the change left it, and what the change itself carries.
type TournamentEventData struct {
	// State is the tournament's state after the change (created, running, finished), Cancelled
	// set when it was called off; Round is the last round paired, Players the number of players.
	State     string `json:"state"`
	Cancelled bool   `json:"cancelled,omitempty"`
	Round     int    `json:"round"`
	Players   int    `json:"players"`
	// Player is the number in the tournament (from 1, in the order they joined) of the player
	// who joined, or had it before they left; Name their public name (PlayerName).
	Player int    `json:"player,omitempty"`
	Name   string `json:"name,omitempty"`
	// Games are the games paired (TournamentPaired), or the game that finished
	// (TournamentResult).
	Games []TournamentEventGame `json:"games,omitempty"`
}

// TournamentEventGame is a game of a tournament's event: its round, white and black by their
// numbers in the tournament (black 0 and Bye for a bye), its board, and its result once it has
// one (white, draw, black).
type TournamentEventGame struct {
	Round  int    `json:"round"`
	White  int    `json:"white"`
	Black  int    `json:"black,omitempty"`
	Bye    bool   `json:"bye,omitempty"`
	Board  int64  `json:"board,omitempty"`
	Result string `json:"result,omitempty"`
}

// tournamentResults are the results as the record writes them.
var tournamentResults = map[tournament.Result]string{tournament.WhiteWins: "white", tournament.Draw: "draw",
	tournament.BlackWins: "black"}

// recordTournament writes the events of a change into the tournament's record, in the change's
// transaction: the result of the game that finished, if any, then the change itself (unless it
// is the result alone).
func (t *Tournaments) recordTournament(ctx context.Context, tx Tx, st TournamentStore, ch *TournamentChange) error {
	tab := ch.TournamentTable
	tt := tab.Tournament
	number := map[int64]int{}
	for i, e := range tab.Entrants {
		number[e.User] = i + 1
	}
	game := func(p tournament.Pairing) TournamentEventGame {
		return TournamentEventGame{Round: p.Round, White: number[p.White], Black: number[p.Black], Bye: p.Bye(),
			Board: p.Board, Result: tournamentResults[p.Result]}
	}
	base := TournamentEventData{State: string(tt.State), Cancelled: tt.Cancelled, Round: tt.Round, Players: len(tab.Entrants)}
	now := t.b.now()
	var rows []tournamentpg.EventRow
	add := func(kind string, d TournamentEventData) {
		data, _ := json.Marshal(d) // plain data: it always marshals
		rows = append(rows, tournamentpg.EventRow{Tournament: tt.ID, Kind: kind, Data: data, At: now})
	}
	if ch.Finished != nil {
		d := base
		d.Games = []TournamentEventGame{game(*ch.Finished)}
		add(TournamentResult, d)
	}
	if ch.Kind != TournamentResult {
		d := base
		switch ch.Kind {
		case TournamentJoined, TournamentLeft:
			d.Player = number[ch.User]
			if ch.Kind == TournamentLeft {
				d.Player = ch.number
			}
			p, err := t.b.Profile(ctx, tx.DB(), ch.User)
			if err != nil {
				return err
			}
			d.Name = PlayerName(p, int64(d.Player))
		case TournamentPaired:
			for _, p := range ch.Paired {
				d.Games = append(d.Games, game(p))
			}
		}
		add(ch.Kind, d)
	}
	return st.AppendEvents(ctx, rows)
}

// TournamentEventsAfter returns, in order, at most limit events of a tournament numbered above
// after, read in db: what a view that rendered its events up to after missed.
func TournamentEventsAfter(ctx context.Context, db DB, id, after int64, limit int) ([]TournamentEvent, error) {
	return tournamentEventsAfter(ctx, db, map[int64]int64{id: after}, limit)
}

// tournamentEventsAfter reads the events of the tournaments of after numbered above each one's
// number there.
func tournamentEventsAfter(ctx context.Context, db DB, after map[int64]int64, limit int) ([]TournamentEvent, error) {
	rows, err := tournamentpg.EventsAfter(ctx, db, after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]TournamentEvent, 0, len(rows))
	for _, r := range rows {
		e := TournamentEvent{ID: r.ID, Tournament: r.Tournament, Kind: r.Kind, At: r.At}
		if len(r.Data) > 0 {
			if err := json.Unmarshal(r.Data, &e.Data); err != nil {
				return nil, fmt.Errorf("tournament %d: event %d: %w", r.Tournament, r.ID, err)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// TournamentLastEvent returns the number of a tournament's last event, 0 when it has none.
func TournamentLastEvent(ctx context.Context, db DB, id int64) (int64, error) {
	return tournamentpg.LastEvent(ctx, db, id)
}
