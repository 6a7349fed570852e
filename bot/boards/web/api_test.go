package web_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/telegram"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/texts"
)

// menu sends a command and presses the labels of the menus that follow, in turn.
func (e *env) menu(t *testing.T, user int64, command string, choices ...string) {
	t.Helper()
	after := e.LastID(user)
	e.Send(t, user, command)
	for _, label := range choices {
		m := e.WaitMessage(t, user, after, "a menu with "+label, func(m tgemu.Message) bool { return m.Button(label) != "" })
		after = m.ID
		e.Press(t, user, m, label)
	}
}

// Ensure the login: no cookie is 401; /web's link logs in once (a second use, and a link older
// than ten minutes, get the 403 page); a forged cookie is 401; a POST without the CSRF token is
// 403; logging out ends the session, and logging out everywhere ends every session of the user.
func TestLogin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	anon := &client{e: e}
	anon.refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	anon.refused(t, "GET", "/api/v1/games", nil, http.StatusUnauthorized, "unauthorized")
	anon.refused(t, "POST", "/api/v1/games", map[string]string{"variant": "russian"}, http.StatusUnauthorized, "unauthorized")

	e.User(1, "Ann", "en")
	link := e.link(t, 1)
	if !strings.HasPrefix(link, e.srv.URL+"/login/") || len(strings.TrimPrefix(link, e.srv.URL+"/login/")) != 22 {
		t.Fatalf("the link %q", link)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM web_login_ticket WHERE user_id = 1 AND used_at IS NULL`); n != 1 {
		t.Fatalf("%d tickets", n)
	}
	first := redeem(t, link)
	if first.StatusCode != http.StatusSeeOther {
		t.Fatalf("the link: %s", first.Status)
	}
	again := redeem(t, link)
	if again.StatusCode != http.StatusForbidden || !strings.Contains(again.Header.Get("Content-Type"), "text/html") {
		t.Errorf("the link used twice: %s %s", again.Status, again.Header.Get("Content-Type"))
	}
	old := e.link(t, 1)
	e.clock.advance(telegram.TicketTTL + time.Second)
	if resp := redeem(t, old); resp.StatusCode != http.StatusForbidden {
		t.Errorf("an expired link: %s", resp.Status)
	}
	// Nothing but a hash of each secret is stored.
	if n := e.QueryInt(t, `SELECT count(*) FROM web_login_ticket WHERE position(convert_to($1, 'UTF8') IN hash) > 0`,
		strings.TrimPrefix(old, e.srv.URL+"/login/")); n != 0 {
		t.Errorf("a ticket is stored as it is")
	}

	ann := e.login(t, 1, "Ann")
	ann2 := e.login(t, 1, "Ann")
	forged := &client{e: e, cookie: strings.Repeat("A", len(ann.cookie)), csrf: ann.csrf}
	forged.refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	noCSRF := &client{e: e, cookie: ann.cookie}
	noCSRF.refused(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusForbidden, "csrf")
	wrongCSRF := &client{e: e, cookie: ann.cookie, csrf: ann2.csrf}
	wrongCSRF.refused(t, "POST", "/logout", nil, http.StatusForbidden, "csrf")
	if n := e.QueryInt(t, `SELECT count(*) FROM board_session`); n != 0 {
		t.Fatalf("a refused call opened %d games", n)
	}

	ann.must(t, "POST", "/logout", nil, http.StatusNoContent, nil)
	ann.refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	ann2.must(t, "GET", "/api/v1/me", nil, http.StatusOK, nil)
	ann3 := e.login(t, 1, "Ann")
	ann3.must(t, "POST", "/logout/all", nil, http.StatusNoContent, nil)
	ann2.refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	ann3.refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	anon.refused(t, "GET", "/api/v1/nothing", nil, http.StatusNotFound, "not_found")
}

// movesRE finds the move of a board caption ("Last move: c3-d4").
var lastMoveRE = regexp.MustCompile(`[a-h][1-8][-:][a-h][1-8]`)

// Ensure two users play one game, Ann in Telegram and Boris over the API: Boris's game pairs
// with the one Ann waits in; his moves reach her chat board, hers his state (as unseen until
// he says he saw them); a stale move is 409, an illegal one 422 with the legal moves; to another
// user the game is not there (404) until a player lets spectators in, and then their move is
// refused (403); the export is PDN.
func TestTelegramAndWeb(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	e.User(1, "Ann", "en")
	e.menu(t, 1, "/games", "Russian draughts", "🔎 Find an opponent", "1 day a move")
	e.WaitText(t, 1, 0, "Waiting for an opponent")
	boris := e.login(t, 2, "Boris")
	var waiting []struct {
		ID           int64  `json:"id"`
		Opponent     string `json:"opponent"`
		Status       string `json:"status"`
		ControlTitle string `json:"control_title"`
		LeftMS       *int64 `json:"left_ms"`
	}
	boris.must(t, "GET", "/api/v1/games/waiting", nil, http.StatusOK, &waiting)
	if len(waiting) != 1 || waiting[0].Opponent != "Ann" || waiting[0].Status != "waiting" ||
		waiting[0].ControlTitle != texts.For("en").Control("corr1d") || waiting[0].LeftMS != nil {
		t.Fatalf("waiting games: %+v", waiting)
	}
	var created struct{ ID int64 }
	boris.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "control": "corr1d"}, http.StatusCreated, &created)
	if created.ID != waiting[0].ID {
		t.Fatalf("Boris's game %d, Ann waits in %d", created.ID, waiting[0].ID)
	}
	id := created.ID
	e.WaitText(t, 1, 0, "Boris joined")
	st := boris.state(t, id)
	if st.Status != "active" || st.Seat < 0 || st.Seats[1-st.Seat].Name != "Ann" || st.Control != "corr1d" {
		t.Fatalf("the state: %+v", st)
	}
	if !strings.Contains(st.Picture.URL, fmt.Sprintf("/api/v1/games/%d/picture.png?seat=%d&ply=0&v=", id, st.Seat)) {
		t.Errorf("the picture's address %q", st.Picture.URL)
	}
	code, hdr, png := boris.call(t, "GET", st.Picture.URL, nil)
	if code != http.StatusOK || hdr.Get("Content-Type") != "image/png" || !strings.HasPrefix(string(png), "\x89PNG") ||
		!strings.Contains(hdr.Get("Cache-Control"), "immutable") {
		t.Errorf("the picture: %d %v", code, hdr)
	}
	var games []struct {
		ID           int64  `json:"id"`
		MyTurn       bool   `json:"my_turn"`
		ControlTitle string `json:"control_title"`
		LeftMS       *int64 `json:"left_ms"`
	}
	boris.must(t, "GET", "/api/v1/games", nil, http.StatusOK, &games)
	if len(games) != 1 || games[0].ID != id || games[0].MyTurn != (st.ToMove == st.Seat) {
		t.Fatalf("Boris's games: %+v, state %+v", games, st)
	}
	// The list gives the clock and what the side to move has left of its day.
	if g := games[0]; g.ControlTitle != texts.For("en").Control("corr1d") || g.LeftMS == nil ||
		*g.LeftMS > (24*time.Hour).Milliseconds() || *g.LeftMS < (23*time.Hour).Milliseconds() {
		t.Errorf("Boris's game in the list: %+v (left %v)", g, g.LeftMS)
	}

	// Carol plays no seat: refused, and she sees the game only once it may be watched.
	carol := e.login(t, 3, "Carol")
	anon := &client{e: e}
	carol.refused(t, "GET", fmt.Sprintf("/api/v1/games/%d", id), nil, http.StatusNotFound, "not_found")
	anon.refused(t, "GET", fmt.Sprintf("/api/v1/games/%d", id), nil, http.StatusNotFound, "not_found")
	carol.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": "c3-d4", "ply": 0},
		http.StatusNotFound, "not_found")
	carol.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", id), map[string]any{"allow": true},
		http.StatusNotFound, "not_found")
	boris.refused(t, "GET", "/api/v1/games/999999", nil, http.StatusNotFound, "not_found")

	// Play ten plies, Ann typing her moves in Telegram, Boris posting his.
	for ply := 0; ply < 10; ply++ {
		st = boris.state(t, id)
		if st.Ply != ply {
			t.Fatalf("ply %d, want %d", st.Ply, ply)
		}
		if st.ToMove != st.Seat {
			// Ann's turn: she types her first legal move.
			if len(st.Legal) != 0 {
				t.Fatalf("Boris is offered moves on Ann's turn")
			}
			bd := e.board(t, id)
			g, err := bd.Game()
			if err != nil {
				t.Fatal(err)
			}
			mv := g.LegalMoves()[0].String()
			e.WaitMessage(t, 1, 0, "Ann's turn", func(m tgemu.Message) bool {
				return m.Photo != "" && strings.Contains(m.Text, "Your turn") && len(m.Keyboard) > 0 &&
					strings.HasPrefix(m.Keyboard[0][0].Data, fmt.Sprintf("g:%d:%d:", id, ply))
			})
			e.Send(t, 1, mv)
			e.WaitFor(t, "Ann's move", func() bool { return e.board(t, id).Ply() == ply+1 })
			st = boris.state(t, id)
			if len(st.Unseen) != 1 || st.Unseen[0] != ply+1 || st.Moves[ply].Text != mv {
				t.Fatalf("after Ann's %s: unseen %v, moves %v", mv, st.Unseen, st.Moves)
			}
			boris.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/seen", id), map[string]any{"ply": ply + 1}, http.StatusOK, &st)
			if len(st.Unseen) != 0 {
				t.Fatalf("unseen after seen: %v", st.Unseen)
			}
			continue
		}
		if ply == 1 || ply == 2 {
			// Refused: a stale ply, then an illegal move with the legal ones.
			boris.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": st.Legal[0].Text, "ply": ply + 5},
				http.StatusConflict, "stale")
			ae := boris.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": "a1-a8", "ply": ply},
				http.StatusUnprocessableEntity, "illegal_move")
			var legal []string
			for _, l := range st.Legal {
				legal = append(legal, l.Text)
			}
			if strings.Join(ae.Error.Legal, ",") != strings.Join(legal, ",") || len(legal) == 0 {
				t.Fatalf("the legal moves of the refusal %v, of the state %v", ae.Error.Legal, legal)
			}
		}
		mv := st.Legal[len(st.Legal)-1]
		var next web.GameState
		boris.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": mv.Text, "ply": ply}, http.StatusOK, &next)
		if next.Ply != ply+1 || next.Moves[ply].Text != mv.Text || !next.CanUndo {
			t.Fatalf("after Boris's %s: %+v", mv.Text, next)
		}
		// Ann's board shows his move (changed in place: a correspondence game notifies her
		// later, see bot/boards/notify.go).
		e.WaitMessage(t, 1, 0, "Boris's move in Ann's chat", func(m tgemu.Message) bool {
			return m.Photo != "" && lastMoveRE.FindString(m.Text) == mv.Text
		})
	}

	// Spectators: off by default; Boris lets anyone watch; Carol and a stranger see seat -1.
	if st.Spectators {
		t.Fatal("spectators allowed by default")
	}
	boris.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", id), map[string]any{"allow": true}, http.StatusOK, &st)
	if !st.Spectators {
		t.Fatal("the switch did not take")
	}
	for _, c := range []*client{carol, anon} {
		v := c.state(t, id)
		if v.Seat != -1 || len(v.Legal) != 0 || len(v.Moves) != 10 || v.CanUndo {
			t.Errorf("a spectator's view: seat %d, %d legal, %d moves", v.Seat, len(v.Legal), len(v.Moves))
		}
	}
	carol.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/resign", id), map[string]any{"ply": st.Ply}, http.StatusForbidden, "forbidden")
	boris.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/spectators", id), map[string]any{"allow": false}, http.StatusOK, nil)
	carol.refused(t, "GET", fmt.Sprintf("/api/v1/games/%d", id), nil, http.StatusNotFound, "not_found")

	// The export: PDN with the roster, the game type and the moves.
	code, hdr, body := boris.call(t, "GET", fmt.Sprintf("/api/v1/games/%d/export", id), nil)
	pdn := string(body)
	bd := e.board(t, id)
	white, black := "Ann", "Boris"
	if bd.Seats[0].User == 2 {
		white, black = black, white
	}
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") ||
		!contains(pdn, `[Event "Questbot game `, `[Site "`+e.srv.URL, `[Date "`, `[Round "-"]`, `[White "`+white+`"]`,
			`[Black "`+black+`"]`, `[Result "*"]`, `[GameType "25"]`, "1. "+bd.Moves[0].Text+" "+bd.Moves[1].Text+" 2. ", " *\n") {
		t.Errorf("the export (%d %v):\n%s", code, hdr, pdn)
	}

	// Boris resigns over the API: Ann's board says she won.
	boris.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/resign", id), map[string]any{"ply": st.Ply}, http.StatusOK, &st)
	if st.Status != "finished" || st.Result == nil || st.Result.Winner == nil || *st.Result.Winner == st.Seat ||
		!strings.Contains(st.Result.Text, "You lose") {
		t.Fatalf("after resigning: %+v %+v", st.Status, st.Result)
	}
	e.text(t, 1, 0, "You win")
	boris.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": "c3-d4", "ply": 10},
		http.StatusConflict, "conflict")
	_, _, body = boris.call(t, "GET", fmt.Sprintf("/api/v1/games/%d/export", id), nil)
	if res := map[bool]string{true: "0-2", false: "2-0"}[bd.Seats[0].User == 2]; !strings.Contains(string(body), `[Result "`+res+`"]`) {
		t.Errorf("the finished export:\n%s", body)
	}
}

// Ensure a chess game's moves are shown in standard algebraic notation numbered by moves, it
// exports as PGN so, and the bot's game is made and played through the API.
func TestExportPGN(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	boris := e.login(t, 2, "Boris")
	carol := e.login(t, 3, "Carol")
	var a, b struct{ ID int64 }
	boris.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr3d"}, http.StatusCreated, &a)
	carol.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": "corr3d"}, http.StatusCreated, &b)
	if a.ID != b.ID {
		t.Fatalf("not paired: %d and %d", a.ID, b.ID)
	}
	st := boris.state(t, a.ID)
	players := map[int]*client{st.Seat: boris, 1 - st.Seat: carol}
	for ply, mv := range []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6", "e1g1"} {
		players[ply%2].must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", a.ID), map[string]any{"move": mv, "ply": ply}, http.StatusOK, nil)
	}
	// The move list: as people read them, numbered by moves, with the engine's notation beside.
	played := boris.state(t, a.ID).Moves
	var shown, notation []string
	var numbers []int
	for _, m := range played {
		shown, notation, numbers = append(shown, m.Text), append(notation, m.Move), append(numbers, m.Number)
	}
	if strings.Join(shown, " ") != "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6 O-O" || fmt.Sprint(numbers) != "[1 1 2 2 3 3 4 4 5]" ||
		notation[0] != "e2e4" || notation[8] != "e1g1" {
		t.Errorf("the moves: %v, numbered %v, notation %v", shown, numbers, notation)
	}
	_, _, body := boris.call(t, "GET", fmt.Sprintf("/api/v1/games/%d/export", a.ID), nil)
	pgn := string(body)
	names := map[int]string{st.Seat: "Boris", 1 - st.Seat: "Carol"}
	want := `[Event "Questbot game ` + fmt.Sprint(a.ID) + `"]`
	if !contains(pgn, want, `[White "`+names[0]+`"]`, `[Black "`+names[1]+`"]`, `[Result "*"]`,
		"\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O *\n") || strings.Count(pgn, "\n[") != 6 {
		t.Errorf("the PGN:\n%s", pgn)
	}

	// Against the bot: made at once, and the bot answers.
	var g struct{ ID int64 }
	boris.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
	st = boris.state(t, g.ID)
	if st.Status != "active" || st.Seats[1-st.Seat].Bot != "easy" {
		t.Fatalf("the bot's game: %+v", st)
	}
	if st.ToMove == st.Seat {
		boris.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", g.ID), map[string]any{"move": st.Legal[0].Text, "ply": 0}, http.StatusOK, nil)
	}
	e.WaitFor(t, "the bot's move", func() bool {
		st = boris.state(t, g.ID)
		return st.ToMove == st.Seat && st.Ply > 0
	})
	boris.refused(t, "POST", "/api/v1/games", map[string]string{"variant": "go"}, http.StatusBadRequest, "bad_request")
	boris.refused(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "godlike"}, http.StatusBadRequest, "bad_request")
	var variants []struct {
		Name     string `json:"name"`
		Controls []struct {
			Name string `json:"name"`
		} `json:"controls"`
	}
	boris.must(t, "GET", "/api/v1/variants", nil, http.StatusOK, &variants)
	if len(variants) != len(boards.Games) || variants[0].Name != "russian" || len(variants[0].Controls) < 4 {
		t.Errorf("variants: %+v", variants)
	}
}

// Ensure an admin's /token gives a token a program calls the API with (no CSRF token needed),
// that a revoked token is 401, and that /token is for admins only.
func TestTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	e.login(t, 2, "Boris")
	e.User(1, "Ann", "en")
	after := e.LastID(1)
	e.Send(t, 1, "/token 2 arbiter")
	e.text(t, 1, after, "for the bot's admins")
	e.Exec(t, `UPDATE users SET is_admin = true WHERE id = 1`)
	after = e.LastID(1)
	e.Send(t, 1, "/token 2 arbiter")
	m := e.text(t, 1, after, "API token #")
	tok := regexp.MustCompile(`qbt_[A-Za-z0-9_-]{43}`).FindString(m.Text)
	if tok == "" {
		t.Fatalf("no token in %q", m.Text)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM web_api_token WHERE user_id = 2 AND created_by = 1 AND name = 'arbiter'`); n != 1 {
		t.Fatalf("%d tokens stored", n)
	}
	prog := &client{e: e, token: tok}
	var me struct {
		User struct{ ID int64 } `json:"user"`
	}
	prog.must(t, "GET", "/api/v1/me", nil, http.StatusOK, &me)
	if me.User.ID != 2 {
		t.Fatalf("the token acts as %d", me.User.ID)
	}
	if service, user, err := web.TokenOwner(context.Background(), e.Pool, tok); err != nil || service != e.service || user != 2 {
		t.Fatalf("TokenOwner: bot %d, user %d, %v; want bot %d, user 2", service, user, err, e.service)
	}
	if _, _, err := web.TokenOwner(context.Background(), e.Pool, tok+"x"); !errors.Is(err, web.ErrUnknownToken) {
		t.Fatalf("TokenOwner of a forged token: %v", err)
	}
	var g struct{ ID int64 }
	prog.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
	(&client{e: e, token: tok + "x"}).refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	(&client{e: e, token: "not-a-token"}).refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")

	id := regexp.MustCompile(`#(\d+)`).FindStringSubmatch(m.Text)[1]
	after = e.LastID(1)
	e.Send(t, 1, "/token revoke "+id)
	e.text(t, 1, after, "is revoked")
	prog.refused(t, "GET", "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized")
	if _, _, err := web.TokenOwner(context.Background(), e.Pool, tok); !errors.Is(err, web.ErrUnknownToken) {
		t.Fatalf("TokenOwner of a revoked token: %v", err)
	}
	after = e.LastID(1)
	e.Send(t, 1, "/token revoke "+id)
	e.text(t, 1, after, "no API token")
	after = e.LastID(1)
	e.Send(t, 1, "/token 77")
	e.text(t, 1, after, "has written to this bot")
	after = e.LastID(1)
	e.Send(t, 1, "/token")
	e.text(t, 1, after, "Usage")
}

// Ensure the rate limit: a burst passes, the next call is 429 with Retry-After, and time refills
// the bucket; each user has their own.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Rate: 2, Burst: 5})
	// From here the server's clock moves only when the test says.
	e.clock.frozen.Store(e.clock.now().UnixNano())
	ann := e.login(t, 1, "Ann")
	boris := e.login(t, 2, "Boris")
	// Each login made one call (/api/v1/me): four are left.
	for range 4 {
		ann.must(t, "GET", "/api/v1/games", nil, http.StatusOK, nil)
	}
	code, hdr, _ := ann.call(t, "GET", "/api/v1/games", nil)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") != "1" {
		t.Fatalf("over the limit: %d, Retry-After %q", code, hdr.Get("Retry-After"))
	}
	ann.refused(t, "GET", "/api/v1/me", nil, http.StatusTooManyRequests, "rate_limited")
	boris.must(t, "GET", "/api/v1/games", nil, http.StatusOK, nil)
	e.clock.frozen.Add(int64(time.Second))
	ann.must(t, "GET", "/api/v1/games", nil, http.StatusOK, nil)
	ann.must(t, "GET", "/api/v1/games", nil, http.StatusOK, nil)
	ann.refused(t, "GET", "/api/v1/games", nil, http.StatusTooManyRequests, "rate_limited")
}
