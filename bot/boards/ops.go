package boards

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/board"
)

// # Operations
//
// The operations below are the only writes of the boards, whoever asks (a press or a command in
// Telegram, a request of the web game server, the AI, a job). Each runs in the caller's
// transaction, locks the board, applies the rules of sessions/board, and commits what happened
// through one path (commit): the board saved, the notification policy applied, the change handed
// to the views. So a move made on the web page reaches the opponent's chat exactly as a move made
// with the buttons.

// ErrPrivate: the board is joined by invite only.
var ErrPrivate = sessions.Refusal(sessions.KindConflict, "invite only")

// Games are the engine variants the bot offers, in menu order.
var Games = []string{"russian", "turkish", "international", "brazilian", "chess", "chase", "foxgeese13", "foxgeese15", "foxgeese17",
	"othello", "breakthrough", "canadian", "pool", "czech", "spanish", "italian", "thai", "armenian", "atarigo", "gardner", "chess960", "frisian"}

// Offered reports whether the bot offers a game.
func Offered(variant string) bool { return slices.Contains(Games, variant) }

// allLevels are the bot's levels, weakest first.
var allLevels = []board.BotLevel{board.BotEasy, board.BotNormal, board.BotStrong}

// Levels returns the bot's levels a game offers, weakest first: every level in each game
// offered today; none for a game not offered. The views list these, and Open takes no other.
func Levels(variant string) []board.BotLevel {
	if !Offered(variant) {
		return nil
	}
	return slices.Clone(allLevels)
}

// Opening is the game a player asks Open for.
type Opening struct {
	Variant string
	// Level is the bot's level for a game against the bot (the player's side drawn, no clock);
	// board.NoBot for a game between players.
	Level board.BotLevel
	// Control names the time control of a game between players.
	Control string
	// Invite, when set, opens a game between players that only an invitation joins, and makes
	// the invitation's link from its code (the medium that asks knows its links).
	Invite func(code string) string
}

// Open opens a game for a player. Against the bot, it starts at once. Between players, the
// player joins the oldest game of the same game and clock that waits for an opponent, or opens
// one and waits; a public game they already wait in for the same is given again, unchanged, with
// again set. With an invitation, a new game waits for the invited. Returns board.ErrInvalid
// for a game, level or clock not offered, and board.ErrTooManyBotGames for a game against the
// bot when the player has Config.BotGames of them going.
func (b *Boards) Open(ctx context.Context, tx Tx, p Player, o Opening) (bd *board.Board, again bool, err error) {
	if !Offered(o.Variant) || o.Level != board.NoBot && !slices.Contains(Levels(o.Variant), o.Level) {
		return nil, false, fmt.Errorf("%w: game %q, level %q", board.ErrInvalid, o.Variant, o.Level)
	}
	st := b.store(tx.DB())
	spec := board.Spec{Service: p.Service, Creator: p.User, Variant: o.Variant, Seed: b.seed(),
		Control: board.TimeControl{Name: "none"}, Side: board.SideRandom, Bot: o.Level}
	if o.Level == board.NoBot {
		if spec.Control, err = b.control(ctx, st, o.Control); err != nil {
			return nil, false, err
		}
	} else if err := b.mayPlayBot(ctx, st, p); err != nil {
		return nil, false, err
	}
	if o.Level == board.NoBot && o.Invite == nil {
		if bd, err := b.waitingFor(ctx, st, spec); bd != nil || err != nil {
			return bd, bd != nil, err
		}
		bd, err := st.ClaimWaiting(ctx, spec)
		if err == nil {
			return bd, false, b.join(ctx, tx, st, bd, p)
		}
		if !errors.Is(err, board.ErrNotFound) {
			return nil, false, err
		}
	}
	spec.Private = o.Invite != nil
	now := b.now()
	bd, ev, err := board.Open(spec, now)
	if err != nil {
		return nil, false, err
	}
	if err := st.Create(ctx, bd); err != nil {
		return nil, false, err
	}
	link := ""
	if o.Invite != nil {
		code, err := st.CreateInvite(ctx, bd.ID, now, b.invite)
		if err != nil {
			return nil, false, err
		}
		link = o.Invite(code)
	}
	seat, _ := bd.SeatOf(p.User)
	if err := b.onWeb(ctx, tx, p, bd.ID, seat); err != nil {
		return nil, false, err
	}
	return bd, false, b.changed(ctx, tx, bd, Change{Events: ev, Actor: seat, By: p.By, Invite: link})
}

// mayPlayBot refuses a new game against the bot to a player who has Config.BotGames of them
// going (board.ErrTooManyBotGames).
func (b *Boards) mayPlayBot(ctx context.Context, st Store, p Player) error {
	mine, err := st.UserBoards(ctx, p.Service, p.User, 0)
	if err != nil {
		return err
	}
	n := 0
	for _, bi := range mine {
		if bi.Status == board.Active && bi.Opponent.Bot != board.NoBot {
			n++
		}
	}
	if n >= b.botGames {
		return fmt.Errorf("%w: %d going, at most %d", board.ErrTooManyBotGames, n, b.botGames)
	}
	return nil
}

// waitingFor returns the public board a player already waits in for the same game and clock,
// nil when there is none.
func (b *Boards) waitingFor(ctx context.Context, st Store, spec board.Spec) (*board.Board, error) {
	mine, err := st.UserBoards(ctx, spec.Service, spec.Creator, 0)
	if err != nil {
		return nil, err
	}
	for _, bi := range mine {
		if bi.Status == board.Waiting && bi.Variant == spec.Variant && bi.Control == spec.Control.Name {
			bd, err := st.Get(ctx, bi.ID)
			if err != nil || !bd.Private {
				return bd, err
			}
		}
	}
	return nil, nil
}

// control finds a time control of the catalogue by name (board.ErrInvalid when none).
func (b *Boards) control(ctx context.Context, st Store, name string) (board.TimeControl, error) {
	tcs, err := st.TimeControls(ctx)
	if err != nil {
		return board.TimeControl{}, err
	}
	for _, tc := range tcs {
		if tc.Name == name {
			return tc, nil
		}
	}
	return board.TimeControl{}, fmt.Errorf("%w: time control %q", board.ErrInvalid, name)
}

// InviteLifetime is how long an invitation works (Config.InviteTTL).
func (b *Boards) InviteLifetime() time.Duration { return b.invite }

// Redeem seats a player in the game of an invitation (its code) and starts it. Returns
// board.ErrInviteUsed, board.ErrInviteExpired, board.ErrNotFound, or
// board.ErrAlreadySeated for the invitation's own creator.
func (b *Boards) Redeem(ctx context.Context, tx Tx, p Player, code string) error {
	st := b.store(tx.DB())
	bd, err := st.RedeemInvite(ctx, code, p.User, b.now())
	if err != nil {
		return err
	}
	return b.join(ctx, tx, st, bd, p)
}

// RedeemDigest is Redeem by the digest of the invitation's code (InviteDigest), as a
// message whose button redeems the invitation keeps it.
func (b *Boards) RedeemDigest(ctx context.Context, tx Tx, p Player, digest string) error {
	st := b.store(tx.DB())
	bd, err := st.RedeemInviteDigest(ctx, digest, p.User, b.now())
	if err != nil {
		return err
	}
	return b.join(ctx, tx, st, bd, p)
}

// Join seats a player in a public game of their bot that waits for an opponent, and starts it.
// Returns ErrPrivate for a game joined by invite only, board.ErrFull when it has started,
// board.ErrAlreadySeated for its creator.
func (b *Boards) Join(ctx context.Context, tx Tx, p Player, id int64) error {
	st := b.store(tx.DB())
	bd, err := lockOf(ctx, st, p, id)
	if err != nil {
		return err
	}
	if bd.Private && bd.Status == board.Waiting {
		if _, err := bd.SeatOf(p.User); err == nil {
			return fmt.Errorf("board %d: %w", id, board.ErrAlreadySeated)
		}
		return fmt.Errorf("board %d: %w", id, ErrPrivate)
	}
	return b.join(ctx, tx, st, bd, p)
}

// join seats a player in a waiting board locked in tx and starts the game.
func (b *Boards) join(ctx context.Context, tx Tx, st Store, bd *board.Board, p Player) error {
	ev, err := bd.Join(p.User, b.now())
	if err != nil {
		return err
	}
	seat, _ := bd.SeatOf(p.User)
	if err := b.onWeb(ctx, tx, p, bd.ID, seat); err != nil {
		return err
	}
	return b.commit(ctx, tx, st, bd, ev, seat, p.By)
}

// lockOf locks a board of the player's bot; board.ErrNotFound for a board of another bot.
func lockOf(ctx context.Context, st Store, p Player, id int64) (*board.Board, error) {
	bd, err := st.Lock(ctx, id)
	if err != nil {
		return nil, err
	}
	if bd.Service != p.Service {
		return nil, fmt.Errorf("board %d of bot %d: %w", id, bd.Service, board.ErrNotFound)
	}
	return bd, nil
}

// Held is a board locked in a transaction for one of its players (Take): the operations of a
// seat.
type Held struct {
	b     *Boards
	tx    Tx
	st    Store
	p     Player
	Board *board.Board
	Seat  int
	// Recorded are the events the operations on the held board recorded (events.go), in order:
	// what a view answers the player with, without reading the game again.
	Recorded []Event
	// scene is the scene of the last change of the held board (nil: none yet).
	scene *Scene
}

// commit commits what an operation on the held board did, keeping its recorded events and its
// scene.
func (h *Held) commit(ctx context.Context, ev []board.Event) error {
	ch, err := h.b.commitChange(ctx, h.tx, h.st, h.Board, ev, h.Seat, h.p.By)
	if ch != nil {
		h.Recorded = append(h.Recorded, ch.Recorded...)
		h.scene = ch.Scene
	}
	return err
}

// Scene returns the scene of the held board as its last change left it, read for the change
// (its players, its game and its record): what a view answers the player with, without reading
// the players or replaying the game again. nil when no operation changed the board.
func (h *Held) Scene() *Scene { return h.scene }

// Take locks a board of the player's bot for one of its players. Returns board.ErrNotFound
// for a board of another bot or none, board.ErrNotSeated for anyone but its players.
func (b *Boards) Take(ctx context.Context, tx Tx, p Player, id int64) (*Held, error) {
	st := b.store(tx.DB())
	bd, err := lockOf(ctx, st, p, id)
	if err != nil {
		return nil, err
	}
	if p.User == board.BotUser {
		return nil, board.ErrNotSeated
	}
	seat, err := bd.SeatOf(p.User)
	if err != nil {
		return nil, err
	}
	return &Held{b: b, tx: tx, st: st, p: p, Board: bd, Seat: seat}, nil
}

// Op is an operation of a player on their game (Action).
type Op int

// The operations.
const (
	OpMove Op = iota + 1
	OpUndo
	OpResign
	OpOfferDraw
	OpAcceptDraw
	OpDeclineDraw
)

// Action is what a player does on their game (Held.Act).
type Action struct {
	Op Op
	// Move is the move of OpMove, as written or a legal move's notation, and Ply the ply the
	// player saw (board.ErrStale when the board has moved on).
	Move string
	Ply  int
}

// Act carries out a player's action. A refused one changes nothing on the board; one carried
// out tells that the player has seen the board (a move: at the ply they moved at), and is
// committed with it, the board saved once.
func (h *Held) Act(ctx context.Context, a Action) error {
	b, bd, user, now := h.b, h.Board, h.p.User, h.b.now()
	if err := b.onWeb(ctx, h.tx, h.p, bd.ID, h.Seat); err != nil {
		return err
	}
	var ev []board.Event
	var err error
	var seen, refresh bool
	switch a.Op {
	case OpMove:
		if bd.Status == board.Active && bd.ToMove == h.Seat && a.Ply == bd.Ply() {
			if seen, refresh, err = b.markSeen(ctx, h.tx, h.st, bd, h.Seat, h.p.By); err != nil {
				return err
			}
		}
		ev, err = bd.Move(user, a.Move, a.Ply, now)
	case OpUndo:
		ev, err = bd.Undo(user, now)
	case OpResign:
		ev, err = bd.Resign(user, now)
	case OpOfferDraw:
		ev, err = bd.OfferDraw(user, now)
	case OpAcceptDraw:
		ev, err = bd.AcceptDraw(user, now)
	case OpDeclineDraw:
		ev, err = bd.DeclineDraw(user, now)
	default:
		return fmt.Errorf("%w: operation %d", board.ErrInvalid, a.Op)
	}
	if err != nil {
		return err
	}
	if a.Op != OpMove {
		if seen, refresh, err = b.markSeen(ctx, h.tx, h.st, bd, h.Seat, h.p.By); err != nil {
			return err
		}
	}
	// The seat's own move says it has seen the board; anything else seen is recorded apart.
	seen = seen && a.Op != OpMove
	if len(ev) > 0 {
		// The change shows every seat's board anew, the opponent's button gone with it.
		if err := h.commit(ctx, ev); err != nil || !seen {
			return err
		}
		return h.recordSeen(ctx)
	}
	if !seen {
		return nil
	}
	if err := h.st.Save(ctx, bd); err != nil {
		return err
	}
	if err := h.recordSeen(ctx); err != nil || !refresh {
		return err
	}
	return b.refresh(ctx, h.tx, bd, 1-h.Seat)
}

// InPlay is the one rule every view applies before an operation a player made on the board as
// they saw it at ply: an undo, a draw offer or its answer, a resignation (a press of Telegram's
// buttons, the web's POSTs, each of which carries the ply it was made on; a move carries it in
// its Action and package board checks it). The game must be being played (board.ErrNotStarted
// while it waits, board.ErrFinished once it is over); a player to move whose clock has run out
// (the deadlines job has not come yet) loses on time whatever they asked, which ends the game
// (false, nil); and the board must still be at ply, else board.ErrStale: the player decided on a
// position that has changed (the opponent moved, took back, or offered a draw since), so the
// operation is refused, a resignation too. It reports whether the operation goes on.
func (h *Held) InPlay(ctx context.Context, ply int) (bool, error) {
	bd := h.Board
	switch bd.Status {
	case board.Active:
	case board.Waiting:
		return false, board.ErrNotStarted
	default:
		return false, board.ErrFinished
	}
	if expired, err := h.Expire(ctx); expired || err != nil {
		return false, err
	}
	if ply != bd.Ply() {
		return false, board.ErrStale
	}
	return true, nil
}

// Expire ends the game on time when the player to move has run out of it and the deadlines job
// has not come yet, and reports whether it did: whatever the player does then loses on time, as
// the operations of package board do.
func (h *Held) Expire(ctx context.Context) (bool, error) {
	ev, err := h.Board.Expire(h.b.now())
	if err != nil || len(ev) == 0 {
		return false, err
	}
	return true, h.commit(ctx, ev)
}

// Seen records that the player has seen the board at its ply, as an action does (markSeen),
// and saves it: the opponent's board is shown again when it lost its button.
func (h *Held) Seen(ctx context.Context) error {
	b, bd := h.b, h.Board
	changed, refresh, err := b.markSeen(ctx, h.tx, h.st, bd, h.Seat, h.p.By)
	if err != nil || !changed {
		return err
	}
	if err := h.st.Save(ctx, bd); err != nil {
		return err
	}
	if err := h.recordSeen(ctx); err != nil || !refresh {
		return err
	}
	return b.refresh(ctx, h.tx, bd, 1-h.Seat)
}

// SeenUpTo records that the player has seen the board up to ply (the web page shows the moves,
// then says so): the opponent's moves up to it can no longer be taken back. Unlike an action, it
// is recorded in a finished game too.
func (h *Held) SeenUpTo(ctx context.Context, ply int) error {
	bd, b := h.Board, h.b
	if err := b.onWeb(ctx, h.tx, h.p, bd.ID, h.Seat); err != nil {
		return err
	}
	other := 1 - h.Seat
	could := CanUndo(bd, other)
	changed, err := bd.Seen(h.p.User, ply)
	if err != nil || !changed {
		return err
	}
	if err := h.st.Save(ctx, bd); err != nil {
		return err
	}
	if err := h.recordSeen(ctx); err != nil {
		return err
	}
	if !could || CanUndo(bd, other) || !bd.Seats[other].Human() {
		return nil
	}
	return b.refresh(ctx, h.tx, bd, other)
}

// Cancel withdraws a waiting board for its creator.
func (h *Held) Cancel(ctx context.Context) error {
	ev, err := h.Board.Cancel(h.p.User, h.b.now())
	if err != nil {
		return err
	}
	return h.commit(ctx, ev)
}

// SetSpectators sets whether anyone may watch the game; either player may switch it. The switch
// is recorded (EventKindSpectators).
func (h *Held) SetSpectators(ctx context.Context, allow bool) error {
	if err := h.st.SetSpectators(ctx, h.Board.ID, allow, h.p.User, h.b.now()); err != nil {
		return err
	}
	d := boardData(h.Board)
	d.Spectators = &allow
	evs, err := h.b.recordOne(ctx, h.tx, h.Board, EventKindSpectators, h.Seat, h.Seat, h.p.By, d)
	h.Recorded = append(h.Recorded, evs...)
	return err
}

// markSeen marks that a seat has seen its board at the current ply, when the opponent is a
// player (whose last move can then no longer be taken back, so their board loses its button),
// and reports whether the board changed, not saved yet, and whether the opponent's board lost
// its button. The seat's pending notification of the board, if any, is dropped: it has seen the
// news. A player who acts in Telegram is no longer on the web.
func (b *Boards) markSeen(ctx context.Context, tx Tx, st Store, bd *board.Board, seat int, by Source) (changed, refresh bool, err error) {
	if err := b.cancelNotice(ctx, tx, bd.ID, seat); err != nil {
		return false, false, err
	}
	if by == ByTelegram {
		if err := st.LeaveWeb(ctx, bd.ID, seat); err != nil {
			return false, false, err
		}
	}
	other := 1 - seat
	if !bd.Seats[other].Human() || bd.Status != board.Active {
		return false, false, nil
	}
	could := CanUndo(bd, other)
	changed, err = bd.Seen(bd.Seats[seat].User, bd.Ply())
	return changed, changed && could, err
}

// recordSeen records that the player has seen the board up to their mark (EventKindSeen),
// after the mark moved on, and keeps the event with the operations' (Recorded).
func (h *Held) recordSeen(ctx context.Context) error {
	bd := h.Board
	d := boardData(bd)
	d.Seen = bd.Seats[h.Seat].Seen
	evs, err := h.b.recordOne(ctx, h.tx, bd, EventKindSeen, 1-h.Seat, h.Seat, h.p.By, d)
	h.Recorded = append(h.Recorded, evs...)
	return err
}

// refresh has the views show a seat its board again in place: its undo button went, its
// opponent having seen the move (recorded by recordSeen).
func (b *Boards) refresh(ctx context.Context, tx Tx, bd *board.Board, seat int) error {
	sc, err := b.Scene(ctx, tx.DB(), bd)
	if err != nil {
		return err
	}
	for _, v := range b.views {
		if err := v.Refresh(ctx, tx, sc, seat); err != nil {
			return err
		}
	}
	return nil
}

// onWeb records that a seat's player acts on the game on the web now, when p is there (see
// notify.go).
func (b *Boards) onWeb(ctx context.Context, tx Tx, p Player, id int64, seat int) error {
	if p.By != ByWeb {
		return nil
	}
	return b.store(tx.DB()).MarkWeb(ctx, id, seat, b.now())
}

// CanUndo reports whether a seat may take back a move now, for the views (Board.Undo decides):
// against the bot once it has moved; against a player its own last move while the opponent has
// not seen it.
func CanUndo(bd *board.Board, seat int) bool {
	if bd.Status != board.Active || !bd.Seats[seat].Human() {
		return false
	}
	if bd.Seats[1-seat].Bot != board.NoBot {
		for _, m := range bd.Moves {
			if m.Seat == seat {
				return true
			}
		}
		return false
	}
	n := bd.Ply()
	return n > 0 && bd.Moves[n-1].Seat == seat && bd.Seats[1-seat].Seen < n
}
