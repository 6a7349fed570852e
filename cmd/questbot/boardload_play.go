package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/sessions/board/boardpg"
)

// The players of a board load check are Telegram users from boardloadFirstUser on; a check
// starts above those an earlier one left in the database.
const (
	boardloadFirstUser = 8_000_000_000
	boardloadUsers     = 100_000_000
)

// boardloadPlay is the play of a board load check: the players, their games and what they
// measured.
type boardloadPlay struct {
	o       boardloadOptions
	base    string
	client  *http.Client
	srv     *Server
	pool    *pgxpool.Pool
	service int
	stderr  io.Writer

	// pairing is held while a game between two players is created and joined, so that no other
	// player looking for the same game joins it first.
	pairing sync.Mutex
	// commands are the goroutines of the players' commands.
	commands sync.WaitGroup

	mu         sync.Mutex
	nextUser   int64
	gameCount  int
	games      []*loadGame
	moves      int
	botMoves   int
	apiErrors  map[string]int
	cmdSent    map[string]int
	cmdMissing map[string]int
	cmdLat     map[string][]time.Duration
	botLat     []time.Duration
	hogLat     []time.Duration
	hogMoves   int
	botMissing int
	// moveLat is the time of each web move's request.
	moveLat []time.Duration
	// botPolled counts the bot's moves seen by polling the state whose event did not come.
	botPolled int
	// errorsLogged bounds the API errors written out one by one.
	errorsLogged int
}

// loadPlayer is a Telegram user playing through the API with a token of their own.
type loadPlayer struct {
	id    int64
	token string
}

// loadGame is a game of the check: its players by seat (nil: the bot's seat).
type loadGame struct {
	id       int64
	variant  string
	players  [2]*loadPlayer
	vsBot    bool
	finished bool
	// hog marks a game of the -hog player: its latency is counted apart, and its boards are
	// not checked (the player has several).
	hog bool
}

// apiFailure is an answer of the API other than the one expected.
type apiFailure struct {
	status int
	code   string
	text   string
}

func (e *apiFailure) Error() string {
	return fmt.Sprintf("%d %s: %s", e.status, e.code, e.text)
}

// call makes an API call as p: body (when not nil) as JSON, the answer's JSON into out (when
// not nil). An answer other than 2xx is an *apiFailure.
func (l *boardloadPlay) call(ctx context.Context, p *loadPlayer, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, l.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		json.Unmarshal(raw, &e)
		if e.Error.Code == "" {
			e.Error.Code, e.Error.Message = "http", strings.TrimSpace(string(raw))
		}
		return &apiFailure{status: resp.StatusCode, code: e.Error.Code, text: e.Error.Message}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// state reads a game as p sees it.
func (l *boardloadPlay) state(ctx context.Context, p *loadPlayer, game int64) (*web.GameState, error) {
	var st web.GameState
	if err := l.call(ctx, p, http.MethodGet, fmt.Sprintf("/api/v1/games/%d", game), nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// move plays a legal move of st, chosen by rng, as p, and returns the state after it.
func (l *boardloadPlay) move(ctx context.Context, p *loadPlayer, st *web.GameState, rng *rand.Rand) (*web.GameState, error) {
	if len(st.Legal) == 0 {
		return nil, fmt.Errorf("game %d, ply %d: no legal move offered to the player to move", st.ID, st.Ply)
	}
	mv := st.Legal[rng.IntN(len(st.Legal))]
	var after web.GameState
	start := time.Now()
	err := l.call(ctx, p, http.MethodPost, fmt.Sprintf("/api/v1/games/%d/moves", st.ID),
		map[string]any{"move": mv.Text, "ply": st.Ply}, &after)
	if err != nil {
		return nil, err
	}
	took := time.Since(start)
	l.mu.Lock()
	l.moveLat = append(l.moveLat, took)
	l.mu.Unlock()
	return &after, nil
}

// failed counts an error of the play (an API call's, by its code) and writes the first few out.
// It reports whether the play may go on: not when ctx ended.
func (l *boardloadPlay) failed(ctx context.Context, what string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	code := "error"
	var af *apiFailure
	if errors.As(err, &af) {
		code = af.code
	}
	l.mu.Lock()
	l.apiErrors[code]++
	logIt := l.errorsLogged < 20
	l.errorsLogged++
	l.mu.Unlock()
	if logIt {
		fmt.Fprintf(l.stderr, "questbot boardload: %s: %v\n", what, err)
	}
	return true
}

// newPlayer makes a Telegram user who writes /start to the bot, waits for its answer (the bot
// knows them then), and gives them an API token, issued as an admin's /token issues it.
func (l *boardloadPlay) newPlayer(ctx context.Context) (*loadPlayer, error) {
	l.mu.Lock()
	id := l.nextUser
	l.nextUser++
	l.mu.Unlock()
	if id >= boardloadFirstUser+boardloadUsers {
		return nil, errors.New("the range of the check's users is used up; use a fresh database")
	}
	emu := l.srv.emuBot
	emu.AddUser(tgbotapi.User{ID: id, FirstName: "Load " + strconv.FormatInt(id-boardloadFirstUser, 10), LanguageCode: "en"})
	events, unsubscribe := emu.Subscribe(id)
	defer unsubscribe()
	if _, err := emu.SendText(id, "/start"); err != nil {
		return nil, fmt.Errorf("user %d: /start: %w", id, err)
	}
	timeout := time.NewTimer(boardloadReplyWait)
	defer timeout.Stop()
	for greeted := false; !greeted; {
		select {
		case ev := <-events:
			greeted = ev.Type == "message" && ev.Message != nil && ev.Message.FromBot
		case <-timeout.C:
			return nil, fmt.Errorf("user %d: no answer to /start within %v", id, boardloadReplyWait)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p := &loadPlayer{id: id}
	err := pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		var err error
		_, p.token, err = botpg.Credentials{}.IssueToken(ctx, tx, l.service, id, id, "boardload", time.Now())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("user %d: %w", id, err)
	}
	if l.o.noTelegram {
		// A player who blocks the bot: the bot learns it (Telegram's my_chat_member update, or
		// the refusal of a board sent before that), and shows them no board from then on.
		emu.Block(id, true)
	}
	return p, nil
}

// nextVariant is the game of the next game, the games of -games in turn.
func (l *boardloadPlay) nextVariant() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	v := l.o.games[l.gameCount%len(l.o.games)]
	l.gameCount++
	return v
}

// newPairGame makes two new players and a game between them: the first opens it, the second
// joins it.
func (l *boardloadPlay) newPairGame(ctx context.Context) (*loadGame, *web.GameState, error) {
	a, err := l.newPlayer(ctx)
	if err != nil {
		return nil, nil, err
	}
	b, err := l.newPlayer(ctx)
	if err != nil {
		return nil, nil, err
	}
	g := &loadGame{variant: l.nextVariant()}
	l.pairing.Lock()
	defer l.pairing.Unlock()
	var created struct {
		ID int64 `json:"id"`
	}
	if err := l.call(ctx, a, http.MethodPost, "/api/v1/games", map[string]string{"variant": g.variant, "control": "none"}, &created); err != nil {
		return nil, nil, fmt.Errorf("open a game: %w", err)
	}
	g.id = created.ID
	var st web.GameState
	if err := l.call(ctx, b, http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", g.id), nil, &st); err != nil {
		return nil, nil, fmt.Errorf("join game %d: %w", g.id, err)
	}
	if st.Status != "active" || st.Seat < 0 {
		return nil, nil, fmt.Errorf("game %d after the join: %s, seat %d", g.id, st.Status, st.Seat)
	}
	g.players[st.Seat], g.players[1-st.Seat] = b, a
	l.addGame(g)
	return g, &st, nil
}

// newBotGame makes a new player and a game of theirs against the bot.
func (l *boardloadPlay) newBotGame(ctx context.Context) (*loadGame, *web.GameState, error) {
	p, err := l.newPlayer(ctx)
	if err != nil {
		return nil, nil, err
	}
	return l.botGameOf(ctx, p, "easy", false)
}

// botGameOf opens a game of player p against the bot of level, a game of the -hog player when
// hog is set.
func (l *boardloadPlay) botGameOf(ctx context.Context, p *loadPlayer, level string, hog bool) (*loadGame, *web.GameState, error) {
	g := &loadGame{variant: l.nextVariant(), vsBot: true, hog: hog}
	var created struct {
		ID int64 `json:"id"`
	}
	err := l.call(ctx, p, http.MethodPost, "/api/v1/games", map[string]string{"variant": g.variant, "control": "none", "bot": level}, &created)
	if err != nil {
		return nil, nil, fmt.Errorf("open a game against the bot: %w", err)
	}
	g.id = created.ID
	st, err := l.state(ctx, p, g.id)
	if err != nil {
		return nil, nil, err
	}
	if st.Seat < 0 {
		return nil, nil, fmt.Errorf("game %d: the player has no seat", g.id)
	}
	g.players[st.Seat] = p
	if !hog {
		l.addGame(g)
	}
	return g, st, nil
}

// playHog is the -hog player: one player who holds o.hog games against the strong bot at once
// and moves in each as soon as the bot has; a game that ends is followed by a new one of theirs.
func (l *boardloadPlay) playHog(ctx context.Context, index int, stopAt time.Time) {
	p, err := l.newPlayer(ctx)
	if err != nil {
		l.failed(ctx, "the player holding games against the bot", err)
		return
	}
	var wg sync.WaitGroup
	for i := range l.o.hog {
		wg.Go(func() {
			rng := boardloadRand(l.o.seed, int64(index*1000+i))
			for l.goesOn(time.Now(), stopAt) && ctx.Err() == nil {
				g, st, err := l.botGameOf(ctx, p, "strong", true)
				if err != nil {
					if !l.failed(ctx, "a game of the player holding games against the bot", err) || !sleepUntil(ctx, time.Now().Add(time.Second)) {
						return
					}
					continue
				}
				if err := l.playAgainstBot(ctx, g, st, rng, time.Millisecond, stopAt); err != nil {
					l.failed(ctx, fmt.Sprintf("game %d of the player holding games against the bot", g.id), err)
				}
				if !l.ended(g) {
					return
				}
			}
		})
	}
	wg.Wait()
}

func (l *boardloadPlay) addGame(g *loadGame) {
	l.mu.Lock()
	l.games = append(l.games, g)
	l.mu.Unlock()
}

// endGame records that g ended.
func (l *boardloadPlay) endGame(g *loadGame) {
	l.mu.Lock()
	g.finished = true
	l.mu.Unlock()
}

// ended reports whether g ended.
func (l *boardloadPlay) ended(g *loadGame) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return g.finished
}

// play runs the games and the players' commands until the duration is over, and waits for the
// commands under way to be answered.
func (l *boardloadPlay) play(ctx context.Context) error {
	stopAt := time.Now().Add(l.o.duration)
	var wg sync.WaitGroup
	for i := range l.o.pairs {
		wg.Go(func() { l.playPair(ctx, i, stopAt) })
	}
	for i := range l.o.bots {
		wg.Go(func() { l.playBot(ctx, l.o.pairs+i, stopAt) })
	}
	if l.o.hog > 0 {
		wg.Go(func() { l.playHog(ctx, l.o.pairs+l.o.bots, stopAt) })
	}
	wg.Wait()
	l.commands.Wait()
	return ctx.Err()
}

// goesOn reports whether the play goes on at time at: before stopAt, or until the play holds
// what o.atLeast asks.
func (l *boardloadPlay) goesOn(at, stopAt time.Time) bool {
	if at.Before(stopAt) {
		return true
	}
	m := l.o.atLeast
	if m == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.moves < m.moves || l.botMoves < m.botMoves || len(l.games) < m.games
}

// sleepUntil waits until t, or until ctx ends (false).
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// startCommands has each human player of g send commands until stop closes.
func (l *boardloadPlay) startCommands(ctx context.Context, g *loadGame, stop <-chan struct{}) {
	if l.o.noTelegram {
		return // players who blocked the bot write nothing to it
	}
	for _, p := range g.players {
		if p != nil {
			l.commands.Go(func() { l.sendCommands(ctx, p, stop) })
		}
	}
}

// playPair plays games between two players at the rate of -rate until stopAt: a game that ends
// is followed by a new one between two new players, so that each player has one game and one
// board in their chat. Each move is due at a time of its own (start + n/rate); a late one is made
// at once.
func (l *boardloadPlay) playPair(ctx context.Context, index int, stopAt time.Time) {
	rng := boardloadRand(l.o.seed, int64(index))
	interval := time.Duration(float64(time.Second) / l.o.rate)
	for l.goesOn(time.Now(), stopAt) && ctx.Err() == nil {
		g, st, err := l.newPairGame(ctx)
		if err != nil {
			if !l.failed(ctx, "a new game", err) || !sleepUntil(ctx, time.Now().Add(time.Second)) {
				return
			}
			continue
		}
		stop := make(chan struct{})
		l.startCommands(ctx, g, stop)
		toMove := st.ToMove
		start := time.Now()
		for n := 0; ; n++ {
			due := start.Add(time.Duration(n) * interval)
			if !l.goesOn(due, stopAt) || !sleepUntil(ctx, due) {
				break
			}
			st, err := l.state(ctx, g.players[toMove], g.id)
			if err == nil && st.Status == "active" && st.ToMove != toMove {
				// Out of step after a failed call: the game says who moves.
				toMove = st.ToMove
				st, err = l.state(ctx, g.players[toMove], g.id)
			}
			if err == nil && st.Status != "active" {
				l.endGame(g)
				break
			}
			if err == nil {
				st, err = l.move(ctx, g.players[toMove], st, rng)
			}
			if err != nil {
				if !l.failed(ctx, fmt.Sprintf("game %d", g.id), err) {
					break
				}
				continue
			}
			l.mu.Lock()
			l.moves++
			l.mu.Unlock()
			if st.Status != "active" {
				l.endGame(g)
				break
			}
			toMove = st.ToMove
		}
		close(stop)
		if !l.ended(g) {
			return
		}
	}
}

// playBot plays games of a player against the bot until stopAt: the player moves when the bot
// has answered, at most -rate moves a second, and the time from the API's answer to their move
// to the bot's move seen through the API (the game's event stream, then its state) is the bot's
// reply latency. A game that ends is followed by a new player's.
func (l *boardloadPlay) playBot(ctx context.Context, index int, stopAt time.Time) {
	rng := boardloadRand(l.o.seed, int64(index))
	interval := time.Duration(float64(time.Second) / l.o.rate)
	for l.goesOn(time.Now(), stopAt) && ctx.Err() == nil {
		g, st, err := l.newBotGame(ctx)
		if err != nil {
			if !l.failed(ctx, "a new game against the bot", err) || !sleepUntil(ctx, time.Now().Add(time.Second)) {
				return
			}
			continue
		}
		stop := make(chan struct{})
		l.startCommands(ctx, g, stop)
		if err := l.playAgainstBot(ctx, g, st, rng, interval, stopAt); err != nil {
			l.failed(ctx, fmt.Sprintf("game %d against the bot", g.id), err)
		}
		close(stop)
		if !l.ended(g) {
			return
		}
	}
}

// playAgainstBot plays one game against the bot until it ends or stopAt.
func (l *boardloadPlay) playAgainstBot(ctx context.Context, g *loadGame, st *web.GameState, rng *rand.Rand, interval time.Duration, stopAt time.Time) error {
	seat := st.Seat
	p := g.players[seat]
	gameCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := l.events(gameCtx, p, g.id)
	if err != nil {
		return err
	}
	// The stream follows the game's record from its answer on: the state read after it holds
	// what changed before.
	if st, err = l.state(ctx, p, g.id); err != nil {
		return err
	}
	// waitPast waits until the game is past ply (or not active), and returns its state. It
	// reads the state on each event, and every boardloadPoll in case an event does not come: a
	// move seen so whose event does not follow within boardloadPoll is counted apart.
	waitPast := func(ply int, revision int64) (*web.GameState, error) {
		timeout := time.NewTimer(boardloadReplyWait)
		defer timeout.Stop()
		poll := time.NewTicker(boardloadPoll)
		defer poll.Stop()
		for {
			polled := false
			select {
			case rev, ok := <-events:
				if !ok {
					return nil, fmt.Errorf("game %d: the event stream ended", g.id)
				}
				if rev <= revision {
					continue
				}
			case <-poll.C:
				polled = true
			case <-timeout.C:
				st, err := l.state(ctx, p, g.id)
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(l.stderr, "questbot boardload: game %d: the bot did not move within %v: ply %d (waited past %d), seat %d to move, status %s, revision %d\n",
					g.id, boardloadReplyWait, st.Ply, ply, st.ToMove, st.Status, st.Revision)
				return nil, errBotSilent
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			st, err := l.state(ctx, p, g.id)
			if err != nil {
				return nil, err
			}
			if st.Ply > ply || st.Status != "active" {
				if polled && !eventFor(events, st.Revision, boardloadPoll) {
					l.mu.Lock()
					l.botPolled++
					l.mu.Unlock()
					fmt.Fprintf(l.stderr, "questbot boardload: game %d: no event of revision %d (ply %d) within %v of reading it\n",
						g.id, st.Revision, st.Ply, boardloadPoll)
				}
				return st, nil
			}
			revision = max(revision, st.Revision)
		}
	}
	// The bot may have the first move.
	if st.Status == "active" && st.ToMove != seat {
		if st, err = waitPast(st.Ply, st.Revision); err != nil {
			return l.botSilent(err)
		}
	}
	next := time.Now()
	for st.Status == "active" {
		if !l.goesOn(next, stopAt) || !sleepUntil(ctx, next) {
			return nil
		}
		next = time.Now().Add(interval)
		after, err := l.move(ctx, p, st, rng)
		if err != nil {
			return err
		}
		answered := time.Now()
		l.mu.Lock()
		if g.hog {
			l.hogMoves++
		} else {
			l.botMoves++
		}
		l.mu.Unlock()
		st = after
		if st.Status != "active" {
			break
		}
		// An answer that shows the bot's move already counts as at once.
		var lat time.Duration
		if after.ToMove != seat {
			if st, err = waitPast(after.Ply, after.Revision); err != nil {
				return l.botSilent(err)
			}
			lat = time.Since(answered)
		}
		l.mu.Lock()
		if g.hog {
			l.hogLat = append(l.hogLat, lat)
		} else {
			l.botLat = append(l.botLat, lat)
		}
		l.mu.Unlock()
	}
	l.endGame(g)
	return nil
}

// boardloadPoll is how often a player waiting for the bot's move reads the game's state besides
// its events.
const boardloadPoll = time.Second

// eventFor waits at most d for an event of revision rev or later.
func eventFor(events <-chan int64, rev int64, d time.Duration) bool {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		select {
		case r, ok := <-events:
			if !ok {
				return false
			}
			if r >= rev {
				return true
			}
		case <-timeout.C:
			return false
		}
	}
}

// errBotSilent: the bot did not move within boardloadReplyWait.
var errBotSilent = errors.New("the bot did not move")

// botSilent counts a bot's move that did not come, or passes another error on.
func (l *boardloadPlay) botSilent(err error) error {
	if errors.Is(err, errBotSilent) {
		l.mu.Lock()
		l.botMissing++
		l.mu.Unlock()
		return nil
	}
	return err
}

// events opens the event stream of a game as p and returns a channel of the revisions its
// events of the record name (their data's revision), which holds the latest one unread; it
// returns once the stream answers, when it follows the game's record, so that no change after
// that is missed. The stream ends with ctx.
func (l *boardloadPlay) events(ctx context.Context, p *loadPlayer, game int64) (<-chan int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/games/%d/events", l.base, game), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+p.token)
	// A stream outlives the client's timeout of ordinary calls.
	client := &http.Client{Transport: l.client.Transport}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return nil, fmt.Errorf("game %d: events: %s: %s", game, resp.Status, strings.TrimSpace(string(body)))
	}
	revs := make(chan int64, 1)
	go func() {
		defer resp.Body.Close()
		defer close(revs)
		r := bufio.NewReader(resp.Body)
		name := ""
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if n, ok := strings.CutPrefix(line, "event: "); ok {
				name = n
				continue
			}
			if line == "" {
				name = ""
				continue
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok || name != web.RecordEvent {
				continue
			}
			var ev boards.Event
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				fmt.Fprintf(l.stderr, "questbot boardload: game %d: event %q: %v\n", game, data, err)
				return
			}
			// The newest revision replaces one not read yet.
			select {
			case <-revs:
			default:
			}
			revs <- ev.Data.Revision
		}
	}()
	return revs, nil
}

// sendCommands has p send /web and /mygames in turn, at random times about -commands apart,
// until stop closes, each after the answer to the one before.
func (l *boardloadPlay) sendCommands(ctx context.Context, p *loadPlayer, stop <-chan struct{}) {
	rng := boardloadRand(l.o.seed, p.id)
	cmds := []string{cmdWeb, cmdMyGames}
	k := rng.IntN(2)
	// The first comes within one period; then each about a period after the answer before.
	wait := time.Duration(rng.Int64N(int64(l.o.commands)))
	for {
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-stop:
			timer.Stop()
			return
		case <-ctx.Done():
			timer.Stop()
			return
		}
		l.ask(ctx, p, cmds[k%2])
		k++
		wait = l.o.commands/2 + time.Duration(rng.Int64N(int64(l.o.commands)))
	}
}

// The answers of the commands: /web's has a login link; /mygames' is the list of the player's
// games, or says there are none (a game just ended).
var (
	loginLinkRE  = regexp.MustCompile(`/login/\S+`)
	myGamesNone  = "You have no board games in play"
	myGamesTitle = texts.For("en").Board.Mine
)

// answers reports whether a message of the bot answers cmd.
func answers(cmd string, m *tgemu.Message) bool {
	if m == nil || !m.FromBot || m.Photo != "" {
		return false
	}
	if cmd == cmdWeb {
		return loginLinkRE.MatchString(m.Text)
	}
	return strings.HasPrefix(m.Text, myGamesTitle) || strings.HasPrefix(m.Text, myGamesNone)
}

// ask sends cmd in p's chat and times its answer: from the send to the emulator's record of the
// bot's message.
func (l *boardloadPlay) ask(ctx context.Context, p *loadPlayer, cmd string) {
	emu := l.srv.emuBot
	events, unsubscribe := emu.Subscribe(p.id)
	defer unsubscribe()
	at := time.Now()
	if _, err := emu.SendText(p.id, cmd); err != nil {
		l.failed(ctx, fmt.Sprintf("user %d: %s", p.id, cmd), err)
		return
	}
	l.mu.Lock()
	l.cmdSent[cmd]++
	l.mu.Unlock()
	timeout := time.NewTimer(boardloadReplyWait)
	defer timeout.Stop()
	for {
		select {
		case ev := <-events:
			if ev.Type == "message" && answers(cmd, ev.Message) {
				l.mu.Lock()
				l.cmdLat[cmd] = append(l.cmdLat[cmd], ev.At.Sub(at))
				l.mu.Unlock()
				return
			}
		case <-timeout.C:
			l.mu.Lock()
			l.cmdMissing[cmd]++
			l.mu.Unlock()
			fmt.Fprintf(l.stderr, "questbot boardload: user %d: no answer to %s within %v\n", p.id, cmd, boardloadReplyWait)
			return
		case <-ctx.Done():
			return
		}
	}
}

// drain waits until no bot's move is pending in the games against the bot, no notification of a
// board is due before the deadline (a player's board raised anew once they left the web, see
// bot/boards/notify.go: it comes after the moves, from the notifications job) and the outbox is
// empty, or until the deadline (false).
func (l *boardloadPlay) drain(ctx context.Context, store *botpg.Store, deadline time.Time) (bool, error) {
	l.mu.Lock()
	var open []*loadGame
	for _, g := range l.games {
		if g.vsBot && !g.finished {
			open = append(open, g)
		}
	}
	l.mu.Unlock()
	for {
		thinking := false
		for _, g := range open {
			for seat, p := range g.players {
				if p == nil {
					continue
				}
				st, err := l.state(ctx, p, g.id)
				if err != nil {
					return false, err
				}
				if st.Status == "active" && st.ToMove != seat {
					thinking = true
				}
			}
		}
		due, err := l.noticesDue(ctx, deadline)
		if err != nil {
			return false, err
		}
		rows, err := store.PendingRows(ctx)
		if err != nil {
			return false, err
		}
		if !thinking && !due && len(rows) == 0 {
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		if !sleepUntil(ctx, time.Now().Add(boardloadSample)) {
			return false, ctx.Err()
		}
	}
}

// noticesDue reports whether a notification of a board is due by deadline (the board store's
// own query, in a transaction of its own that only reads and is rolled back).
func (l *boardloadPlay) noticesDue(ctx context.Context, deadline time.Time) (bool, error) {
	tx, err := l.pool.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("pending notifications: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	due, err := boardpg.New(tx).DueNoticeBoards(ctx, deadline, 1)
	if err != nil {
		return false, fmt.Errorf("pending notifications: %w", err)
	}
	return len(due) > 0, nil
}

// boardCheck is the comparison of one player's Telegram board with their game: wrong says how
// it differs, "" when it is right.
type boardCheck struct {
	game  int64
	chat  int64
	seat  int
	wrong string
	g     *loadGame
	p     *loadPlayer
}

// captionTagRE matches an HTML tag of a caption.
var captionTagRE = regexp.MustCompile(`<[^>]*>`)

// captionText is an HTML caption as a user reads it.
func captionText(s string) string { return html.UnescapeString(captionTagRE.ReplaceAllString(s, "")) }

// boardloadRechecks is how many times a board found wrong is looked at again.
const boardloadRechecks = 3

// checkBoards compares each player's Telegram board (the one picture of their chat, since each
// player has one game) with their game's final state as they see it through the API: the
// picture must be the file of the API's picture for their seat, and the caption must give the
// move number, the last move, and whose turn it is or the result. A board found wrong is looked
// at again, after a second and a new drain of the outbox (until deadline), up to
// boardloadRechecks times: a notification sent after the drain (the board of a player who left
// the web comes anew, the old copy deleted a second before the new one is sent) must not pass
// for a wrong board, while a wrong board stays wrong.
func (l *boardloadPlay) checkBoards(ctx context.Context, store *botpg.Store, deadline time.Time) ([]boardCheck, error) {
	if l.o.noTelegram {
		return nil, nil // no board was sent to Telegram
	}
	l.mu.Lock()
	games := append([]*loadGame(nil), l.games...)
	l.mu.Unlock()
	var out []boardCheck
	for _, g := range games {
		for seat, p := range g.players {
			if p != nil {
				out = append(out, boardCheck{game: g.id, chat: p.id, seat: seat, g: g, p: p})
			}
		}
	}
	for round := 0; ; round++ {
		wrong := 0
		for i := range out {
			c := &out[i]
			if round > 0 && c.wrong == "" {
				continue
			}
			var err error
			if c.wrong, err = l.checkBoard(ctx, c.g, c.p, c.seat); err != nil {
				return nil, err
			}
			if c.wrong != "" {
				wrong++
			}
		}
		if wrong == 0 || round == boardloadRechecks {
			return out, nil
		}
		if !sleepUntil(ctx, time.Now().Add(time.Second)) {
			return nil, ctx.Err()
		}
		if _, err := l.drain(ctx, store, deadline); err != nil {
			return nil, err
		}
	}
}

// checkBoard compares p's Telegram board with game g; it says how they differ, "" when they do
// not.
func (l *boardloadPlay) checkBoard(ctx context.Context, g *loadGame, p *loadPlayer, seat int) (string, error) {
	st, err := l.state(ctx, p, g.id)
	if err != nil {
		return "", err
	}
	var pictures []tgemu.Message
	for _, m := range l.srv.emuBot.Messages(p.id) {
		if m.FromBot && m.Photo != "" {
			pictures = append(pictures, m)
		}
	}
	if len(pictures) == 0 {
		return "no board in the chat", nil
	}
	var wrong []string
	if len(pictures) > 1 {
		wrong = append(wrong, fmt.Sprintf("%d boards in the chat, not one", len(pictures)))
	}
	m := pictures[len(pictures)-1]
	c := texts.For("en")
	t := &c.Board
	caption := captionText(m.Text)
	lines := strings.Split(caption, "\n")
	// The title numbers the move being played, or once the game is over its last move; a move
	// is numbered anew by the first seat's ply ("3. Nf3", "3… Nc6").
	number := 1
	if n := len(st.Moves); n > 0 {
		number = st.Moves[n-1].Number
		if st.Status == "active" && st.Moves[n-1].Seat == 1 {
			number++
		}
	}
	if title := captionText(fmt.Sprintf(t.Title, html.EscapeString(st.Title), number)); lines[0] != title {
		wrong = append(wrong, fmt.Sprintf("the caption's title is %q, the game's %q (ply %d)", lines[0], title, st.Ply))
	}
	if st.Ply > 0 {
		last := st.Moves[len(st.Moves)-1]
		sep := ". "
		if last.Seat == 1 {
			sep = "… "
		}
		numbered := fmt.Sprintf("%d%s%s", last.Number, sep, last.Text)
		want := captionText(fmt.Sprintf(t.LastMove, html.EscapeString(numbered), html.EscapeString(st.Seats[last.Seat].Name)))
		if !strings.Contains(caption, want) {
			wrong = append(wrong, fmt.Sprintf("the caption lacks %q", want))
		}
	}
	yourTurn := strings.Contains(caption, captionText(t.YourTurn))
	switch {
	case st.Status == "active" && yourTurn != (st.ToMove == seat):
		wrong = append(wrong, fmt.Sprintf("the caption says your turn %v, the game has seat %d to move", yourTurn, st.ToMove))
	case st.Status == "finished" && (st.Result == nil || !strings.Contains(caption, st.Result.Text)):
		wrong = append(wrong, fmt.Sprintf("the caption lacks the result of the finished game: %q", caption))
	}
	// The picture: the same file as the API's picture of the seat.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/api/v1/games/%d/picture.png?seat=%d", l.base, g.id, seat), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := l.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	want, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("game %d: picture: %s", g.id, resp.Status)
	}
	got, _, _, ok := l.srv.emu.FileData(m.Photo)
	switch {
	case !ok:
		wrong = append(wrong, "the emulator has no file of the board's picture")
	case !bytes.Equal(got, want):
		wrong = append(wrong, fmt.Sprintf("the picture is not the final position's (caption %q)", strings.ReplaceAll(caption, "\n", " / ")))
	}
	return strings.Join(wrong, "; "), nil
}
