package engine

import (
	"fmt"
	"sort"
	"strings"
)

// DefaultPlyLimit is the number of plies after which a game is drawn
// unless WithPlyLimit says otherwise. Chat games get abandoned; the cap also
// guarantees that every game ends.
const DefaultPlyLimit = 600

// variant describes one playable game for menus.
type variant struct {
	Name  string // identifier passed to NewGame
	Title string // English display name
}

// variantDef builds the rules of a variant from the options.
type variantDef struct {
	variant
	build func(cfg *config) (*rules, error)
}

// variantTable lists every game the engine knows, in menu order.
func variantTable() []variantDef {
	plain := func(f func() *rules) func(*config) (*rules, error) {
		return func(*config) (*rules, error) { return f(), nil }
	}
	fox := func(n int) func(*config) (*rules, error) {
		return func(cfg *config) (*rules, error) {
			fc := cfg.fox
			fc.geese = n
			return foxGeeseRules(fc)
		}
	}
	return []variantDef{
		{variant{"russian", "Russian draughts"}, plain(russianRules)},
		{variant{"turkish", "Turkish draughts"}, plain(turkishRules)},
		{variant{"international", "International draughts"}, plain(internationalRules)},
		{variant{"brazilian", "Brazilian draughts"}, plain(brazilianRules)},
		{variant{"english", "English draughts (test configuration)"}, plain(englishRules)},
		{variant{"chase", "Chase"}, plain(chaseRules)},
		{variant{"foxgeese13", "Fox and Geese (13 geese)"}, fox(13)},
		{variant{"foxgeese15", "Fox and Geese (15 geese)"}, fox(15)},
		{variant{"foxgeese17", "Fox and Geese (17 geese)"}, fox(17)},
		{variant{"chess", "Chess"}, plain(chessRules)},
		{variant{"othello", "Othello"}, plain(othelloRules)},
		{variant{"breakthrough", "Breakthrough"}, plain(breakthroughRules)},
		{variant{"canadian", "Canadian draughts"}, plain(canadianRules)},
		{variant{"pool", "Pool checkers"}, plain(poolRules)},
		{variant{"czech", "Czech draughts"}, plain(czechRules)},
		{variant{"spanish", "Spanish draughts"}, plain(spanishRules)},
		{variant{"italian", "Italian draughts"}, plain(italianRules)},
		{variant{"thai", "Thai draughts"}, plain(thaiRules)},
		{variant{"armenian", "Armenian draughts"}, plain(armenianRules)},
		{variant{"atarigo", "Atari Go"}, plain(atariGoRules)},
		{variant{"gardner", "Gardner's minichess"}, plain(gardnerRules)},
		{variant{"chess960", "Chess960"}, chess960Rules},
		{variant{"frisian", "Frisian draughts"}, plain(frisianRules)},
	}
}

// variants lists the games NewGame accepts, in menu order.
func variants() []variant {
	var out []variant
	for _, v := range variantTable() {
		out = append(out, v.variant)
	}
	return out
}

// config collects the options of NewGame.
type config struct {
	position string
	seed     uint64
	plyLimit int
	first    *Player
	fox      foxConfig
	foxSet   bool // a Fox and Geese option was given
}

// Option configures NewGame.
type Option func(*config) error

// WithPosition starts the game from a position string in the game's own
// format (see Game.Position) instead of the standard start.
func WithPosition(pos string) Option {
	return func(c *config) error { c.position = pos; return nil }
}

// WithSeed sets the game's random seed. The AI uses it when Limits.Seed is
// zero, so two games with the same seed and node-bounded AI play alike.
func WithSeed(seed uint64) Option {
	return func(c *config) error { c.seed = seed; return nil }
}

// WithPlyLimit sets the number of plies after which the game is drawn
// (0 or less: DefaultPlyLimit).
func WithPlyLimit(n int) Option {
	return func(c *config) error { c.plyLimit = n; return nil }
}

// WithFirstPlayer chooses which side moves first from the standard start
// position (Chase: Red, the first player, by default).
func WithFirstPlayer(p Player) Option {
	return func(c *config) error {
		if p > Second {
			return fmt.Errorf("%w: player %d", ErrBadOption, p)
		}
		c.first = &p
		return nil
	}
}

// Game is one game in progress: its rules, the position history and the
// moves played. It is not safe for concurrent use; the caller serialises
// access (one game per session).
type Game struct {
	r     *rules
	cfg   config
	hist  []State
	moves []Move
	c     *ctx
	// raw caches the generated legal moves (unsorted, without notation)
	// of the position at history length rawAt, and legal the sorted,
	// notated list at legalAt (0 = none cached). Both are reset whenever
	// the history changes.
	raw     []move
	rawAt   int
	legal   []Move
	legalAt int
	text    []byte // scratch for the notation check of Apply
}

// NewGame starts a game of the named variant (see variantTable).
func NewGame(variant string, opts ...Option) (*Game, error) {
	cfg := config{fox: defaultFoxConfig()}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.plyLimit <= 0 {
		cfg.plyLimit = DefaultPlyLimit
	}
	name := strings.ToLower(strings.TrimSpace(variant))
	for _, v := range variantTable() {
		if v.Name != name {
			continue
		}
		if cfg.foxSet && !strings.HasPrefix(v.Name, "foxgeese") {
			return nil, fmt.Errorf("%w: Fox and Geese option for %s", ErrBadOption, v.Name)
		}
		r, err := v.build(&cfg)
		if err != nil {
			return nil, err
		}
		pos := cfg.position
		if pos == "" {
			pos = r.start
		}
		s, err := r.load(pos)
		if err != nil {
			return nil, err
		}
		if cfg.first != nil && cfg.position == "" {
			if s.Turn != *cfg.first {
				s.Turn = *cfg.first
				s.Hash ^= r.z.turn
			}
		}
		g := &Game{r: r, cfg: cfg, hist: []State{s}, c: r.newCtx()}
		return g, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownVariant, variant)
}

// load decodes a position string and completes the state (hash, checks).
func (r *rules) load(pos string) (s State, err error) {
	defer func() {
		// Position strings come from players; a decoder bug must not take
		// the bot down.
		if e := recover(); e != nil {
			err = fmt.Errorf("%w: %v", ErrBadPosition, e)
		}
	}()
	s, err = r.decode(r, pos)
	if err != nil {
		return s, err
	}
	s.Hash = r.z.hashOf(&s, r.topo.n())
	return s, nil
}

// cur returns the current state.
func (g *Game) cur() *State { return &g.hist[len(g.hist)-1] }

// Variant returns the game's variant name.
func (g *Game) Variant() string { return g.r.name }

// Title returns the game's display name.
func (g *Game) Title() string { return g.r.title }

// PlayerName returns the display name of a side ("White", "Red", "Fox"...).
func (g *Game) PlayerName(p Player) string { return g.r.playerNames[p&1] }

// ToMove returns the side to move.
func (g *Game) ToMove() Player { return g.cur().Turn }

// State returns a copy of the current position.
func (g *Game) State() State { return *g.cur() }

// Ply returns the number of moves played in this game.
func (g *Game) Ply() int { return len(g.moves) }

// History returns the moves played so far, with their notation.
func (g *Game) History() []Move { return append([]Move(nil), g.moves...) }

// Position returns the current position as a string in the game's own
// format; NewGame(variant, WithPosition(s)) restores it.
func (g *Game) Position() string { return g.r.encode(g.r, g.cur()) }

// rawMoves returns the generated legal moves of the current position
// (cached; shared slice). Generating them allocates nothing once the
// buffer has grown to the game's largest list.
func (g *Game) rawMoves() []move {
	if g.rawAt != len(g.hist) {
		g.raw = g.r.generate(g.cur(), g.c, g.raw)
		g.rawAt = len(g.hist)
	}
	return g.raw
}

// moved resets the caches after a change of the history.
func (g *Game) moved() { g.rawAt, g.legalAt = 0, 0 }

// legalMoves returns the cached sorted, notated legal list (shared slice).
func (g *Game) legalMoves() []Move {
	if g.legalAt == len(g.hist) {
		return g.legal
	}
	s := g.cur()
	raw := g.rawMoves()
	text := make([]string, len(raw))
	g.r.notate(s, raw, text)
	ms := make([]Move, len(raw))
	for i := range raw {
		ms[i] = Move{m: raw[i], text: text[i]}
	}
	sort.SliceStable(ms, func(i, j int) bool { return naturalLess(ms[i].text, ms[j].text) })
	g.legal, g.legalAt = ms, len(g.hist)
	return ms
}

// LegalMoves returns the legal moves of the current position, one per
// distinct effect, sorted by notation. It returns nothing once the game is
// over.
func (g *Game) LegalMoves() []Move {
	if g.Status().Result != Ongoing {
		return nil
	}
	return append([]Move(nil), g.legalMoves()...)
}

// Apply plays a legal move, as returned by LegalMoves or ParseMove.
// Returns ErrGameOver if the game has ended and ErrIllegalMove if the move
// is not legal here. Once the game's buffers have grown, Apply allocates
// nothing: it checks the move against the generated list and its
// notation against the move's own text without building the sorted,
// notated list.
func (g *Game) Apply(m Move) error {
	raw := g.rawMoves()
	if st := g.statusOf(len(raw)); st.Result != Ongoing {
		return &MoveError{Kind: MoveGameOver, Input: m.text, Reason: st.Reason}
	}
	for i := range raw {
		if !raw[i].equal(&m.m) {
			continue
		}
		s := g.cur()
		// The history keeps the move's notation in this position, which
		// a Move taken from another position may not carry.
		g.text = g.r.moveText(s, raw, i, g.text[:0])
		text := m.text
		if string(g.text) != text {
			text = string(g.text)
		}
		g.hist = append(g.hist, *s)
		g.r.apply(&g.hist[len(g.hist)-1], &raw[i])
		g.moves = append(g.moves, Move{m: raw[i], text: text})
		g.moved()
		return nil
	}
	return &MoveError{Kind: MoveIllegal, Input: m.text}
}

// Play parses a move written by a player (see ParseMove) and plays it.
// A refusal is a *MoveError and changes nothing.
func (g *Game) Play(text string) (Move, error) {
	m, err := g.ParseMove(text)
	if err != nil {
		return Move{}, err
	}
	return m, g.Apply(m)
}

// Undo takes back the last move. Returns ErrNoHistory at the start.
func (g *Game) Undo() error {
	if len(g.moves) == 0 {
		return ErrNoHistory
	}
	g.hist = g.hist[:len(g.hist)-1]
	g.moves = g.moves[:len(g.moves)-1]
	g.moved()
	return nil
}

// naturalLess orders strings with embedded numbers numerically ("2-7"
// before "10-14", "a2" before "a10").
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		ca, cb := a[0], b[0]
		if isDigit(ca) && isDigit(cb) {
			i, j := 0, 0
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na, nb := strings.TrimLeft(a[:i], "0"), strings.TrimLeft(b[:j], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[i:], b[j:]
			continue
		}
		if ca != cb {
			return ca < cb
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
