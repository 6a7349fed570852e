package questplay_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// TestLoad is the load test of quest steps: QUESTPLAY_LOAD_USERS simulated players (500 when
// set to "1") play the shipped quest at once through the real transport, the command tree and
// the Bot API emulator for QUESTPLAY_LOAD_SECONDS (10 by default), each starting it with
// /start <id>, pressing a button, waiting for the next screen, thinking for a while
// (QUESTPLAY_LOAD_THINK, a Go duration, 2s on average by default, uniformly from half to one and
// a half of it; 0 presses at once, which measures the saturated throughput instead) and pressing
// again, starting a new game after each ending. It reports the latency of a step from the button press to the moment the sender takes the step's first
// outbox row, i.e. after the receiver stored the press, the handler ran and its transaction
// (the game's new state and the step's messages) committed. It is not part of the normal tests:
//
//	QUESTPLAY_LOAD_USERS=500 go test -run TestLoad -v ./bot/questplay
func TestLoad(t *testing.T) {
	users, _ := strconv.Atoi(os.Getenv("QUESTPLAY_LOAD_USERS"))
	if users == 0 {
		t.Skip("set QUESTPLAY_LOAD_USERS to run the load test")
	}
	if users == 1 {
		users = 500
	}
	seconds, _ := strconv.Atoi(os.Getenv("QUESTPLAY_LOAD_SECONDS"))
	if seconds <= 0 {
		seconds = 10
	}
	think := 2 * time.Second
	if v := os.Getenv("QUESTPLAY_LOAD_THINK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		think = d
	}
	e := newEnv(t)
	var id int64
	if err := e.Pool.QueryRow(context.Background(), `SELECT id FROM script WHERE common_name = 'cargo-run' AND language = 'en'`).Scan(&id); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	pressed := map[int64]time.Time{} // chat -> when its pending press was made
	var lat []time.Duration
	measuring := false
	hook := func(row *bot.OutboxRow) bool {
		if row.Request.Method != "answerCallbackQuery" {
			return false
		}
		mu.Lock()
		if t0, ok := pressed[row.Chat.Chat]; ok {
			delete(pressed, row.Chat.Chat)
			if measuring {
				lat = append(lat, time.Since(t0))
			}
		}
		mu.Unlock()
		return false
	}
	b := app.New(app.Config{UploadsDir: uploadsDir, Log: slog.New(slog.DiscardHandler)})
	// The transport's own defaults for the poll and the rescan, as in production.
	e.Start(t, bot.Config{Handler: b.Handle, Log: slog.New(slog.DiscardHandler), Limits: &bot.NoLimits,
		PollTimeout: 25 * time.Second, Rescan: time.Second, Hooks: bot.Hooks{BeforeSend: hook}})

	deadline := time.Now().Add(time.Duration(seconds)*time.Second + 2*time.Second)
	var wg sync.WaitGroup
	var steps, timeouts sync.Map
	for u := range int64(users) {
		user := 10_000 + u
		e.Bot.AddUser(tgbotapi.User{ID: user, FirstName: fmt.Sprint("p", u), LanguageCode: "en"})
		wg.Add(1)
		go func() {
			defer wg.Done()
			events, done := e.Bot.Subscribe(user)
			defer done()
			rnd := rand.New(rand.NewPCG(uint64(user), 1))
			n := 0
			// next waits for the next screen with buttons; false at an ending or a timeout.
			next := func() (*tgemu.Message, bool) {
				for {
					select {
					case ev := <-events:
						if ev.Type == "message" && ev.Message.FromBot && ev.Message.Photo == "" {
							return ev.Message, len(ev.Message.Keyboard) > 0
						}
					case <-time.After(10 * time.Second):
						timeouts.Store(user, true)
						return nil, false
					}
				}
			}
			for time.Now().Before(deadline) {
				if _, err := e.Bot.SendText(user, fmt.Sprintf("/start %d", id)); err != nil {
					t.Error(err)
					return
				}
				m, ok := next()
				for ok && time.Now().Before(deadline) {
					if think > 0 {
						time.Sleep(think/2 + time.Duration(rnd.Int64N(int64(think))))
					}
					row := m.Keyboard[rnd.IntN(len(m.Keyboard))]
					data := row[0].Data
					mu.Lock()
					pressed[user] = time.Now()
					mu.Unlock()
					if _, err := e.Bot.Press(user, m.ID, data); err != nil {
						t.Error(err)
						return
					}
					n++
					m, ok = next()
				}
				if m == nil {
					break
				}
			}
			steps.Store(user, n)
		}()
	}
	time.Sleep(2*time.Second + think) // warm-up: launches, first screens, the quest compiled once
	mu.Lock()
	measuring = true
	mu.Unlock()
	start := time.Now()
	wg.Wait()
	elapsed := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(lat)
	if len(lat) == 0 {
		t.Fatal("no steps measured")
	}
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	nt := 0
	timeouts.Range(func(any, any) bool { nt++; return true })
	t.Logf("%d players thinking %v, %d steps in %v (%.0f steps/s): p50 %v, p99 %v, max %v; %d players timed out",
		users, think, len(lat), elapsed.Round(time.Millisecond), float64(len(lat))/elapsed.Seconds(),
		q(0.50).Round(100*time.Microsecond), q(0.99).Round(100*time.Microsecond), lat[len(lat)-1].Round(time.Millisecond), nt)
	if p99 := q(0.99); p99 > 30*time.Millisecond && think > 0 {
		t.Errorf("p99 %v, want under 30 ms", p99)
	}
}
