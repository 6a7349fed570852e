package boards

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// # Ratings
//
// The ratings are sessions/board's (Glicko-2, glicko.go), moved by the store with each rated
// game's result; this file gives the views what they show of them: the leaderboards of /top
// (Leaderboard: the established players and the provisional ones apart, who each player is and
// whether they are a program, and the asker's place) and the chart of a player's ratings over
// time (RatingChart), a PNG the engine draws with the boards' drawing code, kept in the folder
// of the pictures under a name made from the history's last row, as the board pictures are.

// LeaderboardSize is how many players a leaderboard lists, of the established and of the
// provisional players each.
const LeaderboardSize = 10

// Ranked is a player's standing with who they are.
type Ranked struct {
	board.Standing
	// Profile is the player's (nil for a user row removed by hand); Program is set for a
	// program playing through an API token (Users.Programs), marked as a bot.
	Profile *Profile
	Program bool
}

// Ranking is the leaderboard of a game in a bot, as a user asks for it.
type Ranking struct {
	Variant                  string
	Established, Provisional []Ranked
	// Me is the asker's standing; nil without a rated game in the variant.
	Me *Ranked
}

// Leaderboard returns the best players of a game in a bot as of now (board.Ratings), and user's
// place. Returns board.ErrInvalid for a game the bot does not offer.
func (b *Boards) Leaderboard(ctx context.Context, db pgx.Tx, service int, variant string, user int64) (*Ranking, error) {
	if !Offered(variant) {
		return nil, fmt.Errorf("%w: no game %q", board.ErrInvalid, variant)
	}
	lb, err := b.store(db).Leaderboard(ctx, service, variant, user, b.now(), LeaderboardSize)
	if err != nil {
		return nil, err
	}
	all := append(append([]board.Standing{}, lb.Established...), lb.Provisional...)
	if lb.Me != nil {
		all = append(all, *lb.Me)
	}
	ids := make([]int64, len(all))
	for i, s := range all {
		ids[i] = s.User
	}
	programs, err := b.users.Programs(ctx, db, service, ids)
	if err != nil {
		return nil, err
	}
	rank := func(s board.Standing) (Ranked, error) {
		p, err := b.Profile(ctx, db, s.User)
		return Ranked{Standing: s, Profile: p, Program: programs[s.User]}, err
	}
	r := &Ranking{Variant: variant}
	for _, list := range []struct {
		from []board.Standing
		to   *[]Ranked
	}{{lb.Established, &r.Established}, {lb.Provisional, &r.Provisional}} {
		for _, s := range list.from {
			rk, err := rank(s)
			if err != nil {
				return nil, err
			}
			*list.to = append(*list.to, rk)
		}
	}
	if lb.Me != nil {
		me, err := rank(*lb.Me)
		if err != nil {
			return nil, err
		}
		r.Me = &me
	}
	return r, nil
}

// ChartText is what a rating chart writes: its title and the name of each game.
type ChartText struct {
	Title string
	Game  func(variant string) string
}

// chartDrawing is a digest of how the engine draws charts: the picture of a reference chart, so
// that a change to the drawing never serves an old chart.
var chartDrawing = sync.OnceValues(func() (string, error) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	err := engine.WriteChartPNG(&buf, engine.Chart{Title: "Ratings", Series: []engine.Series{{Name: "Chess",
		Points: []engine.ChartPoint{{At: t0, Value: 1662, Band: 290}, {At: t0.Add(48 * time.Hour), Value: 1600, Band: 200}}}}})
	if err != nil {
		return "", fmt.Errorf("boards: reference chart: %w", err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:8]), nil
})

// RatingChart returns the file of the chart of a user's ratings in a bot over time (a PNG, one
// line per game played rated, with its band of ± RD), and its version, which changes with every
// rated game; "" when the user has no rated game. The chart is drawn when its file is missing
// (or near its removal), and found again while the history's last row and the words are the
// same.
func (b *Boards) RatingChart(ctx context.Context, db pgx.Tx, service int, user int64, text ChartText) (path, version string, err error) {
	hist, err := b.store(db).RatingHistory(ctx, service, user)
	if err != nil || len(hist) == 0 {
		return "", "", err
	}
	var last int64
	var series []engine.Series
	for _, p := range hist {
		last = max(last, p.ID)
		if len(series) == 0 || series[len(series)-1].Name != p.Variant {
			series = append(series, engine.Series{Name: p.Variant})
		}
		s := &series[len(series)-1]
		s.Points = append(s.Points, engine.ChartPoint{At: p.At, Value: p.Rating.Rating, Band: p.Rating.RD})
	}
	key := []string{fmt.Sprint(service, user, last, len(hist)), text.Title}
	for i := range series {
		series[i].Name = text.Game(series[i].Name)
		key = append(key, series[i].Name)
	}
	version = fmt.Sprintf("%d-%d", last, len(hist))
	start := time.Now()
	path, drawn, err := b.pics.chart(key, engine.Chart{Title: text.Title, Series: series})
	if drawn {
		b.metrics.Render.Observe(time.Since(start).Seconds())
	}
	return path, version, err
}

// chart returns the file of a chart named by key, drawing and writing it first when there is
// none (or only one near its removal); drawn reports whether it was drawn now.
func (p *pictures) chart(key []string, c engine.Chart) (path string, drawn bool, err error) {
	d, err := chartDrawing()
	if err != nil {
		return "", false, err
	}
	sum := sha256.Sum256([]byte("chart\x00" + d + "\x00" + strings.Join(key, "\x00")))
	name := hex.EncodeToString(sum[:16])
	path = filepath.Join(p.dir, name[:2], name+pictureExt)
	if st, err := os.Stat(path); err == nil && p.now().Sub(st.ModTime()) < p.keep-24*time.Hour {
		return path, false, nil
	}
	var buf bytes.Buffer
	if err := engine.WriteChartPNG(&buf, c); err != nil {
		return "", false, fmt.Errorf("boards: draw a chart: %w", err)
	}
	if err := writeFile(path, buf.Bytes()); err != nil {
		return "", false, err
	}
	return path, true, nil
}
