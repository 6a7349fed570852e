package web

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// # Ratings on the web
//
// The leaderboards and the rating chart of the bot's /top and /rating (bot/boards, ratings.go),
// for the logged-in user's bot (a leaderboard names players, so it is shown to the bot's users
// only):
//
//   - GET /api/v1/top/{game}: the leaderboard of a game as JSON (topAnswer): the ten best
//     established players, the ten best provisional ones apart, each with their place, name,
//     rating and deviation (as of now), rated games, and whether they are a program (an API
//     token's); the caller's own standing; and the words to show, in the caller's language.
//     404 not_found for a game the bot does not offer.
//   - GET /api/v1/me/rating.png: the chart of the caller's ratings over time (the PNG /rating
//     sends); 404 not_found without a rated game. Its ETag is the history's last row.
//   - GET /top, /top/{game}: the page that shows them (static/top.html, top.js).

// routeRatings adds the calls of the ratings to mux.
func (s *Server) routeRatings(mux router) {
	mux.HandleFunc("GET /api/v1/top/{game}", s.api(0, s.top))
	mux.HandleFunc("GET /api/v1/me/rating.png", s.api(0, s.ratingChart))
}

// standing is a player's place on a leaderboard.
type standing struct {
	Place       int     `json:"place"`
	Name        string  `json:"name"`
	Rating      float64 `json:"rating"`
	RD          float64 `json:"rd"`
	Games       int     `json:"games"`
	Program     bool    `json:"program"`
	Provisional bool    `json:"provisional"`
	Me          bool    `json:"me"`
}

// topAnswer is GET /api/v1/top/{game}.
type topAnswer struct {
	Game        string     `json:"game"`
	Title       string     `json:"title"`
	Established []standing `json:"established"`
	Provisional []standing `json:"provisional"`
	Me          *standing  `json:"me"`
	// Texts are the page's words in the caller's language (plain): heading, provisional (the
	// heading of the provisional players), place (the caller's place, or that they have none)
	// and empty (nobody has a rating yet).
	Texts map[string]string `json:"texts"`
}

// top is GET /api/v1/top/{game}.
func (s *Server) top(w http.ResponseWriter, r *http.Request, c *caller) error {
	game := r.PathValue("game")
	if !boards.Offered(game) {
		return apiErr(http.StatusNotFound, "not_found", "No such game.")
	}
	var ans *topAnswer
	err := s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		p, err := profile(ctx, db, c)
		if err != nil {
			return err
		}
		rk, err := s.cfg.Boards.Leaderboard(ctx, db, c.service, game, c.user)
		if err != nil {
			return err
		}
		ans = topJSON(texts.For(lang(p)), rk, c.user)
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ans)
	return nil
}

// topJSON is a leaderboard as the API answers it, in the words of catalogue t.
func topJSON(t *texts.Catalog, rk *boards.Ranking, user int64) *topAnswer {
	one := func(r boards.Ranked) standing {
		name := webName(t, r.Profile, board.Seat{User: r.User}, "")
		if name == "" {
			name = fmt.Sprintf("#%d", r.User)
		}
		return standing{Place: r.Place, Name: name, Rating: tenth(r.Rating.Rating), RD: tenth(r.Rating.RD),
			Games: r.Games, Program: r.Program, Provisional: r.Provisional, Me: r.User == user}
	}
	title := t.Game(rk.Variant)
	ans := &topAnswer{Game: rk.Variant, Title: title, Established: []standing{}, Provisional: []standing{},
		Texts: map[string]string{
			"heading":     fmt.Sprintf(texts.Plain(t.Ratings.Top), title),
			"provisional": texts.Plain(t.Ratings.TopProvisional),
			"empty":       fmt.Sprintf(texts.Plain(t.Ratings.TopEmpty), title),
			"place":       texts.Plain(t.Ratings.TopNone),
		}}
	for _, r := range rk.Established {
		ans.Established = append(ans.Established, one(r))
	}
	for _, r := range rk.Provisional {
		ans.Provisional = append(ans.Provisional, one(r))
	}
	if rk.Me != nil {
		me := one(*rk.Me)
		ans.Me = &me
		ans.Texts["place"] = fmt.Sprintf(texts.Plain(t.Ratings.TopMe), me.Place)
		if me.Provisional {
			ans.Texts["place"] = fmt.Sprintf(texts.Plain(t.Ratings.TopMeProvisional), me.Place)
		}
	}
	return ans
}

// tenth rounds to a tenth.
func tenth(x float64) float64 { return math.Round(x*10) / 10 }

// ratingChart is GET /api/v1/me/rating.png.
func (s *Server) ratingChart(w http.ResponseWriter, r *http.Request, c *caller) error {
	var path, version string
	err := s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		p, err := profile(ctx, db, c)
		if err != nil {
			return err
		}
		// The chart speaks the caller's language; its version says which, so that a cached
		// copy in another language is not taken for it.
		lg := lang(p)
		cat := texts.For(lg)
		path, version, err = s.cfg.Boards.RatingChart(ctx, db, c.service, c.user, boards.ChartText{Title: cat.Ratings.ChartTitle, Game: cat.Game})
		if version != "" {
			version += "-" + lg
		}
		return err
	})
	if err != nil {
		return err
	}
	if path == "" {
		return apiErr(http.StatusNotFound, "not_found", "No rated games yet.")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("web: rating chart: %w", err)
	}
	etag := `"` + version + `"`
	w.Header().Set("Cache-Control", "private, no-cache")
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.Header().Set("Content-Type", "image/png")
	w.Write(data)
	return nil
}
