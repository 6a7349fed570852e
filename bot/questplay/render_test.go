package questplay

import (
	"slices"
	"strings"
	"testing"

	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
)

// Ensure quest markup becomes balanced Telegram HTML and everything else is escaped.
func TestMarkupHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a <clr>5<clrEnd> b", "a <b>5</b> b"},
		{"x<br>y\r\nz", "x\ny\nz"},
		{"<fix>a<clr>1<clrEnd></fix>", "<code>a1</code>"},
		{"<clr>a<fix>b</fix>c", "<b>a</b><code>b</code><b>c</b>"},
		{"ab<format=left,5>c", "ab   c"},
		{"<format>x</format><nobr>", "x"},
		{`<b>&"x"</b> <script>`, "&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt; &lt;script&gt;"},
		{"Hi " + rangerMark + "!", "Hi &lt;i&gt;N&amp;&lt;/i&gt;!"},
		{"<clr>open", "<b>open</b>"},
	} {
		if got := markupHTML(c.in, escape("<i>N&</i>")); got != c.want {
			t.Errorf("markupHTML(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Ensure parameter lines are joined by <nobr> and set in italics unless formatted.
func TestParamsHTML(t *testing.T) {
	if got, want := paramsHTML([]string{"a<nobr>", "b", "c"}, ""), "<i>ab\nc</i>"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := paramsHTML([]string{"Fuel: <clr>3<clrEnd>"}, ""), "Fuel: <b>3</b>"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Ensure button labels are plain text and callback data parse back.
func TestPlainTextAndData(t *testing.T) {
	if got := plainText("Go <clr>now<clrEnd>,  "+rangerMark, "<Ann>"); got != "Go now , <Ann>" {
		t.Errorf("plainText = %q", got)
	}
	g, s, a, ok := parseData("q:" + strings.ToLower("2s") + ":7:-2")
	if !ok || g != 100 || s != 7 || a != -2 {
		t.Errorf("parseData = %d %d %d %v", g, s, a, ok)
	}
	for _, bad := range []string{"q:", "q:1:2", "q:1:2:3:4", "q:!:1:1", "x:1:1:1", "q:1:99999999999:1"} {
		if _, _, _, ok := parseData(bad); ok {
			t.Errorf("parseData(%q) accepted", bad)
		}
	}
}

// Ensure a number in the image field sets the buttons per row, and long choices get numbered
// buttons with the full text in the message.
func TestRenderKeyboard(t *testing.T) {
	c := &compiled{Quest: &questfs.Quest{Dir: t.TempDir()}, info: &info{}}
	v := quest.View{Text: "t", Image: "2", Choices: []quest.Choice{
		{JumpID: 1, Text: "a", Active: true}, {JumpID: 2, Text: "b", Active: true},
		{JumpID: 3, Text: "c", Active: true}, {JumpID: 4, Text: "off", Active: false},
		{JumpID: 5, Text: strings.Repeat("long ", 20), Active: true},
	}}
	sc := render(c, v, 35, 4, "Ann", 0)
	if len(sc.kb) != 2 || len(sc.kb[0]) != 2 || len(sc.kb[1]) != 2 || sc.image != "" {
		t.Fatalf("keyboard %v, image %q", sc.kb, sc.image)
	}
	if sc.kb[0][0].Data != "q:z:4:1" || sc.kb[1][1].Data != "q:z:4:5" || sc.kb[1][1].Text != "1. long long long long…" {
		t.Errorf("buttons %v", sc.kb)
	}
	if !strings.Contains(sc.html, "<b>1.</b> long long") {
		t.Errorf("text %q", sc.html)
	}
	v.Status = quest.Dead
	if sc := render(c, v, 35, 4, "Ann", 0); sc.kb != nil {
		t.Errorf("an ended game's screen has buttons %v", sc.kb)
	}
}

// Ensure a screen shows the parameter lines that changed, a board drawn with <nobr> whole when
// any of its lines changed, and nothing of what stayed.
func TestChangedParams(t *testing.T) {
	prev := []string{"Fuel: 5", "Money: 100", "a<nobr>", "b<nobr>", "c", "Day 1"}
	cur := []string{"Fuel: 4", "Money: 100", "a<nobr>", "B<nobr>", "c", "Day 1", "New: 1"}
	got := changedParams(cur, prev)
	want := []string{"Fuel: 4", "a<nobr>", "B<nobr>", "c", "New: 1"}
	if !slices.Equal(got, want) {
		t.Errorf("changed %q, want %q", got, want)
	}
	if got := changedParams(prev, prev); len(got) != 0 {
		t.Errorf("nothing changed, yet %q", got)
	}
}
