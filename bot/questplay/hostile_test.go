package questplay_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/questplay"
	"github.com/questbot/questbot/quest"
)

// hostile is text that breaks a message if it reaches Telegram unescaped.
const hostile = `<b>"Bold"</b> & 'quoted' <script>alert(1)</script> <a href="x">`

// hostileQuest writes a copy of the shipped English quest whose texts are hostile and long and
// whose starting location shows an image, and returns its file.
func hostileQuest(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(uploadsDir, "src", "cargo-run_en.json"))
	if err != nil {
		t.Fatal(err)
	}
	var q map[string]any
	if err := json.Unmarshal(src, &q); err != nil {
		t.Fatal(err)
	}
	q["taskText"] = hostile + " <Ranger> " + strings.Repeat("word ", 900) + "<clr>end<clrEnd>"
	loc := q["locations"].([]any)[0].(map[string]any)
	text := loc["texts"].([]any)[0].(map[string]any)
	text["text"] = "Dock " + hostile + " <Ranger>"
	text["media"] = map[string]any{"img": "dock.png"}
	jump := q["jumps"].([]any)[1].(map[string]any)
	jump["text"] = "Undock " + hostile + " and set off for a very long and winding trip"
	src, err = json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	data, err := questplay.BuildQuest(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "hostile.qmm")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	if err := os.WriteFile(filepath.Join(dir, "dock.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// Ensure hostile quest texts, choice texts and player names (quotes, HTML, 4 KB) are escaped,
// long texts are split, long choices are written out with a numbered button, and a location
// image is sent as a photo.
func TestHostileStrings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start(t)
	name := hostile + strings.Repeat("я", 2000)
	e.Bot.AddUser(tgbotapi.User{ID: 9, FirstName: name, LanguageCode: "en"})
	id := e.addScript(t, hostile, hostile, hostileQuest(t), "en", 0, 0)
	e.Send(t, 9, fmt.Sprintf("/play %d", id))
	e.WaitFor(t, "the game", func() bool { _, ok := e.game(t, 9); return ok })
	g, _ := e.game(t, 9)
	e.press(t, 9, g, quest.JumpIAgree)
	g, _ = e.game(t, 9)
	long := dataOf(g, 2)
	e.WaitFor(t, "the dock screen", func() bool { return e.button(9, long) != 0 })
	var all strings.Builder
	photos, texts := 0, 0
	for _, m := range e.Bot.Messages(9) {
		if !m.FromBot {
			continue
		}
		if m.Photo != "" {
			photos++
			continue
		}
		texts++
		all.WriteString(m.Text)
		for _, row := range m.Keyboard {
			for _, b := range row {
				if b.Data == long && (!strings.HasPrefix(b.Text, "1. ") || len([]rune(b.Text)) > 40) {
					t.Errorf("long choice button %q", b.Text)
				}
			}
		}
	}
	got := all.String()
	if photos != 1 {
		t.Errorf("%d photos, want the dock image", photos)
	}
	if texts < 3 {
		t.Errorf("%d text messages, want the long task split and the dock screen", texts)
	}
	escaped := "&lt;b&gt;&quot;Bold&quot;&lt;/b&gt; &amp; 'quoted' &lt;script&gt;alert(1)&lt;/script&gt; &lt;a href=&quot;x&quot;&gt;"
	if n := strings.Count(got, escaped); n < 5 {
		t.Errorf("the hostile text appears escaped %d times, want it in the task, the name (twice), the dock and the choice", n)
	}
	if strings.Contains(got, "<script>") || strings.Contains(got, `<a href`) {
		t.Error("hostile HTML reached a message")
	}
	if !strings.Contains(got, "<b>1.</b> Undock "+escaped) {
		t.Error("the long choice is not written out in the message")
	}
	if e.Bot.Count("400") != 0 {
		t.Errorf("%d messages refused by the Bot API", e.Bot.Count("400"))
	}
}
