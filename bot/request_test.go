package bot

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Ensure long texts are split at line boundaries into well-formed parts that fit.
func TestSplitHTML(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("word ", 19) + "end" // 98 characters
	var lines []string
	for range 100 {
		lines = append(lines, line)
	}
	text := "<b>" + strings.Join(lines, "\n") + "</b>"
	parts := SplitHTML(text, 4096)
	if len(parts) != 3 {
		t.Fatalf("%d parts, want 3", len(parts))
	}
	var joined []string
	for i, p := range parts {
		if n := utf16Len(p); n > 4096 {
			t.Errorf("part %d: %d characters", i, n)
		}
		if !strings.HasPrefix(p, "<b>") || !strings.HasSuffix(p, "end</b>") {
			t.Errorf("part %d is not a run of whole lines in <b>: %.20q...%q", i, p, p[len(p)-20:])
		}
		joined = append(joined, strings.TrimSuffix(strings.TrimPrefix(p, "<b>"), "</b>"))
	}
	if got := "<b>" + strings.Join(joined, "\n") + "</b>"; got != text {
		t.Error("the parts do not add up to the text")
	}
	// One line longer than the limit is split at spaces; a word longer than it anywhere.
	for _, s := range []string{strings.Repeat("ab ", 3000), strings.Repeat("я", 9000)} {
		for i, p := range SplitHTML(s, 4096) {
			if n := utf16Len(p); n > 4096 || n == 0 {
				t.Errorf("part %d: %d characters", i, n)
			}
		}
	}
	if got := SplitHTML("short", 4096); len(got) != 1 || got[0] != "short" {
		t.Errorf("a short text: %q", got)
	}
}

// Ensure the builders refuse what Telegram would refuse.
func TestBuilders(t *testing.T) {
	t.Parallel()
	if _, err := SendHTML(1, "hi", Keyboard{{{Text: "x", Data: strings.Repeat("d", 65)}}}); !errors.Is(err, ErrCallbackData) {
		t.Errorf("65-byte callback data: %v", err)
	}
	if _, err := SendHTML(1, "hi", Keyboard{{{Text: "x"}}}); !errors.Is(err, ErrButton) {
		t.Errorf("a button with neither data nor URL: %v", err)
	}
	if _, err := SendHTML(1, " ", nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty text: %v", err)
	}
	if _, err := EditHTML(1, 2, strings.Repeat("x", 4097), nil); !errors.Is(err, ErrTooLong) {
		t.Errorf("long edit: %v", err)
	}
	if _, err := EditPhotoRef(1, "b", "p.png", strings.Repeat("x", 1025), nil); !errors.Is(err, ErrTooLong) {
		t.Errorf("long caption of a new picture: %v", err)
	}
	if _, err := EditCaptionRef(1, "b", strings.Repeat("я", 1025), nil); !errors.Is(err, ErrTooLong) {
		t.Errorf("long caption: %v", err)
	}
	media, err := EditPhotoRef(1, "b", "p.png", "<b>c</b>", nil)
	if err != nil || media.TargetRef != "b" || media.FilePath != "p.png" || media.Params["reply_markup"] != `{"inline_keyboard":[]}` {
		t.Errorf("new picture: %+v, %v", media, err)
	}
	for fileID, want := range map[string]string{"": "attach://photo", "AgAD": "AgAD"} {
		got, err := withMedia(media.Params["media"], "photo", fileID)
		var m map[string]string
		if err == nil {
			err = json.Unmarshal([]byte(got), &m)
		}
		if err != nil || len(m) != 4 || m["media"] != want || m["caption"] != "<b>c</b>" || m["parse_mode"] != "HTML" || m["type"] != "photo" {
			t.Errorf("media with file %q: %s, %v", fileID, got, err)
		}
	}
	reqs, err := SendHTML(1, strings.Repeat("line\n", 2000), Keyboard{{{Text: "ok", Data: strings.Repeat("d", 64)}}})
	if err != nil || len(reqs) != 3 {
		t.Fatalf("got %d requests, %v; want 3", len(reqs), err)
	}
	for i, r := range reqs {
		if _, has := r.Params["reply_markup"]; has != (i == 2) {
			t.Errorf("request %d: keyboard %v", i, has)
		}
	}
}

// Ensure requests by ref are resolved to the messages recorded under the ref: one deletion for
// all the parts of a split text, an edit of the last part, and nothing when none is known.
func TestResolveRef(t *testing.T) {
	t.Parallel()
	del := DeleteRef(5, "p")
	if _, ok := resolveRef(del, nil); ok {
		t.Error("resolved with no message")
	}
	one, ok := resolveRef(del, []int{10})
	if !ok || one.Method != "deleteMessage" || one.Params["message_id"] != "10" || one.Params["chat_id"] != "5" {
		t.Errorf("one message: %+v", one)
	}
	if _, ok := del.Params["message_id"]; ok {
		t.Error("resolving changed the stored request")
	}
	many, _ := resolveRef(del, []int{10, 11})
	if many.Method != "deleteMessages" || many.Params["message_ids"] != "[10,11]" {
		t.Errorf("two messages: %+v", many)
	}
	edit, err := EditHTMLRef(5, "p", "new", nil)
	if err != nil {
		t.Fatal(err)
	}
	edit, _ = resolveRef(edit, []int{10, 11})
	if edit.Method != "editMessageText" || edit.Params["message_id"] != "11" || edit.Params["text"] != "new" {
		t.Errorf("edit: %+v", edit)
	}
	parts, _ := SendHTML(5, strings.Repeat("line\n", 1000), nil)
	for _, r := range WithRef("p", parts...) {
		if r.Ref != "p" {
			t.Errorf("part without the ref: %+v", r)
		}
	}
	menu, err := SetChatCommands(5, []Command{{Command: "a", Description: "b"}})
	if err != nil || menu.ChatID != 5 || menu.Params["scope"] != `{"chat_id":5,"type":"chat"}` {
		t.Errorf("chat menu: %+v, %v", menu, err)
	}
}
