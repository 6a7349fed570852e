package telegram_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/boards"
	"github.com/questbot/questbot/bot/emulator/tgemu"
)

// webApps lists the web_app buttons of a message as "label url".
func webApps(m tgemu.Message) []string {
	var out []string
	for _, row := range m.Keyboard {
		for _, b := range row {
			if b.WebApp != "" {
				out = append(out, b.Text+" "+b.WebApp)
			}
		}
	}
	return out
}

// Ensure each player's board ends with the button that opens the game's page as a Mini App when
// the web game server is at an https address, in the player's language, but not while a
// resignation waits to be confirmed.
func TestOpenButton(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	id := e.startPair(t, "Russian draughts", "1 day a move", "Русские шашки", "1 день на ход")
	page := fmt.Sprintf("%s/play/%d", testPublicURL, id)
	ann, _ := e.boardMessage(1)
	boris, _ := e.boardMessage(2)
	if got := webApps(ann); !slices.Equal(got, []string{"📱 Open " + page}) {
		t.Errorf("Ann's Mini App buttons %v", got)
	}
	if got := webApps(boris); !slices.Equal(got, []string{"📱 Открыть " + page}) {
		t.Errorf("Boris's Mini App buttons %v", got)
	}
	if last := ann.Keyboard[len(ann.Keyboard)-1]; len(last) != 1 || last[0].WebApp == "" {
		t.Errorf("the Open button is not alone on the last row: %+v", ann.Keyboard)
	}
	asked := e.tap(t, 1, "🏳 Resign")
	if !strings.Contains(asked.Text, "Resign this game?") || len(webApps(asked)) != 0 {
		t.Errorf("the question to resign: %q %v", asked.Text, labels(asked))
	}
}

// Ensure the boards keep their buttons as they were when Telegram cannot open the page as a Mini
// App (an http address), and that on the test environment an http loopback address will do.
func TestOpenButtonNeedsMiniApp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		cfg  boards.Config
		want bool
	}{
		{"HTTP", boards.Config{PublicURL: "http://games.example.org"}, false},
		{"LoopbackOnTelegram", boards.Config{PublicURL: "http://127.0.0.1:8080"}, false},
		{"LoopbackOnTestEnvironment", boards.Config{PublicURL: "http://127.0.0.1:8080", TestEnvironment: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.boards = c.cfg
			e.start(t)
			id := e.startPair(t, "Russian draughts", "1 day a move", "Русские шашки", "1 день на ход")
			m, _ := e.boardMessage(1)
			want := []string(nil)
			if c.want {
				want = []string{fmt.Sprintf("📱 Open %s/play/%d", c.cfg.PublicURL, id)}
			}
			if got := webApps(m); !slices.Equal(got, want) {
				t.Errorf("Mini App buttons %v, want %v", got, want)
			}
		})
	}
}
