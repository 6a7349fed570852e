package tgemu

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Ensure replies work both ways: the bot replies with reply_parameters (or the older
// reply_to_message_id), a reply to a missing message is refused unless allowed without it, and a
// user's reply reaches the bot with the message it answers.
func TestReplies(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	first, err := b.SendText(7, "question")
	if err != nil {
		t.Fatal(err)
	}
	send := func(form url.Values) (int, tgbotapi.Message) {
		form.Set("chat_id", "7")
		form.Set("text", "answer")
		code, resp := call(t, srv, "1:T", "sendMessage", form)
		var m tgbotapi.Message
		json.Unmarshal(resp.Result, &m)
		return code, m
	}
	code, m := send(url.Values{"reply_parameters": {`{"message_id":` + strconv.Itoa(first) + `}`}})
	if code != 200 || m.ReplyToMessage == nil || m.ReplyToMessage.MessageID != first || m.ReplyToMessage.Text != "question" {
		t.Fatalf("reply_parameters: %d %+v", code, m)
	}
	if code, m := send(url.Values{"reply_to_message_id": {strconv.Itoa(first)}}); code != 200 || m.ReplyToMessage == nil {
		t.Errorf("reply_to_message_id: %d %+v", code, m)
	}
	if code, _ := send(url.Values{"reply_parameters": {`{"message_id":999}`}}); code != 400 {
		t.Errorf("a reply to a missing message: %d, want 400", code)
	}
	code, m = send(url.Values{"reply_parameters": {`{"message_id":999,"allow_sending_without_reply":true}`}})
	if code != 200 || m.ReplyToMessage != nil {
		t.Errorf("a reply allowed without its message: %d %+v", code, m)
	}
	if got := b.Messages(7)[1]; got.ReplyTo != first {
		t.Errorf("the chat shows reply_to %d, want %d", got.ReplyTo, first)
	}

	// The user answers the bot's reply.
	if _, err := b.SendReply(7, 999, "x"); err == nil {
		t.Error("a reply to a missing message was accepted")
	}
	mine, err := b.SendReply(7, m.MessageID, "thanks")
	if err != nil {
		t.Fatal(err)
	}
	_, resp := call(t, srv, "1:T", "getUpdates", url.Values{})
	var updates []tgbotapi.Update
	if err := json.Unmarshal(resp.Result, &updates); err != nil {
		t.Fatal(err)
	}
	last := updates[len(updates)-1].Message
	if last == nil || last.MessageID != mine || last.ReplyToMessage == nil || last.ReplyToMessage.MessageID != m.MessageID ||
		last.ReplyToMessage.From == nil || !last.ReplyToMessage.From.IsBot {
		t.Fatalf("the user's reply arrived as %+v", last)
	}
	if _, err := b.SendSticker(7, "👍"); err != nil {
		t.Fatal(err)
	}
	_, resp = call(t, srv, "1:T", "getUpdates", url.Values{"offset": {strconv.Itoa(updates[len(updates)-1].UpdateID + 1)}})
	updates = nil
	json.Unmarshal(resp.Result, &updates)
	if len(updates) != 1 || updates[0].Message == nil || updates[0].Message.Sticker == nil || updates[0].Message.Sticker.Emoji != "👍" {
		t.Fatalf("the sticker arrived as %+v", updates)
	}
}
