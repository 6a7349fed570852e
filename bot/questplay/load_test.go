package questplay_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/app"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/bottest"
	"github.com/questbot/questbot/quest/questtrace/corpus"
)

// TestLoad is the load test of quest steps as a player sees them: QUESTPLAY_LOAD_USERS simulated
// players (40 when set to "1") play quests at once through the real transport, the command tree
// and the Bot API emulator for QUESTPLAY_LOAD_SECONDS (20 by default). Half of them play the
// shipped quest, the others a classic Space Rangers quest of the test corpus in the reference
// dialect (prison.qmm; the shipped quest alone without the corpus). Each starts a quest, waits
// for its screen, thinks for a while (QUESTPLAY_LOAD_THINK, a Go duration, 2s on average by
// default, uniformly from half to one and a half of it), presses one of its buttons and waits
// for the next screen, starting the quest again after each ending.
//
// A step's latency is the time from the press to the moment the emulator holds the new screen
// (the first message of the bot after the press that carries buttons), which is what the player
// waits for. Telegram's limits are kept on both sides, as in production: the transport's own
// limits, and the emulator answers 429 to a bot that sends faster than Telegram allows.
// QUESTPLAY_LOAD_LIMITS=off switches both off (the throughput of the machine, not the chats'
// pace). The goal is p50 ≤ 100 ms and p99 ≤ 500 ms at 40 players. It is not part of the normal
// tests (make questload runs it):
//
//	QUESTPLAY_LOAD_USERS=40 go test -run '^TestLoad$' -v ./bot/questplay
func TestLoad(t *testing.T) {
	users, _ := strconv.Atoi(os.Getenv("QUESTPLAY_LOAD_USERS"))
	if users == 0 {
		t.Skip("set QUESTPLAY_LOAD_USERS to run the load test")
	}
	if users == 1 {
		users = 40
	}
	seconds, _ := strconv.Atoi(os.Getenv("QUESTPLAY_LOAD_SECONDS"))
	if seconds <= 0 {
		seconds = 20
	}
	think := 2 * time.Second
	if v := os.Getenv("QUESTPLAY_LOAD_THINK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		think = d
	}
	limits := os.Getenv("QUESTPLAY_LOAD_LIMITS") != "off"
	e := &env{Env: bottest.New(t, bottest.Options{Token: token, Username: "quest_play_bot",
		Emulator: tgemu.Options{EnforceRateLimits: limits}})}
	var shipped int64
	if err := e.Pool.QueryRow(context.Background(), `SELECT id FROM script WHERE common_name = 'cargo-run' AND language = 'en'`).Scan(&shipped); err != nil {
		t.Fatal(err)
	}
	quests := []int64{shipped}
	if dir, ok := corpus.Optional(t); ok {
		quests = append(quests, e.addScript(t, "Prison", "prison", filepath.Join(dir, "quests", "dagazbot", "prison.qmm"), "ru", 0, 0))
	}

	b := app.New(app.Config{UploadsDir: uploadsDir, Log: slog.New(slog.DiscardHandler)})
	testCommands(b)
	cfg := bot.Config{Handler: b.Handle, Log: slog.New(slog.DiscardHandler),
		PollTimeout: 25 * time.Second, Rescan: time.Second} // the transport's defaults, as in production
	if !limits {
		cfg.Limits = &bot.NoLimits
	}
	e.Start(t, cfg)

	var mu sync.Mutex
	var lat []time.Duration
	byQuest := map[int64][]time.Duration{}
	measuring := false
	deadline := time.Now().Add(time.Duration(seconds)*time.Second + 2*time.Second + think)
	var wg sync.WaitGroup
	var timeouts, failed sync.Map
	for u := range int64(users) {
		user := 10_000 + u
		lang := "en"
		quest := quests[int(u)%len(quests)]
		if quest != shipped {
			lang = "ru"
		}
		e.Bot.AddUser(tgbotapi.User{ID: user, FirstName: fmt.Sprint("p", u), LanguageCode: lang})
		wg.Add(1)
		go func() {
			defer wg.Done()
			events, done := e.Bot.Subscribe(user)
			defer done()
			rnd := rand.New(rand.NewPCG(uint64(user), 1))
			// next waits for the next screen: the bot's next message with buttons.
			next := func() (*tgemu.Message, bool) {
				for {
					select {
					case ev := <-events:
						if ev.Type == "message" && ev.Message.FromBot && len(ev.Message.Keyboard) > 0 {
							return ev.Message, true
						}
					case <-time.After(30 * time.Second):
						timeouts.Store(user, true)
						return nil, false
					}
				}
			}
			// choices are the quest's choices of a screen (not its parameters button), none at
			// an ending.
			choices := func(m *tgemu.Message) []string {
				var out []string
				for _, row := range m.Keyboard {
					for _, btn := range row {
						if strings.HasPrefix(btn.Data, "q:") && !strings.HasSuffix(btn.Data, ":-1000") {
							out = append(out, btn.Data)
						}
					}
				}
				return out
			}
			// Players do not all come at once.
			time.Sleep(time.Duration(rnd.Int64N(int64(think) + 1)))
			for time.Now().Before(deadline) {
				if _, err := e.Bot.SendText(user, fmt.Sprintf("/play %d", quest)); err != nil {
					t.Error(err)
					return
				}
				m, ok := next()
				for ok && time.Now().Before(deadline) {
					data := choices(m)
					if len(data) == 0 {
						break // an ending: the quest again
					}
					if think > 0 {
						time.Sleep(think/2 + time.Duration(rnd.Int64N(int64(think))))
					}
					t0 := time.Now()
					if _, err := e.Bot.Press(user, m.ID, data[rnd.IntN(len(data))]); err != nil {
						failed.Store(user, err)
						return
					}
					m, ok = next()
					if ok {
						mu.Lock()
						if measuring {
							d := time.Since(t0)
							lat = append(lat, d)
							byQuest[quest] = append(byQuest[quest], d)
						}
						mu.Unlock()
					}
				}
				if !ok {
					return
				}
			}
		}()
	}
	time.Sleep(2*time.Second + think) // warm-up: launches, first screens, the quests compiled once
	mu.Lock()
	measuring = true
	mu.Unlock()
	start := time.Now()
	wg.Wait()
	elapsed := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	failed.Range(func(user, err any) bool { t.Errorf("player %v: %v", user, err); return true })
	slices.Sort(lat)
	if len(lat) == 0 {
		t.Fatal("no steps measured")
	}
	quantile := func(lat []time.Duration, p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	q := func(p float64) time.Duration { return quantile(lat, p) }
	for i, id := range quests {
		l := byQuest[id]
		if len(l) == 0 {
			continue
		}
		slices.Sort(l)
		t.Logf("quest %d of %d (script %d): %d steps, p50 %v, p99 %v", i+1, len(quests), id, len(l),
			quantile(l, 0.5).Round(time.Millisecond), quantile(l, 0.99).Round(time.Millisecond))
	}
	nt := 0
	timeouts.Range(func(any, any) bool { nt++; return true })
	t.Logf("%d players thinking %v, %d quests, limits %v: %d steps in %v (%.0f steps/s): p50 %v, p90 %v, p99 %v, max %v; %d answers 429; %d players timed out",
		users, think, len(quests), limits, len(lat), elapsed.Round(time.Millisecond), float64(len(lat))/elapsed.Seconds(),
		q(0.50).Round(time.Millisecond), q(0.90).Round(time.Millisecond), q(0.99).Round(time.Millisecond),
		lat[len(lat)-1].Round(time.Millisecond), e.Bot.Count("429"), nt)
	// The screens left whose update (the choice made, the buttons gone) a newer step dropped.
	e.WaitIdle(t)
	left, stale := 0, 0
	for u := range int64(users) {
		msgs := e.BotMessages(10_000 + u)
		for i, m := range msgs {
			quest := slices.ContainsFunc(m.Keyboard, func(row []tgemu.Button) bool {
				return slices.ContainsFunc(row, func(b tgemu.Button) bool { return strings.HasPrefix(b.Data, "q:") })
			})
			if i < len(msgs)-1 && (m.Edited || quest) {
				left++
				if quest {
					stale++
				}
			}
		}
	}
	t.Logf("requests: %d sendMessage, %d sendPhoto, %d editMessageText, %d editMessageCaption, %d deleteMessage; "+
		"%d screens left, %d of them with their buttons (a newer step dropped their update)",
		e.Bot.Count("sendMessage"), e.Bot.Count("sendPhoto"), e.Bot.Count("editMessageText"), e.Bot.Count("editMessageCaption"),
		e.Bot.Count("deleteMessage"), left, stale)
	if nt > 0 {
		t.Errorf("%d players waited 30 s for a screen", nt)
	}
	if think > 0 {
		if p50, p99 := q(0.50), q(0.99); p50 > 100*time.Millisecond || p99 > 500*time.Millisecond {
			t.Errorf("step latency p50 %v, p99 %v; want at most 100 ms and 500 ms", p50, p99)
		}
	}
}
