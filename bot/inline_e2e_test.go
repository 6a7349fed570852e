package bot_test

import (
	"context"
	"testing"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/testkit/wait"
)

// inlineBot answers inline queries with one article, edits the chosen result's message twice
// to the same text (the second edit changes nothing), and edits it again on a press.
func inlineBot(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	kb := bot.Keyboard{{{Text: "Go", Data: "t:go"}}}
	switch {
	case u.InlineQuery != nil:
		req, err := bot.AnswerInline(u.Chat, u.InlineQuery.ID, []bot.InlineResult{
			bot.InlineArticle{ID: "a", Title: "A", HTML: "posted", Keyboard: kb}}, bot.InlineAnswer{})
		if err != nil {
			return err
		}
		return tx.Send(ctx, req)
	case u.ChosenInlineResult != nil:
		id := u.ChosenInlineResult.InlineMessageID
		first, err := bot.EditInlineHTML(id, "v1", kb)
		if err != nil {
			return err
		}
		second, _ := bot.EditInlineHTML(id, "v1", kb)
		return tx.Send(ctx, first, second)
	case u.CallbackQuery != nil:
		edit, err := bot.EditInlineHTML(u.CallbackQuery.InlineMessageID, "v2", kb)
		if err != nil {
			return err
		}
		return tx.Send(ctx, edit, bot.AnswerCallback(u.Chat, u.CallbackQuery.ID, "ok"))
	}
	return nil
}

// Ensure the transport's inline mode end to end: an inline query answered, the chosen result's
// message edited by its inline_message_id under its own key ("message is not modified" counting
// as sent), and a 403 on an inline message failing that request alone, marking nobody blocked.
func TestInlineTransport(t *testing.T) {
	t.Parallel()
	e := newEnv(t, tgemu.Options{EnforceRateLimits: true})
	e.start(t, bot.Config{Handler: inlineBot})
	e.User(1, "Ann", "en")
	qid, err := e.Bot.InlineQuery(1, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the answer", func() bool { _, ok := e.Bot.InlineAnswer(qid); return ok })
	inlineID, _, err := e.Bot.ChooseInlineResult(qid, "a")
	if err != nil {
		t.Fatal(err)
	}
	key := bot.InlineKey(inlineID)
	wait.For(t, wait.Hang, "both edits done", func() bool {
		m, _ := e.Bot.InlineMessage(inlineID)
		return m.Text == "v1" && e.QueryInt(t, `SELECT count(*) FROM outbox WHERE chat_id = $1`, key) == 0
	})
	if n := e.Bot.Count("400"); n != 1 {
		t.Errorf("%d requests answered 400, want 1 (the edit that changed nothing)", n)
	}

	e.Bot.InjectFault(tgemu.Fault{Method: "editMessageText", Code: 403})
	cb, err := e.Bot.PressInline(1, inlineID, "t:go")
	if err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the press answered and the edit failed", func() bool {
		_, answered := e.Bot.CallbackAnswer(cb)
		return answered && e.QueryInt(t, `SELECT count(*) FROM outbox WHERE chat_id = $1 AND status = 'failed'`, key) == 1
	})
	if n := e.QueryInt(t, `SELECT count(*) FROM users WHERE blocked_at IS NOT NULL`); n != 0 {
		t.Errorf("%d users marked blocked by a refused edit of an inline message", n)
	}
	if m, _ := e.Bot.InlineMessage(inlineID); m.Text != "v1" {
		t.Errorf("the refused edit changed the message: %q", m.Text)
	}
}
