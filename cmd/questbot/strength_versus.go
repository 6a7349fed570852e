package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/questbot/questbot/engine"
)

// searchPlayer is an alpha-beta search of a fixed node limit, with or without the refinements
// of the chess search: the opponent of the levels in `strength -versus`, which compares a level
// with the search it had before (a change of its node limit, or of the search itself), move for
// move as it was, without the reference engine's wall clock.
type searchPlayer struct {
	nodes  int64
	refine bool
}

// parseSearchPlayer reads a -versus entrant: a node limit, with "+refine" after it for the
// refined chess search ("400000", "1000000+refine").
func parseSearchPlayer(spec string) (searchPlayer, error) {
	nodes, refine := strings.CutSuffix(strings.TrimSpace(spec), "+refine")
	n, err := strconv.ParseInt(nodes, 10, 64)
	if err != nil || n < 1 {
		return searchPlayer{}, fmt.Errorf("bad -versus entrant %q: want a node limit, optionally followed by +refine", spec)
	}
	return searchPlayer{nodes: n, refine: refine}, nil
}

func (p searchPlayer) name() string {
	n := "nodes-" + strconv.FormatInt(p.nodes, 10)
	if p.refine {
		n += "+refine"
	}
	return n
}

func (p searchPlayer) move(ctx context.Context, g *engine.Game) (string, judgement, error) {
	m, info, err := g.BestMove(ctx, engine.Limits{Nodes: p.nodes, Refine: p.refine, Algorithm: engine.AlphaBeta})
	return m.String(), engineJudgement(info), err
}

// parseVersus reads the -versus entrants, separated by commas.
func parseVersus(specs string) ([]player, error) {
	var rivals []player
	for _, s := range strings.Split(specs, ",") {
		p, err := parseSearchPlayer(s)
		if err != nil {
			return nil, err
		}
		rivals = append(rivals, p)
	}
	return rivals, nil
}

// playVersus plays each level against each of the rivals. The first rival is the anchor at 0,
// so a level's rating is its Elo difference from that search.
func playVersus(ctx context.Context, m *match, levels, rivals []player, anchors map[string]float64, pairs int) error {
	anchors[rivals[0].name()] = 0
	for _, r := range rivals {
		for _, p := range levels {
			if err := m.play(ctx, p, r, pairs); err != nil {
				return err
			}
		}
	}
	return nil
}
