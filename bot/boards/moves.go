package boards

import (
	"fmt"

	"github.com/questbot/questbot/sessions/board"
)

// # Moves as people read them
//
// Every view writes a move as the engine's Game.Record does (standard algebraic notation in
// chess, "Nf3", "exd5", "O-O", "e8=Q+", the game's own notation elsewhere), numbered by moves,
// not by plies: a move is one ply of each side, "1. e4 e5 2. Nf3", counted from the game's first
// ply, whichever seat made it (Black opens Othello and Atari Go; a set-up position may give the
// move to either side). The engine's notation (board.Move.Text) stays what is stored and what
// the API reads back.

// Record returns the moves of the scene's game as people read them (engine.Game.Record).
func (sc *Scene) Record() []string {
	if sc.record == nil || len(sc.record) != sc.Game.Ply() {
		sc.record = sc.Game.Record()
	}
	return sc.record
}

// MoveNumber returns the number of the move a ply (1 for the first) belongs to.
func (sc *Scene) MoveNumber(ply int) int {
	return (max(ply, 1)-1)/2 + 1
}

// CurrentMove is the number of the move a board's caption heads: the move being played while
// the game goes on, and once it is over the last move played (the game ended on it: a win, a
// draw, a resignation or time between the moves do not start another).
func (sc *Scene) CurrentMove() int {
	if sc.Board.Status == board.Active || sc.Board.Status == board.Waiting {
		return sc.MoveNumber(sc.Board.Ply() + 1)
	}
	return sc.MoveNumber(sc.Board.Ply())
}

// Numbered writes a ply's move as people read it with its number: "3. Nf3" for the ply that
// opens a move, "3… Nc6" for the one that completes it.
func (sc *Scene) Numbered(ply int) string {
	rec := sc.Record()
	if ply < 1 || ply > len(rec) {
		return ""
	}
	sep := ". "
	if (ply-1)%2 == 1 {
		sep = "… "
	}
	return fmt.Sprintf("%d%s%s", sc.MoveNumber(ply), sep, rec[ply-1])
}
