package telegram_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// webDo runs a web operation in a transaction of the bot, as the web game server does.
func (e *env) webDo(fn func(ctx context.Context, tx bot.Tx) error) error {
	return e.proc.Transport.Do(context.Background(), e.service, fn)
}

// webMove plays a move for a player on the web, as the web game server does.
func (e *env) webMove(ctx context.Context, tx bot.Tx, user, id int64, move string, ply int) error {
	h, err := e.app.Boards.Take(ctx, tx, boards.Player{Service: e.service, User: user, By: boards.ByWeb}, id)
	if err != nil {
		return err
	}
	return h.Act(ctx, boards.Action{Op: boards.OpMove, Move: move, Ply: ply})
}

// webSeen records that a player on the web has seen a board up to ply, as the web game server
// does.
func (e *env) webSeen(ctx context.Context, tx bot.Tx, user, id int64, ply int) error {
	h, err := e.app.Boards.Take(ctx, tx, boards.Player{Service: e.service, User: user, By: boards.ByWeb}, id)
	if err != nil {
		return err
	}
	return h.SeenUpTo(ctx, ply)
}

// webState reads a board as a user sees it on the web.
func (e *env) webState(t *testing.T, user, id int64) *web.GameState {
	t.Helper()
	var st *web.GameState
	err := pgx.BeginFunc(context.Background(), e.Pool, func(tx pgx.Tx) error {
		var err error
		st, _, err = web.State(context.Background(), tx, e.app.Boards, e.service, user, id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Ensure a move made through the web operations reaches the opponent's board in Telegram as a
// new message, that a move at a stale ply and an illegal move are refused and change nothing,
// and that a reply made in Telegram shows in the web state as unseen until WebSeen.
func TestWebMoveReachesTelegram(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Russian draughts", "1 day a move", "Русские шашки", "1 день на ход")
	users := e.seats(t, id)
	bd := e.board(t, id)
	mover, other := users[bd.ToMove], users[1-bd.ToMove]
	st := e.webState(t, mover, id)
	if st.Seat != bd.ToMove || len(st.Legal) == 0 || st.Ply != 0 || st.Status != "active" {
		t.Fatalf("the mover's state: seat %d, %d legal moves, ply %d, %s", st.Seat, len(st.Legal), st.Ply, st.Status)
	}
	if len(st.Legal[0].Path) < 2 || len(st.Picture.Squares) == 0 || st.Picture.Width == 0 {
		t.Fatalf("legal move %+v, picture %dx%d with %d squares", st.Legal[0], st.Picture.Width, st.Picture.Height, len(st.Picture.Squares))
	}
	if o := e.webState(t, other, id); len(o.Legal) != 0 || o.Seat != 1-bd.ToMove {
		t.Fatalf("the waiting player's state offers %d moves from seat %d", len(o.Legal), o.Seat)
	}

	// Refused: not the player's turn, a stale ply, an illegal move, a stranger.
	mv := st.Legal[0].Text
	err := e.webDo(func(ctx context.Context, tx bot.Tx) error {
		return e.webMove(ctx, tx, other, id, mv, 0)
	})
	if !errors.Is(err, board.ErrNotYourTurn) {
		t.Errorf("a move out of turn: %v", err)
	}
	err = e.webDo(func(ctx context.Context, tx bot.Tx) error {
		return e.webMove(ctx, tx, mover, id, mv, 3)
	})
	if !errors.Is(err, board.ErrStale) {
		t.Errorf("a move at a stale ply: %v", err)
	}
	err = e.webDo(func(ctx context.Context, tx bot.Tx) error {
		return e.webMove(ctx, tx, mover, id, "a1-h8", 0)
	})
	if !errors.Is(err, board.ErrIllegalMove) || !errors.Is(err, engine.ErrIllegalMove) && !strings.Contains(err.Error(), "a1-h8") {
		t.Errorf("an illegal move: %v", err)
	}
	err = e.webDo(func(ctx context.Context, tx bot.Tx) error {
		return e.webMove(ctx, tx, 99, id, mv, 0)
	})
	if !errors.Is(err, board.ErrNotSeated) {
		t.Errorf("a stranger's move: %v", err)
	}
	if n := e.board(t, id).Ply(); n != 0 {
		t.Fatalf("refused moves left the board at ply %d", n)
	}

	// The move: the opponent's board shows it and their turn (changed in place: a
	// correspondence game notifies them later, see notify.go).
	if err := e.webDo(func(ctx context.Context, tx bot.Tx) error {
		return e.webMove(ctx, tx, mover, id, mv, 0)
	}); err != nil {
		t.Fatal(err)
	}
	m := e.WaitMessage(t, other, 0, "the board after the web move", func(m tgemu.Message) bool {
		return m.Photo != "" && strings.Contains(m.Text, mv)
	})
	if len(m.Keyboard) == 0 {
		t.Errorf("the opponent's board has no keyboard: %q", m.Text)
	}
	if got := e.board(t, id).Moves[0].Text; got != mv {
		t.Fatalf("played %s, want %s", got, mv)
	}
	// The opponent answers in Telegram; the web player sees it as unseen until they say so.
	g := e.replay(t, id)
	reply := g.LegalMoves()[0]
	e.turn(t, other, id, 1)
	e.Send(t, other, typed(g, reply, other == 2))
	e.waitPly(t, id, 2)
	st = e.webState(t, mover, id)
	if len(st.Unseen) != 1 || st.Unseen[0] != 2 || len(st.Moves) != 2 || st.CanUndo {
		t.Fatalf("after the reply: unseen %v, moves %v, can undo %v", st.Unseen, st.Moves, st.CanUndo)
	}
	if o := e.webState(t, other, id); !o.CanUndo {
		t.Errorf("the replier cannot take back an unseen move")
	}
	if err := e.webDo(func(ctx context.Context, tx bot.Tx) error {
		return e.webSeen(ctx, tx, mover, id, 2)
	}); err != nil {
		t.Fatal(err)
	}
	if st = e.webState(t, mover, id); len(st.Unseen) != 0 {
		t.Errorf("unseen after WebSeen: %v", st.Unseen)
	}
	if e.board(t, id).Seats[bd.ToMove].Seen < 2 {
		t.Errorf("the seen ply is not saved")
	}
	if o := e.webState(t, other, id); o.CanUndo {
		t.Errorf("the replier may still take back a move seen")
	}
	e.WaitIdle(t)
}
