package web

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/tournament"
)

// # Tournaments on the web
//
// The API (Config.Tournaments; without it the calls answer 404):
//
//   - GET /api/v1/tournaments: the tournaments of the caller's bot open to join and running
//     (TournamentState without standings and pairings).
//   - GET /api/v1/tournaments/{id}: one tournament, with its standings (rank, score, tie-breaks,
//     each player's game being played) and its pairings by round with their game ids; public.
//     The standings name the players by their public names only (publicName: the first name,
//     else the @username, else "#" and their number) and number them in the order they joined
//     (player, from 1), which the pairings use; the caller's own line is marked me. No Telegram
//     user id is in them. Tournament ids are sequential: a guessed one shows what the
//     tournament's page shows anyone (those names, the scores, the game ids, and a game itself
//     only when its players let anyone watch it), nothing private.
//   - POST /api/v1/tournaments/{id}/join and /leave: the caller joins or leaves before the start
//     (a program with its API token joins as a program: it is sent no standings in Telegram);
//     409 conflict when the tournament has started, is full, or the caller is in already (not
//     yet). A program sees its pairings in the tournament's state and plays its boards with the
//     games' calls (/api/v1/games/{id}/moves, ...).
//   - GET /api/v1/tournaments/{id}/events: Server-Sent Events, the tournament's numbered record
//     of events (serveTournamentEvents, tournamentevents.go): each change of the tournament,
//     its players or its pairings, once, in order, with its number as the SSE id, resumable
//     with Last-Event-ID (or LastEventParam) as a game's stream is. The state's last_event is
//     the number of the last event the state shows, from which a client opens the stream. A
//     stream opened with a session or a token ends with it (revoke.go), as a game's does.
//
// The page /tournaments/{id} shows the live standings and pairings: static/tournament.html, whose
// script fetches the state, opens the stream after the state's last event and refetches on each
// event. It speaks the viewer's language as the other pages do (words.js); the state names the
// system, game and clock in the language the request asks, and the pairings name the players.
//
// Where the tournaments' events are made, stored and rendered: the tournament service makes
// them, one per change, in the transaction of the change (bot/boards, tournament_events.go);
// sessions/tournament/tournamentpg stores them (tournament_event, migration 042) and announces
// them at the commit; each process's Feed (bot/boards, feed.go) hands them to its TournamentHub,
// whose streams render them here, and the page's script (static/tournament.js) shows them.

// TournamentState is a tournament as the API gives it.
type TournamentState struct {
	ID         int64      `json:"id"`
	System     string     `json:"system"`
	Variant    string     `json:"variant"`
	Control    string     `json:"control"`
	State      string     `json:"state"`
	Cancelled  bool       `json:"cancelled"`
	Rounds     int        `json:"rounds"`
	Round      int        `json:"round"`
	Duration   int64      `json:"duration_seconds,omitempty"`
	StartsAt   time.Time  `json:"starts_at"`
	EndsAt     *time.Time `json:"ends_at,omitempty"`
	MaxPlayers int        `json:"max_players"`
	Players    int        `json:"players"`
	// Joined says the caller is in the tournament.
	Joined bool `json:"joined"`
	// LastEvent, in the state of one tournament, is the number of the last event of its record
	// the state shows (0: none): the stream opened after it (LastEventParam) misses nothing.
	LastEvent int64            `json:"last_event,omitempty"`
	Standings []StandingState  `json:"standings,omitempty"`
	Pairings  []PairingState   `json:"pairings,omitempty"`
	Arena     *ArenaClockState `json:"arena,omitempty"`

	// SystemTitle, VariantTitle and ControlTitle name the system, the game and the clock in
	// the language the request asks (Accept-Language), as Telegram names them.
	SystemTitle  string `json:"system_title"`
	VariantTitle string `json:"variant_title"`
	ControlTitle string `json:"control_title"`
}

// worded fills in the titles of ts in c's language.
func (ts *TournamentState) worded(c *texts.Catalog) *TournamentState {
	ts.SystemTitle = ts.System
	if n, ok := c.Tournament().Systems[ts.System]; ok {
		ts.SystemTitle = n
	}
	ts.VariantTitle, ts.ControlTitle = c.Game(ts.Variant), c.Control(ts.Control)
	return ts
}

// ArenaClockState is how long an arena has left, as of the answer.
type ArenaClockState struct {
	SecondsLeft int64 `json:"seconds_left"`
}

// StandingState is a player's line of the standings. Score, Buchholz and SB are in points (a
// round robin, a Swiss); Points and Fire are an arena's.
type StandingState struct {
	Rank int `json:"rank"`
	// Player is the player's number in the tournament, from 1 in the order they joined; the
	// pairings name the players by it. Me marks the caller's own line.
	Player   int     `json:"player"`
	Me       bool    `json:"me,omitempty"`
	Name     string  `json:"name"`
	Program  bool    `json:"program"`
	Rating   float64 `json:"rating"`
	Score    float64 `json:"score"`
	Buchholz float64 `json:"buchholz"`
	SB       float64 `json:"sonneborn_berger"`
	Points   int     `json:"points"`
	Fire     bool    `json:"fire"`
	Wins     int     `json:"wins"`
	Draws    int     `json:"draws"`
	Losses   int     `json:"losses"`
	Byes     int     `json:"byes"`
	// Game is the player's game being played (0: none).
	Game int64 `json:"game,omitempty"`
}

// PairingState is a game of a round: white and black by their numbers of the standings
// (StandingState.Player; black 0 and Bye for a bye), the result ("1-0", "½-½", "0-1", "" while
// played) and its game.
type PairingState struct {
	Round  int    `json:"round"`
	White  int    `json:"white"`
	Black  int    `json:"black,omitempty"`
	Bye    bool   `json:"bye,omitempty"`
	Result string `json:"result"`
	Game   int64  `json:"game,omitempty"`

	// WhiteName and BlackName are the players' public names, as the standings give them
	// (BlackName empty for a bye).
	WhiteName string `json:"white_name"`
	BlackName string `json:"black_name,omitempty"`
}

// resultNames are the results as the API writes them.
var resultNames = map[tournament.Result]string{tournament.WhiteWins: "1-0", tournament.Draw: "½-½", tournament.BlackWins: "0-1"}

// routeTournaments adds the tournaments' calls and page to mux.
func (s *Server) routeTournaments(mux router) {
	mux.HandleFunc("GET /api/v1/tournaments", s.api(0, s.tournaments))
	mux.HandleFunc("GET /api/v1/tournaments/{id}", s.api(public, s.tournament))
	mux.HandleFunc("POST /api/v1/tournaments/{id}/join", s.api(0, s.tournamentEntry(true)))
	mux.HandleFunc("POST /api/v1/tournaments/{id}/leave", s.api(0, s.tournamentEntry(false)))
	mux.HandleFunc("GET /api/v1/tournaments/{id}/events", s.api(public|unlimited, s.tournamentEvents))
	mux.HandleFunc("GET /tournaments/{id}", s.tournamentPage)
}

// noTournament is the answer to a tournament that does not exist (or is another bot's).
func noTournament() *apiError {
	return apiWords(http.StatusNotFound, "not_found", func(c *texts.Catalog) string { return c.Web.NoTournament })
}

// tournamentRefusal turns the tournaments' refusals into answers; other errors are mapErr's.
func (s *Server) tournamentRefusal(err error, c *caller) *apiError {
	conflict := func(msg string) *apiError { return apiErr(http.StatusConflict, "conflict", msg) }
	switch {
	case errors.Is(err, boards.ErrNoTournament):
		return noTournament()
	case errors.Is(err, boards.ErrTournamentStarted):
		return conflict("The tournament has started: players join and leave before the start.")
	case errors.Is(err, boards.ErrTournamentFull):
		return conflict("The tournament is full.")
	case errors.Is(err, boards.ErrEntered):
		return conflict("You are in this tournament already.")
	case errors.Is(err, boards.ErrNotEntered):
		return conflict("You are not in this tournament.")
	}
	return s.mapErr(err, c)
}

// tournamentID reads the tournament's id of the path.
func tournamentID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, noTournament()
	}
	return id, nil
}

// tournaments is GET /api/v1/tournaments.
func (s *Server) tournaments(w http.ResponseWriter, r *http.Request, c *caller) error {
	tn := s.cfg.Tournaments
	if tn == nil {
		return noTournament()
	}
	out := []TournamentState{}
	err := s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		st := tn.Store(db)
		list, err := st.List(ctx, c.service, []tournament.State{tournament.Created, tournament.Running}, 100)
		if err != nil {
			return err
		}
		for i := range list {
			es, err := st.Entrants(ctx, list[i].ID)
			if err != nil {
				return err
			}
			ts := s.tournamentState(&boards.TournamentTable{Tournament: &list[i], Entrants: es}, c)
			out = append(out, *ts.worded(texts.For(requestLang(r))))
		}
		return nil
	})
	if err != nil {
		return s.tournamentRefusal(err, c)
	}
	writeJSON(w, http.StatusOK, map[string]any{"tournaments": out})
	return nil
}

// tournamentState builds the state of a table for the caller (without standings and pairings).
func (s *Server) tournamentState(tab *boards.TournamentTable, c *caller) TournamentState {
	tt := tab.Tournament
	ts := TournamentState{ID: tt.ID, System: string(tt.System), Variant: tt.Variant, Control: tt.Control,
		State: string(tt.State), Cancelled: tt.Cancelled, Rounds: tab.Rounds(), Round: tt.Round,
		Duration: int64(tt.Duration / time.Second), StartsAt: tt.StartsAt, MaxPlayers: tt.MaxPlayers, Players: len(tab.Entrants)}
	if tt.System != tournament.Arena {
		ts.Duration = 0
	}
	if !tt.EndsAt.IsZero() {
		end := tt.EndsAt
		ts.EndsAt = &end
		if tt.State == tournament.Running {
			ts.Arena = &ArenaClockState{SecondsLeft: max(int64(end.Sub(s.cfg.Boards.Now())/time.Second), 0)}
		}
	}
	for _, e := range tab.Entrants {
		if e.User == c.user && !c.anonymous() {
			ts.Joined = true
		}
	}
	return ts
}

// tournament is GET /api/v1/tournaments/{id}: the state with standings and pairings.
func (s *Server) tournament(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := tournamentID(r)
	if err != nil {
		return err
	}
	ts, err := s.readTournament(r.Context(), c, id)
	if err != nil {
		return s.tournamentRefusal(err, c)
	}
	writeJSON(w, http.StatusOK, ts.worded(texts.For(requestLang(r))))
	return nil
}

// readTournament reads a tournament of the caller's bot (anyone's, for someone not logged in)
// with its standings and pairings.
func (s *Server) readTournament(ctx context.Context, c *caller, id int64) (*TournamentState, error) {
	tn := s.cfg.Tournaments
	if tn == nil {
		return nil, noTournament()
	}
	var ts TournamentState
	err := s.read(ctx, func(ctx context.Context, db pgxTx) error {
		last, err := boards.TournamentLastEvent(ctx, db, id)
		if err != nil {
			return err
		}
		service := c.service
		if c.anonymous() {
			tt, err := tn.Store(db).Get(ctx, id)
			if err != nil {
				return err
			}
			if tt == nil {
				return noTournament()
			}
			service = tt.Service
		}
		tab, err := tn.Table(ctx, db, service, id)
		if err != nil {
			return err
		}
		ts = s.tournamentState(tab, c)
		ts.LastEvent = last
		arena := tab.Tournament.System == tournament.Arena
		number := map[int64]int{}
		for i, e := range tab.Entrants {
			number[e.User] = i + 1
		}
		names := map[int64]string{} // the public names by user, for the pairings
		for _, row := range tab.Rows {
			p, err := s.cfg.Boards.Profile(ctx, db, row.User)
			if err != nil {
				return err
			}
			line := StandingState{Rank: row.Rank, Player: number[row.User], Me: !c.anonymous() && row.User == c.user,
				Name: publicName(p, number[row.User]), Program: row.Program, Rating: row.Rating,
				Wins: row.Wins, Draws: row.Draws, Losses: row.Losses, Byes: row.Byes, Game: row.Board}
			if arena {
				line.Points, line.Fire = row.Points, row.Fire
			} else {
				line.Score, line.Buchholz = float64(row.Score)/2, float64(row.Buchholz)/2
				line.SB = float64(row.SonnebornBerger) / 4
			}
			names[row.User] = line.Name
			ts.Standings = append(ts.Standings, line)
		}
		name := func(user int64) (string, error) {
			if n, ok := names[user]; ok || user == 0 {
				return n, nil
			}
			p, err := s.cfg.Boards.Profile(ctx, db, user)
			if err != nil {
				return "", err
			}
			names[user] = publicName(p, number[user])
			return names[user], nil
		}
		for _, p := range tab.Pairings {
			white, err := name(p.White)
			if err != nil {
				return err
			}
			black := ""
			if !p.Bye() {
				if black, err = name(p.Black); err != nil {
					return err
				}
			}
			ts.Pairings = append(ts.Pairings, PairingState{Round: p.Round, White: number[p.White], Black: number[p.Black], Bye: p.Bye(),
				Result: resultNames[p.Result], Game: p.Board, WhiteName: white, BlackName: black})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &ts, nil
}

// publicName is how the public standings name a player: their first name, else their
// @username (both shown to anyone by Telegram), else "#" and their number in the tournament;
// never their Telegram id.
func publicName(p *boards.Profile, number int) string {
	return boards.PlayerName(p, int64(number))
}

// tournamentEntry is POST /api/v1/tournaments/{id}/join (join set) and /leave: the caller's
// entry; the answer is the tournament's state.
func (s *Server) tournamentEntry(join bool) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, c *caller) error {
		id, err := tournamentID(r)
		if err != nil {
			return err
		}
		tn := s.cfg.Tournaments
		if tn == nil {
			return noTournament()
		}
		err = s.do(r.Context(), c, func(ctx context.Context, tx bot.Tx) error {
			if join {
				return tn.Join(ctx, tx, c.player(), id, c.token != 0)
			}
			return tn.Leave(ctx, tx, c.player(), id)
		})
		if err != nil {
			return s.tournamentRefusal(err, c)
		}
		ts, err := s.readTournament(r.Context(), c, id)
		if err != nil {
			return s.tournamentRefusal(err, c)
		}
		writeJSON(w, http.StatusOK, ts.worded(texts.For(requestLang(r))))
		return nil
	}
}

// tournamentEvents is GET /api/v1/tournaments/{id}/events: the live updates of a tournament.
func (s *Server) tournamentEvents(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := tournamentID(r)
	if err != nil {
		return err
	}
	if _, err := s.readTournament(r.Context(), c, id); err != nil {
		return s.tournamentRefusal(err, c)
	}
	if s.cfg.TournamentEvents == nil {
		return apiErr(http.StatusServiceUnavailable, "unavailable", "Live updates are not available; reload the page instead.")
	}
	// The stream of a caller logged in ends with the session or token it was opened with, as a
	// game's (revoke.go): the boards' hub, which hears of the ends, guards it. The tournament
	// is public, so its page opens the stream again without them.
	revoked, release, err := s.guardCredentials(r.Context(), c)
	if err != nil {
		return err
	}
	defer release()
	key := s.key(c, r)
	if !s.streams.acquire(key) {
		return apiErr(http.StatusTooManyRequests, "too_many_streams", "Too many live updates are open for you at once; close some pages.")
	}
	defer s.streams.release(key)
	serveTournamentEvents(w, r, s.cfg.TournamentEvents, id, PingInterval, revoked)
	return nil
}

// tournamentPage is GET /tournaments/{id}: the page of the live standings (static/tournament.html,
// its static files named by version as the other pages'), with the pages' security headers.
func (s *Server) tournamentPage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", pagesCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	if id, err := strconv.ParseInt(r.PathValue("id"), 10, 64); err != nil || id <= 0 || strconv.FormatInt(id, 10) != r.PathValue("id") {
		http.NotFound(w, r)
		return
	}
	page, err := loadTournamentPage()
	if err != nil {
		http.Error(w, "the page is not available: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h.Set("Cache-Control", "no-cache")
	serveFile(w, r, page)
}

// loadTournamentPage reads the tournament's page once per process, naming its static files by
// their versions.
var loadTournamentPage = sync.OnceValues(func() (*pageFile, error) {
	set, err := loadPages()
	if err != nil {
		return nil, err
	}
	body, err := fs.ReadFile(pageFiles, "static/tournament.html")
	if err != nil {
		return nil, err
	}
	for rel, f := range set.static {
		body = bytes.ReplaceAll(body, []byte(`"/static/`+rel+`"`), []byte(`"/static/`+rel+`?v=`+f.version+`"`))
	}
	return newPageFile(body, pageTypes[".html"]), nil
})
