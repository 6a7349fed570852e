package tgemu

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Ensure the inline mode as Telegram has it: a query typed in a group reaches the bot, its answer
// is validated and kept, the chosen result is posted into the group via the bot and reported with
// its inline_message_id, a press under it comes without a message, and the message is edited by
// its inline_message_id (uploads refused, URLs and file_ids taken, an edit that changes nothing
// refused as "message is not modified").
func TestInlineMode(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "questbot")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	b.AddUser(tgbotapi.User{ID: 8, FirstName: "Bob"})
	b.AddUser(tgbotapi.User{ID: 9, FirstName: "Eve"})
	if err := b.AddGroup(-50, "Club", 7, 8); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	if _, err := b.InlineQuery(9, -50, "x"); err == nil {
		t.Error("a query from outside the group accepted")
	}
	qid, err := b.InlineQuery(7, -50, "che")
	if err != nil {
		t.Fatal(err)
	}
	ups := updates(t, srv, "1:T", 0)
	last := ups[len(ups)-1]
	if q := last.InlineQuery; q == nil || q.ID != qid || q.Query != "che" || q.From.ID != 7 || q.ChatType != "group" {
		t.Fatalf("inline query update = %+v", last)
	}
	kb := `{"inline_keyboard":[[{"text":"Join","callback_data":"gi:j"}]]}`
	article := func(id, text string) string {
		return `{"type":"article","id":"` + id + `","title":"Chess","input_message_content":{"message_text":"` + text +
			`","parse_mode":"HTML"},"reply_markup":` + kb + `}`
	}
	for _, c := range []struct{ name, results, desc string }{
		{"duplicate", "[" + article("a", "x") + "," + article("a", "y") + "]", "RESULT_ID_DUPLICATE"},
		{"empty text", "[" + article("a", "") + "]", "MESSAGE_EMPTY"},
		{"no type", `[{"id":"a"}]`, "RESULT_TYPE_INVALID"},
		{"photo without URL", `[{"type":"photo","id":"p","photo_url":"/a.png","thumbnail_url":"https://x/a"}]`, "PHOTO_INVALID"},
		{"bad keyboard", `[{"type":"article","id":"a","title":"T","input_message_content":{"message_text":"x"},"reply_markup":{"inline_keyboard":[[{"text":"a"}]]}}]`, "Text buttons are unallowed"},
		{"not JSON", `{`, "can't parse"},
	} {
		code, resp := call(t, srv, "1:T", "answerInlineQuery", url.Values{"inline_query_id": {qid}, "results": {c.results}})
		if code != 400 || !strings.Contains(resp.Description, c.desc) {
			t.Errorf("%s: %d %q, want 400 %q", c.name, code, resp.Description, c.desc)
		}
	}
	if _, ok := b.InlineAnswer(qid); ok {
		t.Fatal("a refused answer kept")
	}
	if code, resp := call(t, srv, "1:T", "answerInlineQuery", url.Values{"inline_query_id": {qid},
		"results": {"[" + article("chess", "<b>Ann</b> wants to play") + "]"}}); code != 200 {
		t.Fatalf("answer: %d %s", code, resp.Description)
	}
	if code, _ := call(t, srv, "1:T", "answerInlineQuery", url.Values{"inline_query_id": {qid}, "results": {"[]"}}); code != 400 {
		t.Error("a second answer accepted")
	}
	res, ok := b.InlineAnswer(qid)
	if !ok || len(res) != 1 || res[0].ID != "chess" || res[0].Title != "Chess" || len(res[0].Keyboard) != 1 {
		t.Fatalf("answer = %+v, %v", res, ok)
	}
	inlineID, msgID, err := b.ChooseInlineResult(qid, "chess")
	if err != nil || inlineID == "" {
		t.Fatalf("choose: %q, %v", inlineID, err)
	}
	msgs := b.Messages(-50)
	posted := msgs[len(msgs)-1]
	if posted.ID != msgID || !posted.ViaBot || posted.FromBot || posted.From != 7 || posted.InlineID != inlineID ||
		posted.Button("Join") != "gi:j" {
		t.Errorf("posted %+v", posted)
	}
	ups = updates(t, srv, "1:T", 0)
	var chosen *tgbotapi.ChosenInlineResult
	for _, u := range ups {
		if u.ChosenInlineResult != nil {
			chosen = u.ChosenInlineResult
		}
		if u.Message != nil && u.Message.MessageID == msgID && (u.Message.ViaBot == nil || u.Message.ViaBot.UserName != "questbot") {
			t.Errorf("the posted message reaches the bot without via_bot: %+v", u.Message)
		}
	}
	if chosen == nil || chosen.InlineMessageID != inlineID || chosen.ResultID != "chess" || chosen.From.ID != 7 || chosen.Query != "che" {
		t.Fatalf("chosen = %+v", chosen)
	}

	// Presses: members only, buttons that exist only; no message, the chat's chat_instance.
	if _, err := b.PressInline(9, inlineID, "gi:j"); err == nil {
		t.Error("a press from outside the group accepted")
	}
	if _, err := b.PressInline(8, inlineID, "gi:x"); err == nil {
		t.Error("a press of a button the message has not accepted")
	}
	cb, err := b.PressInline(8, inlineID, "gi:j")
	if err != nil {
		t.Fatal(err)
	}
	ups = updates(t, srv, "1:T", 0)
	cq := ups[len(ups)-1].CallbackQuery
	if cq == nil || cq.ID != cb || cq.Message != nil || cq.InlineMessageID != inlineID || cq.ChatInstance == "" || cq.From.ID != 8 {
		t.Fatalf("press = %+v", cq)
	}
	if code, _ := call(t, srv, "1:T", "answerCallbackQuery", url.Values{"callback_query_id": {cb}, "text": {"ok"}}); code != 200 {
		t.Error("the press's answer refused")
	}

	// Edits by inline_message_id.
	edit := func(method string, form url.Values) (int, tgbotapi.APIResponse) {
		form.Set("inline_message_id", inlineID)
		return call(t, srv, "1:T", method, form)
	}
	code, resp := edit("editMessageText", url.Values{"text": {"<b>board</b>"}, "parse_mode": {"HTML"}, "reply_markup": {kb}})
	if code != 200 || string(resp.Result) != "true" {
		t.Fatalf("edit text: %d %s %s", code, resp.Description, resp.Result)
	}
	if m, _ := b.InlineMessage(inlineID); m.Text != "<b>board</b>" || !m.Edited || m.ID != msgID {
		t.Errorf("after the edit: %+v", m)
	}
	if code, resp = edit("editMessageText", url.Values{"text": {"<b>board</b>"}, "parse_mode": {"HTML"}, "reply_markup": {kb}}); code != 400 ||
		!strings.Contains(resp.Description, "message is not modified") {
		t.Errorf("same edit: %d %q", code, resp.Description)
	}
	if code, _ = edit("editMessageReplyMarkup", url.Values{}); code != 200 {
		t.Error("keyboard removal refused")
	}
	if m, _ := b.InlineMessage(inlineID); len(m.Keyboard) != 0 {
		t.Errorf("keyboard left: %+v", m.Keyboard)
	}
	if code, resp = edit("editMessageCaption", url.Values{"caption": {"c"}}); code != 400 || !strings.Contains(resp.Description, "no caption") {
		t.Errorf("caption of a text: %d %q", code, resp.Description)
	}
	if code, resp = edit("editMessageMedia", url.Values{"media": {`{"type":"photo","media":"attach://photo"}`}}); code != 400 ||
		!strings.Contains(resp.Description, "upload") {
		t.Errorf("an upload: %d %q", code, resp.Description)
	}
	if code, resp = call(t, srv, "1:T", "editMessageText", url.Values{"inline_message_id": {"nope"}, "text": {"x"}}); code != 400 ||
		!strings.Contains(resp.Description, "MESSAGE_ID_INVALID") {
		t.Errorf("an unknown inline message: %d %q", code, resp.Description)
	}

	// A text message takes media as the Bot API allows: it becomes a photo captioned.
	pics := photoSite(t)
	emu.AllowLocal(pics.URL)
	if code, resp = edit("editMessageMedia", url.Values{"media": {`{"type":"photo","media":"` + pics.URL + `/a.png","caption":"c"}`}}); code != 200 {
		t.Fatalf("media for a text: %d %q", code, resp.Description)
	}
	if m, _ := b.InlineMessage(inlineID); m.Photo == "" || m.PhotoURL != pics.URL+"/a.png" || m.Text != "c" {
		t.Errorf("the text with media: %+v", m)
	}
}

// Ensure a member's press under the bot's message in a group reaches the bot with the message and
// the group's chat_instance, a non-member's is refused, and the answer's text is kept.
func TestPressGroup(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	b := emu.AddBot("1:T", "questbot")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	b.AddUser(tgbotapi.User{ID: 9, FirstName: "Eve"})
	if err := b.AddGroup(-50, "Club", 7); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	code, resp := call(t, srv, "1:T", "sendMessage", url.Values{"chat_id": {"-50"}, "text": {"challenge"},
		"reply_markup": {`{"inline_keyboard":[[{"text":"Join","callback_data":"G:j:1"}]]}`}})
	if code != 200 {
		t.Fatal(resp.Description)
	}
	msgID := b.Messages(-50)[0].ID
	if _, err := b.PressGroup(-50, 9, msgID, "G:j:1"); err == nil {
		t.Error("a non-member's press accepted")
	}
	if _, err := b.PressGroup(-50, 7, msgID, "G:x"); err == nil {
		t.Error("a press of a button the message has not accepted")
	}
	id, err := b.PressGroup(-50, 7, msgID, "G:j:1")
	if err != nil {
		t.Fatal(err)
	}
	ups := updates(t, srv, "1:T", 0)
	cq := ups[len(ups)-1].CallbackQuery
	if cq == nil || cq.Message == nil || cq.Message.Chat.ID != -50 || cq.Message.MessageID != msgID || cq.From.ID != 7 ||
		cq.ChatInstance != chatInstance(b.me.ID, -50) {
		t.Fatalf("press = %+v", cq)
	}
	if _, ok := b.CallbackAnswer(id); ok {
		t.Error("an answer before the bot's")
	}
	call(t, srv, "1:T", "answerCallbackQuery", url.Values{"callback_query_id": {id}, "text": {"The game begins!"}})
	if text, ok := b.CallbackAnswer(id); !ok || text != "The game begins!" {
		t.Errorf("CallbackAnswer = %q, %v", text, ok)
	}
}
