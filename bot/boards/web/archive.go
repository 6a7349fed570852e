package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board"
)

// # The archive
//
// A player's finished games (boards.Boards.Archive), newest first, with filters: GET
// /api/v1/players/{id}/games (JSON, a page at a time: "next" is the cursor of the next page,
// passed back as ?cursor=) and GET /api/v1/players/{id}/games/export (the games selected, all
// in one file, each as the export of one game writes it: export.go), {id} being a user's id
// or "me". The filters are the query's: variant, control, result (win, loss or draw, for the
// archive's player), opponent (a user's id, or "bot"), from and to (the days the games ended,
// YYYY-MM-DD, both included), and limit (the page's size, at most boards.MaxArchivePage).
//
// A caller sees their own games, and a game of someone else's only when they may watch it
// (boards.Watcher, the service's rule of every call on a game: for a finished game, its players let spectators
// in). The page /players/{id}/games shows the same with the filters as a form (archive.html,
// archive.js); the lobby links to the caller's, and a game's page to each player's.

// archiveLimit is the size of a page when the query names none.
const archiveLimit = 30

// maxExportGames bounds the games of one export of the archive.
const maxExportGames = 1000

// ArchiveEntry is a game of the archive as the API lists it.
type ArchiveEntry struct {
	ID           int64  `json:"id"`
	Variant      string `json:"variant"`
	Title        string `json:"title"`
	Control      string `json:"control"`
	ControlTitle string `json:"control_title"`
	// Seat is the archive player's seat; Opponent the other.
	Seat     int           `json:"seat"`
	Opponent ArchivePlayer `json:"opponent"`
	// Result is "win", "loss" or "draw" for the archive's player, and ResultText says it with
	// the reason, in the caller's language.
	Result     string    `json:"result"`
	ResultText string    `json:"result_text"`
	Ply        int       `json:"ply"`
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended"`
	// Rating is the archive player's rating change in a rated game; nil otherwise.
	Rating *RatingChange `json:"rating"`
	// Export is the address of the game's moves as text.
	Export string `json:"export"`
}

// ArchivePlayer is a player of the archive: a user's id (0 for the bot) and name, and the bot's
// level.
type ArchivePlayer struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Bot  string `json:"bot"`
}

// ArchivePage is an answer of GET /api/v1/players/{id}/games: whose games, a page of them, and
// the cursor of the next page ("" after the last); Opponents are the users the player finished
// games against (the latest first), for the choice of an opponent.
type ArchivePage struct {
	Player    ArchivePlayer   `json:"player"`
	Games     []ArchiveEntry  `json:"games"`
	Next      string          `json:"next"`
	Opponents []ArchivePlayer `json:"opponents"`
}

// maxOpponents bounds the opponents an archive's answer lists.
const maxOpponents = 50

// routeArchive adds the archive's calls and page to mux.
func (s *Server) routeArchive(mux router) {
	mux.HandleFunc("GET /api/v1/players/{id}/games", s.api(0, s.archive))
	mux.HandleFunc("GET /api/v1/players/{id}/games/export", s.api(0, s.archiveExport))
	mux.HandleFunc("GET /players/{id}/games", s.archivePage)
}

// badFilter is the answer to a filter the archive does not know.
func badFilter(detail string) *apiError {
	e := apiWords(http.StatusBadRequest, "bad_request", func(c *texts.Catalog) string {
		return c.Web.Page["err.archiveFilter"] + " (" + detail + ")"
	})
	return e
}

// archiveFilter reads the player and the filters of an archive's request.
func archiveFilter(r *http.Request, c *caller) (boards.ArchiveFilter, error) {
	f := boards.ArchiveFilter{Service: c.service, Viewer: c.user, Limit: archiveLimit}
	if who := r.PathValue("id"); who == "me" {
		f.User = c.user
	} else if id, err := strconv.ParseInt(who, 10, 64); err == nil && id > 0 {
		f.User = id
	} else {
		return f, badFilter("user")
	}
	q := r.URL.Query()
	f.Variant, f.Control = q.Get("variant"), q.Get("control")
	if f.Variant != "" && !boards.Offered(f.Variant) {
		return f, badFilter("variant")
	}
	switch res := q.Get("result"); res {
	case "", boards.ResultWin, boards.ResultLoss, boards.ResultDraw:
		f.Result = res
	default:
		return f, badFilter("result")
	}
	switch op := q.Get("opponent"); op {
	case "":
	case "bot":
		f.OpponentBot = true
	default:
		id, err := strconv.ParseInt(op, 10, 64)
		if err != nil || id <= 0 {
			return f, badFilter("opponent")
		}
		f.Opponent = id
	}
	for _, d := range []struct {
		name string
		to   *time.Time
		next bool
	}{{"from", &f.From, false}, {"to", &f.To, true}} {
		v := q.Get(d.name)
		if v == "" {
			continue
		}
		day, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return f, badFilter(d.name)
		}
		if d.next {
			// The last day is included: the games ended before the next one.
			day = day.AddDate(0, 0, 1)
		}
		*d.to = day
	}
	if v := q.Get("cursor"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return f, badFilter("cursor")
		}
		f.Before = id
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > boards.MaxArchivePage {
			return f, badFilter("limit")
		}
		f.Limit = n
	}
	return f, nil
}

// archive is GET /api/v1/players/{id}/games.
func (s *Server) archive(w http.ResponseWriter, r *http.Request, c *caller) error {
	f, err := archiveFilter(r, c)
	if err != nil {
		return err
	}
	out := ArchivePage{Games: []ArchiveEntry{}, Opponents: []ArchivePlayer{}}
	err = s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		p, err := profile(ctx, db, c)
		if err != nil {
			return err
		}
		cat := texts.For(lang(p))
		if out.Player, err = s.archivePlayer(ctx, db, f.User); err != nil {
			return err
		}
		page, err := s.cfg.Boards.Archive(ctx, db, f)
		if err != nil {
			return err
		}
		for _, g := range page.Games {
			if _, err := boards.Watcher(g.Board, c.user, g.Spectators); err != nil {
				continue // the store's filter is the same rule; this is its check
			}
			entry, err := s.archiveEntry(ctx, db, cat, g)
			if err != nil {
				return err
			}
			out.Games = append(out.Games, entry)
		}
		if page.Next != 0 {
			out.Next = strconv.FormatInt(page.Next, 10)
		}
		ids, err := s.cfg.Boards.Opponents(ctx, db, f.Service, f.User, maxOpponents)
		if err != nil {
			return err
		}
		for _, id := range ids {
			op, err := s.archivePlayer(ctx, db, id)
			if err != nil {
				return err
			}
			out.Opponents = append(out.Opponents, op)
		}
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// archivePlayer names a user of the archive; a user who is not there has no name.
func (s *Server) archivePlayer(ctx context.Context, db pgxTx, user int64) (ArchivePlayer, error) {
	p, err := s.cfg.Boards.Profile(ctx, db, user)
	if err != nil {
		return ArchivePlayer{}, err
	}
	ap := ArchivePlayer{ID: user}
	if p != nil {
		ap.Name = boards.PlayerName(p, p.ID)
	}
	return ap, nil
}

// archiveEntry words a game of the archive in c's language.
func (s *Server) archiveEntry(ctx context.Context, db pgxTx, c *texts.Catalog, g boards.ArchiveGame) (ArchiveEntry, error) {
	bd, seat := g.Board, g.Seat
	sc, err := s.cfg.Boards.Players(ctx, db, bd)
	if err != nil {
		return ArchiveEntry{}, err
	}
	other := bd.Seats[1-seat]
	e := ArchiveEntry{ID: bd.ID, Variant: bd.Variant, Title: c.Game(bd.Variant), Control: bd.Control.Name,
		ControlTitle: c.Control(bd.Control.Name), Seat: seat, Ply: bd.Ply(), Started: bd.Started, Ended: bd.Ended,
		Opponent: ArchivePlayer{ID: other.User, Name: sc.Name(c, 1-seat), Bot: other.Bot.String()},
		Export:   fmt.Sprintf("/api/v1/games/%d/export", bd.ID)}
	if other.Bot != board.NoBot {
		e.Opponent.ID = 0
	}
	o := bd.Outcome
	switch {
	case o == nil || o.Draw:
		e.Result = boards.ResultDraw
	case o.Winner == seat:
		e.Result = boards.ResultWin
	default:
		e.Result = boards.ResultLoss
	}
	if o != nil {
		e.ResultText = webResult(c, sc, seat).Text
	}
	e.Rating = ratingChange(bd, seat)
	return e, nil
}

// archiveExport is GET /api/v1/players/{id}/games/export: the games the filters select, at most
// maxExportGames, newest first, in one file; PGN or PDN when every game is of that kind, text
// otherwise.
func (s *Server) archiveExport(w http.ResponseWriter, r *http.Request, c *caller) error {
	f, err := archiveFilter(r, c)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	exts := map[string]bool{}
	err = s.read(r.Context(), func(ctx context.Context, db pgxTx) error {
		p, err := profile(ctx, db, c)
		if err != nil {
			return err
		}
		cat := texts.For(lang(p))
		n := 0
		f.Limit = boards.MaxArchivePage
		for n < maxExportGames {
			page, err := s.cfg.Boards.Archive(ctx, db, f)
			if err != nil {
				return err
			}
			for _, g := range page.Games {
				seat, err := boards.Watcher(g.Board, c.user, g.Spectators)
				if err != nil || n == maxExportGames {
					continue
				}
				st, err := boardState(ctx, db, s.cfg.Boards, g.Board, seat, cat)
				if err != nil {
					return err
				}
				text, ext, err := exportGame(g.Board, st, s.cfg.PublicURL)
				if err != nil {
					return err
				}
				if n > 0 {
					out.WriteString("\n")
				}
				out.WriteString(text)
				exts[ext] = true
				n++
			}
			if page.Next == 0 {
				break
			}
			f.Before = page.Next
		}
		return nil
	})
	if err != nil {
		return err
	}
	ext := "txt"
	if len(exts) == 1 {
		for e := range exts {
			ext = e
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="games-%d.%s"`, f.User, ext))
	io.Copy(w, &out)
	return nil
}

// loadArchivePage reads the archive's page once per process, its static files named with their
// versions as the other pages' are (pages.go).
var loadArchivePage = sync.OnceValues(func() (*pageFile, error) {
	set, err := loadPages()
	if err != nil {
		return nil, err
	}
	body, err := fs.ReadFile(pageFiles, "static/archive.html")
	if err != nil {
		return nil, fmt.Errorf("pages: the archive: %w", err)
	}
	for rel, f := range set.static {
		body = bytes.ReplaceAll(body, []byte(`"/static/`+rel+`"`), []byte(`"/static/`+rel+`?v=`+f.version+`"`))
	}
	return newPageFile(body, pageTypes[".html"]), nil
})

// archivePage serves the archive's page, GET /players/{id}/games, with the headers of every
// page (pagesCSP); the script reads the user and the filters from the address.
func (s *Server) archivePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", pagesCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	if who := r.PathValue("id"); who != "me" {
		if id, err := strconv.ParseInt(who, 10, 64); err != nil || id <= 0 || strconv.FormatInt(id, 10) != who {
			http.NotFound(w, r)
			return
		}
	}
	f, err := loadArchivePage()
	if err != nil {
		http.Error(w, "the pages are not available: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h.Set("Cache-Control", "no-cache")
	serveFile(w, r, f)
}
