package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/bot/testkit/wait"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// The browser tests drive the pages in a headless Chromium against pagesAPI, an API server of
// this file that answers as the contract of the JSON API says, for one game played with the
// real engine, and records what the pages post. It lets the pages be tested on their own; it is
// a fixture of the contract, never used outside the tests.

// pagesCSRF is the CSRF token pagesAPI hands out and expects.
const pagesCSRF = "csrf-of-ann"

// pagesGameID is the id of pagesAPI's game.
const pagesGameID = 7

// pagesPost is a POST the page sent.
type pagesPost struct {
	Path string
	Body map[string]any
	CSRF string
}

// pagesRefusal is an error pagesAPI answers to the next move instead of playing it.
type pagesRefusal struct {
	status int
	code   string
	msg    string
	legal  []string
}

// pagesAPI is the JSON API of one game for the user Ann, who holds seat 0 (or watches it, seat
// -1).
type pagesAPI struct {
	t    *testing.T
	lang string
	seat int

	mu         sync.Mutex
	game       *engine.Game
	movers     []int // the seat of each ply played
	revision   int64
	status     string
	unseen     []int
	offer      *int
	declined   map[string]any // the answer to Ann's draw offer of this move
	spectators bool
	canUndo    bool
	result     map[string]any
	clockMS    int64 // each side's clock; 0: no clock
	mainMS     int64 // the control's main time (main_ms)
	loggedOut  bool
	refuse     *pagesRefusal
	posts      []pagesPost
	gets       int // GETs of the state
	subs       map[chan string]bool
	sent       int // events sent
	recordID   int64
	// bytes are the bytes of the answers the page received, by kind: "state" (GETs of the
	// state), "events" (the SSE stream) and "picture".
	bytes map[string]int
}

// newPagesAPI starts the game of variant (from position when not empty) for Ann.
func newPagesAPI(t *testing.T, variant, position, lang string) *pagesAPI {
	t.Helper()
	var opts []engine.Option
	if position != "" {
		opts = append(opts, engine.WithPosition(position))
	}
	g, err := engine.NewGame(variant, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return &pagesAPI{t: t, lang: lang, game: g, status: "active", revision: 1, subs: map[chan string]bool{},
		bytes: map[string]int{}}
}

// serve runs the pages and pagesAPI on one test server and returns its address.
func (a *pagesAPI) serve(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/api/", a)
	mux.Handle("POST /logout", a)
	mux.Handle("POST /logout/all", a)
	pages := web.Pages()
	mux.Handle("GET /games", pages)
	mux.Handle("GET /play/{id}", pages)
	mux.Handle("GET /static/", pages)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return srv.URL
}

// pagesJSON writes v as JSON with status.
func pagesJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// pagesError writes an error of the API.
func pagesError(w http.ResponseWriter, status int, code, msg string, legal []string) {
	e := map[string]any{"code": code, "message": msg}
	if legal != nil {
		e["legal"] = legal
	}
	pagesJSON(w, status, map[string]any{"error": e})
}

func (a *pagesAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/api/v1")
	game := fmt.Sprintf("/games/%d", pagesGameID)
	if r.Method == http.MethodPost {
		var body map[string]any
		if r.ContentLength > 0 {
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				pagesError(w, 400, "bad_request", err.Error(), nil)
				return
			}
		}
		a.mu.Lock()
		a.posts = append(a.posts, pagesPost{Path: path, Body: body, CSRF: r.Header.Get("X-CSRF-Token")})
		a.mu.Unlock()
		if r.Header.Get("X-CSRF-Token") != pagesCSRF {
			pagesError(w, 403, "csrf", "no CSRF token", nil)
			return
		}
		a.post(w, path, body)
		return
	}
	a.mu.Lock()
	loggedOut := a.loggedOut
	a.mu.Unlock()
	switch {
	case path == "/me":
		if loggedOut {
			pagesError(w, 401, "unauthorized", "log in", nil)
			return
		}
		pagesJSON(w, 200, map[string]any{"user": map[string]any{"id": 1, "name": "Ann", "lang": a.lang}, "csrf": pagesCSRF})
	case path == "/variants":
		// Each game's levels, named as the server names them (with a measured rating).
		levels := func(variant string) []map[string]string {
			var out []map[string]string
			for _, l := range []board.BotLevel{board.BotEasy, board.BotNormal, board.BotStrong} {
				out = append(out, map[string]string{"name": l.String(), "title": texts.For(a.lang).Level(variant, l)})
			}
			return out
		}
		pagesJSON(w, 200, []map[string]any{
			{"name": "russian", "title": "Russian draughts", "controls": []map[string]string{{"name": "no clock", "title": "No clock"}},
				"levels": levels("russian")},
			{"name": "chess", "title": "Chess", "controls": []map[string]string{
				{"name": "no clock", "title": "No clock"}, {"name": "blitz", "title": "5 minutes"}}, "levels": levels("chess")},
		})
	case path == "/games":
		// Not in the API's order: the page puts my turn first itself.
		pagesJSON(w, 200, []map[string]any{
			{"id": 3, "variant": "chess", "title": "Chess", "control": "blitz", "control_title": "5 minutes", "status": "active",
				"my_turn": false, "opponent": "Bob", "ply": 4, "deadline": time.Now().Add(time.Minute), "left_ms": 154000},
			{"id": pagesGameID, "variant": "russian", "title": "Russian draughts", "status": "active", "my_turn": true, "opponent": "Bot", "ply": 0, "deadline": nil},
		})
	case path == "/games/waiting":
		pagesJSON(w, 200, []map[string]any{
			{"id": 9, "variant": "russian", "title": "Russian draughts", "control": "corr1d", "control_title": "1 day a move",
				"status": "waiting", "my_turn": false, "opponent": "Carol", "ply": 0, "deadline": nil},
		})
	case path == game:
		a.mu.Lock()
		a.gets++
		st := a.stateLocked()
		data, err := json.Marshal(st)
		if err != nil {
			a.t.Error(err)
		}
		a.bytes["state"] += len(data)
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	case path == game+"/picture.png":
		seat, err := strconv.Atoi(r.URL.Query().Get("seat"))
		if err != nil || seat < 0 || seat > 1 {
			pagesError(w, 400, "bad_request", "seat", nil)
			return
		}
		var buf bytes.Buffer
		a.mu.Lock()
		err = a.game.WritePNG(&buf, engine.Player(seat))
		a.bytes["picture"] += buf.Len()
		a.mu.Unlock()
		if err != nil {
			a.t.Errorf("picture: %v", err)
			pagesError(w, 500, "internal", err.Error(), nil)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(buf.Bytes()) // a browser closing the page may not read it all
	case path == game+"/events" || path == "/events":
		a.events(w, r)
	default:
		pagesError(w, 404, "not_found", "no such thing", nil)
	}
}

// post answers a POST of the page.
func (a *pagesAPI) post(w http.ResponseWriter, path string, body map[string]any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	game := fmt.Sprintf("/games/%d", pagesGameID)
	switch path {
	case "/logout", "/logout/all":
		a.loggedOut = true
		w.WriteHeader(http.StatusNoContent)
		return
	case "/games":
		pagesJSON(w, 201, map[string]any{"id": 11})
		return
	case "/games/9/join":
		pagesJSON(w, 200, map[string]any{"id": 9})
		return
	case game + "/moves":
		if f := a.refuse; f != nil {
			a.refuse = nil
			pagesError(w, f.status, f.code, f.msg, f.legal)
			return
		}
		text, _ := body["move"].(string)
		ply, ok := body["ply"].(float64)
		if !ok || int(ply) != a.game.Ply() {
			pagesError(w, 409, "stale", "the board moved on", nil)
			return
		}
		if a.status != "active" || a.game.ToMove() != engine.First {
			pagesError(w, 409, "conflict", "not your turn", nil)
			return
		}
		if err := a.playLocked(text); err != nil {
			pagesError(w, 422, "illegal_move", err.Error(), a.legalTextsLocked())
			return
		}
	case game + "/seen":
		ply, _ := body["ply"].(float64)
		a.unseen = slices.DeleteFunc(a.unseen, func(p int) bool { return p <= int(ply) })
	case game + "/resign":
		a.status = "finished"
		a.result = map[string]any{"text": "Ann resigned: Bot wins", "winner": 1}
	case game + "/draw":
		if body["action"] == "offer" {
			seat := 0
			a.offer = &seat
		} else {
			a.offer = nil
		}
	case game + "/undo":
		a.canUndo = false
	case game + "/spectators":
		a.spectators, _ = body["allow"].(bool)
	default:
		pagesError(w, 404, "not_found", "no such thing", nil)
		return
	}
	a.changedLocked()
	pagesJSON(w, 200, a.stateLocked())
}

// playLocked plays a move of the side to move.
func (a *pagesAPI) playLocked(text string) error {
	seat := int(a.game.ToMove())
	if _, err := a.game.Play(text); err != nil {
		return err
	}
	a.movers = append(a.movers, seat)
	return nil
}

// opponentMoves plays the first legal move for seat 1, as the bot would, and announces it.
func (a *pagesAPI) opponentMoves() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.game.ToMove() != engine.Second {
		a.t.Fatalf("the opponent is not to move")
	}
	mv := a.game.LegalMoves()[0]
	if err := a.playLocked(mv.String()); err != nil {
		a.t.Fatal(err)
	}
	a.unseen = append(a.unseen, a.game.Ply())
	a.changedLocked()
	return mv.String()
}

// changedLocked counts a change of the game and sends every stream an event of the record for
// it, one the page cannot draw by itself (an undo's), so that it reads the state.
func (a *pagesAPI) changedLocked() {
	a.revision++
	a.recordID++
	ev := boards.Event{ID: a.recordID, Board: pagesGameID, Kind: boards.EventKindUndone, Seat: 0, Actor: 0, By: "web",
		Ply: a.game.Ply(), Heard: [2]string{"now", "now"}, At: time.Now(), Data: boards.EventData{
			Status: a.status, ToMove: int(a.game.ToMove()), Revision: a.revision}}
	data, err := json.Marshal(ev)
	if err != nil {
		a.t.Fatal(err)
	}
	a.sendLocked(fmt.Sprintf("id: %d\nevent: record\ndata: %s\n\n", ev.ID, data))
}

// sendLocked sends an SSE event to every stream.
func (a *pagesAPI) sendLocked(text string) {
	for ch := range a.subs {
		select {
		case ch <- text:
		default:
			a.t.Error("a stream of the page is 64 events behind")
		}
	}
}

// spectatedMove plays the first legal move of the side to move, as another player would, and
// announces it as the web server does: the record's event of the move, which carries what a
// spectator's page draws (it says the revision too).
func (a *pagesAPI) spectatedMove() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	seat := int(a.game.ToMove())
	mv := a.game.LegalMoves()[0]
	if err := a.playLocked(mv.String()); err != nil {
		a.t.Fatal(err)
	}
	a.revision++
	a.recordID++
	ply := a.game.Ply()
	sep := ". "
	if (ply-1)%2 == 1 {
		sep = "… "
	}
	ev := boards.Event{ID: a.recordID, Board: pagesGameID, Kind: boards.EventKindMoved, Seat: seat, Actor: seat, By: "web",
		Ply: ply, Heard: [2]string{"now", "now"}, At: time.Now(), Data: boards.EventData{
			Move: mv.String(), Written: fmt.Sprintf("%d%s%s", (ply-1)/2+1, sep, a.game.Record()[ply-1]),
			Status: a.status, ToMove: int(a.game.ToMove()), Revision: a.revision, Picture: fmt.Sprint(ply)}}
	data, err := json.Marshal(ev)
	if err != nil {
		a.t.Fatal(err)
	}
	a.sendLocked(fmt.Sprintf("id: %d\nevent: record\ndata: %s\n\n", ev.ID, data))
	return a.game.Record()[ply-1]
}

// events serves the SSE stream of the game.
func (a *pagesAPI) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		a.t.Error("events: no flusher")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	ch := make(chan string, 64)
	a.mu.Lock()
	a.subs[ch] = true
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.subs, ch)
		a.mu.Unlock()
	}()
	fmt.Fprint(w, "retry: 2000\n\n")
	flusher.Flush()
	a.mu.Lock()
	a.bytes["events"] += len("retry: 2000\n\n")
	a.mu.Unlock()
	for {
		select {
		case <-r.Context().Done():
			return
		case text := <-ch:
			fmt.Fprint(w, text)
			flusher.Flush()
			a.mu.Lock()
			a.sent++
			a.bytes["events"] += len(text)
			a.mu.Unlock()
		}
	}
}

// legalTextsLocked lists the notation of the legal moves.
func (a *pagesAPI) legalTextsLocked() []string {
	var out []string
	for _, m := range a.game.LegalMoves() {
		out = append(out, m.String())
	}
	return out
}

// stateLocked is the game's state for Ann (seat 0), as the contract shapes it.
func (a *pagesAPI) stateLocked() map[string]any {
	g := a.game
	toMove := int(g.ToMove())
	moves := []map[string]any{}
	for i, mv := range g.History() {
		moves = append(moves, map[string]any{"ply": i + 1, "seat": a.movers[i], "number": (i+a.movers[0])/2 + 1,
			"text": g.Record()[i], "move": mv.String()})
	}
	legal := []map[string]any{}
	if a.status == "active" && a.seat >= 0 && toMove == a.seat {
		for _, mv := range g.LegalMoves() {
			path, _ := g.Describe(mv)
			legal = append(legal, map[string]any{"text": mv.String(), "shown": g.Display(mv), "path": path})
		}
	}
	im := g.ImageMap(engine.Player(max(a.seat, 0)))
	var squares []map[string]any
	for _, s := range im.Squares {
		squares = append(squares, map[string]any{"name": s.Name, "x": s.X, "y": s.Y, "r": s.Radius})
	}
	var deadline any
	if a.clockMS > 0 && a.status == "active" {
		deadline = time.Now().Add(time.Duration(a.clockMS) * time.Millisecond).UTC().Format(time.RFC3339Nano)
	}
	var offer any
	if a.offer != nil {
		offer = map[string]any{"seat": *a.offer}
	}
	return map[string]any{
		"id": pagesGameID, "variant": g.Variant(), "title": g.Title(), "control": "no clock", "main_ms": a.mainMS,
		"status": a.status, "revision": a.revision, "seat": a.seat,
		"seats": []map[string]any{
			{"name": "Ann", "bot": "", "clock_ms": a.clockMS},
			{"name": fmt.Sprintf(texts.For(a.lang).Board.Bot, texts.For(a.lang).Board.Levels["strong"]), "bot": "strong",
				"level": texts.For(a.lang).Board.Levels["strong"], "clock_ms": a.clockMS},
		},
		"to_move": toMove, "ply": g.Ply(), "deadline": deadline,
		"moves": moves, "unseen": append([]int{}, a.unseen...), "legal": legal,
		"offer": offer, "declined": a.declined, "can_undo": a.canUndo, "spectators": a.spectators, "result": a.result,
		"picture": map[string]any{
			"url":   fmt.Sprintf("/api/v1/games/%d/picture.png?seat=%d&ply=%d&v=%d", pagesGameID, max(a.seat, 0), g.Ply(), g.Ply()),
			"width": im.Width, "height": im.Height, "squares": squares,
		},
	}
}

// postsTo returns the recorded POSTs to path.
func (a *pagesAPI) postsTo(path string) []pagesPost {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []pagesPost
	for _, p := range a.posts {
		if p.Path == path {
			out = append(out, p)
		}
	}
	return out
}

// count reads a counter under the lock.
func (a *pagesAPI) count(f func() int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return f()
}

// spot is where a square is in the picture of seat 0.
func (a *pagesAPI) spot(t *testing.T, name string) (engine.SquareSpot, engine.ImageMap) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	im := a.game.ImageMap(engine.First)
	return pagesSpot(t, im, name), im
}

// pagesSpot is where a square is in a picture laid out as im.
func pagesSpot(t *testing.T, im engine.ImageMap, name string) engine.SquareSpot {
	t.Helper()
	for _, s := range im.Squares {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no square %s", name)
	return engine.SquareSpot{}
}

// pagesBrowser starts a headless Chromium for one test.
func pagesBrowser(t *testing.T) context.Context {
	t.Helper()
	return bottest.Browser(t, wait.Hang, 1200, 900)
}

// pagesUntil waits until the JavaScript expression holds in the page. A page that navigates
// meanwhile (a link followed, a page that goes elsewhere by itself) destroys the context the
// expression runs in: the wait then goes on in the new page.
func pagesUntil(expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		deadline := time.Now().Add(wait.Hang)
		for {
			v, err := chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(time.Until(deadline)))(ctx, tg)
			if err == nil || time.Now().After(deadline) || ctx.Err() != nil || !pagesContextLost(err) {
				return v, err
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// pagesTapUntil taps (tap) and waits a few seconds for expr to hold, and taps again while it
// does not: a tap while the page is still drawing the state it fetched (its legal moves, the
// picture's size) selects nothing, which a busy machine makes likely. It gives up after
// wait.Hang, a bound on a hang only.
func pagesTapUntil(ctx context.Context, t *testing.T, what string, tap func(), expr string) {
	t.Helper()
	deadline := time.Now().Add(wait.Hang)
	for {
		tap()
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(5*time.Second)))
		if err == nil {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// pagesContextLost reports whether err is the loss of the page's JavaScript context to a
// navigation.
func pagesContextLost(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}

// pagesBoardReady waits until the page shows the board's picture.
var pagesBoardReady = pagesUntil(`(() => { const i = document.getElementById("picture");
	return i && i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 0; })()`)

// pagesRect is an element's place in the viewport.
type pagesRect struct {
	Left, Top, Width, Height float64
}

// pagesRectOf measures the element of the selector.
func pagesRectOf(ctx context.Context, t *testing.T, sel string) pagesRect {
	t.Helper()
	r, err := chromedp.Run(ctx, chromedp.Evaluate[pagesRect](fmt.Sprintf(`(() => {
		const r = document.querySelector(%q).getBoundingClientRect();
		return {Left: r.left, Top: r.top, Width: r.width, Height: r.height}; })()`, sel)))
	if err != nil {
		t.Fatalf("measure %s: %v", sel, err)
	}
	return r
}

// pagesTap clicks (or, with touch, taps) the centre of a square of the picture.
func pagesTap(ctx context.Context, t *testing.T, a *pagesAPI, square string, touch bool) {
	t.Helper()
	s, im := a.spot(t, square)
	pagesTapSpot(ctx, t, s, im, touch)
}

// pagesTapSpot clicks (or taps) the centre of a square of a picture laid out as im.
func pagesTapSpot(ctx context.Context, t *testing.T, s engine.SquareSpot, im engine.ImageMap, touch bool) {
	t.Helper()
	r := pagesRectOf(ctx, t, "#picture")
	x := r.Left + float64(s.X)/float64(im.Width)*r.Width
	y := r.Top + float64(s.Y)/float64(im.Height)*r.Height
	act := chromedp.MouseClickXY(x, y)
	if touch {
		act = chromedp.TapXY(x, y)
	}
	if err := chromedp.Do(ctx, act); err != nil {
		t.Fatalf("tap %s: %v", s.Name, err)
	}
}

// pagesMarked lists the squares marked with kind on the board, sorted.
func pagesMarked(ctx context.Context, t *testing.T, kind string) []string {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf(
		`[...document.querySelectorAll("#marks .mark.%s")].map(m => m.dataset.square)`, kind)))
	if err != nil {
		t.Fatalf("marks %s: %v", kind, err)
	}
	slices.Sort(got)
	return got
}

// pagesText is the text of the element of the selector.
func pagesText(ctx context.Context, t *testing.T, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).textContent`, sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// pagesWaitLocation waits until the page has gone to url and loaded it. The page navigates by
// itself, so a check may meet the old page going away: it is then tried again.
func pagesWaitLocation(ctx context.Context, t *testing.T, url string) {
	t.Helper()
	wait.For(t, wait.Hang, "the page at "+url, func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(
			`location.href === %q && document.readyState === "complete"`, url)))
		return err == nil && ok
	})
}

// pagesWantMove checks that the i-th POST of a move carried text and ply.
func pagesWantMove(t *testing.T, a *pagesAPI, i int, text string, ply int) {
	t.Helper()
	path := fmt.Sprintf("/games/%d/moves", pagesGameID)
	wait.For(t, wait.Hang, fmt.Sprintf("move %d posted", i+1), func() bool { return len(a.postsTo(path)) > i })
	p := a.postsTo(path)[i]
	if p.Body["move"] != text || p.Body["ply"] != float64(ply) || p.CSRF != pagesCSRF {
		t.Fatalf("move %d posted %v with CSRF %q, want %s at ply %d with %q", i+1, p.Body, p.CSRF, text, ply, pagesCSRF)
	}
}

// Ensure a player moves by clicking a piece and its target, sees the legal targets after the
// first click, gets the opponent's move through an event and reports it seen, and resigns only
// after confirming; the page reads the state once when it loads and again only for an event that
// does not say enough (here the opponent's move comes as a "board" event alone, as a change no
// event of the record says), never by polling.
func TestPlayPageMoves(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "en")
	a.clockMS = 300000
	url := a.serve(t)
	ctx := pagesBrowser(t)

	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady,
		pagesUntil(`document.querySelectorAll("#marks .mark.piece").length > 0`)); err != nil {
		t.Fatalf("open the game: %v", err)
	}
	// The page listens to the events and has fetched the state once before anything moves.
	wait.For(t, wait.Hang, "the event stream", func() bool {
		return a.count(func() int { return len(a.subs) }) == 1 && a.count(func() int { return a.gets }) >= 1
	})
	if got := pagesText(ctx, t, "#turn"); got != "Your move." {
		t.Errorf("turn: %q", got)
	}
	if got := pagesText(ctx, t, "#players .player.to-move .name"); got != "Ann (you)" {
		t.Errorf("the side to move: %q", got)
	}
	if got := pagesText(ctx, t, "#players .player[data-seat='1'] .name"); got != "Bot (strong)" {
		t.Errorf("the opponent: %q", got)
	}
	// The movable pieces are those the engine lets move.
	g, err := engine.NewGame("russian")
	if err != nil {
		t.Fatal(err)
	}
	first, err := g.Steps(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := pagesMarked(ctx, t, "piece"); !slices.Equal(got, first.Next) {
		t.Errorf("movable pieces marked %v, want %v", got, first.Next)
	}
	// The clock of the side to move runs down locally, from the 5 minutes the state gave (how
	// far it has run depends on the browser's real time, so only its form and its going down
	// are checked).
	clock := "#players .player[data-seat='0'] .clock"
	shown := pagesText(ctx, t, clock)
	if !regexp.MustCompile(`^(5:00|[0-4]:[0-5]\d)$`).MatchString(shown) {
		t.Errorf("Ann's clock shows %q", shown)
	}
	if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`(() => { const v = document.querySelector(%q).textContent;
		return /^[0-4]:[0-5]\d$/.test(v) && v !== %q; })()`, clock, shown))); err != nil {
		t.Fatalf("the clock does not run: %v", err)
	}
	if got := pagesText(ctx, t, "#players .player[data-seat='1'] .clock"); got != "5:00" {
		t.Errorf("the waiting clock shows %q", got)
	}

	// The piece, then its targets, then the target.
	steps, err := g.Steps([]string{"c3"})
	if err != nil {
		t.Fatal(err)
	}
	pagesTapUntil(ctx, t, "no targets", func() { pagesTap(ctx, t, a, "c3", false) },
		`document.querySelectorAll("#marks .mark.target").length > 0`)
	if got := pagesMarked(ctx, t, "target"); !slices.Equal(got, steps.Next) {
		t.Errorf("targets of c3: %v, want %v", got, steps.Next)
	}
	if got := pagesMarked(ctx, t, "sel"); !slices.Equal(got, []string{"c3"}) {
		t.Errorf("selected: %v", got)
	}
	if n := len(a.postsTo(fmt.Sprintf("/games/%d/moves", pagesGameID))); n != 0 {
		t.Fatalf("%d moves posted after the first click", n)
	}
	pagesTap(ctx, t, a, "d4", false)
	pagesWantMove(t, a, 0, "c3-d4", 0)
	if err := chromedp.Do(ctx, pagesUntil(`document.querySelectorAll("#moves li").length === 1 &&
		document.querySelector("#moves li").textContent === "c3-d4" && document.querySelectorAll("#marks .mark.piece").length === 0`)); err != nil {
		t.Fatalf("the move is not shown: %v", err)
	}

	// The page's own move is drawn from the answer of its POST: its event fetches nothing.
	gets := a.count(func() int { return a.gets })
	if gets != 1 {
		t.Errorf("%d fetches of the state after the load and a move, want 1", gets)
	}
	// The opponent answers; the "board" event makes the page fetch the state, show the new
	// move, and report it seen.
	reply := a.opponentMoves()
	err = chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`document.querySelectorAll("#moves li").length === 2 &&
		document.querySelector("#moves li.fresh").textContent === %q &&
		!document.getElementById("news").hidden && document.getElementById("news").textContent.includes(%q)`, reply, reply)))
	if err != nil {
		t.Fatalf("the opponent's move is not shown: %v", err)
	}
	if a.count(func() int { return a.gets }) <= gets {
		t.Fatal("the page showed the move without fetching the state")
	}
	seen := fmt.Sprintf("/games/%d/seen", pagesGameID)
	wait.For(t, wait.Hang, "the move reported seen", func() bool { return len(a.postsTo(seen)) > 0 })
	if p := a.postsTo(seen)[0]; p.Body["ply"] != float64(2) || p.CSRF != pagesCSRF {
		t.Fatalf("seen posted %v with %q, want ply 2", p.Body, p.CSRF)
	}
	if got := pagesText(ctx, t, "#turn"); got != "Your move." {
		t.Errorf("turn after the reply: %q", got)
	}

	// Resigning asks first; "no" keeps playing.
	resign := fmt.Sprintf("/games/%d/resign", pagesGameID)
	if err := chromedp.Do(ctx, chromedp.Click("#resign"), chromedp.WaitVisible("#confirm")); err != nil {
		t.Fatalf("resign: %v", err)
	}
	if n := len(a.postsTo(resign)); n != 0 {
		t.Fatalf("resigned without confirmation (%d posts)", n)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#resign-no"), chromedp.WaitNotVisible("#confirm")); err != nil {
		t.Fatalf("resign, no: %v", err)
	}
	if n := len(a.postsTo(resign)); n != 0 {
		t.Fatalf("resigned after saying no (%d posts)", n)
	}
	err = chromedp.Do(ctx, chromedp.Click("#resign"), chromedp.WaitVisible("#resign-yes"), chromedp.Click("#resign-yes"),
		pagesUntil(`!document.getElementById("result").hidden && document.getElementById("result").textContent === "Ann resigned: Bot wins"`),
		pagesUntil(`document.getElementById("resign").hidden && document.querySelectorAll("#marks .mark.piece").length === 0`))
	if err != nil {
		t.Fatalf("resign, yes: %v", err)
	}
	if p := a.postsTo(resign); len(p) != 1 || !hasPly(p[0].Body) {
		t.Fatalf("resignations posted: %+v", p)
	}

	// The state was fetched at the load and for the opponent's move alone: the events of the
	// page's own operations (the move, seen, the resignation) name revisions their answers
	// showed.
	wait.For(t, wait.Hang, "the four events", func() bool { return a.count(func() int { return a.sent }) >= 4 })
	if gets, events := a.count(func() int { return a.gets }), a.count(func() int { return a.sent }); gets != 2 {
		t.Errorf("%d fetches of the state for %d events, want 2 (the load, the opponent's move)", gets, events)
	}
}

// Ensure refused moves are explained in the status line: a stale board is fetched again, an
// illegal move lists the legal ones, a lost login says how to log in; in Russian for a
// Russian user.
func TestPlayPageErrors(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "ru")
	url := a.serve(t)
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady,
		pagesUntil(`document.querySelectorAll("#marks .mark.piece").length > 0`)); err != nil {
		t.Fatalf("open the game: %v", err)
	}
	if got := pagesText(ctx, t, "#turn"); got != "Ваш ход." {
		t.Errorf("turn in Russian: %q", got)
	}
	if got := pagesText(ctx, t, "#resign"); got != "Сдаться" {
		t.Errorf("resign in Russian: %q", got)
	}
	// No clock in this game: none is shown.
	if err := chromedp.Do(ctx, pagesUntil(`[...document.querySelectorAll("#players .clock")].every(c => c.hidden)`)); err != nil {
		t.Fatalf("clocks without a clock: %v", err)
	}

	refuse := func(r pagesRefusal) {
		a.mu.Lock()
		a.refuse = &r
		a.mu.Unlock()
	}

	// Stale: the page says so and fetches the board again.
	refuse(pagesRefusal{status: 409, code: "stale", msg: "the board moved on"})
	gets := a.count(func() int { return a.gets })
	pagesTap(ctx, t, a, "c3", false)
	pagesTap(ctx, t, a, "d4", false)
	pagesWantMove(t, a, 0, "c3-d4", 0)
	if err := chromedp.Do(ctx, pagesUntil(`document.getElementById("status").textContent === "Позиция изменилась: вот она."`)); err != nil {
		t.Fatalf("stale: %v", err)
	}
	wait.For(t, wait.Hang, "the board fetched again", func() bool { return a.count(func() int { return a.gets }) > gets })

	// Illegal: the message and the legal moves.
	legal := []string{"a3-b4", "c3-b4", "c3-d4"}
	refuse(pagesRefusal{status: 422, code: "illegal_move", msg: "Так ходить нельзя.", legal: legal})
	pagesTap(ctx, t, a, "c3", false)
	pagesTap(ctx, t, a, "d4", false)
	pagesWantMove(t, a, 1, "c3-d4", 0)
	want := "Так ходить нельзя. Возможные ходы: a3-b4, c3-b4, c3-d4."
	if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`document.getElementById("status").textContent === %q`, want))); err != nil {
		t.Fatalf("illegal: %v (status %q)", err, pagesText(ctx, t, "#status"))
	}

	// Logged out: how to log in.
	refuse(pagesRefusal{status: 401, code: "unauthorized", msg: "log in"})
	pagesTap(ctx, t, a, "c3", false)
	pagesTap(ctx, t, a, "d4", false)
	pagesWantMove(t, a, 2, "c3-d4", 0)
	want = "Вы не вошли: отправьте боту /web, он пришлёт ссылку для входа."
	if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`document.getElementById("status").textContent === %q`, want))); err != nil {
		t.Fatalf("unauthorized: %v (status %q)", err, pagesText(ctx, t, "#status"))
	}

	// And the move still goes through once the server takes it.
	pagesTap(ctx, t, a, "c3", false)
	pagesTap(ctx, t, a, "d4", false)
	pagesWantMove(t, a, 3, "c3-d4", 0)
	if err := chromedp.Do(ctx, pagesUntil(`document.querySelectorAll("#moves li").length === 1`)); err != nil {
		t.Fatalf("the move after the errors: %v", err)
	}
}

// Ensure the page fits a phone: the whole board shows in a 400 px wide screen without sideways
// scrolling, the buttons are big enough to tap, and taps play a move.
func TestPlayPagePhone(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "en")
	url := a.serve(t)
	ctx := pagesBrowser(t)
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(400, 800, chromedp.EmulatePortrait, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady,
		pagesUntil(`document.querySelectorAll("#marks .mark.piece").length > 0`))
	if err != nil {
		t.Fatalf("open the game: %v", err)
	}
	view, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](
		`[window.innerWidth, window.innerHeight, document.documentElement.scrollWidth]`))
	if err != nil {
		t.Fatal(err)
	}
	if view[0] != 400 {
		t.Fatalf("the viewport is %v px wide, want 400", view[0])
	}
	if view[2] > view[0] {
		t.Errorf("the page is %v px wide in a %v px screen", view[2], view[0])
	}
	board := pagesRectOf(ctx, t, "#picture")
	if board.Left < 0 || board.Top < 0 || board.Left+board.Width > view[0] || board.Top+board.Height > view[1] {
		t.Errorf("the board %+v does not fit the %vx%v screen", board, view[0], view[1])
	}
	if board.Width < 300 {
		t.Errorf("the board is only %v px wide", board.Width)
	}
	if b := pagesRectOf(ctx, t, "#resign"); b.Height < 40 {
		t.Errorf("the resign button is %v px high", b.Height)
	}
	pagesTapUntil(ctx, t, "no targets after a tap", func() { pagesTap(ctx, t, a, "g3", true) },
		`document.querySelectorAll("#marks .mark.target").length > 0`)
	pagesTap(ctx, t, a, "h4", true)
	pagesWantMove(t, a, 0, "g3-h4", 0)
}

// Ensure several moves along one path (a chess promotion) are offered as buttons by their text,
// and the one pressed is played.
func TestPlayPagePromotion(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "chess", "k7/4P3/8/8/8/8/8/4K3 w - - 0 1", "en")
	url := a.serve(t)
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady,
		pagesUntil(`document.querySelectorAll("#marks .mark.piece").length > 0`)); err != nil {
		t.Fatalf("open the game: %v", err)
	}
	g, err := engine.NewGame("chess", engine.WithPosition("k7/4P3/8/8/8/8/8/4K3 w - - 0 1"))
	if err != nil {
		t.Fatal(err)
	}
	var want, shown []string
	for _, mv := range g.LegalMoves() {
		if path, _ := g.Describe(mv); slices.Equal(path, []string{"e7", "e8"}) {
			want = append(want, mv.String())
			shown = append(shown, g.Display(mv))
		}
	}
	if len(want) < 2 {
		t.Fatalf("the position promotes in %d ways", len(want))
	}
	pagesTap(ctx, t, a, "e7", false)
	pagesTap(ctx, t, a, "e8", false)
	if err := chromedp.Do(ctx, chromedp.WaitVisible("#choices")); err != nil {
		t.Fatalf("no choice: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#choices button.choice")].map(b => b.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(shown)
	if !slices.Equal(got, shown) || !slices.Contains(got, "e8=Q+") {
		t.Fatalf("choices %v, want %v, as people read them", got, shown)
	}
	if n := len(a.postsTo(fmt.Sprintf("/games/%d/moves", pagesGameID))); n != 0 {
		t.Fatalf("%d moves posted before the choice", n)
	}
	pick := want[len(want)-1]
	if err := chromedp.Do(ctx, chromedp.Click(fmt.Sprintf(`#choices button[data-move=%q]`, pick))); err != nil {
		t.Fatal(err)
	}
	pagesWantMove(t, a, 0, pick, 0)
}

// Ensure the lobby lists my games with my turn first and the waiting ones, starts a game
// against the bot from the variants and time controls of the API, joins a waiting game, and
// logs out with the CSRF token; logged out, it says how to log in.
func TestLobbyPage(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "en")
	url := a.serve(t)
	ctx := pagesBrowser(t)
	err := chromedp.Do(ctx, chromedp.Navigate(url+"/games"),
		pagesUntil(`document.querySelectorAll("#my-games li").length === 2 && document.querySelectorAll("#variant option").length === 2`))
	if err != nil {
		t.Fatalf("open the lobby: %v", err)
	}
	links, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#my-games li a")].map(a => a.getAttribute("href"))`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(links, []string{"/play/7", "/play/3"}) {
		t.Errorf("my games %v, want my turn first", links)
	}
	if got := pagesText(ctx, t, "#my-games li.my-turn .badge"); got != "your turn" {
		t.Errorf("badge %q", got)
	}
	if got := pagesText(ctx, t, "#who"); got != "Ann" {
		t.Errorf("who: %q", got)
	}
	// Each entry names its clock, and a running game the time left of the side to move.
	if got := pagesText(ctx, t, `#my-games li[data-id="3"] .control`); got != "5 minutes" {
		t.Errorf("the clock of game 3: %q", got)
	}
	if got := pagesText(ctx, t, `#my-games li[data-id="3"] .left`); got != "they have 2:34" {
		t.Errorf("the time left in game 3: %q", got)
	}
	if got := pagesText(ctx, t, `#waiting-games li[data-id="9"] .control`); got != "1 day a move" {
		t.Errorf("the clock of the waiting game: %q", got)
	}

	// A chess game against the strong bot with the second time control.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const v = document.getElementById("variant");
		v.value = "chess"; return v.dispatchEvent(new Event("change")); })()`)); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		pagesUntil(`document.querySelectorAll("#control option").length === 2`),
		chromedp.SetValue("#control", "blitz"),
		chromedp.Click(`input[name="opponent"][value="bot"]`),
		pagesUntil(`!document.getElementById("level").disabled`),
		chromedp.SetValue("#level", "strong"),
		chromedp.Click("#create"),
	)
	if err != nil {
		t.Fatalf("start a game: %v", err)
	}
	pagesWaitLocation(ctx, t, url+"/play/11")
	created := a.postsTo("/games")
	if len(created) != 1 || created[0].CSRF != pagesCSRF || created[0].Body["variant"] != "chess" ||
		created[0].Body["control"] != "blitz" || created[0].Body["bot"] != "strong" {
		t.Fatalf("created %+v", created)
	}

	// Joining a waiting game opens it.
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"/games")); err != nil {
		t.Fatalf("back to the lobby: %v", err)
	}
	err = chromedp.Do(ctx, pagesUntil(`document.querySelectorAll("#waiting-games li button.join").length === 1`))
	if err != nil {
		t.Fatalf("waiting games: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#waiting-games button.join")); err != nil {
		t.Fatalf("join: %v", err)
	}
	pagesWaitLocation(ctx, t, url+"/play/9")
	if j := a.postsTo("/games/9/join"); len(j) != 1 || j[0].CSRF != pagesCSRF {
		t.Fatalf("joined %+v", j)
	}

	// Logging out everywhere, then back at the lobby: the login hint.
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"/games")); err != nil {
		t.Fatalf("back to the lobby: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible("#logout-all")); err != nil {
		t.Fatalf("log out everywhere: %v", err)
	}
	err = chromedp.Do(ctx, chromedp.Click("#logout-all"), pagesUntil(`!document.getElementById("login-hint").hidden &&
		document.getElementById("lobby").hidden && document.getElementById("logout").hidden`))
	if err != nil {
		t.Fatalf("log out everywhere: %v", err)
	}
	if l := a.postsTo("/logout/all"); len(l) != 1 || l[0].CSRF != pagesCSRF {
		t.Fatalf("logged out %+v", l)
	}
	err = chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible("#login-hint"))
	if err != nil {
		t.Fatalf("logged out lobby: %v", err)
	}
	if got := pagesText(ctx, t, "#login-hint"); !strings.Contains(got, "send /web to the bot for a login link") {
		t.Errorf("login hint %q", got)
	}

	// Logging out of this session.
	a.mu.Lock()
	a.loggedOut = false
	a.mu.Unlock()
	err = chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible("#logout"),
		chromedp.Click("#logout"), chromedp.WaitVisible("#login-hint"))
	if err != nil {
		t.Fatalf("log out: %v", err)
	}
	if l := a.postsTo("/logout"); len(l) != 1 || l[0].CSRF != pagesCSRF {
		t.Fatalf("logged out %+v", l)
	}
}

// Ensure the buttons of a game post their operations: a draw offered, the opponent's offer
// declined, an undo when the server allows it, the spectators switch; and the export link.
func TestPlayPageActions(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "en")
	url := a.serve(t)
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady,
		pagesUntil(`document.querySelectorAll("#marks .mark.piece").length > 0`)); err != nil {
		t.Fatalf("open the game: %v", err)
	}
	wait.For(t, wait.Hang, "the event stream", func() bool { return a.count(func() int { return len(a.subs) }) == 1 })
	game := fmt.Sprintf("/games/%d", pagesGameID)
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("export").getAttribute("href")`)); err != nil || got != "/api/v1"+game+"/export" {
		t.Errorf("export link %q (%v)", got, err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitNotVisible("#undo"), chromedp.WaitNotVisible("#draw-accept")); err != nil {
		t.Fatal(err)
	}

	// A draw offered: the offer shows and cannot be made twice.
	err := chromedp.Do(ctx, chromedp.Click("#draw-offer"),
		pagesUntil(`document.getElementById("offer").textContent === "You offered a draw." && document.getElementById("draw-offer").hidden`))
	if err != nil {
		t.Fatalf("offer a draw: %v", err)
	}
	if p := a.postsTo(game + "/draw"); len(p) != 1 || p[0].Body["action"] != "offer" || !hasPly(p[0].Body) {
		t.Fatalf("draw posts %+v", p)
	}

	// The opponent's offer arrives by an event, and is declined.
	a.mu.Lock()
	seat := 1
	a.offer = &seat
	a.changedLocked()
	a.mu.Unlock()
	err = chromedp.Do(ctx, pagesUntil(`document.getElementById("offer").textContent === "Bot (strong) offers a draw." &&
		!document.getElementById("draw-accept").hidden`), chromedp.Click("#draw-decline"),
		pagesUntil(`document.getElementById("offer").hidden && !document.getElementById("draw-offer").hidden`))
	if err != nil {
		t.Fatalf("decline a draw: %v", err)
	}
	if p := a.postsTo(game + "/draw"); len(p) != 2 || p[1].Body["action"] != "decline" || !hasPly(p[1].Body) {
		t.Fatalf("draw posts %+v", p)
	}

	// Undo, when the server allows it.
	a.mu.Lock()
	a.canUndo = true
	a.changedLocked()
	a.mu.Unlock()
	if err := chromedp.Do(ctx, chromedp.WaitVisible("#undo"), chromedp.Click("#undo"), chromedp.WaitNotVisible("#undo")); err != nil {
		t.Fatalf("undo: %v", err)
	}
	if p := a.postsTo(game + "/undo"); len(p) != 1 || p[0].CSRF != pagesCSRF || !hasPly(p[0].Body) {
		t.Fatalf("undo posts %+v", p)
	}

	// The spectators switch.
	if err := chromedp.Do(ctx, chromedp.Click("#spectators"), pagesUntil(`document.getElementById("spectators").checked`)); err != nil {
		t.Fatalf("spectators: %v", err)
	}
	wait.For(t, wait.Hang, "the switch posted", func() bool { return len(a.postsTo(game+"/spectators")) == 1 })
	if p := a.postsTo(game + "/spectators"); p[0].Body["allow"] != true {
		t.Fatalf("spectators posts %+v", p)
	}
	a.mu.Lock()
	allowed := a.spectators
	a.mu.Unlock()
	if !allowed {
		t.Fatal("spectators not allowed after the switch")
	}
}

// Ensure the pages work with the real server: Ann logs in with the link from /web, starts a game
// from the lobby, Bob (a program on the API) is paired with her; Ann's clicks play her moves on
// the board Bob reads, and Bob's moves show on her page by its event stream, and the page reports
// them seen on the board.
func TestPlayPageServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Pages: web.Pages()})
	e.User(1, "Ann", "en")
	link := e.link(t, 1)
	bob := e.login(t, 2, "Bob")
	// The browser's reads of a game's state, counted (the test's own client is not a browser).
	var pageReads atomic.Int64
	inner, stateURL := *e.handler.Load(), regexp.MustCompile(`^/api/v1/games/\d+$`)
	var counting http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && stateURL.MatchString(r.URL.Path) &&
			strings.Contains(r.UserAgent(), "Chrome") {
			pageReads.Add(1)
		}
		inner.ServeHTTP(w, r)
	})
	e.handler.Store(&counting)
	ctx := pagesBrowser(t)
	lobby := e.srv.URL + "/games"
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		t.Fatalf("open the login link: %v", err)
	}
	pagesWaitLocation(ctx, t, lobby)
	// The lists above the form are loaded too: one that comes after the button's place was
	// taken would move the button from under the click.
	if err := chromedp.Do(ctx, pagesUntil(`document.getElementById("who").textContent === "Ann" &&
		[...document.querySelectorAll("#variant option")].some(o => o.value === "russian") &&
		document.querySelectorAll("#control option").length > 0 &&
		(document.getElementById("my-games").children.length > 0 || !document.getElementById("my-empty").hidden) &&
		(document.getElementById("waiting-games").children.length > 0 || !document.getElementById("waiting-empty").hidden)`)); err != nil {
		t.Fatalf("the lobby: %v", err)
	}
	control, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const v = document.getElementById("variant");
		v.value = "russian"; v.dispatchEvent(new Event("change")); return document.getElementById("control").value; })()`))
	if err != nil || control == "" {
		t.Fatalf("the time control: %q, %v", control, err)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#create")); err != nil {
		t.Fatalf("start a game: %v", err)
	}
	var id int64
	wait.For(t, wait.Hang, "the game's page", func() bool {
		path, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState === "complete" ? location.pathname : ""`))
		if err != nil || !strings.HasPrefix(path, "/play/") {
			return false
		}
		id, err = strconv.ParseInt(strings.TrimPrefix(path, "/play/"), 10, 64)
		return err == nil
	})
	if err := chromedp.Do(ctx, pagesUntil(`document.getElementById("turn").textContent === "Waiting for an opponent."`)); err != nil {
		t.Fatalf("the waiting game: %v (status %q)", err, pagesText(ctx, t, "#status"))
	}

	// Bob asks for the same game and is paired with Ann.
	var created struct {
		ID int64 `json:"id"`
	}
	bob.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": control, "bot": ""}, http.StatusCreated, &created)
	if created.ID != id {
		t.Fatalf("Bob got game %d, not Ann's %d", created.ID, id)
	}
	st := bob.state(t, id)
	annSeat := 1 - st.Seat
	g, err := engine.NewGame("russian")
	if err != nil {
		t.Fatal(err)
	}
	im := g.ImageMap(engine.Player(annSeat))
	spot := func(name string) engine.SquareSpot { return pagesSpot(t, im, name) }
	// reload shows the game as it is now, and waits until the page has drawn ply.
	reload := func(ply int) {
		t.Helper()
		err := chromedp.Do(ctx, chromedp.Reload(), pagesBoardReady,
			pagesUntil(fmt.Sprintf(`document.querySelectorAll("#moves li").length === %d`, ply)))
		if err != nil {
			t.Fatalf("reload at ply %d: %v (status %q)", ply, err, pagesText(ctx, t, "#status"))
		}
	}
	// bobMoves plays Bob's first legal move and checks that Ann's page shows it and reports it
	// seen on the board.
	bobMoves := func() {
		t.Helper()
		st := bob.state(t, id)
		if st.ToMove != st.Seat || len(st.Legal) == 0 {
			t.Fatalf("Bob cannot move: %+v", st)
		}
		mv := st.Legal[0].Text
		bob.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": mv, "ply": st.Ply}, http.StatusOK, nil)
		if _, err := g.Play(mv); err != nil {
			t.Fatal(err)
		}
		// The page hears of it by its event stream, and marks it as news until it has said so.
		if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`document.querySelectorAll("#moves li").length === %d &&
			document.querySelector("#moves li:last-child").textContent === %q`, g.Ply(), mv))); err != nil {
			t.Fatalf("Bob's move %s on Ann's page: %v", mv, err)
		}
		wait.For(t, wait.Hang, "Bob's move seen", func() bool { return e.board(t, id).Seats[annSeat].Seen >= g.Ply() })
	}
	// annMoves clicks the path of one of Ann's legal moves and checks that Bob's board has it.
	annMoves := func() {
		t.Helper()
		var mv engine.Move
		var path []string
		for _, m := range g.LegalMoves() {
			if p, _ := g.Describe(m); len(p) == 2 {
				mv, path = m, p
				break
			}
		}
		if path == nil {
			t.Fatal("Ann has no simple move")
		}
		if err := chromedp.Do(ctx, pagesUntil(`document.querySelectorAll("#marks .mark.piece").length > 0`)); err != nil {
			t.Fatalf("Ann's turn: %v", err)
		}
		pagesTapUntil(ctx, t, fmt.Sprintf("the target %s of %s", path[1], path[0]),
			func() { pagesTapSpot(ctx, t, spot(path[0]), im, false) },
			fmt.Sprintf(`document.querySelector('#marks .mark.target[data-square=%q]') !== null`, path[1]))
		pagesTapSpot(ctx, t, spot(path[1]), im, false)
		if _, err := g.Play(mv.String()); err != nil {
			t.Fatal(err)
		}
		wait.For(t, wait.Hang, "Ann's move on the board", func() bool {
			st := bob.state(t, id)
			return st.Ply == g.Ply() && st.Moves[len(st.Moves)-1].Text == mv.String()
		})
		if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`document.querySelectorAll("#moves li").length === %d`, g.Ply()))); err != nil {
			t.Fatalf("Ann's move on her page: %v", err)
		}
	}

	reload(0)
	// From now on Ann's page draws Bob's moves from their events and her own from the answers
	// of her moves: it reads the state no more.
	reads := pageReads.Load()
	if reads == 0 {
		t.Fatal("the page's reads of the state are not counted")
	}
	if int(g.ToMove()) != annSeat {
		bobMoves()
	}
	annMoves()
	bobMoves()
	annMoves()
	bobMoves()
	if n := pageReads.Load() - reads; n != 0 {
		t.Errorf("Ann's page read the state %d times for Bob's moves and hers, want none", n)
	}
}

// hasPly says that a posted body carries the ply the operation was made on.
func hasPly(body map[string]any) bool {
	_, ok := body["ply"].(float64)
	return ok
}

// Ensure the clocks show tenths under ten seconds, the running one with the low-time cue, and
// a clock of minutes as m:ss without it.
func TestPlayPageClocks(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "russian", "", "en")
	a.clockMS, a.mainMS = 8000, 300000
	url := a.serve(t)
	ctx := pagesBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady); err != nil {
		t.Fatalf("open the game: %v", err)
	}
	mine, theirs := "#players .player[data-seat='0'] .clock", "#players .player[data-seat='1'] .clock"
	// Ann's clock runs and shows tenths; they change within a second.
	if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`/^0:0[0-8]\.\d$/.test(document.querySelector(%q).textContent)`, mine))); err != nil {
		t.Fatalf("Ann's clock: %v", err)
	}
	shown := pagesText(ctx, t, mine)
	if err := chromedp.Do(ctx, pagesUntil(fmt.Sprintf(`(() => { const v = document.querySelector(%q).textContent;
		return /^0:0\d\.\d$/.test(v) && v !== %q; })()`, mine, shown))); err != nil {
		t.Fatalf("the tenths do not run: %v", err)
	}
	low, err := chromedp.Run(ctx, chromedp.Evaluate[[]bool](fmt.Sprintf(`[document.querySelector(%q).classList.contains("low"),
		document.querySelector(%q).classList.contains("low")]`, mine, theirs)))
	if err != nil {
		t.Fatal(err)
	}
	if !low[0] || low[1] {
		t.Errorf("low-time cue on Ann's running clock %v, on the waiting one %v", low[0], low[1])
	}
	if got := pagesText(ctx, t, theirs); got != "0:08.0" {
		t.Errorf("the waiting clock shows %q", got)
	}
	// The cue does not rest on the colour alone: the low clock is outlined.
	outline, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`getComputedStyle(document.querySelector(%q)).outlineStyle`, mine)))
	if err != nil || outline != "solid" {
		t.Errorf("the low clock's outline %q (%v)", outline, err)
	}
}

// Ensure a move arriving on a phone scrolls the move list, not the page: the window stays where
// the player left it.
func TestPlayPagePhoneScroll(t *testing.T) {
	t.Parallel()
	a := newPagesAPI(t, "chess", "", "en")
	// A long game (each side's middle legal move, which repeats no position, 39 plies): the
	// list of moves scrolls within its box.
	for a.game.Ply() < 39 {
		ms := a.game.LegalMoves()
		if len(ms) == 0 {
			t.Fatalf("the game ended at ply %d", a.game.Ply())
		}
		if err := a.playLocked(ms[len(ms)/2].String()); err != nil {
			t.Fatalf("ply %d: %v", a.game.Ply()+1, err)
		}
	}
	url := a.serve(t)
	ctx := pagesBrowser(t)
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulatePortrait, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(fmt.Sprintf("%s/play/%d", url, pagesGameID)), pagesBoardReady,
		pagesUntil(`document.querySelectorAll("#moves li").length === 39`))
	if err != nil {
		t.Fatalf("open the game: %v", err)
	}
	if y, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.scrollY`)); err != nil || y != 0 {
		t.Fatalf("the page opened scrolled to %v (%v)", y, err)
	}
	a.opponentMoves()
	err = chromedp.Do(ctx, pagesUntil(`document.querySelectorAll("#moves li").length === 40 && document.querySelector("#moves li.fresh") !== null`))
	if err != nil {
		t.Fatalf("the opponent's move: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const l = document.getElementById("moves");
		return [window.scrollY, l.scrollTop, l.scrollHeight - l.clientHeight]; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 0 {
		t.Errorf("the page scrolled to %v on a move", got[0])
	}
	if got[2] <= 0 || got[1] < got[2]-1 {
		t.Errorf("the move list is scrolled to %v of %v: the new move is not in view", got[1], got[2])
	}
}
