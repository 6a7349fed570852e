package telegram_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// benchGames is how many games run at once in BenchmarkHumanMove.
const benchGames = 100

// BenchmarkHumanMove measures a player's move with benchGames chess games between players
// running at once, to the sender taking the mover's new board from the outbox, its picture drawn
// (after the handler locked the board, replayed and checked the move and committed the move with
// the boards' requests; the pictures are drawn as they are sent): "update", from the transport
// claiming the update, and "client", from
// the typed move leaving the player's client (the emulator), which adds the long poll and the
// storing of the update in the inbox. In each game the players move in turn, a random legal move
// each time, each thinking BOARDS_BENCH_THINK on average (a Go duration, 10s unless set;
// uniformly from half to one and a half of it) once both boards of the last move have come; b.N
// moves in all. It reports the medians and the 99th percentiles, the moves per second and the
// mean time to draw a picture. The emulator's own work (it decodes every picture uploaded and
// makes the smaller copies Telegram makes) runs on the same cores.
//
//	go test -run '^$' -bench HumanMove -benchtime 2000x ./bot/boards
func BenchmarkHumanMove(b *testing.B) {
	e := &env{Env: bottest.New(b, bottest.Options{Token: "123456:boards-bench-token", Username: "boards_bench_bot"}),
		clock: &clock{}, dir: b.TempDir()}
	ctx := context.Background()
	// The boards awaited: a chat and the ply its new keyboard is made for. The sender's hook
	// closes the channel when it takes the request that sends or edits that board.
	type awaited struct {
		chat int64
		tag  string // "g:<board>:<ply>:", in the keyboard's data
	}
	var mu sync.Mutex
	waiting := map[awaited]chan struct{}{}
	// claimed is when the transport claimed each chat's last update, for the latency from the
	// update to the outbox alone.
	claimed := map[int64]time.Time{}
	var inner []time.Duration
	claim := func(u *bot.Update) bool {
		mu.Lock()
		claimed[u.Chat] = time.Now()
		mu.Unlock()
		return false
	}
	hook := func(row *bot.OutboxRow) bool {
		if m := row.Request.Method; m != "editMessageMedia" && m != "sendPhoto" {
			return false
		}
		markup := row.Request.Params["reply_markup"]
		mu.Lock()
		for k, ch := range waiting {
			if k.chat == row.Chat.Chat && strings.Contains(markup, k.tag) {
				delete(waiting, k)
				close(ch)
				if at, ok := claimed[k.chat]; ok {
					inner = append(inner, time.Since(at))
					delete(claimed, k.chat)
				}
			}
		}
		mu.Unlock()
		return false
	}
	await := func(chat int64, boardID int64, ply int) chan struct{} {
		ch := make(chan struct{})
		mu.Lock()
		waiting[awaited{chat, fmt.Sprintf("g:%d:%d:", boardID, ply)}] = ch
		mu.Unlock()
		return ch
	}
	log := slog.New(slog.DiscardHandler)
	a := app.New(app.Config{UploadsDir: "../../uploads", Log: log, Boards: boards.Config{Dir: e.dir}})
	e.Start(b, bot.Config{Handler: a.Handle, Log: log, Limits: &bot.NoLimits, Hooks: bot.Hooks{BeforeHandle: claim, BeforeSend: hook},
		PollTimeout: 25 * time.Second, Rescan: time.Second})

	// The players and their games, made through the store.
	games := make([]*engine.Game, benchGames)
	ids := make([]int64, benchGames)
	for i := range benchGames {
		white, black := int64(1000+2*i), int64(1001+2*i)
		for _, u := range []int64{white, black} {
			e.User(u, fmt.Sprint("P", u), "en")
			e.Exec(b, `INSERT INTO users (id, chat_id, first_name, language) VALUES ($1, $1, $2, 'en')`, u, fmt.Sprint("P", u))
		}
		err := pgx.BeginFunc(ctx, e.Pool, func(tx pgx.Tx) error {
			st := a.Boards.Store(tx)
			bd, _, err := board.Open(board.Spec{Service: 1, Creator: white, Variant: "chess",
				Seed: uint64(i + 1), Control: board.TimeControl{Name: "none"}, Side: board.SideFirst}, time.Now())
			if err != nil {
				return err
			}
			if err := st.Create(ctx, bd); err != nil {
				return err
			}
			if _, err := bd.Join(black, time.Now()); err != nil {
				return err
			}
			ids[i] = bd.ID
			return st.Save(ctx, bd)
		})
		if err != nil {
			b.Fatal(err)
		}
		if games[i], err = engine.NewGame("chess", engine.WithSeed(uint64(i+1))); err != nil {
			b.Fatal(err)
		}
	}

	think := 10 * time.Second
	if v := os.Getenv("BOARDS_BENCH_THINK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatal(err)
		}
		think = d
	}
	var lat []time.Duration
	var latMu sync.Mutex
	moves := make(chan int, b.N)
	for range b.N {
		moves <- 0
	}
	close(moves)
	reg := prometheus.NewRegistry()
	if err := a.Register(reg); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	for i := range benchGames {
		wg.Go(func() {
			g := games[i]
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for range moves {
				if think > 0 {
					time.Sleep(time.Duration(float64(think) * (0.5 + rng.Float64())))
				}
				legal := g.LegalMoves()
				if len(legal) == 0 {
					return // the game is over
				}
				mv := legal[rng.IntN(len(legal))]
				user := int64(1000 + 2*i + int(g.ToMove()))
				other := user ^ 1
				mine, theirs := await(user, ids[i], g.Ply()+1), await(other, ids[i], g.Ply()+1)
				start := time.Now()
				if _, err := e.Bot.SendText(user, mv.String()); err != nil {
					b.Error(err)
					return
				}
				for _, ch := range []chan struct{}{mine, theirs} {
					select {
					case <-ch:
					case <-time.After(bottest.Timeout):
						b.Errorf("game %d: no board after %s", ids[i], mv)
						return
					}
					if ch == mine {
						latMu.Lock()
						lat = append(lat, time.Since(start))
						latMu.Unlock()
					}
				}
				if err := g.Apply(mv); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	begun := time.Now()
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(len(lat))/time.Since(begun).Seconds(), "moves/s")
	report := func(ds []time.Duration, name string) {
		slices.Sort(ds)
		if len(ds) > 0 {
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, name+"-p50-ms")
			b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, name+"-p99-ms")
		}
	}
	report(lat, "client")
	report(inner, "update")
	families, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "questbot_board_render_seconds" {
			h := f.GetMetric()[0].GetHistogram()
			if n := h.GetSampleCount(); n > 0 {
				b.ReportMetric(h.GetSampleSum()/float64(n)*1000, "render-ms")
			}
		}
	}
}
