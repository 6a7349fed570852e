package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/botusers"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions"
	"github.com/questbot/questbot/sessions/board"
)

// # The JSON API
//
// Every answer is JSON (but the export, text, and the picture, PNG). Every error is
// {"error": {"code", "message"}} with a stable code and its status: 400 bad_request,
// 401 unauthorized, 403 forbidden (an operation on a game the caller may watch but plays no seat
// in) or csrf, 404 not_found, 409 stale (the board moved on since the ply the client sent) or
// conflict (the operation does not fit the board's state), 422 illegal_move (with "legal", the
// legal moves), 429 rate_limited (with Retry-After) or too_many_streams (the caller holds
// Config.Streams event streams open already), 503 unavailable (the bot is not running). The
// docs/web-api.md lists the calls.
//
// A game the caller may not see (they play no seat in it, and it is neither open to spectators
// nor a public game waiting for an opponent) is answered exactly as a game that does not exist:
// 404 not_found with the same message, for every call, whatever else would have refused the
// operation (so that nobody learns which ids are games, nor anything of their state).
//
// Every answer tells the browser not to guess its type (X-Content-Type-Options: nosniff) and
// carries a Content-Security-Policy that allows nothing (apiCSP): a JSON answer or an export
// opened as a page runs no script and loads nothing, whatever a player's name holds.

// pgxTx is a database transaction.
type pgxTx = pgx.Tx

// apiError is an error answered to the client.
type apiError struct {
	Status  int      `json:"-"`
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Legal   []string `json:"legal,omitempty"`
	// retry, when set, is the answer's Retry-After.
	retry time.Duration
	// words, when set, words Message in a language (writeError): the answers a page shows as
	// they are, to a visitor who may not be logged in, speak the page's language.
	words func(*texts.Catalog) string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func apiErr(status int, code, message string) *apiError {
	return &apiError{Status: status, Code: code, Message: message}
}

// apiWords is apiErr with the message in the request's language: words picks it from a catalogue.
func apiWords(status int, code string, words func(*texts.Catalog) string) *apiError {
	return &apiError{Status: status, Code: code, Message: words(texts.For("en")), words: words}
}

// missing is the answer to a game that does not exist, or that the caller may not see.
func missing() *apiError {
	return apiWords(http.StatusNotFound, "not_found", func(c *texts.Catalog) string { return c.Web.NotFound })
}

// apiCSP is the Content-Security-Policy of the API's answers: they are data, never a page.
const apiCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox"

// dataHeaders marks an answer as data: no type sniffing, and a policy that allows nothing.
func dataHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", apiCSP)
}

// writeJSON writes a JSON answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeError writes an error answer to r. The message of an answer with words is in the
// request's language (requestLang).
func writeError(w http.ResponseWriter, r *http.Request, e *apiError) {
	if e.retry > 0 {
		retryAfter(w, e.retry)
	}
	if e.words != nil {
		worded := *e
		worded.Message = e.words(texts.For(requestLang(r)))
		e = &worded
	}
	writeJSON(w, e.Status, map[string]*apiError{"error": e})
}

// requestLang is the language a request asks its answers in: the first of its Accept-Language
// (the pages send theirs; a browser its user's), English by default.
func requestLang(r *http.Request) string {
	first, _, _ := strings.Cut(r.Header.Get("Accept-Language"), ",")
	tag, _, _ := strings.Cut(first, ";")
	return texts.Language(strings.TrimSpace(tag))
}

// fail answers an unexpected error: 503 when the bot is not running, 500 otherwise (logged).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	writeError(w, r, s.mapErr(err, &caller{}))
}

// answers are the API's answers to the kinds of refusals (sessions.ErrKind): the one place where
// a refusal becomes an HTTP status and a code. Its message is the catalogue's words for the
// error (bot/texts), or message's.
var answers = map[sessions.ErrKind]struct {
	status  int
	code    string
	message func(err error) string
}{
	sessions.KindStale:    {http.StatusConflict, "stale", func(error) string { return "The game has moved on since; look at it again." }},
	sessions.KindConflict: {http.StatusConflict, "conflict", nil},
	sessions.KindIllegal:  {http.StatusUnprocessableEntity, "illegal_move", nil},
	sessions.KindInvalid:  {http.StatusBadRequest, "bad_request", func(err error) string { return err.Error() }},
}

// mapErr turns an error into its answer.
func (s *Server) mapErr(err error, c *caller) *apiError {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, ErrUnavailable):
		e := apiErr(http.StatusServiceUnavailable, "unavailable", "The bot is not running; try again shortly.")
		e.retry = outageRetry
		return e
	case isOutage(err):
		s.health.refused(err)
		return unavailable()
	}
	kind := sessions.KindOf(err)
	if kind == sessions.KindNotFound || kind == sessions.KindNotYours {
		// A game the caller may not see is one that is not there (see refusal for the
		// operations on a game they may watch).
		return missing()
	}
	if a, ok := answers[kind]; ok {
		switch {
		case errors.Is(err, boards.ErrPrivate):
			return apiErr(a.status, a.code, "This game is joined by invite only.")
		case a.message != nil:
			return apiErr(a.status, a.code, a.message(err))
		}
		// The catalogue's words for the refusal, in the request's language.
		return apiWords(a.status, a.code, func(c *texts.Catalog) string { return c.Error(err) })
	}
	s.log.Error("A web request failed", slog.Any("error", err))
	return apiErr(http.StatusInternalServerError, "internal", "Something went wrong on the server.")
}

// read runs fn in a read-only transaction of one snapshot.
func (s *Server) read(ctx context.Context, fn func(ctx context.Context, db pgxTx) error) error {
	start := time.Now()
	err := pgx.BeginTxFunc(ctx, s.cfg.Pool, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead},
		func(tx pgx.Tx) error { return fn(ctx, tx) })
	s.health.observe(start, err)
	return err
}

// write runs fn in a transaction of the server's own tables.
func (s *Server) write(ctx context.Context, fn func(ctx context.Context, db pgxTx) error) error {
	start := time.Now()
	err := pgx.BeginFunc(ctx, s.cfg.Pool, func(tx pgx.Tx) error { return fn(ctx, tx) })
	s.health.observe(start, err)
	return err
}

// do runs a board operation in a transaction of the caller's bot.
func (s *Server) do(ctx context.Context, c *caller, fn func(ctx context.Context, tx bot.Tx) error) error {
	if s.cfg.Doer == nil {
		return ErrUnavailable
	}
	start := time.Now()
	err := s.cfg.Doer.Do(ctx, c.service, fn)
	s.health.observe(start, err)
	return err
}

// apiFunc is a call of the API, for a caller.
type apiFunc func(w http.ResponseWriter, r *http.Request, c *caller) error

// Kinds of calls.
const (
	// public calls may be made without logging in.
	public = 1 << iota
	// unlimited calls are not rate limited (the event streams).
	unlimited
)

// api wraps a call: the caller (401 for a cookie or token that opens nothing, and for anyone not
// logged in but to a public call), the rate limit, the CSRF token of a POST made with the
// cookie, and the answer to an error.
func (s *Server) api(kind int, h apiFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		dataHeaders(w)
		if s.throttled(w, r) {
			return
		}
		c, err := s.identify(r.Context(), r)
		if errors.Is(err, errRefused) {
			s.loginFailed(r)
		}
		switch {
		case err != nil && r.Context().Err() != nil:
			// The client went away (or the server is shutting down): nobody reads an answer,
			// and it is no failure of the server's.
			return
		case errors.Is(err, errRefused):
			writeError(w, r, apiWords(http.StatusUnauthorized, "unauthorized", func(c *texts.Catalog) string { return c.Web.BadLogin }))
			return
		case err != nil:
			s.fail(w, r, err)
			return
		case kind&public == 0 && c.anonymous():
			writeError(w, r, apiWords(http.StatusUnauthorized, "unauthorized", func(c *texts.Catalog) string { return c.Web.LogIn }))
			return
		}
		if kind&unlimited == 0 {
			if ok, wait := s.limit.allow(s.key(c, r)); !ok {
				retryAfter(w, wait)
				writeError(w, r, apiWords(http.StatusTooManyRequests, "rate_limited", func(c *texts.Catalog) string { return c.Web.RateLimited }))
				return
			}
		}
		if r.Method == http.MethodPost && !checkCSRF(r, c) {
			writeError(w, r, apiErr(http.StatusForbidden, "csrf", "The X-CSRF-Token header is missing or wrong."))
			return
		}
		// A picture drawn inside the request is counted as such (a move must draw none: the
		// Telegram boards it changes are drawn as they are sent, see boards.DrawnIn).
		r = r.WithContext(boards.DrawnIn(r.Context(), boards.DrawnWebRequest))
		if err := h(w, r, c); err != nil {
			if r.Context().Err() != nil {
				return // the client went away, as above
			}
			writeError(w, r, s.mapErr(err, c))
		}
	}
}

// routeAPI adds the calls of the API to mux.
func (s *Server) routeAPI(mux router) {
	mux.HandleFunc("GET /api/v1/me", s.api(0, s.me))
	mux.HandleFunc("GET /api/v1/variants", s.api(public, s.variants))
	mux.HandleFunc("GET /api/v1/games", s.api(0, s.games))
	mux.HandleFunc("GET /api/v1/games/waiting", s.api(0, s.waiting))
	mux.HandleFunc("POST /api/v1/games", s.api(0, s.create))
	mux.HandleFunc("GET /api/v1/games/{id}", s.api(public, s.state))
	mux.HandleFunc("POST /api/v1/games/{id}/join", s.api(0, s.op(s.join)))
	mux.HandleFunc("POST /api/v1/games/{id}/moves", s.api(0, s.move))
	mux.HandleFunc("POST /api/v1/games/{id}/undo", s.api(0, s.op(s.undo)))
	mux.HandleFunc("POST /api/v1/games/{id}/resign", s.api(0, s.op(s.resign)))
	mux.HandleFunc("POST /api/v1/games/{id}/draw", s.api(0, s.op(s.draw)))
	mux.HandleFunc("POST /api/v1/games/{id}/seen", s.api(0, s.op(s.seen)))
	mux.HandleFunc("POST /api/v1/games/{id}/spectators", s.api(0, s.op(s.spectators)))
	mux.HandleFunc("GET /api/v1/games/{id}/export", s.api(public, s.export))
	mux.HandleFunc("GET /api/v1/games/{id}/events", s.api(public|unlimited, s.events))
	mux.HandleFunc("GET /api/v1/events", s.api(public|unlimited, s.muxEvents))
	mux.HandleFunc("GET /api/v1/games/{id}/picture.png", s.api(public|unlimited, s.picture))
	mux.HandleFunc("GET /api/v1/games/{id}/picture.jpg", s.api(public|unlimited, s.picture))
	mux.HandleFunc("POST /api/v1/analysis", s.api(public, s.analysis))
	mux.HandleFunc("GET /api/v1/variants/{variant}/picture.png", s.api(public, s.startPicture))
	mux.HandleFunc("GET /api/v1/variants/{variant}/picture.jpg", s.api(public, s.startPicture))
	mux.HandleFunc("/api/v1/", s.api(public, func(w http.ResponseWriter, r *http.Request, c *caller) error {
		return apiWords(http.StatusNotFound, "not_found", func(c *texts.Catalog) string { return c.Web.NoCall })
	}))
}

// maxBody bounds a request's body.
const maxBody = 64 << 10

// decode reads a JSON body into v.
func decode(r *http.Request, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return apiErr(http.StatusBadRequest, "bad_request", "The body cannot be read.")
	}
	if len(body) > maxBody {
		return apiErr(http.StatusBadRequest, "bad_request", "The body is too large.")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return apiErr(http.StatusBadRequest, "bad_request", "The body is not the JSON expected: "+err.Error())
	}
	return nil
}

// required decodes a body whose one field, name, must be there (and not null).
func required[T any](r *http.Request, name string) (T, error) {
	var zero T
	var body map[string]json.RawMessage
	if err := decode(r, &body); err != nil {
		return zero, err
	}
	raw, ok := body[name]
	if !ok || string(raw) == "null" {
		return zero, apiErr(http.StatusBadRequest, "bad_request", fmt.Sprintf("%q is required.", name))
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return zero, apiErr(http.StatusBadRequest, "bad_request", "The body is not the JSON expected: "+err.Error())
	}
	return v, nil
}

// boardID reads the game's id of the path.
func boardID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, missing()
	}
	return id, nil
}

// profile reads the caller's profile; nil for someone not logged in.
func profile(ctx context.Context, db pgxTx, c *caller) (*boards.Profile, error) {
	if c.anonymous() {
		return nil, nil
	}
	p, err := botusers.Users{}.Profile(ctx, db, c.user)
	if err == nil && p == nil {
		return nil, apiErr(http.StatusUnauthorized, "unauthorized", "This user is gone.")
	}
	return p, err
}

// lang is the caller's language.
func lang(p *boards.Profile) string {
	if p == nil {
		return "en"
	}
	return p.Lang
}

// me is GET /api/v1/me: the caller, and the CSRF token of their session.
func (s *Server) me(w http.ResponseWriter, r *http.Request, c *caller) error {
	var p *boards.Profile
	err := s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		var err error
		p, err = profile(ctx, db, c)
		return err
	})
	if err != nil {
		return err
	}
	name := boards.PlayerName(p, p.ID)
	csrf := ""
	if c.secret != "" {
		csrf = csrfToken(c.secret)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"user": map[string]any{"id": p.ID, "name": name, "lang": p.Lang}, "csrf": csrf})
	return nil
}

// variant is a game offered, with the time controls it may be played with.
type variant struct {
	Name     string    `json:"name"`
	Title    string    `json:"title"`
	Controls []control `json:"controls"`
	// Levels are the bot's levels in this game, named as the Telegram view names them, with
	// their measured ratings (texts.Catalog.Level).
	Levels []control `json:"levels"`
}

type control struct {
	Name  string `json:"name"`
	Title string `json:"title"`
}

// variants is GET /api/v1/variants: the games, their clocks and the bot's levels.
func (s *Server) variants(w http.ResponseWriter, r *http.Request, c *caller) error {
	var list []variant
	err := s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		p, err := profile(ctx, db, c)
		if err != nil {
			return err
		}
		tcs, err := s.cfg.Boards.Store(db).TimeControls(ctx)
		if err != nil {
			return err
		}
		t := texts.For(lang(p))
		var controls []control
		for _, tc := range tcs {
			controls = append(controls, control{Name: tc.Name, Title: t.Control(tc.Name)})
		}
		for _, v := range boards.Games {
			var levels []control
			for _, l := range boards.Levels(v) {
				levels = append(levels, control{Name: l.String(), Title: t.Level(v, l)})
			}
			list = append(list, variant{Name: v, Title: t.Game(v), Controls: controls, Levels: levels})
		}
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// gameInfo is a game of a list. ControlTitle names its clock in the caller's language, and
// LeftMS is what the side to move has left until its deadline as of the answer, in
// milliseconds (absent without a running clock), so that a page shows it whatever its own
// clock says.
type gameInfo struct {
	ID           int64      `json:"id"`
	Variant      string     `json:"variant"`
	Title        string     `json:"title"`
	Control      string     `json:"control"`
	ControlTitle string     `json:"control_title"`
	Status       string     `json:"status"`
	MyTurn       bool       `json:"my_turn"`
	Opponent     string     `json:"opponent"`
	Ply          int        `json:"ply"`
	Deadline     *time.Time `json:"deadline"`
	LeftMS       *int64     `json:"left_ms,omitempty"`
}

// info makes a list's entry.
func (s *Server) info(ctx context.Context, db pgxTx, lang string, bi board.Info) (gameInfo, error) {
	name, err := s.opponentName(ctx, db, lang, bi.Opponent, bi.Variant)
	if err != nil {
		return gameInfo{}, err
	}
	c := texts.For(lang)
	gi := gameInfo{ID: bi.ID, Variant: bi.Variant, Title: c.Game(bi.Variant), Control: bi.Control,
		ControlTitle: c.Control(bi.Control), Status: bi.Status.String(), MyTurn: bi.MyTurn, Opponent: name, Ply: bi.Ply}
	if !bi.Deadline.IsZero() {
		d := bi.Deadline
		gi.Deadline = &d
		left := max(d.Sub(s.cfg.Boards.Now()), 0).Milliseconds()
		gi.LeftMS = &left
	}
	return gi, nil
}

// games is GET /api/v1/games: the caller's games, those where it is their turn first.
func (s *Server) games(w http.ResponseWriter, r *http.Request, c *caller) error {
	list := []gameInfo{}
	err := s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		p, err := profile(ctx, db, c)
		if err != nil {
			return err
		}
		bis, err := s.cfg.Boards.Store(db).UserBoards(ctx, c.service, c.user, 0)
		if err != nil {
			return err
		}
		for _, bi := range bis {
			gi, err := s.info(ctx, db, lang(p), bi)
			if err != nil {
				return err
			}
			list = append(list, gi)
		}
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// maxWaiting bounds the waiting games listed.
const maxWaiting = 50

// waiting is GET /api/v1/games/waiting: the games the caller may join.
func (s *Server) waiting(w http.ResponseWriter, r *http.Request, c *caller) error {
	list := []gameInfo{}
	err := s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		p, err := profile(ctx, db, c)
		if err != nil {
			return err
		}
		st := s.cfg.Boards.Store(db)
		ids, err := st.WaitingBoards(ctx, c.service, c.user, maxWaiting)
		if err != nil {
			return fmt.Errorf("web: %w", err)
		}
		for _, id := range ids {
			bd, err := st.Get(ctx, id)
			if err != nil {
				return err
			}
			seat, _ := bd.SeatOf(bd.Creator)
			bi := board.Info{ID: bd.ID, Variant: bd.Variant, Control: bd.Control.Name, Status: bd.Status,
				Opponent: bd.Seats[seat], Seat: 1 - seat}
			gi, err := s.info(ctx, db, lang(p), bi)
			if err != nil {
				return err
			}
			list = append(list, gi)
		}
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// create is POST /api/v1/games {"variant", "control", "bot"}: a game against the bot, or
// against whoever waits for the same game and clock (or waits for the next to come).
func (s *Server) create(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req struct {
		Variant string `json:"variant"`
		Control string `json:"control"`
		Bot     string `json:"bot"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	level, err := board.ParseBotLevel(req.Bot)
	if err != nil {
		return apiErr(http.StatusBadRequest, "bad_request", `"bot" is "", "easy", "normal" or "strong".`)
	}
	if req.Control == "" {
		req.Control = "none"
	}
	var id int64
	err = s.do(r.Context(), c, func(ctx context.Context, tx bot.Tx) error {
		var err error
		bd, _, err := s.cfg.Boards.Open(ctx, tx, c.player(), boards.Opening{Variant: req.Variant, Level: level, Control: req.Control})
		if err == nil {
			id = bd.ID
		}
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]int64{"id": id})
	return nil
}

// viewState reads a game as the caller sees it, with its picture's address.
func (s *Server) viewState(ctx context.Context, c *caller, id int64) (*GameState, *board.Board, error) {
	var st *GameState
	var bd *board.Board
	err := s.read(ctx, func(ctx context.Context, db pgxTx) error {
		var err error
		st, bd, err = s.gameState(ctx, db, c.service, c.user, id)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	st.Picture.URL = pictureURL(st)
	return st, bd, nil
}

// state is GET /api/v1/games/{id}.
func (s *Server) state(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := boardID(r)
	if err != nil {
		return err
	}
	return s.answerState(w, r, c, id)
}

// answerState answers the state of a game.
func (s *Server) answerState(w http.ResponseWriter, r *http.Request, c *caller, id int64) error {
	st, _, err := s.viewState(r.Context(), c, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// boardOp is an operation of a player on a game, with the request. It returns the state it
// answers with, built in its transaction from its own result (the board as it left it and the
// events it recorded), or nil for the state read after it.
type boardOp func(ctx context.Context, tx bot.Tx, r *http.Request, c *caller, id int64) (*GameState, error)

// op wraps a board operation: its body is read first, it runs in the bot's transaction, and the
// state after it is the answer.
func (s *Server) op(fn func(r *http.Request) (boardOp, error)) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, c *caller) error {
		id, err := boardID(r)
		if err != nil {
			return err
		}
		do, err := fn(r)
		if err != nil {
			return err
		}
		var st *GameState
		err = s.do(r.Context(), c, func(ctx context.Context, tx bot.Tx) error {
			st, err = do(ctx, tx, r, c, id)
			return err
		})
		if err != nil {
			return s.refusal(r.Context(), c, id, err)
		}
		if st != nil {
			writeJSON(w, http.StatusOK, st)
			return nil
		}
		return s.answerState(w, r, c, id)
	}
}

// heldState is the state of a board its player holds (boards.Held) after an operation, in the
// operation's transaction: the board as the operation left it, no second read of the game, and
// the events the operation recorded.
func (s *Server) heldState(ctx context.Context, tx bot.Tx, h *boards.Held) (*GameState, error) {
	db := tx.DB()
	spect, err := s.cfg.Boards.Store(db).Spectators(ctx, h.Board.ID)
	if err != nil {
		return nil, err
	}
	// The scene of the operation's change, when there was one: its players are read and its
	// record written already.
	sc := h.Scene()
	if sc == nil {
		if sc, err = s.cfg.Boards.Players(ctx, db, h.Board); err != nil {
			return nil, err
		}
	}
	lang := "en"
	if p := sc.Players[h.Seat]; p != nil {
		lang = p.Lang
	}
	st, err := sceneState(ctx, db, sc, s.cfg.Boards, h.Seat, texts.For(lang))
	if err != nil {
		return nil, err
	}
	st.Spectators = spect
	st.Events = h.Recorded
	st.Picture.URL = pictureURL(st)
	return st, nil
}

// pictureURL is the address of the picture of a state.
func pictureURL(st *GameState) string {
	return fmt.Sprintf("/api/v1/games/%d/picture.png?seat=%d&ply=%d&v=%s", st.ID, st.Picture.Viewer, st.Ply, st.Picture.Version)
}

// refusal is the answer to an operation on game id that failed with err. When the caller may
// not see the game, it is missing(), whatever refused the operation (the game started, is joined
// by invite only, is not theirs): that is not theirs to learn. On a game they may watch, playing
// no seat in it is 403 forbidden; any other refusal is err's own.
func (s *Server) refusal(ctx context.Context, c *caller, id int64, err error) error {
	if errors.Is(err, ErrUnavailable) {
		return err
	}
	_, _, verr := s.viewState(ctx, c, id)
	switch {
	case errors.Is(verr, board.ErrNotFound), errors.Is(verr, board.ErrNotSeated):
		return missing()
	case verr != nil:
		// The game could not be read: the operation's own error says more.
		return err
	case errors.Is(err, board.ErrNotSeated):
		return apiErr(http.StatusForbidden, "forbidden", "You do not play this game.")
	}
	return err
}

// drawOps are the operations of POST /api/v1/games/{id}/draw, by its action.
var drawOps = map[string]boards.Op{"offer": boards.OpOfferDraw, "accept": boards.OpAcceptDraw, "decline": boards.OpDeclineDraw}

// act carries out a player's action on their game and returns the state it leaves.
func (s *Server) act(ctx context.Context, tx bot.Tx, c *caller, id int64, a boards.Action) (*GameState, error) {
	h, err := s.cfg.Boards.Take(ctx, tx, c.player(), id)
	if err != nil {
		return nil, err
	}
	if err := h.Act(ctx, a); err != nil {
		return nil, err
	}
	return s.heldState(ctx, tx, h)
}

func (s *Server) join(*http.Request) (boardOp, error) {
	return func(ctx context.Context, tx bot.Tx, _ *http.Request, c *caller, id int64) (*GameState, error) {
		return nil, s.cfg.Boards.Join(ctx, tx, c.player(), id)
	}, nil
}

// undo is POST /api/v1/games/{id}/undo {"ply"}.
func (s *Server) undo(r *http.Request) (boardOp, error) {
	return s.actAt(r, boards.OpUndo)
}

// resign is POST /api/v1/games/{id}/resign {"ply"}.
func (s *Server) resign(r *http.Request) (boardOp, error) {
	return s.actAt(r, boards.OpResign)
}

// draw is POST /api/v1/games/{id}/draw {"action", "ply"}.
func (s *Server) draw(r *http.Request) (boardOp, error) {
	var req struct {
		Action string `json:"action"`
		Ply    *int   `json:"ply"`
	}
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	op, ok := drawOps[req.Action]
	if !ok {
		return nil, apiErr(http.StatusBadRequest, "bad_request", `"action" is "offer", "accept" or "decline".`)
	}
	if req.Ply == nil {
		return nil, apiErr(http.StatusBadRequest, "bad_request", `"ply" is required.`)
	}
	return s.opAt(op, *req.Ply), nil
}

// actAt reads the "ply" of the body of an operation op that depends on the position.
func (s *Server) actAt(r *http.Request, op boards.Op) (boardOp, error) {
	ply, err := required[int](r, "ply")
	if err != nil {
		return nil, err
	}
	return s.opAt(op, ply), nil
}

// opAt is op made at ply: refused as stale when the game has moved on since, by the service's
// rule of every view (boards.Held.InPlay).
func (s *Server) opAt(op boards.Op, ply int) boardOp {
	return func(ctx context.Context, tx bot.Tx, _ *http.Request, c *caller, id int64) (*GameState, error) {
		h, err := s.cfg.Boards.Take(ctx, tx, c.player(), id)
		if err != nil {
			return nil, err
		}
		goOn, err := h.InPlay(ctx, ply)
		if err != nil {
			return nil, err
		}
		if goOn {
			if err := h.Act(ctx, boards.Action{Op: op}); err != nil {
				return nil, err
			}
		}
		// Carried out, or the game ended on time instead.
		return s.heldState(ctx, tx, h)
	}
}

func (s *Server) seen(r *http.Request) (boardOp, error) {
	ply, err := required[int](r, "ply")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, tx bot.Tx, _ *http.Request, c *caller, id int64) (*GameState, error) {
		h, err := s.cfg.Boards.Take(ctx, tx, c.player(), id)
		if err != nil {
			return nil, err
		}
		if err := h.SeenUpTo(ctx, ply); err != nil {
			return nil, err
		}
		return s.heldState(ctx, tx, h)
	}, nil
}

func (s *Server) spectators(r *http.Request) (boardOp, error) {
	allow, err := required[bool](r, "allow")
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, tx bot.Tx, _ *http.Request, c *caller, id int64) (*GameState, error) {
		h, err := s.cfg.Boards.Take(ctx, tx, c.player(), id)
		if err != nil {
			return nil, err
		}
		if err := h.SetSpectators(ctx, allow); err != nil {
			return nil, err
		}
		return s.heldState(ctx, tx, h)
	}, nil
}

// move is POST /api/v1/games/{id}/moves {"move", "ply"}; an illegal move is answered with the
// legal ones.
func (s *Server) move(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := boardID(r)
	if err != nil {
		return err
	}
	var req struct {
		Move string `json:"move"`
		Ply  *int   `json:"ply"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Move == "" || req.Ply == nil {
		return apiErr(http.StatusBadRequest, "bad_request", `"move" and "ply" are required.`)
	}
	var st *GameState
	err = s.do(r.Context(), c, func(ctx context.Context, tx bot.Tx) (err error) {
		st, err = s.act(ctx, tx, c, id, boards.Action{Op: boards.OpMove, Move: req.Move, Ply: *req.Ply})
		return err
	})
	if err != nil {
		ae := s.mapErr(s.refusal(r.Context(), c, id, err), c)
		if ae.Code == "illegal_move" {
			_, bd, rerr := s.viewState(r.Context(), c, id)
			if rerr != nil {
				return rerr
			}
			ae.Legal = legalMoves(bd)
		}
		return ae
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// export is GET /api/v1/games/{id}/export: the moves as text (PGN, PDN or a list).
func (s *Server) export(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := boardID(r)
	if err != nil {
		return err
	}
	st, bd, err := s.viewState(r.Context(), c, id)
	if err != nil {
		return err
	}
	text, ext, err := exportGame(bd, st, s.cfg.PublicURL)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="game-%d.%s"`, id, ext))
	io.WriteString(w, text)
	return nil
}

// events is GET /api/v1/games/{id}/events: the stream of the game's changes.
func (s *Server) events(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := boardID(r)
	if err != nil {
		return err
	}
	st, bd, err := s.viewState(r.Context(), c, id)
	if err != nil {
		return err
	}
	if s.cfg.Events == nil {
		return apiErr(http.StatusServiceUnavailable, "unavailable", "Live updates are not available; reload the game instead.")
	}
	revoked, release, err := s.guardGame(r.Context(), c, id, st, bd)
	if err != nil {
		return err
	}
	defer release()
	key := s.key(c, r)
	if !s.streams.acquire(key) {
		return apiErr(http.StatusTooManyRequests, "too_many_streams",
			"Too many live updates are open for you at once; close some game pages.")
	}
	defer s.streams.release(key)
	serveEvents(w, r, s.cfg.Events, id, PingInterval, revoked)
	return nil
}

// guardGame registers the grant of a stream of board id that c watches (st and bd are the board
// as c sees it), and checks that it still holds (revoke.go): revoked is closed when it ends.
// Without Guards (Config.Events is not a Hub) the stream is not guarded.
func (s *Server) guardGame(ctx context.Context, c *caller, id int64, st *GameState, bd *board.Board) (revoked <-chan struct{}, release func(), err error) {
	guards, ok := s.cfg.Events.(Guards)
	if !ok {
		return nil, func() {}, nil
	}
	g := Grant{Token: c.token, Board: id,
		// A public game waiting for an opponent is open to all, whatever the switch says.
		Spectator: st.Seat < 0 && bd.Status != board.Waiting}
	if c.secret != "" {
		g.Session = botpg.SecretHash(c.secret)
	}
	return s.guard(ctx, guards, g)
}

// picture is GET /api/v1/games/{id}/picture.png?seat=0|1&ply=P: the engine's picture of the
// position after ply P (the position now without it). An address
// whose v names the picture shown now may be cached for good. With k, the key of a board played
// in a shared message, it is that board's picture for anyone (sharedpicture.go).
func (s *Server) picture(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := boardID(r)
	if err != nil {
		return err
	}
	if k := r.URL.Query().Get("k"); k != "" {
		return s.sharedPicture(w, r, c, id, k)
	}
	if err := s.limited(c, r); err != nil {
		return err
	}
	st, bd, err := s.viewState(r.Context(), c, id)
	if err != nil {
		return err
	}
	seat := max(st.Seat, 0)
	if q := r.URL.Query().Get("seat"); q != "" {
		if seat, err = strconv.Atoi(q); err != nil || seat < 0 || seat > 1 {
			return apiErr(http.StatusBadRequest, "bad_request", "seat is 0 or 1.")
		}
	}
	// ply names the position shown (the review of the moves steps through them); one the board
	// has not reached (a page that has not yet heard of an undo) is the position now.
	ply := bd.Ply()
	if q := r.URL.Query().Get("ply"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 0 {
			return apiErr(http.StatusBadRequest, "bad_request", "ply is a number of plies, 0 or more.")
		}
		ply = min(n, ply)
	}
	path, version, err := s.cfg.Boards.PictureFileAt(boards.DrawnIn(r.Context(), boards.DrawnWebPicture), bd, seat, ply)
	if err != nil {
		return err
	}
	return s.writePicture(w, r, path, version, "private")
}

// writePicture answers the picture in path, whose version is version: for good to be cached
// (by the browser alone when scope is "private") when the address's v names it, else to be
// asked for again. An address ending in ".jpg" gets the picture as a JPEG: Telegram asks for
// JPEG photos in inline results (the addresses boards.SharedPictureURL and StartPictureURL give).
// The bytes come from the pictures' cache (picturecache.go).
func (s *Server) writePicture(w http.ResponseWriter, r *http.Request, path, version, scope string) error {
	asJPEG := strings.HasSuffix(r.URL.Path, ".jpg")
	data, err := s.pics.get(path, asJPEG)
	if err != nil {
		return err
	}
	contentType := "image/png"
	if asJPEG {
		contentType = "image/jpeg"
	}
	w.Header().Set("Content-Type", contentType)
	if r.URL.Query().Get("v") == version {
		w.Header().Set("Cache-Control", scope+", max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.Write(data)
	return nil
}
