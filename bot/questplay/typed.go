package questplay

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/texts"
)

// # Typed choice numbers
//
// A choice too long for a button is written in full under the screen's text, numbered (render).
// A player may type that number instead of pressing its button: HandleMessage takes a message of
// a number alone, in a private chat of a player with a running game whose screen numbers its
// choices, as a press of that choice's button on the current screen (the same step as a press,
// HandleCallback); a number the screen does not number is answered so, and never relayed to the
// admins. Any other message is left to the other handlers.

// HandleMessage takes a typed choice number (see Typed choice numbers); it reports whether it
// took the message.
func (g *Games) HandleMessage(ctx context.Context, tx bot.Tx, u *bot.Update) (bool, error) {
	m := u.Message
	if m == nil || u.User == nil || m.Chat == nil || !m.Chat.IsPrivate() {
		return false, nil
	}
	text := strings.TrimSpace(m.Text)
	n, err := strconv.Atoi(text)
	if err != nil || n < 1 || n > maxButtons || text != strconv.Itoa(n) {
		return false, nil
	}
	service, user, chat, err := who(u)
	if err != nil {
		return false, err
	}
	gm, err := g.running(ctx, tx.DB(), service, user)
	if err != nil || gm == nil {
		return false, err
	}
	c, err := g.open(gm.Script.File)
	if err != nil {
		return false, nil
	}
	name := gm.ranger(name(u))
	v, _, err := g.build(ctx, tx.DB(), c, gm, name, true, panelNone)
	if err != nil || v.Status.Over() {
		return false, nil
	}
	// The choices numbered as render numbers them: the active ones given a button whose text is
	// too long for it.
	var numbered []int
	buttons := 0
	for _, ch := range v.Choices {
		if !ch.Active || buttons == maxButtons {
			continue
		}
		buttons++
		if utf8.RuneCountInString(plainText(ch.Text, name)) > maxButtonText {
			numbered = append(numbered, ch.JumpID)
		}
	}
	if len(numbered) == 0 {
		return false, nil
	}
	if n > len(numbered) {
		return true, g.apology(ctx, tx, chat, texts.For(gm.Script.Lang).Quest.NoSuchChoice)
	}
	typed := *u
	typed.CallbackQuery = &tgbotapi.CallbackQuery{Data: buttonData(gm.ID, gm.Step, numbered[n-1]), From: m.From}
	typed.Message = nil
	return true, g.HandleCallback(ctx, typedTx{Tx: tx, chat: chat}, &typed)
}

// typedTx is the transaction of a typed choice: the answer HandleCallback gives the press it
// stands for is no callback's answer but, when it says something, a message.
type typedTx struct {
	bot.Tx
	chat int64
}

func (t typedTx) Send(ctx context.Context, reqs ...bot.Request) error {
	out := make([]bot.Request, 0, len(reqs))
	for _, r := range reqs {
		if r.Method != "answerCallbackQuery" {
			out = append(out, r)
			continue
		}
		if text := r.Params["text"]; text != "" {
			msgs, err := bot.SendHTML(t.chat, escape(text), nil)
			if err != nil {
				return err
			}
			out = append(out, msgs...)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return t.Tx.Send(ctx, out...)
}
