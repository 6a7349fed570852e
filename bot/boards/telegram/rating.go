package telegram

import (
	"context"
	"errors"
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/scripts"
	"github.com/questbot/questbot/sessions/board"
)

// Ratings in Telegram (migration 028_ratings.sql):
//
//   - board.rating: /rating. A user with rated games gets the chart of their ratings over time
//     (boards.Boards.RatingChart) as a photo, captioned with each game's rating ± deviation as it
//     stands now, the rated and all games played, and the provisional mark; code chart, which
//     the tree leaves to the built-in. A user who played only against the bot gets the table of
//     results (code ok), one who never finished a game code none: no empty chart.
//   - board.top (args, or game from the menu): /top [game]. The best players of a game
//     (boards.Boards.Leaderboard): the ten best established players, then the provisional ones
//     apart, programs marked, and the asker's place; code ok. Without a game, or with a name no
//     game has (said first), code menu with the games, for the tree's menu, which calls
//     board.top again with the game chosen.

// ratingChart answers /rating: the chart, or the table of results without rated games.
func (v *View) ratingChart(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	stats, err := v.svc.Store(tx.DB()).UserStats(ctx, u.Service, u.User.ID)
	if err != nil {
		return nil, err
	}
	c := texts.For(u.User.Language)
	path, _, err := v.svc.RatingChart(ctx, tx.DB(), u.Service, u.User.ID, boards.ChartText{Title: c.Ratings.ChartTitle, Game: c.Game})
	if err != nil {
		return nil, err
	}
	if path == "" {
		return v.rating(ctx, tx, u, args)
	}
	now := v.svc.Now()
	lines := []string{c.Ratings.Caption}
	for _, s := range stats {
		if s.Rated == 0 {
			continue
		}
		g := s.Current(now)
		line := c.RatingLine(html.EscapeString(c.Game(s.Variant)), round(g.Rating), round(g.RD), s.Rated, s.Played)
		if g.Provisional() {
			line += c.Ratings.Provisional
		}
		lines = append(lines, line)
	}
	lines = append(lines, "", c.Ratings.CaptionNote)
	req, err := bot.SendPhoto(u.Chat, path, strings.Join(lines, "\n"), nil)
	if err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "chart"}, tx.Send(ctx, req)
}

// round is a rating's or a deviation's whole number.
func round(x float64) int { return int(math.Round(x)) }

// top answers /top [game]: the leaderboard of the game named, else the menu of the games (of
// those the name fits, when it fits several: findGames).
func (v *View) top(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	c := texts.For(u.User.Language)
	name := strings.TrimSpace(args["game"])
	if name == "" {
		name = strings.TrimSpace(args["args"])
	}
	found := findGames(name)
	if len(found) != 1 {
		// No game named: all of them to choose from (said so, when a name was given); several:
		// those.
		if len(found) == 0 {
			if name != "" {
				if err := say(ctx, tx, u.Chat, fmt.Sprintf(c.Ratings.UnknownGame, html.EscapeString(name)), 0); err != nil {
					return nil, err
				}
			}
			found = boards.Games
		}
		list := make([]item, len(found))
		for i, g := range found {
			list[i] = item{Value: g, Label: c.Game(g)}
		}
		return result("menu", map[string]any{"games": list})
	}
	variant := found[0]
	r, err := v.svc.Leaderboard(ctx, tx.DB(), u.Service, variant, u.User.ID)
	if errors.Is(err, board.ErrInvalid) {
		return result("menu", nil)
	}
	if err != nil {
		return nil, err
	}
	reqs, err := bot.SendHTML(u.Chat, topText(c, r), nil)
	if err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, tx.Send(ctx, reqs...)
}

// topText words a leaderboard in HTML: the established players by place, the provisional ones
// apart, and the asker's place.
func topText(c *texts.Catalog, r *boards.Ranking) string {
	t := &c.Ratings
	game := html.EscapeString(c.Game(r.Variant))
	lines := []string{fmt.Sprintf(t.Top, game)}
	if len(r.Established) == 0 && len(r.Provisional) == 0 {
		return lines[0] + "\n" + fmt.Sprintf(t.TopEmpty, game)
	}
	entry := func(rk boards.Ranked) string {
		name := playerName(rk)
		if rk.Program {
			name += t.Program
		}
		return c.TopEntry(rk.Place, name, round(rk.Rating.Rating), round(rk.Rating.RD), rk.Games)
	}
	for _, rk := range r.Established {
		lines = append(lines, entry(rk))
	}
	if len(r.Provisional) > 0 {
		lines = append(lines, "", t.TopProvisional)
		for _, rk := range r.Provisional {
			lines = append(lines, entry(rk))
		}
	}
	lines = append(lines, "")
	switch {
	case r.Me == nil:
		lines = append(lines, t.TopNone)
	case r.Me.Provisional:
		lines = append(lines, fmt.Sprintf(t.TopMeProvisional, r.Me.Place))
	default:
		lines = append(lines, fmt.Sprintf(t.TopMe, r.Me.Place))
	}
	return strings.Join(lines, "\n")
}

// playerName is a ranked player's name, HTML-escaped: the first name, else @username, else
// their number.
func playerName(rk boards.Ranked) string {
	return html.EscapeString(boards.PlayerName(rk.Profile, rk.User))
}

// findGames finds the games a user names: by its id ("chess") or its name in any language
// ("Шахматы", "russian draughts"), ignoring case, that one game; else the games one of whose
// names starts with the words ("шах" is chess), else those whose names contain them ("fox" is
// the three games of Fox and Geese, "draughts" every draughts game); none for a name no game
// has (or no name).
func findGames(name string) []string {
	name = strings.ToLower(strings.Join(strings.Fields(name), " "))
	if name == "" {
		return nil
	}
	names := func(g string) []string {
		return []string{g, strings.ToLower(texts.For("en").Game(g)), strings.ToLower(texts.For("ru").Game(g))}
	}
	var prefixed, containing []string
	for _, g := range boards.Games {
		var prefix, contains bool
		for _, n := range names(g) {
			if n == name {
				return []string{g}
			}
			prefix = prefix || strings.HasPrefix(n, name)
			contains = contains || strings.Contains(n, name)
		}
		if prefix {
			prefixed = append(prefixed, g)
		}
		if contains {
			containing = append(containing, g)
		}
	}
	if len(prefixed) > 0 {
		return prefixed
	}
	return containing
}
