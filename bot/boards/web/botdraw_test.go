package web_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/questbot/questbot/bot/boards/web"
)

// Ensure a draw offered to the bot on the web is answered there: the bot's refusal is in the
// answer to the offer and in the game's state, in the words of Telegram, until the next move;
// the offer cannot be repeated meanwhile.
func TestBotDrawAnswerOnWeb(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{})
	ann := e.login(t, 1, "Ann")
	var g struct{ ID int64 }
	ann.must(t, "POST", "/api/v1/games", map[string]string{"variant": "russian", "bot": "easy"}, http.StatusCreated, &g)
	var st web.GameState
	e.WaitFor(t, "Ann's turn", func() bool {
		st = ann.state(t, g.ID)
		return st.ToMove == st.Seat
	})
	if st.Declined != nil {
		t.Fatalf("declined before any offer: %+v", st.Declined)
	}
	// At the start the bot is not behind: it declines at once.
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/draw", g.ID), map[string]any{"action": "offer", "ply": st.Ply}, http.StatusOK, &st)
	if st.Declined == nil || st.Declined.Text != "The bot declines the draw." || st.Declined.Seat != 1-st.Seat ||
		st.Status != "active" || st.Offer != nil {
		t.Fatalf("the answer to the offer: declined %+v, status %s, offer %+v", st.Declined, st.Status, st.Offer)
	}
	if again := ann.state(t, g.ID); again.Declined == nil || again.Declined.Text != st.Declined.Text {
		t.Errorf("the state after the offer: %+v", again.Declined)
	}
	ann.refused(t, "POST", fmt.Sprintf("/api/v1/games/%d/draw", g.ID), map[string]any{"action": "offer", "ply": st.Ply}, http.StatusConflict, "conflict")
	// A move: the answer was to that move's offer, and is gone.
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/moves", g.ID), map[string]any{"move": st.Legal[0].Text, "ply": st.Ply}, http.StatusOK, &st)
	if st.Declined != nil {
		t.Errorf("still declined after a move: %+v", st.Declined)
	}
	// In Russian, for a Russian player.
	e.Exec(t, `UPDATE users SET language = 'ru' WHERE id = 1`)
	e.WaitFor(t, "Ann's turn again", func() bool {
		st = ann.state(t, g.ID)
		return st.ToMove == st.Seat
	})
	ann.must(t, "POST", fmt.Sprintf("/api/v1/games/%d/draw", g.ID), map[string]any{"action": "offer", "ply": st.Ply}, http.StatusOK, &st)
	if st.Declined == nil || st.Declined.Text != "Бот отказывается от ничьей." {
		t.Errorf("the answer in Russian: %+v", st.Declined)
	}
}
