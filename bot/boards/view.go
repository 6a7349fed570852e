package boards

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// Source is where a change of a board comes from.
type Source int

const (
	// ByTelegram: a player in Telegram, with a button, a command or a typed move.
	ByTelegram Source = iota
	// ByWeb: a player on the web, on the game's page or through the API.
	ByWeb
	// ByBot: the AI, playing the bot's seat.
	ByBot
	// ByClock: a scheduled job (a timeout, a game nobody joined).
	ByClock
)

// NoSeat is the actor of a change no player made.
const NoSeat = -1

// Player is who asks for an operation: a user of a bot, and where they are.
type Player struct {
	Service int
	User    int64
	By      Source
}

// Scene is a board as its views show it: the board, its replayed game, the profiles of its
// players, when they were last on the web and their notification settings (what the
// notification policy reads). It is read once per change, after the rules have run. A view's
// own records of a board (the Telegram view's messages) are the view's to read.
type Scene struct {
	Board *board.Board
	Game  *engine.Game
	// Players are the profiles of the human seats (nil for the bot, an empty seat, or a user
	// row removed by hand: nobody to show the board to).
	Players [2]*Profile
	// Web is when each seat's player last acted on the game on the web (zero: never, or not
	// since they acted in Telegram).
	Web [2]time.Time
	// Notify is each seat's player's notification setting (the zero one for none).
	Notify [2]board.NotifySetting
	// Tournament is the tournament the board is a game of (nil: none), which the views name
	// above the game.
	Tournament *TournamentGame
	// record caches Record.
	record []string
}

// Hearing is how a seat hears of a change, as the notification policy decides (notify.go).
type Hearing int

const (
	// Unheard: the change is not news for the seat (its own doing, the bot's answer to it, or
	// nobody to tell): its board just shows it.
	Unheard Hearing = iota
	// HearNow: news for the seat, to ring at once (in Telegram, the board sent anew).
	HearNow
	// HearLater: news whose notification waits (a delay, quiet hours, the player on the web) or
	// never comes ("never"): the board shows it without a sound.
	HearLater
)

// Change is what an operation did to a board: the events of package board in order, who did
// it, and how each seat hears of it.
type Change struct {
	*Scene
	Events []board.Event
	// Actor is the seat that acted (NoSeat for the clock).
	Actor int
	By    Source
	Heard [2]Hearing
	// Invite is the link of an invitation the change opened (Opening.Invite), "" otherwise.
	Invite string
	// Recorded are the events as the board's record numbered them (events.go), one per event
	// of Events, set before the views are handed the change.
	Recorded []Event
}

// News is what reached a seat from elsewhere and is to be told to it: its kind (News*), the
// board's ply then, and the seat that made it (NoSeat: the clock).
type News struct {
	Kind  string
	Ply   int
	Actor int
}

// The kinds of news.
const (
	NewsStart = "start" // the opponent joined
	NewsMove  = "move"  // the opponent moved (and maybe ended the game with it)
	NewsOffer = "offer" // the opponent offers a draw
	NewsEnd   = "end"   // the game ended otherwise (resignation, time, agreement)
)

// A View shows the boards to their players in one medium. The service hands every change to its
// views (AddView) in the transaction that makes it, so what a view queues commits with the
// change. The Telegram view (bot/boards/telegram) is one; the web game server (bot/boards/web)
// needs no call: its pages read the boards and follow the boards' record of events (events.go,
// the Feed).
type View interface {
	// Changed shows a change to the board's players.
	Changed(ctx context.Context, tx Tx, ch *Change) error
	// Refresh shows a seat its board again in place: a button of it went (the opponent saw the
	// move it could take back).
	Refresh(ctx context.Context, tx Tx, sc *Scene, seat int) error
	// Notify tells a seat news whose notification came due (the Notify job).
	Notify(ctx context.Context, tx Tx, sc *Scene, seat int, n News) error
	// Remind warns the seat to move that its clock runs out.
	Remind(ctx context.Context, tx Tx, sc *Scene, seat int, w Warning) error
}

// Warning is a reminder of a seat's clock (View.Remind): the time left, whether it rings (the
// player wants notifications), and the seat's news still pending, which the reminder tells at
// once (nil when none).
type Warning struct {
	Left    time.Duration
	Ring    bool
	Pending *News
}

// AddView adds a view the service hands its changes to. It is called while the bot is composed,
// before any change.
func (b *Boards) AddView(v View) { b.views = append(b.views, v) }

// Scene reads the players of a board, when they were last on the web and their notification
// settings, in db: the last two in one read (board.Views.Attention), so that the policy costs
// a change no round trip to the database of its own.
func (b *Boards) Scene(ctx context.Context, db pgx.Tx, bd *board.Board) (*Scene, error) {
	sc, err := b.Players(ctx, db, bd)
	if err != nil {
		return nil, err
	}
	at, err := b.store(db).Attention(ctx, bd.ID, [2]int64{bd.Seats[0].User, bd.Seats[1].User})
	if err != nil {
		return nil, err
	}
	for i, a := range at {
		sc.Web[i], sc.Notify[i] = a.Web, a.Notify
	}
	return sc, nil
}

// Players reads the scene of a board without what the notification policy reads (Web and
// Notify): its game, its players and its tournament, all a page of the web needs.
func (b *Boards) Players(ctx context.Context, db pgx.Tx, bd *board.Board) (*Scene, error) {
	g, err := bd.Game()
	if err != nil {
		return nil, err
	}
	sc := &Scene{Board: bd, Game: g}
	if b.tourney != nil {
		if sc.Tournament, err = b.tourney.gameOf(ctx, db, bd); err != nil {
			return nil, err
		}
	}
	for i, s := range bd.Seats {
		if !s.Human() {
			continue
		}
		if sc.Players[i], err = b.Profile(ctx, db, s.User); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// Profile returns a user's profile (nil, without an error, for a user row removed by hand).
func (b *Boards) Profile(ctx context.Context, db pgx.Tx, user int64) (*Profile, error) {
	return b.users.Profile(ctx, db, user)
}

// Store returns the board store of a transaction, for the views' reads (lists, statistics, the
// settings of notifications) and their own records (when a board message was sent).
func (b *Boards) Store(db pgx.Tx) Store { return b.store(db) }

// Now is the clock of the games.
func (b *Boards) Now() time.Time { return b.now() }

// Name is a seat's player as the catalogue c names them ("…" for nobody), in plain text: each
// view escapes it for its markup.
func (sc *Scene) Name(c *texts.Catalog, seat int) string {
	s := sc.Board.Seats[seat]
	if s.Bot != board.NoBot {
		return c.BotName(sc.Board.Variant, s.Bot)
	}
	if p := sc.Players[seat]; p != nil {
		return PlayerName(p, p.ID)
	}
	return "…"
}

// PlayerName is the one name every view gives a player: their first name, else their
// @username (Telegram shows both to anyone), else "#" and number, which the caller chooses (the
// user's id where only the user sees it, their number in a tournament's public standings). It
// is plain text, the same in every language: each view escapes it for its markup. A nil
// profile (a player the bot has not met) is named by the number alone.
func PlayerName(p *Profile, number int64) string {
	switch {
	case p != nil && strings.TrimSpace(p.FirstName) != "":
		return p.FirstName
	case p != nil && p.Username != "":
		return "@" + p.Username
	}
	return "#" + strconv.FormatInt(number, 10)
}

// EndReason words, in plain text, why a finished game ended: the rule of the final position, a
// timeout, a resignation, an agreed draw...
func (sc *Scene) EndReason(c *texts.Catalog) string {
	o := sc.Board.Outcome
	var reason string
	switch {
	case o.End == board.EndRules:
		// The rule that ended the game is the final position's; the stored detail is the
		// engine's English reason, the fallback.
		reason = o.Detail
		if st := sc.Game.Status(); st.Result != engine.Ongoing {
			reason = c.Reason(st.Rule.String())
			if st.Rule == engine.RuleNoMoves && noPieces(sc.Game) {
				reason = c.Reason("no_pieces")
			}
		}
	case o.End == board.EndTimeout && o.Draw:
		reason = c.Reason("timeout_draw")
	default:
		reason = c.Reason(o.End.String())
	}
	return reason
}

// noPieces reports whether the side to move has no piece left on the board (it has no moves
// because it has nothing to move: "no pieces left" rather than "no moves left").
func noPieces(g *engine.Game) bool {
	st := g.State()
	for _, pc := range st.Board {
		if pc != 0 && pc.Owner() == st.Turn {
			return false
		}
	}
	return true
}

// GameClock reports whether a board's clock is the game's (a time for the whole game, with an
// increment or periods: "10 min + 5 s per move"), rather than a time for each move
// (correspondence) or none: its time left is on the player's clock, not for the move.
func GameClock(bd *board.Board) bool {
	switch bd.Control.Mode {
	case board.ClockFischer, board.ClockByoyomi, board.ClockSandglass:
		return true
	}
	return false
}

// Spectator is the seat of a user who watches a board they do not play (Watcher).
const Spectator = -1

// Watcher returns the seat a user sees a board from: their own, or Spectator when they may watch
// it. Who may watch is the service's rule, the same for every view: the board's players; anyone
// once the board is running or over, when its players let spectators in (spectators:
// Held.SetSpectators, Store.Spectators); anyone on a board that waits for an opponent and is not
// private. Returns board.ErrNotSeated otherwise.
func Watcher(bd *board.Board, user int64, spectators bool) (int, error) {
	if user != board.BotUser {
		if seat, err := bd.SeatOf(user); err == nil {
			return seat, nil
		}
	}
	if (spectators && bd.Status != board.Waiting) || (bd.Status == board.Waiting && !bd.Private) {
		return Spectator, nil
	}
	return 0, fmt.Errorf("board %d: user %d: %w", bd.ID, user, board.ErrNotSeated)
}
