package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// gameLine matches the line the strength command writes for each game (see match.play):
// "A v B, X moving first: A wins (reason)".
var gameLine = regexp.MustCompile(`^(\S+) v (\S+), \S+ moving first: (\S+) (wins|loses|draws) \(`)

// readResults reads the games of a strength command's log: its game lines, in order; the other
// lines (openings, ratings) are passed over. A game line naming a third entrant as the one
// scoring is an error.
func readResults(r io.Reader) ([]result, error) {
	var out []result
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		f := gameLine.FindStringSubmatch(sc.Text())
		if f == nil {
			continue
		}
		if f[3] != f[1] {
			return nil, fmt.Errorf("line %d: the score is given for %s, not the first named %s", n, f[3], f[1])
		}
		score := map[string]float64{"wins": 1, "draws": 0.5, "loses": 0}[f[4]]
		out = append(out, result{f[1], f[2], score})
	}
	return out, sc.Err()
}

// logAnchors returns the anchors among the entrants of games: the ladder's depth-1, rated
// 1000, and the Stockfish players, rated by their names (stockfish-1350).
func logAnchors(games []result) map[string]float64 {
	anchors := map[string]float64{}
	for _, g := range games {
		for _, n := range []string{g.a, g.b} {
			if n == (depthPlayer{1}).name() {
				anchors[n] = 1000
			}
			if elo, ok := strings.CutPrefix(n, "stockfish-"); ok {
				if r, err := strconv.Atoi(elo); err == nil {
					anchors[n] = float64(r)
				}
			}
		}
	}
	return anchors
}

// refit rates the games of earlier runs' logs together (files, comma-separated), as if one
// run had played them all.
func refit(files string, stdout, stderr io.Writer) int {
	var games []result
	for _, name := range strings.Split(files, ",") {
		f, err := os.Open(strings.TrimSpace(name))
		if err != nil {
			fmt.Fprintf(stderr, "questbot strength: %v\n", err)
			return 1
		}
		g, err := readResults(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "questbot strength: %s: %v\n", name, err)
			return 1
		}
		games = append(games, g...)
	}
	anchors := logAnchors(games)
	if len(anchors) == 0 {
		fmt.Fprintf(stderr, "questbot strength: no anchor (depth-1 or stockfish-N) among the %d games of %s\n", len(games), files)
		return 1
	}
	fmt.Fprintf(stdout, "ratings from %d games\n", len(games))
	for _, e := range rate(anchors, games) {
		fmt.Fprintln(stdout, " ", e)
	}
	return 0
}
