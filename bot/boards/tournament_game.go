package boards

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/sessions/board"
	"github.com/questbot/questbot/sessions/tournament"
)

// TournamentGame is what a board of a tournament shows of it (Scene.Tournament): the
// tournament, its system, the round the game was paired in (an arena counts its waves of
// pairings) and the rounds the tournament plays (0 for an arena, which has none).
type TournamentGame struct {
	ID     int64
	System tournament.System
	Round  int
	Rounds int
}

// gameOf reads the tournament a board is a game of; nil for a board of none. Only private
// boards are looked up: a tournament opens its games private (open).
func (t *Tournaments) gameOf(ctx context.Context, db pgx.Tx, bd *board.Board) (*TournamentGame, error) {
	if !bd.Private {
		return nil, nil
	}
	st := t.store(db)
	id, p, ok, err := st.BoardPairing(ctx, bd.ID)
	if err != nil || !ok {
		return nil, err
	}
	tt, err := st.Get(ctx, id)
	if err != nil || tt == nil {
		return nil, err
	}
	tab := &TournamentTable{Tournament: tt}
	if tt.System == tournament.RoundRobinSystem {
		// A round robin's rounds follow from its players.
		if tab.Entrants, err = st.Entrants(ctx, id); err != nil {
			return nil, err
		}
	}
	return &TournamentGame{ID: id, System: tt.System, Round: p.Round, Rounds: tab.Rounds()}, nil
}
