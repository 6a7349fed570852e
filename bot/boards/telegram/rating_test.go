package telegram_test

import (
	"bytes"
	"fmt"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/engine"
	"github.com/questbot/questbot/sessions/board"
)

// Ensure /rating answers a player without rated games in text, and after a rated game with the
// chart of their ratings: a photo whose PNG decodes at the chart's size, captioned with the
// rating ± deviation the statistics hold and the games played; a game against the built-in bot
// then changes no rating and writes no history, and the chart, unchanged, is sent again by its
// file.
func TestRatingChart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	e.user(t, 1, "Ann", "en")
	after := e.LastID(1)
	e.Send(t, 1, "/rating")
	e.WaitTextAfter(t, 1, after, "You have not finished a board game yet")

	id := e.startPair(t, "Chess", "no clock", "Шахматы", "без часов")
	users := e.seats(t, id)
	ann := 0
	if users[1] == 1 {
		ann = 1
	}
	e.Press(t, 1, e.turn(t, 1, id, ann), "🏳 Resign")
	e.Press(t, 1, e.waitCaption(t, 1, "Resign this game?"), "Yes, I resign")
	e.waitCaption(t, 1, "You lose</b>: resignation")
	e.WaitIdle(t)
	if n := e.QueryInt(t, `SELECT count(*) FROM board_rating_history WHERE board_id = $1`, id); n != 2 {
		t.Fatalf("%d rows of history of the rated game, want 2", n)
	}

	chart := func(want string) tgemu.Message {
		t.Helper()
		after := e.LastID(1)
		e.Send(t, 1, "/rating")
		m := e.WaitMessage(t, 1, after, "the chart", func(m tgemu.Message) bool { return m.Photo != "" })
		if !strings.Contains(m.Text, want) {
			t.Errorf("the chart's caption %q lacks %q", m.Text, want)
		}
		return m
	}
	m := chart("1 rated game of 1")
	rating := e.QueryInt(t, `SELECT round(rating) FROM board_stats WHERE user_id = 1`)
	rd := e.QueryInt(t, `SELECT round(deviation) FROM board_stats WHERE user_id = 1`)
	if rating != 1338 {
		t.Errorf("Ann's rating after losing a first game: %d, want 1338", rating)
	}
	// The deviation grows with the seconds since the game: by less than a point.
	if !strings.Contains(m.Text, fmt.Sprintf("Chess: <b>%d</b> ± %d", rating, rd)) &&
		!strings.Contains(m.Text, fmt.Sprintf("Chess: <b>%d</b> ± %d", rating, rd+1)) {
		t.Errorf("the caption %q lacks Chess: %d ± %d", m.Text, rating, rd)
	}
	if !strings.Contains(m.Text, "(provisional)") {
		t.Errorf("a newcomer's rating is not marked provisional: %q", m.Text)
	}
	data, _, mime, ok := e.Emu.FileData(m.Photo)
	if !ok || mime != "image/png" {
		t.Fatalf("the chart's file: %v, %s", ok, mime)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	one := engine.Chart{Series: []engine.Series{{Points: []engine.ChartPoint{{At: time.Now(), Value: 1500}}}}}
	f, err := one.Frame()
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != engine.ChartWidth || b.Dy() != f.Height {
		t.Errorf("the chart is %v, want %dx%d (one game)", b, engine.ChartWidth, f.Height)
	}

	// A game against the bot: counted, not rated.
	e.menu(t, 1, "/games", "Chess", "🤖 Play the bot", texts.For("en").LevelChoice("chess", board.BotEasy))
	e.WaitFor(t, "the game against the bot", func() bool { return e.lastBoard(t, 1) != id })
	bot := e.lastBoard(t, 1)
	e.Press(t, 1, e.waitBoard(t, 1, "the bot's board", func(m tgemu.Message) bool { return m.Button("🏳 Resign") != "" }), "🏳 Resign")
	e.Press(t, 1, e.waitCaption(t, 1, "Resign this game?"), "Yes, I resign")
	e.waitCaption(t, 1, "You lose</b>: resignation")
	e.WaitIdle(t)
	if n := e.QueryInt(t, `SELECT count(*) FROM board_rating_history WHERE board_id = $1`, bot); n != 0 {
		t.Errorf("the game against the bot wrote %d rows of history", n)
	}
	if r := e.QueryInt(t, `SELECT round(rating) FROM board_stats WHERE user_id = 1 AND rated = 1 AND played = 2`); r != rating {
		t.Errorf("after the game against the bot: rating %d, want %d", r, rating)
	}
	again := chart("1 rated game of 2")
	if again.Photo != m.Photo {
		t.Errorf("the unchanged chart was uploaded again: %s, then %s", m.Photo, again.Photo)
	}
}

// Ensure /top lists the best established players of a game (rating, then deviation, then id),
// the provisional ones apart, programs marked, and the asker's place; /top without a game, or
// with a name no game has, offers the games, and the game chosen gives its leaderboard.
func TestTop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	e.user(t, 1, "Ann", "en")
	now := time.Now()
	players := []struct {
		id     int64
		name   string
		rating float64
		rd     float64
	}{
		{1, "Ann", 1550, 60}, // the asker
		{11, "Zed", 1700, 60},
		{12, "Yan", 1700, 50},
		{13, "Xia", 1800, 100},
		{14, "Wes", 2000, 200}, // provisional
		{15, "Robo", 1600, 70}, // a program
		{16, "Vic", 1400, 300}, // provisional
	}
	for _, p := range players {
		e.Exec(t, `INSERT INTO users (id, chat_id, first_name) VALUES ($1, $1, $2) ON CONFLICT DO NOTHING`, p.id, p.name)
		e.Exec(t, `INSERT INTO board_stats (service_id, user_id, variant, played, won, rated, rating, deviation, rated_at, updated_at)
			VALUES ($1, $2, 'chess', 5, 5, 5, $3, $4, $5, $5)`, e.service, p.id, p.rating, p.rd, now)
	}
	e.Exec(t, `INSERT INTO web_api_token (hash, service_id, user_id, created_by, created_at) VALUES (sha256('robo'), $1, 15, 1, $2)`, e.service, now)

	after := e.LastID(1)
	e.Send(t, 1, "/top chess")
	m := e.WaitTextAfter(t, 1, after, "Chess: the best players")
	order := []string{"1. Xia — <b>1800</b> ± 100 (5 games)", "2. Yan — <b>1700</b> ± 50", "3. Zed — <b>1700</b> ± 60",
		"4. Robo 🤖 — <b>1600</b> ± 70", "5. Ann — <b>1550</b> ± 60", "Provisional ratings",
		"1. Wes — <b>2000</b> ± 200", "2. Vic — <b>1400</b> ± 300", "Your place: <b>5</b>."}
	last := -1
	for _, s := range order {
		i := strings.Index(m.Text, s)
		if i <= last {
			t.Errorf("/top: %q missing or out of order in %q", s, m.Text)
		}
		last = max(last, i)
	}

	// Without a game: the menu; the game chosen gives its leaderboard.
	after = e.LastID(1)
	e.Send(t, 1, "/top")
	menu := e.WaitMessage(t, 1, after, "the games", func(m tgemu.Message) bool { return m.Button("Chess") != "" })
	e.Press(t, 1, menu, "Chess")
	e.WaitTextAfter(t, 1, menu.ID, "1. Xia")
	// A name no game has: said, then the menu.
	after = e.LastID(1)
	e.Send(t, 1, "/top checkers<b>")
	e.WaitTextAfter(t, 1, after, "There is no game called “checkers&lt;b&gt;”.")
	e.WaitMessage(t, 1, after, "the games", func(m tgemu.Message) bool { return m.Button("Russian draughts") != "" })
	// A name three games fit: those to choose from, and no word of an unknown game.
	after = e.LastID(1)
	e.Send(t, 1, "/top fox")
	fox := e.WaitMessage(t, 1, after, "the games of the fox", func(m tgemu.Message) bool { return len(m.Keyboard) > 0 })
	if got := labels(fox); len(got) != 3 || !strings.HasPrefix(got[0], "Fox and Geese") {
		t.Errorf("/top fox offers %q", got)
	}
	for _, m := range e.BotMessages(1) {
		if m.ID > after && strings.Contains(m.Text, "There is no game") {
			t.Errorf("/top fox answered %q", m.Text)
		}
	}
	// A game nobody has a rating in, named in Russian.
	after = e.LastID(1)
	e.Send(t, 1, "/top погоня")
	e.WaitTextAfter(t, 1, after, "Nobody has a rating in Chase yet")
}
