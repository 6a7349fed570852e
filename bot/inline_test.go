package bot

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Ensure an inline message's key is stable, differs between messages and is never a chat's:
// users' ids are positive below 2^52, groups' and channels' negative.
func TestInlineKey(t *testing.T) {
	t.Parallel()
	a, b := InlineKey("AgAAAB1"), InlineKey("AgAAAB2")
	if a != InlineKey("AgAAAB1") || a == b {
		t.Fatalf("keys %d, %d: want stable and distinct", a, b)
	}
	for _, k := range []int64{a, b, InlineKey("")} {
		if !IsInlineKey(k) || k < 1<<53 {
			t.Errorf("key %d is not in the inline range", k)
		}
	}
	for _, chat := range []int64{0, 1, 1<<52 - 1, -1, -1001234567890, -(1 << 62), -(1<<63 - 1)} {
		if IsInlineKey(chat) {
			t.Errorf("chat %d taken for an inline key", chat)
		}
	}
}

// Ensure the builders of an inline query's answer and of the edits of an inline message give
// Telegram's parameters, under the message's key, and refuse what Telegram would.
func TestInlineRequests(t *testing.T) {
	t.Parallel()
	kb := Keyboard{{{Text: "Join", Data: "gi:j"}}}
	r, err := AnswerInline(42, "q1", []InlineResult{
		InlineArticle{ID: "chess", Title: "Chess", Description: "the classic", HTML: "<b>Ann</b> wants to play", Keyboard: kb},
		InlinePhoto{ID: "p", PhotoURL: "https://example.org/a.jpg", CaptionHTML: "x", Width: 400, Height: 300},
	}, InlineAnswer{CacheTime: 5, Personal: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != "answerInlineQuery" || r.ChatID != 42 || LaneOf(r.Method) != LaneAnswers ||
		r.Params["inline_query_id"] != "q1" || r.Params["is_personal"] != "true" || r.Params["cache_time"] != "5" {
		t.Fatalf("answer = %+v", r)
	}
	var results []map[string]any
	if err := json.Unmarshal([]byte(r.Params["results"]), &results); err != nil || len(results) != 2 {
		t.Fatalf("results %s: %v", r.Params["results"], err)
	}
	content := results[0]["input_message_content"].(map[string]any)
	if results[0]["type"] != "article" || content["message_text"] != "<b>Ann</b> wants to play" || content["parse_mode"] != "HTML" ||
		results[0]["reply_markup"] == nil || results[1]["type"] != "photo" || results[1]["thumbnail_url"] != "https://example.org/a.jpg" ||
		results[1]["photo_width"] != 400.0 || results[1]["photo_height"] != 300.0 {
		t.Errorf("results = %v", results)
	}
	for name, res := range map[string][]InlineResult{
		"repeated id": {InlineArticle{ID: "a", Title: "A", HTML: "a"}, InlineArticle{ID: "a", Title: "B", HTML: "b"}},
		"no title":    {InlineArticle{ID: "a", HTML: "a"}},
		"no text":     {InlineArticle{ID: "a", Title: "A"}},
		"local photo": {InlinePhoto{ID: "p", PhotoURL: "/tmp/a.png"}},
		"bad button":  {InlineArticle{ID: "a", Title: "A", HTML: "a", Keyboard: Keyboard{{{Text: "x"}}}}},
	} {
		if _, err := AnswerInline(42, "q", res, InlineAnswer{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}

	key := InlineKey("im1")
	text, err := EditInlineHTML("im1", "<b>board</b>", kb)
	if err != nil || text.Method != "editMessageText" || text.ChatID != key || text.Params["inline_message_id"] != "im1" ||
		text.Params["chat_id"] != "" || text.Params["reply_markup"] == "" {
		t.Errorf("EditInlineHTML = %+v, %v", text, err)
	}
	caption, err := EditInlineCaption("im1", "c", nil)
	if err != nil || caption.Method != "editMessageCaption" || caption.ChatID != key || caption.Params["reply_markup"] != `{"inline_keyboard":[]}` {
		t.Errorf("EditInlineCaption = %+v, %v", caption, err)
	}
	photo, err := EditInlinePhoto("im1", "https://example.org/b.jpg", "c", kb)
	if err != nil || photo.Method != "editMessageMedia" || photo.FilePath != "" || photo.ChatID != key {
		t.Errorf("EditInlinePhoto = %+v, %v", photo, err)
	}
	var media map[string]string
	if err := json.Unmarshal([]byte(photo.Params["media"]), &media); err != nil || media["media"] != "https://example.org/b.jpg" || media["type"] != "photo" {
		t.Errorf("media = %s", photo.Params["media"])
	}
	if _, err := EditInlinePhoto("im1", "AgACfileid", "", nil); err != nil {
		t.Errorf("file_id refused: %v", err)
	}
	for _, m := range []string{"", "attach://photo", "/srv/pictures/a.png"} {
		if _, err := EditInlinePhoto("im1", m, "", nil); !errors.Is(err, ErrInlineMedia) {
			t.Errorf("media %q: %v, want ErrInlineMedia", m, err)
		}
	}
	markup, err := EditInlineKeyboard("im1", nil)
	if err != nil || markup.Method != "editMessageReplyMarkup" || markup.ChatID != key {
		t.Errorf("EditInlineKeyboard = %+v, %v", markup, err)
	}
	if _, err := EditInlineHTML("", "x", nil); err == nil {
		t.Error("an edit without an inline_message_id accepted")
	}
}

// Ensure the router gives inline queries and chosen results to their handlers, and a press under
// an inline message (no message) to the handler of its prefix.
func TestRouterInline(t *testing.T) {
	t.Parallel()
	var got []string
	r := NewRouter()
	r.OnInlineQuery(func(_ context.Context, _ Tx, u *Update) error {
		got = append(got, "query "+u.InlineQuery.Query)
		return nil
	})
	r.OnChosenInlineResult(func(_ context.Context, _ Tx, u *Update) error {
		got = append(got, "chosen "+u.ChosenInlineResult.InlineMessageID)
		return nil
	})
	r.OnCallback("gi", func(_ context.Context, _ Tx, u *Update) error {
		got = append(got, "press "+u.CallbackQuery.InlineMessageID)
		return nil
	})
	from := &tgbotapi.User{ID: 7}
	user := &User{ID: 7, ChatID: 7}
	for _, up := range []tgbotapi.Update{
		{InlineQuery: &tgbotapi.InlineQuery{ID: "1", From: from, Query: "che"}},
		{ChosenInlineResult: &tgbotapi.ChosenInlineResult{ResultID: "chess", From: from, InlineMessageID: "im1"}},
		{CallbackQuery: &tgbotapi.CallbackQuery{ID: "2", From: from, InlineMessageID: "im1", ChatInstance: "-5", Data: "gi:j"}},
	} {
		if err := r.Handle(context.Background(), nil, &Update{Update: up, Chat: 7, User: user}); err != nil {
			t.Fatal(err)
		}
	}
	// The message posted from the bot's own inline results reaches no handler.
	r.OnMessage(func(_ context.Context, _ Tx, u *Update) (bool, error) { got = append(got, "message"); return true, nil })
	via := &Update{Update: tgbotapi.Update{Message: &tgbotapi.Message{Text: "Ann wants to play", Chat: &tgbotapi.Chat{ID: 7, Type: "private"},
		From: from, ViaBot: &tgbotapi.User{ID: 1, UserName: "QuestBot", IsBot: true}}}, Chat: 7, User: user, Bot: "questbot"}
	if err := r.Handle(context.Background(), nil, via); err != nil {
		t.Fatal(err)
	}
	want := []string{"query che", "chosen im1", "press im1"}
	if len(got) != len(want) {
		t.Fatalf("handled %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("handled %q, want %q", got, want)
		}
	}
}

// Ensure the pacing of shared boards: an inline message is paced as a chat of its own (a second
// a message, no group limit, the user's chat not held by it), and a group's edits of its board
// count against the group's limit of messages a minute.
func TestInlinePacing(t *testing.T) {
	t.Parallel()
	p := newPacing(Limits{PerChat: time.Second, PerGroup: 3})
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	inline := ChatKey{Service: 1, Chat: InlineKey("im1"), Lane: LaneUpdates}
	user := ChatKey{Service: 1, Chat: 7, Lane: LaneConversation}
	for i := range 5 {
		if got := p.reserve(inline, at(time.Duration(i)*time.Second)); !got.IsZero() {
			t.Fatalf("inline edit %d: wait until %v, want at once (no group limit)", i, got)
		}
	}
	if got := p.reserve(inline, at(4500*time.Millisecond)); !got.Equal(at(5 * time.Second)) {
		t.Errorf("inline edit within the second: wait until %v, want %v", got, at(5*time.Second))
	}
	if got := p.reserve(user, at(4500*time.Millisecond)); !got.IsZero() {
		t.Errorf("the user's chat held by the inline message: wait until %v", got)
	}
	group := ChatKey{Service: 1, Chat: -100, Lane: LaneUpdates}
	for i := range 3 {
		if got := p.reserve(group, at(time.Duration(10+i)*time.Second)); !got.IsZero() {
			t.Fatalf("group edit %d: wait until %v, want at once", i, got)
		}
	}
	if got := p.reserve(group, at(13*time.Second)); !got.Equal(at(70 * time.Second)) {
		t.Errorf("the group's fourth edit in a minute: wait until %v, want %v", got, at(70*time.Second))
	}
	if !counted("editMessageText") || counted("answerInlineQuery") {
		t.Error("edits must count against a chat's limits, answers to inline queries must not")
	}
}
