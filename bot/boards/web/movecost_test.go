package web_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/boards/web"
	"github.com/questbot/questbot/bot/botpg"
)

// txTrace records the transactions of a pool's connections: each one's statements, from its
// BEGIN to its COMMIT, and the round trips they took (a statement on its own is one, a
// pipelined batch one whatever its size) with their time.
type txTrace struct {
	mu   sync.Mutex
	open map[*pgx.Conn]*tracedTx
	done []*tracedTx
}

// tracedTx is one transaction of a txTrace.
type tracedTx struct {
	trips   int
	elapsed time.Duration // the time of the round trips, from each one's sending to its answer
	stmts   []string
	started time.Time // of the round trip under way
	// each is the time of each round trip, by the index in stmts of its last statement.
	each map[int]time.Duration
}

var (
	_ pgx.QueryTracer = (*txTrace)(nil)
	_ pgx.BatchTracer = (*txTrace)(nil)
)

// statements notes a round trip of conn carrying sqls.
func (tr *txTrace) statements(conn *pgx.Conn, sqls []string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tx := tr.open[conn]
	for _, sql := range sqls {
		word := strings.ToUpper(strings.TrimSpace(sql))
		if word == "BEGIN" {
			tx = &tracedTx{each: map[int]time.Duration{}}
			tr.open[conn] = tx
		}
		if tx != nil {
			tx.stmts = append(tx.stmts, strings.Join(strings.Fields(sql), " "))
		}
	}
	if tx != nil {
		tx.trips++
		tx.started = time.Now()
	}
}

// answered notes the answer of conn's round trip, and the end of its transaction when it
// committed or rolled back.
func (tr *txTrace) answered(conn *pgx.Conn) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tx := tr.open[conn]
	if tx == nil {
		return
	}
	d := time.Since(tx.started)
	tx.elapsed += d
	tx.each[len(tx.stmts)-1] = d
	if last := strings.ToUpper(tx.stmts[len(tx.stmts)-1]); last == "COMMIT" || last == "ROLLBACK" {
		delete(tr.open, conn)
		tr.done = append(tr.done, tx)
	}
}

func (tr *txTrace) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	tr.statements(conn, []string{data.SQL})
	return ctx
}

func (tr *txTrace) TraceQueryEnd(_ context.Context, conn *pgx.Conn, _ pgx.TraceQueryEndData) {
	tr.answered(conn)
}

func (tr *txTrace) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	var sqls []string
	for _, q := range data.Batch.QueuedQueries {
		sqls = append(sqls, q.SQL)
	}
	tr.statements(conn, sqls)
	return ctx
}

func (tr *txTrace) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (tr *txTrace) TraceBatchEnd(_ context.Context, conn *pgx.Conn, _ pgx.TraceBatchEndData) {
	tr.answered(conn)
}

// moveTx returns the transaction of the move made since the first from transactions were
// done: the one that recorded the board's events.
func (tr *txTrace) moveTx(from int) *tracedTx {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, tx := range tr.done[from:] {
		for _, s := range tx.stmts {
			if strings.Contains(s, "INSERT INTO board_event") {
				return tx
			}
		}
	}
	return nil
}

// Ensure the players' Telegram copies add no round trip to the database to a web move's
// transaction: the notification policy reads the opponent's setting with their time on the web,
// in the read of the scene (board.Views.Attention), and writes their pending notification with
// the board's events, in one batch (boardpg AppendEvents); the boards' requests are written
// with the COMMIT, in its round trip, and so is the record of a board sent anew
// (tgstore.MarkSentAtCommit, bot.Tx.AtCommit). Two games are played: by correspondence
// with both players on the web (the opponent's notification waits: a pending row), and without
// a clock with the opponent away from the web for longer than webPresence before each move
// (they hear at once: the row dropped, their board sent anew). Each move's transaction is
// traced with both players' copies live and with both players having blocked the bot; the last
// move's statements with the time of each round trip, the medians and the round trips that cost
// more when live are logged (go test -v -run WebMoveRoundTrips ./bot/boards/web).
func TestWebMoveRoundTrips(t *testing.T) {
	t.Parallel()
	games := []struct {
		name    string
		control string
		// away is how long the clock moves on before each move: the opponent's last action on
		// the web is older than webPresence when it is longer.
		away time.Duration
		// live is the start of a statement every live move's transaction makes: the write of
		// the path the game takes.
		live string
	}{
		{"correspondence on the web", "corr1d", 0, "INSERT INTO board_notification"},
		{"no clock, away from the web", "none", 11 * time.Minute, "INSERT INTO board_telegram_message"},
	}
	for _, g := range games {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			moveRoundTrips(t, g.control, g.away, g.live)
		})
	}
}

// moveRoundTrips plays the moves of TestWebMoveRoundTrips in a game of a time control, the
// clock moving on by away before each move; each live move's transaction must make a statement
// starting with want.
func moveRoundTrips(t *testing.T, control string, away time.Duration, want string) {
	trips := map[bool][]int{}
	// The times of the moves' transactions (their round trips), and of their last round trip
	// (the COMMIT, with the boards' requests when live).
	elapsed, last := map[bool][]time.Duration{}, map[bool][]time.Duration{}
	// byStmt is the time of the round trips by their last statement's first words, summed over
	// the moves.
	byStmt := map[bool]map[string]time.Duration{false: {}, true: {}}
	for _, live := range []bool{false, true} {
		e := newEnvWith(t, web.Config{}, envOptions{limits: &bot.NoLimits})
		// The bot again, on a pool whose transactions are traced; the web server on it.
		cfg, err := pgxpool.ParseConfig(e.Pool.Config().ConnString())
		if err != nil {
			t.Fatal(err)
		}
		tr := &txTrace{open: map[*pgx.Conn]*tracedTx{}}
		cfg.ConnConfig.Tracer = tr
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		e.proc.Stop()
		e.proc = e.Start(t, bot.Config{Handler: e.app.Handle, Limits: &bot.NoLimits, Store: botpg.New(pool)})
		e.service = e.proc.Service
		e.serve()
		ann, boris := e.login(t, 1, "Ann"), e.login(t, 2, "Boris")
		if !live {
			e.Bot.Block(1, true)
			e.Bot.Block(2, true)
		}
		var created struct{ ID int64 }
		ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": control}, http.StatusCreated, &created)
		boris.must(t, "POST", "/api/v1/games", map[string]string{"variant": "chess", "control": control}, http.StatusCreated, &created)
		id := created.ID
		e.WaitIdle(t)
		clients := map[int64]*client{1: ann, 2: boris}
		for ply := range moveCostMoves {
			bd := e.board(t, id)
			mover := clients[bd.Seats[bd.ToMove].User]
			st := mover.state(t, id)
			if len(st.Legal) == 0 {
				t.Fatalf("live %v, ply %d: no legal move", live, ply)
			}
			e.clock.advance(away)
			tr.mu.Lock()
			from := len(tr.done)
			tr.mu.Unlock()
			// Moves that vary, so that no position comes back three times.
			mv := st.Legal[(ply*7)%len(st.Legal)].Text
			mover.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", id), map[string]any{"move": mv, "ply": ply}, http.StatusOK, nil)
			tx := tr.moveTx(from)
			if tx == nil {
				t.Fatalf("live %v, ply %d: no transaction of the move traced", live, ply)
			}
			if live && !slices.ContainsFunc(tx.stmts, func(s string) bool { return strings.HasPrefix(s, want) }) {
				t.Errorf("ply %d: the live move's transaction made no %s", ply, want)
			}
			trips[live] = append(trips[live], tx.trips)
			elapsed[live] = append(elapsed[live], tx.elapsed)
			last[live] = append(last[live], tx.each[len(tx.stmts)-1])
			for i, d := range tx.each {
				k := tx.stmts[i]
				if len(k) > 60 {
					k = k[:60]
				}
				byStmt[live][k] += d
			}
			if ply == moveCostMoves-1 {
				t.Logf("live %v: the move's transaction: %d statements in %d round trips, %v:\n%s", live, len(tx.stmts),
					tx.trips, tx.elapsed, strings.Join(clip(tx), "\n"))
			}
			e.WaitIdle(t)
		}
	}
	median := func(ds []time.Duration) time.Duration { ds = slices.Clone(ds); slices.Sort(ds); return ds[len(ds)/2] }
	t.Logf("medians of %d moves: the transaction's round trips %v live, %v off; its last round trip %v live, %v off",
		moveCostMoves, median(elapsed[true]), median(elapsed[false]), median(last[true]), median(last[false]))
	for k, on := range byStmt[true] {
		if off := byStmt[false][k]; on-off > 100*time.Microsecond*moveCostMoves/16 {
			t.Logf("%-60s  %7.3f ms a move live, %7.3f ms off", k, ms(on/moveCostMoves), ms(off/moveCostMoves))
		}
	}
	for i := range trips[true] {
		if off, on := trips[false][i], trips[true][i]; on > off {
			t.Errorf("move %d: %d round trips with the Telegram copies live, %d without", i+1, on, off)
		}
	}
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// moveCostMoves is how many moves TestWebMoveRoundTrips makes in each case.
const moveCostMoves = 16

// clip writes a transaction's statements for the log: each cut at 100 characters, the last
// of each round trip with the trip's time.
func clip(tx *tracedTx) []string {
	out := make([]string, len(tx.stmts))
	for i, s := range tx.stmts {
		if len(s) > 100 {
			s = s[:100] + "…"
		}
		if d, ok := tx.each[i]; ok {
			s = fmt.Sprintf("%8.3f ms  %s", float64(d)/float64(time.Millisecond), s)
		} else {
			s = "             " + s
		}
		out[i] = s
	}
	return out
}
