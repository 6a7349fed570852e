package board

import (
	"context"
	"fmt"
	"time"

	"github.com/questbot/questbot/engine"
)

// OfferDraw offers a draw to the opponent of the user's seat, on either side's turn, once a
// move (ErrOffered for a second offer before the next move). An offer stands until the
// opponent accepts or declines it, moves (which declines it), or a move is taken back; an
// offer made while the opponent's offer stands accepts that one.
//
// The bot answers at once: it accepts when a short, deterministic search of the position finds
// it behind, or level after the first 40 plies, and declines otherwise (EventDrawOffered,
// then EventFinished or EventDrawDeclined). Returns ErrNotStarted, ErrFinished or
// ErrNotSeated; when the side to move has run out of time, the game ends on time instead.
func (b *Board) OfferDraw(user int64, now time.Time) ([]Event, error) {
	now = instant(now)
	seat, err := b.actor(user)
	if err != nil {
		return nil, fmt.Errorf("board %d: offer draw: %w", b.ID, err)
	}
	if ev, err := b.settle(now); ev != nil || err != nil {
		return ev, err
	}
	if b.Offer != nil && b.Offer.Seat != seat {
		return b.finish(Outcome{Draw: true, End: EndAgreement}, seat, now), nil
	}
	if b.Offer != nil || b.Seats[seat].Offered {
		return nil, fmt.Errorf("board %d: offer draw: %w", b.ID, ErrOffered)
	}
	b.Seats[seat].Offered = true
	ev := []Event{{Kind: EventDrawOffered, Seat: seat, Ply: b.Ply()}}
	bot := 1 - seat
	if b.Seats[bot].Bot == NoBot {
		b.Offer = &DrawOffer{Seat: seat, Ply: b.Ply()}
		return ev, nil
	}
	g, err := b.engine()
	if err != nil {
		return nil, err
	}
	if botAcceptsDraw(g, bot, b.Ply()) {
		return append(ev, b.finish(Outcome{Draw: true, End: EndAgreement}, bot, now)...), nil
	}
	return append(ev, Event{Kind: EventDrawDeclined, Seat: bot, Ply: b.Ply()}), nil
}

// AcceptDraw accepts the opponent's pending draw offer: the game is drawn by agreement.
// Returns ErrNoOffer when there is none, ErrNotStarted, ErrFinished or ErrNotSeated; when the
// side to move has run out of time, the game ends on time instead.
func (b *Board) AcceptDraw(user int64, now time.Time) ([]Event, error) {
	now = instant(now)
	seat, err := b.answerable(user)
	if err != nil {
		return nil, fmt.Errorf("board %d: accept draw: %w", b.ID, err)
	}
	if ev, err := b.settle(now); ev != nil || err != nil {
		return ev, err
	}
	return b.finish(Outcome{Draw: true, End: EndAgreement}, seat, now), nil
}

// DeclineDraw declines the opponent's pending draw offer. Returns ErrNoOffer when there is
// none, ErrNotStarted, ErrFinished or ErrNotSeated; when the side to move has run out of
// time, the game ends on time instead.
func (b *Board) DeclineDraw(user int64, now time.Time) ([]Event, error) {
	now = instant(now)
	seat, err := b.answerable(user)
	if err != nil {
		return nil, fmt.Errorf("board %d: decline draw: %w", b.ID, err)
	}
	if ev, err := b.settle(now); ev != nil || err != nil {
		return ev, err
	}
	b.Offer = nil
	return []Event{{Kind: EventDrawDeclined, Seat: seat, Ply: b.Ply()}}, nil
}

// answerable returns the user's seat when the opponent's draw offer is pending.
func (b *Board) answerable(user int64) (int, error) {
	seat, err := b.actor(user)
	if err != nil {
		return 0, err
	}
	if b.Offer == nil || b.Offer.Seat == seat {
		return 0, ErrNoOffer
	}
	return seat, nil
}

// BotLevel is the strength of the bot in a seat. NoBot marks a human seat.
type BotLevel uint8

// Bot levels.
const (
	NoBot BotLevel = iota
	BotEasy
	BotNormal
	BotStrong
)

var botLevelNames = [...]string{"", "easy", "normal", "strong"}

// String returns the level's stable name ("easy", "normal", "strong"; "" for NoBot).
func (l BotLevel) String() string {
	if int(l) < len(botLevelNames) {
		return botLevelNames[l]
	}
	return fmt.Sprintf("BotLevel(%d)", l)
}

// ParseBotLevel reads a level by its stable name ("" is NoBot). Returns ErrInvalid for any
// other text.
func ParseBotLevel(s string) (BotLevel, error) {
	for i, n := range botLevelNames {
		if n == s {
			return BotLevel(i), nil
		}
	}
	return NoBot, fmt.Errorf("%w: bot level %q", ErrInvalid, s)
}

// Limits returns the search limits the AI worker gives engine.Game.BestMove for this level in
// the game variant. They bound nodes only, never time, so a level plays alike on a busy machine
// and a game against the bot can be replayed from its seed (the worker caps them in time as
// well).
//
// Every game shares the easy and normal levels' limits, and every game but chess the strong
// level's. Strong chess searches more (strongChessNodes) with the refinements of the chess
// search (engine.Limits.Refine), so that it holds its own against strong club players; in the
// other games, Chess960 included, the strong level keeps the limits its figures were measured
// with. A chess move takes, in a core's CPU time, on a quiet machine (questbot strength,
// 2026-11-27): easy 5 ms and normal 30 ms on average; strong, its 1,000,000 nodes, 1.19 to
// 1.24 s on average and 2.0 s at most, where the bot's 2 s cap (boards.DefaultThink) cuts the
// longest searches short.
func (l BotLevel) Limits(variant string) engine.Limits {
	switch l {
	case BotEasy:
		return engine.Limits{Nodes: 2_000, Depth: 2}
	case BotStrong:
		if variant == "chess" {
			return engine.Limits{Nodes: strongChessNodes, Refine: true}
		}
		return engine.Limits{Nodes: 400_000}
	default:
		return engine.Limits{Nodes: 40_000}
	}
}

// strongChessNodes is the node limit of the strong level in chess: about 1.2 s of a core's CPU
// time a move on average on a quiet machine (see Limits).
const strongChessNodes = 1_000_000

// drawNodes is the node budget of the bot's judgement of a draw offer: enough to see a piece
// hanging, small enough to answer within the update's transaction.
const drawNodes = 20_000

// drawLevel is how far from zero the search's score may be for the bot to judge the position
// level rather than behind or ahead: half a pawn in chess (the evaluation gives the side to move
// a little, and White's initiative at the start is worth about a third of a pawn to a short
// search), half a man in draughts.
const drawLevel = 50

// drawEqualPlies is how long a game must have gone on before the bot takes a draw in a
// position it judges level (before that, an early offer would only save the player a game).
const drawEqualPlies = 40

// botAcceptsDraw decides a draw offered to the bot holding seat bot at ply: the bot accepts
// when a short alpha-beta search (node-bounded, so the answer is deterministic) finds it
// behind (by more than drawLevel), or level once drawEqualPlies have been played. The search's
// score is for the side to move, so it is turned round when the offer comes on the bot's
// opponent's turn.
func botAcceptsDraw(g *engine.Game, bot, ply int) bool {
	_, info, err := g.BestMove(context.Background(), engine.Limits{Nodes: drawNodes, Algorithm: engine.AlphaBeta})
	if err != nil {
		return false
	}
	score := info.Score
	if int(g.ToMove()) != bot {
		score = -score
	}
	return score < -drawLevel || (score <= drawLevel && ply >= drawEqualPlies)
}
