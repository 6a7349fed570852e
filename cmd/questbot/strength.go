package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// maxStrengthPlies ends a game of a strength match that goes on that long as a draw
// (adjudication: neither side could win it).
const maxStrengthPlies = 400

// The openings: each pair of games starts from a short random opening, so that two
// deterministic searches do not replay one game, with colours swapped over it. In chess two
// random plies give some 400 openings; the other games have fewer moves at the start (49 in
// Russian draughts, and in Othello only 3 up to symmetry), so they draw more plies. Every
// opening of a run is a different position, and one that a search of balanceDepth plies
// judges more than the balance away from level is drawn again: a random ply that gives away a
// man would make both games of its pair a win for the same side, which says nothing of the
// players.
const (
	chessOpeningPlies = 2
	otherOpeningPlies = 4
	defaultBalance    = 80
	balanceDepth      = 4
	// openingTries bounds the draws of one opening before the run gives up.
	openingTries = 1000
)

// runStrength is the `strength` command: it measures the bot's levels by playing them against
// reference opponents and prints each level's rating with its standard error.
//
//   - Chess against Stockfish (Debian's stockfish package), limited with UCI_LimitStrength to
//     each of the Elo ratings given, a fixed time a move: the Stockfish ratings are the anchors.
//   - Any game against a ladder of fixed-depth alpha-beta searches: the rungs play each other
//     and the levels, and the rating scale is anchored at 1000 for depth 1 (so the figures of
//     different games are not comparable, only the order and gaps within a game).
//   - With -versus, any game against alpha-beta searches of fixed node limits (strength_versus.go),
//     the first of them the anchor at 0: a level's rating is then its gain over that search.
//
// Games come in pairs with colours swapped over the same short random opening. Ratings are the
// most likely under the Elo model given all the games (see rate).
func runStrength(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("strength", flag.ContinueOnError)
	game := fs.String("game", "chess", "the game (an engine variant name)")
	levels := fs.String("levels", "easy,normal,strong", "the bot's levels to measure (none: the ladder's rungs only); on the ladder, level:D1-D2 plays only the rungs of depths D1 to D2")
	pairs := fs.Int("pairs", 10, "pairs of games (colours swapped) each level plays against each opponent")
	rungPairs := fs.Int("rung-pairs", 0, "pairs of games each rung of the ladder plays against the one below it (default: -pairs)")
	stockfish := fs.String("stockfish", "", "the Stockfish program (default: stockfish on the PATH or /usr/games/stockfish); chess only")
	elos := fs.String("elo", "1350,1600,1800,2000", "Stockfish's UCI_Elo ratings to play against")
	movetime := fs.Duration("movetime", 100*time.Millisecond, "Stockfish's time a move")
	ladder := fs.Bool("ladder", false, "play the ladder of fixed-depth searches, even for chess")
	depths := fs.String("depths", "1,2,3,4", "the depths of the ladder's rungs, rising from 1 (the anchor, rated 1000)")
	opening := fs.Int("opening", 0, "random plies opening each pair (default: 2 in chess, 4 in the other games)")
	balance := fs.Int("balance", defaultBalance, "how far from level (in the game's evaluation) an opening may be")
	seed := fs.Uint64("seed", 1, "the seed of the openings")
	uncapped := fs.Bool("uncapped", false, "search the levels' node limits to the end, without the bot's time caps")
	wall := fs.Bool("wall", false, "time the levels' searches by the wall clock (default: by this process's CPU time)")
	refitLogs := fs.String("refit", "", "rate the games of earlier runs' output (files, comma-separated) together, instead of playing")
	versus := fs.String("versus", "", "play node-limited searches instead (N or N+refine, separated by commas; the first is the anchor at 0)")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: questbot strength [-game G] [-levels L[:D1-D2],…] [-pairs N] [-elo R,…] [-movetime D] [-stockfish PATH]")
		fmt.Fprintln(w, "       [-ladder] [-depths D,…] [-rung-pairs N] [-opening N] [-balance S] [-versus N[+refine],…]")
		fmt.Fprintln(w, "       [-seed S] [-uncapped] [-wall]")
		fmt.Fprintln(w, "       questbot strength -refit FILE,…")
		fmt.Fprintln(w, "Plays the bot's levels against Stockfish (chess) or a ladder of fixed-depth searches (any game)")
		fmt.Fprintln(w, "and prints each level's rating with its standard error; -refit rates the games of earlier runs together.")
	}
	operands, code, ok := parseOperands(fs, args, help, stdout, stderr)
	if !ok {
		return code
	}
	if len(operands) > 0 {
		return usageError(stderr, "strength", "unexpected argument %q", operands[0])
	}
	if *refitLogs != "" {
		return refit(*refitLogs, stdout, stderr)
	}
	if _, err := engine.NewGame(*game); err != nil {
		return usageError(stderr, "strength", "%v", err)
	}
	lv, err := parseLevelSpecs(*levels)
	if err != nil {
		return usageError(stderr, "strength", "%v", err)
	}
	if *pairs < 1 {
		return usageError(stderr, "strength", "-pairs must be 1 or more, not %d", *pairs)
	}
	eloList, err := parseElos(*elos)
	if err != nil {
		return usageError(stderr, "strength", "%v", err)
	}
	var rivals []player
	if *versus != "" {
		var err error
		if rivals, err = parseVersus(*versus); err != nil {
			return usageError(stderr, "strength", "%v", err)
		}
	}
	if *rungPairs < 0 {
		return usageError(stderr, "strength", "-rung-pairs must be 1 or more, not %d", *rungPairs)
	}
	if *rungPairs == 0 {
		*rungPairs = *pairs
	}
	if *opening < 0 || *opening > 40 {
		return usageError(stderr, "strength", "-opening must be between 0 and 40 plies, not %d", *opening)
	}
	if *opening == 0 {
		*opening = otherOpeningPlies
		if *game == "chess" || *game == "chess960" {
			*opening = chessOpeningPlies
		}
	}
	if *balance < 1 {
		return usageError(stderr, "strength", "-balance must be 1 or more, not %d", *balance)
	}
	m := &match{game: *game, rng: rand.New(rand.NewPCG(*seed, 0)), log: stdout,
		openingPlies: *opening, balance: *balance, seen: map[string]bool{}}
	// The bot's searches are capped in time; on a machine busy with other work (or with the
	// reference engine) the wall clock would cut them short, so they are timed by the CPU time
	// they use: a core's work, as the bot's worker has.
	clock, cpu := cpuClock()
	m.cpu = clock
	if *wall || !cpu {
		clock = nil
	}
	var levelPlayers []player
	for _, spec := range lv {
		l := spec.level
		lim := l.Limits(*game)
		if !*uncapped {
			lim.Time = boards.DefaultThink[l]
			lim.Now = clock
		}
		levelPlayers = append(levelPlayers, levelPlayer{l, lim})
	}
	anchors := map[string]float64{}
	useStockfish := *game == "chess" && !*ladder
	if (useStockfish || len(rivals) > 0) && len(lv) == 0 {
		return usageError(stderr, "strength", "no level to measure")
	}
	if len(rivals) > 0 {
		if err := playVersus(ctx, m, levelPlayers, rivals, anchors, *pairs); err != nil {
			fmt.Fprintf(stderr, "questbot strength: %v\n", err)
			return 1
		}
	} else if useStockfish {
		bin, err := findStockfish(*stockfish)
		if err != nil {
			fmt.Fprintf(stderr, "questbot strength: %v (install Debian's stockfish, or use -ladder)\n", err)
			return 1
		}
		for _, elo := range eloList {
			sf, err := startUCI(ctx, bin, elo, *movetime)
			if err != nil {
				fmt.Fprintf(stderr, "questbot strength: %v\n", err)
				return 1
			}
			defer sf.close()
			anchors[sf.name()] = float64(elo)
			for _, p := range levelPlayers {
				if err := m.play(ctx, p, sf, *pairs); err != nil {
					fmt.Fprintf(stderr, "questbot strength: %v\n", err)
					return 1
				}
			}
		}
	} else {
		rungs, err := parseDepths(*depths)
		if err != nil {
			return usageError(stderr, "strength", "%v", err)
		}
		for i, spec := range lv {
			if !spec.playsAny(rungs) {
				return usageError(stderr, "strength", "level %s plays no rung of -depths %s", levelPlayers[i].name(), *depths)
			}
		}
		// The scale is depth 1's, rated 1000. A run that starts higher holds its lowest rung at
		// 1000 instead, and says so: its games add to a run from depth 1 by -refit.
		anchors[rungs[0].name()] = 1000
		if rungs[0].depth != 1 {
			fmt.Fprintf(stdout, "the lowest rung, %s, is held at 1000 in this run: rate its games with a run from depth-1 (-refit) for the ladder's scale\n", rungs[0].name())
		}
		for i := 1; i < len(rungs); i++ {
			if err := m.play(ctx, rungs[i], rungs[i-1], *rungPairs); err != nil {
				fmt.Fprintf(stderr, "questbot strength: %v\n", err)
				return 1
			}
		}
		for i, p := range levelPlayers {
			for _, r := range rungs {
				if !lv[i].plays(r.depth) {
					continue
				}
				if err := m.play(ctx, p, r, *pairs); err != nil {
					fmt.Fprintf(stderr, "questbot strength: %v\n", err)
					return 1
				}
			}
		}
	}
	fmt.Fprintf(stdout, "\n%s: ratings from %d games\n", *game, len(m.results))
	for _, e := range rate(anchors, m.results) {
		fmt.Fprintln(stdout, " ", e)
	}
	fmt.Fprintln(stdout, "time a move:")
	for _, p := range levelPlayers {
		if t := m.clock[p.name()]; t != nil {
			n := time.Duration(t.moves)
			fmt.Fprintf(stdout, "  %s: %d moves, %v on average (%v at most), CPU %v on average (%v at most)\n", p.name(), t.moves,
				(t.total / n).Round(time.Millisecond), t.longest.Round(time.Millisecond),
				(t.cpu / n).Round(time.Millisecond), t.cpuLongest.Round(time.Millisecond))
		}
	}
	return 0
}

// parseElos reads -elo: Stockfish's UCI_Elo ratings, whole numbers separated by commas. It is
// checked whatever the run plays (also with -ladder, which does not use it), so that a mistyped
// value is told at once rather than ignored.
func parseElos(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		elo, err := strconv.Atoi(f)
		if err != nil || elo < 1 || elo > 5000 {
			return nil, fmt.Errorf("-elo must be Elo ratings (whole numbers such as 1350) separated by commas, not %q", s)
		}
		out = append(out, elo)
	}
	return out, nil
}

// levelSpec is a level to measure and, on the ladder, the depths of the rungs it plays (all
// when hi is 0).
type levelSpec struct {
	level  board.BotLevel
	lo, hi int
}

// plays tells whether the level plays the rung of depth d.
func (s levelSpec) plays(d int) bool { return s.hi == 0 || (d >= s.lo && d <= s.hi) }

// playsAny tells whether the level plays one of the rungs.
func (s levelSpec) playsAny(rungs []depthPlayer) bool {
	for _, r := range rungs {
		if s.plays(r.depth) {
			return true
		}
	}
	return false
}

// parseLevelSpecs reads -levels: level names, each with an optional ":D1-D2" (or ":D") window
// of rung depths; a level may be named once. None (an empty list) plays the ladder's rungs
// only.
func parseLevelSpecs(text string) ([]levelSpec, error) {
	var out []levelSpec
	if text == "" {
		return nil, nil
	}
	seen := map[board.BotLevel]bool{}
	for _, item := range strings.Split(text, ",") {
		name, window, hasWindow := strings.Cut(strings.TrimSpace(item), ":")
		l, err := board.ParseBotLevel(name)
		if err != nil || l == board.NoBot {
			return nil, fmt.Errorf("unknown level %q", name)
		}
		if seen[l] {
			return nil, fmt.Errorf("level %s named twice", name)
		}
		seen[l] = true
		spec := levelSpec{level: l}
		if hasWindow {
			lo, hi, isRange := strings.Cut(window, "-")
			if !isRange {
				hi = lo
			}
			var err1, err2 error
			spec.lo, err1 = strconv.Atoi(lo)
			spec.hi, err2 = strconv.Atoi(hi)
			if err1 != nil || err2 != nil || spec.lo < 1 || spec.hi < spec.lo {
				return nil, fmt.Errorf("bad rung window %q of level %s (want D1-D2, 1 ≤ D1 ≤ D2)", window, name)
			}
		}
		out = append(out, spec)
	}
	return out, nil
}

// maxLadderDepth bounds a rung's depth: deeper searches take minutes a move in most games.
const maxLadderDepth = 30

// parseDepths reads -depths: two or more rising depths.
func parseDepths(text string) ([]depthPlayer, error) {
	var out []depthPlayer
	for _, s := range strings.Split(text, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || d < 1 || d > maxLadderDepth {
			return nil, fmt.Errorf("bad depth %q (want 1 to %d)", s, maxLadderDepth)
		}
		if len(out) > 0 && d <= out[len(out)-1].depth {
			return nil, fmt.Errorf("depths must rise: %d after %d", d, out[len(out)-1].depth)
		}
		out = append(out, depthPlayer{d})
	}
	if len(out) < 2 {
		return nil, errors.New("the ladder needs two rungs or more")
	}
	return out, nil
}

// player chooses moves in a strength match.
type player interface {
	name() string
	// move returns the move to play in g, as text g.Play reads, and the player's judgement
	// of the position for the side to move (centipawns, a mate as ±mateScore), when it has one.
	move(ctx context.Context, g *engine.Game) (string, judgement, error)
}

// levelPlayer is the bot at one of its levels, searching as it does in play: the level's node
// limit, capped by the time the bot's service gives the level (boards.DefaultThink).
type levelPlayer struct {
	level board.BotLevel
	lim   engine.Limits
}

func (p levelPlayer) name() string { return p.level.String() }

func (p levelPlayer) move(ctx context.Context, g *engine.Game) (string, judgement, error) {
	m, info, err := g.BestMove(ctx, p.lim)
	return m.String(), engineJudgement(info), err
}

// depthPlayer is an alpha-beta search to a fixed depth: a rung of the ladder.
type depthPlayer struct{ depth int }

func (p depthPlayer) name() string { return "depth-" + strconv.Itoa(p.depth) }

func (p depthPlayer) move(ctx context.Context, g *engine.Game) (string, judgement, error) {
	m, info, err := g.BestMove(ctx, engine.Limits{Depth: p.depth, Nodes: 1 << 40, Algorithm: engine.AlphaBeta})
	return m.String(), engineJudgement(info), err
}

// match plays games and keeps their results.
type match struct {
	game    string
	rng     *rand.Rand
	log     io.Writer
	results []result
	// clock is the time each entrant took for its moves, by name; cpu reads this process's CPU
	// time (nil: not measured).
	clock map[string]*moveTime
	cpu   func() time.Time
	// openingPlies and balance shape the openings (see chessOpeningPlies); seen holds the
	// positions they reached so far, so that no two pairs of the run start alike.
	openingPlies, balance int
	seen                  map[string]bool
}

// moveTime sums the time an entrant took to choose its moves: the wall clock's, and the CPU
// time of this process (zero where it cannot be read, and for the reference engine, which runs
// in a process of its own).
type moveTime struct {
	total, longest  time.Duration
	cpu, cpuLongest time.Duration
	moves           int
}

// play plays pairs of games between a and b, colours swapped over one opening per pair.
func (m *match) play(ctx context.Context, a, b player, pairs int) error {
	for i := 0; i < pairs; i++ {
		opening, err := m.opening(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.log, "opening %s\n", strings.Join(opening, " "))
		for swap := range 2 {
			first, second := a, b
			if swap == 1 {
				first, second = b, a
			}
			score, reason, err := m.game1(ctx, opening, first, second)
			if err != nil {
				return fmt.Errorf("%s v %s: %w", first.name(), second.name(), err)
			}
			if swap == 1 {
				score = 1 - score
			}
			m.results = append(m.results, result{a.name(), b.name(), score})
			fmt.Fprintf(m.log, "%s v %s, %s moving first: %s %s (%s)\n", a.name(), b.name(), first.name(), a.name(), scoreText(score), reason)
		}
	}
	return nil
}

// cpuNow reads this process's CPU clock (the zero Time where there is none).
func (m *match) cpuNow() time.Time {
	if m.cpu == nil {
		return time.Time{}
	}
	return m.cpu()
}

// timed adds a move that took spent (cpu of it this process's CPU time) to the named entrant's
// time.
func (m *match) timed(name string, spent, cpu time.Duration) {
	if m.clock == nil {
		m.clock = map[string]*moveTime{}
	}
	t := m.clock[name]
	if t == nil {
		t = &moveTime{}
		m.clock[name] = t
	}
	t.total += spent
	t.longest = max(t.longest, spent)
	t.cpu += cpu
	t.cpuLongest = max(t.cpuLongest, cpu)
	t.moves++
}

// scoreText writes a game's score: "wins", "loses" or "draws".
func scoreText(s float64) string {
	switch s {
	case 1:
		return "wins"
	case 0:
		return "loses"
	}
	return "draws"
}

// opening draws a new opening: openingPlies random legal moves from the start that reach a
// position no earlier pair started from, judged within the balance of level by a search of
// balanceDepth plies.
func (m *match) opening(ctx context.Context) ([]string, error) {
	for range openingTries {
		g, err := engine.NewGame(m.game)
		if err != nil {
			return nil, err
		}
		var out []string
		for len(out) < m.openingPlies && g.Status().Result == engine.Ongoing {
			legal := g.LegalMoves()
			mv := legal[m.rng.IntN(len(legal))]
			if err := g.Apply(mv); err != nil {
				return nil, err
			}
			out = append(out, mv.String())
		}
		if g.Status().Result != engine.Ongoing || m.seen[g.Position()] {
			continue
		}
		_, info, err := g.BestMove(ctx, engine.Limits{Depth: balanceDepth, Nodes: 1 << 40, Algorithm: engine.AlphaBeta})
		if err != nil {
			return nil, err
		}
		if info.Depth > 0 && (info.Score > m.balance || info.Score < -m.balance) {
			continue
		}
		m.seen[g.Position()] = true
		return out, nil
	}
	return nil, fmt.Errorf("no new opening of %d plies within %d of level in %d tries: fewer pairs, a longer -opening or a wider -balance", m.openingPlies, m.balance, openingTries)
}

// game1 plays one game from the opening, first moving first, and returns first's score and
// how the game ended.
func (m *match) game1(ctx context.Context, opening []string, first, second player) (float64, string, error) {
	g, err := engine.NewGame(m.game)
	if err != nil {
		return 0, "", err
	}
	for _, t := range opening {
		if _, err := g.Play(t); err != nil {
			return 0, "", err
		}
	}
	adj := newAdjudicator(m.game)
	for g.Ply() < maxStrengthPlies {
		st := g.Status()
		if st.Result == engine.Win {
			if st.Winner == engine.First {
				return 1, st.Reason, nil
			}
			return 0, st.Reason, nil
		}
		if st.Result != engine.Ongoing {
			return 0.5, st.Reason, nil
		}
		p := first
		if g.ToMove() != engine.First {
			p = second
		}
		start, cpu0 := time.Now(), m.cpuNow()
		mover := g.ToMove()
		text, j, err := p.move(ctx, g)
		m.timed(p.name(), time.Since(start), m.cpuNow().Sub(cpu0))
		if err == nil {
			// A search stopped by the context still returns a move, the best it had: the game
			// would go on with moves no level plays, so it is abandoned, not scored.
			err = ctx.Err()
		}
		if err != nil {
			return 0, "", fmt.Errorf("%s at ply %d: %w", p.name(), g.Ply(), err)
		}
		if score, reason, over := adj.add(g.Ply(), mover, j); over {
			return score, reason, nil
		}
		if _, err := g.Play(text); err != nil {
			return 0, "", fmt.Errorf("%s played %q at ply %d: %w", p.name(), text, g.Ply(), err)
		}
	}
	return 0.5, fmt.Sprintf("adjudicated a draw after %d plies", maxStrengthPlies), nil
}

// findStockfish returns the Stockfish program to run.
func findStockfish(given string) (string, error) {
	if given != "" {
		return given, nil
	}
	if p, err := exec.LookPath("stockfish"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/games/stockfish"); err == nil {
		return "/usr/games/stockfish", nil
	}
	return "", errors.New("no stockfish on the PATH or in /usr/games")
}

// uciPlayer is a UCI engine limited to an Elo rating, thinking a fixed time a move.
type uciPlayer struct {
	elo      int
	movetime time.Duration
	cmd      *exec.Cmd
	in       io.WriteCloser
	out      *bufio.Scanner
}

// startUCI starts a UCI engine and sets its strength.
func startUCI(ctx context.Context, bin string, elo int, movetime time.Duration) (*uciPlayer, error) {
	cmd := exec.CommandContext(ctx, bin)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &uciPlayer{elo: elo, movetime: movetime, cmd: cmd, in: in, out: bufio.NewScanner(stdout)}
	if err := p.send("uci"); err != nil {
		p.close()
		return nil, err
	}
	if _, err := p.await("uciok"); err != nil {
		p.close()
		return nil, err
	}
	for _, line := range []string{"setoption name UCI_LimitStrength value true",
		"setoption name UCI_Elo value " + strconv.Itoa(elo), "isready"} {
		if err := p.send(line); err != nil {
			p.close()
			return nil, err
		}
	}
	if _, err := p.await("readyok"); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *uciPlayer) name() string { return "stockfish-" + strconv.Itoa(p.elo) }

func (p *uciPlayer) send(line string) error {
	_, err := io.WriteString(p.in, line+"\n")
	return err
}

// await reads lines until one starts with prefix, and returns it.
func (p *uciPlayer) await(prefix string) (string, error) {
	for p.out.Scan() {
		if line := p.out.Text(); strings.HasPrefix(line, prefix) {
			return line, nil
		}
	}
	if err := p.out.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("the UCI engine stopped before %q", prefix)
}

// move asks the engine for its move in g's position, given as the moves from the start (the
// chess variant's move texts are UCI's long algebraic notation).
func (p *uciPlayer) move(_ context.Context, g *engine.Game) (string, judgement, error) {
	var moves []string
	for _, m := range g.History() {
		moves = append(moves, m.String())
	}
	pos := "position startpos"
	if len(moves) > 0 {
		pos += " moves " + strings.Join(moves, " ")
	}
	if err := p.send(pos); err != nil {
		return "", judgement{}, err
	}
	if err := p.send("go movetime " + strconv.FormatInt(p.movetime.Milliseconds(), 10)); err != nil {
		return "", judgement{}, err
	}
	var j judgement
	for {
		line, err := p.await("")
		if err != nil {
			return "", j, err
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "info":
			if sj, ok := uciScore(f); ok {
				j = sj
			}
			continue
		case "bestmove":
		default:
			continue
		}
		if len(f) < 2 || f[1] == "(none)" {
			return "", j, fmt.Errorf("the UCI engine has no move: %q", line)
		}
		return f[1], j, nil
	}
}

// uciScore reads the score of a UCI "info" line ("score cp 35", "score mate -3").
func uciScore(f []string) (judgement, bool) {
	for i := 0; i+2 < len(f); i++ {
		if f[i] != "score" {
			continue
		}
		n, err := strconv.Atoi(f[i+2])
		if err != nil {
			return judgement{}, false
		}
		switch f[i+1] {
		case "cp":
			return judgement{score: n, ok: true}, true
		case "mate":
			if n > 0 {
				return judgement{score: mateScore, ok: true}, true
			}
			return judgement{score: -mateScore, ok: true}, true
		}
	}
	return judgement{}, false
}

func (p *uciPlayer) close() {
	p.send("quit")
	p.in.Close()
	p.cmd.Wait()
}
