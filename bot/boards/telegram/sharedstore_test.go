package telegram_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Ensure what a shared board keeps of its message is checked and holds no secret: a chosen
// inline result naming a message by a 5,000-character id is refused (logged, nothing opened or
// stored), and a challenge keeps only the digest of its invitation's code (the hex of what the
// invitation table keeps), which its Join still redeems.
func TestSharedRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.noPublic = true
	const ann, bob, group = 71, 72, -800
	e.user(t, ann, "Ann", "en")
	e.user(t, bob, "Bob", "en")
	e.start(t)
	if err := e.Bot.AddGroup(group, "Club", ann, bob); err != nil {
		t.Fatal(err)
	}
	e.allow("longer than Telegram gives")
	raw, err := json.Marshal(tgbotapi.Update{UpdateID: 910_000_001, ChosenInlineResult: &tgbotapi.ChosenInlineResult{
		ResultID: "chess.none", From: &tgbotapi.User{ID: ann, FirstName: "Ann"}, InlineMessageID: strings.Repeat("A", 5000)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.proc.Transport.Accept(context.Background(), e.service, []json.RawMessage{raw}); err != nil {
		t.Fatal(err)
	}
	e.WaitFor(t, "the refusal logged", func() bool { return strings.Contains(e.Logs.String(), "longer than Telegram gives") })
	e.WaitIdle(t)
	if n := e.QueryInt(t, `SELECT (SELECT count(*) FROM board_shared) + (SELECT count(*) FROM board_session)`); n != 0 {
		t.Fatalf("the over-long id opened or stored %d rows", n)
	}

	s := e.challenge(t, ann, group, "chess")
	if n := e.QueryInt(t, `SELECT count(*) FROM board_shared sh JOIN board_invite i ON i.board_id = sh.board_id
		WHERE sh.invite = encode(i.code_hash, 'hex')`); n != 1 {
		t.Errorf("the challenge keeps no digest of its invitation (%d rows match)", n)
	}
	if got := s.press(t, bob, "✅ Join"); got != "The game begins!" {
		t.Errorf("Join answered %q", got)
	}
}
