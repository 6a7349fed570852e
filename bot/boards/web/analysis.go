package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// # Analysis
//
// POST /api/v1/analysis answers the engine's evaluation of a position and the line it expects:
// a position given as the game's own position string ({"variant", "fen"}), or a position of a
// game the caller may watch ({"game", "ply"}, by the service's rule, boards.Watcher). As on
// lichess, a player of a game still going on may not analyse it (409 conflict): the engine
// would play it for them. A search is the bot's strongest kind (board.BotStrong's limits)
// capped at AnalysisTime, and at most AnalysisSearches run at once in a process (the others
// wait, or give up with their request); each caller has a rate limit of their own
// (Config.AnalysisRate, AnalysisBurst), beside the requests' (429 rate_limited), counting the
// requests that come to a search, since one costs the server a core for up to a second.

// AnalysisTime caps one analysis's search.
const AnalysisTime = time.Second

// AnalysisSearches is how many analyses one process searches at once.
const AnalysisSearches = 1

// The default rate limit of the analyses, per caller: one every 3 seconds, 5 at once.
const (
	DefaultAnalysisRate  = 1.0 / 3
	DefaultAnalysisBurst = 5
)

// AnalysisMove is a move of an analysis's line: Text as people read it and Move in the engine's
// notation, as the move list writes them (MoveState).
type AnalysisMove struct {
	Text string `json:"text"`
	Move string `json:"move"`
}

// Analysis is the answer of POST /api/v1/analysis. Score is the engine's evaluation for the
// side to move (ToMove, a seat): with Algorithm "alpha-beta", in hundredths of a pawn in chess
// and of a man in draughts, the engine's own units elsewhere; with "mcts", the side's win rate
// in per mille. Mate, when set, is a forced end the search found: the plies to it, positive when
// the side to move wins. Best is the move the engine chooses, and Line the moves it expects
// from there, Best first; the only legal move is answered unsearched, with no Score. Over is the engine's reason for the end (in English) when the
// position is a game's end: then there is no evaluation.
type Analysis struct {
	Variant   string         `json:"variant"`
	FEN       string         `json:"fen"`
	ToMove    int            `json:"to_move"`
	Algorithm string         `json:"algorithm,omitempty"`
	Score     *int           `json:"score"`
	Mate      int            `json:"mate,omitempty"`
	Depth     int            `json:"depth,omitempty"`
	Nodes     int64          `json:"nodes,omitempty"`
	Best      *AnalysisMove  `json:"best,omitempty"`
	Line      []AnalysisMove `json:"line"`
	Over      string         `json:"over,omitempty"`
}

// analysis is POST /api/v1/analysis {"variant", "fen"} or {"game", "ply"}.
func (s *Server) analysis(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req struct {
		Variant string `json:"variant"`
		FEN     string `json:"fen"`
		Game    int64  `json:"game"`
		Ply     *int   `json:"ply"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	var g *engine.Game
	var err error
	switch {
	case req.Game != 0 && (req.Variant != "" || req.FEN != ""):
		return apiErr(http.StatusBadRequest, "bad_request", `Either "game" and "ply" or "variant" and "fen", not both.`)
	case req.Game != 0:
		if g, err = s.gamePosition(r.Context(), c, req.Game, req.Ply); err != nil {
			return err
		}
	default:
		if g, err = position(req.Variant, req.FEN); err != nil {
			return err
		}
	}
	// A request refused before it searches costs no analysis.
	if ok, wait := s.analysisLimit.allow(s.key(c, r)); !ok {
		e := apiWords(http.StatusTooManyRequests, "rate_limited", func(c *texts.Catalog) string { return c.Web.RateLimited })
		e.retry = wait
		return e
	}
	a, err := s.analyse(r.Context(), g)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// position is the game of a variant the bot offers from a position string.
func position(variant, fen string) (*engine.Game, error) {
	switch {
	case variant == "":
		return nil, apiErr(http.StatusBadRequest, "bad_request", `"variant" and "fen" (or "game" and "ply") are required.`)
	case !boards.Offered(variant):
		return nil, apiErr(http.StatusBadRequest, "bad_request", fmt.Sprintf("Unknown variant %q; GET /api/v1/variants lists them.", variant))
	case fen == "":
		return nil, apiErr(http.StatusBadRequest, "bad_request", `"fen" is required: the position, in the game's own notation.`)
	}
	g, err := engine.NewGame(variant, engine.WithPosition(fen))
	if err != nil {
		return nil, apiErr(http.StatusBadRequest, "bad_request", fmt.Sprintf("The position is not one of %s: %v.", variant, err))
	}
	return g, nil
}

// gamePosition is the game of board id at ply (the position now without it), for a caller who
// may watch it and plays no seat in it while it goes on.
func (s *Server) gamePosition(ctx context.Context, c *caller, id int64, ply *int) (*engine.Game, error) {
	st, bd, err := s.viewState(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if st.Seat >= 0 && (bd.Status == board.Active || bd.Status == board.Waiting) {
		return nil, apiErr(http.StatusConflict, "conflict", "You play this game: it may be analysed once it is over.")
	}
	n := bd.Ply()
	if ply != nil {
		n = *ply
	}
	if n < 0 || n > bd.Ply() {
		return nil, apiErr(http.StatusBadRequest, "bad_request", fmt.Sprintf(`"ply" is from 0 to %d in this game.`, bd.Ply()))
	}
	return bd.GameAt(n)
}

// analyse searches g's position within the analyses' limits.
func (s *Server) analyse(ctx context.Context, g *engine.Game) (*Analysis, error) {
	a := &Analysis{Variant: g.Variant(), FEN: g.Position(), ToMove: int(g.ToMove()), Line: []AnalysisMove{}}
	if st := g.Status(); st.Result != engine.Ongoing {
		a.Over = st.Reason
		return a, nil
	}
	select {
	case s.searches <- struct{}{}:
		defer func() { <-s.searches }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	lim := board.BotStrong.Limits(g.Variant())
	lim.Time = AnalysisTime
	ctx, cancel := context.WithTimeout(ctx, AnalysisTime+AnalysisTime/2)
	defer cancel()
	_, info, err := g.BestMove(ctx, lim)
	if errors.Is(err, engine.ErrGameOver) {
		a.Over = g.Status().Reason
		return a, nil
	}
	if err != nil {
		return nil, err
	}
	a.Algorithm, a.Depth, a.Nodes = info.Algorithm.String(), info.Depth, info.Nodes
	if info.Nodes > 0 {
		score := info.Score
		a.Score, a.Mate = &score, info.MateIn()
	}
	// The line as the move list writes it: each move in the position it is played in.
	for _, mv := range info.PV {
		m, err := g.Play(mv)
		if err != nil {
			break
		}
		a.Line = append(a.Line, AnalysisMove{Text: g.LastDisplay(), Move: m.String()})
	}
	if len(a.Line) > 0 {
		a.Best = &a.Line[0]
	}
	return a, nil
}
