package webchat_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/emulator/tgemu"
	"github.com/questbot/questbot/bot/emulator/webchat"
)

// chatAPI is the web chat and the emulator's Bot API on one test server, with the test playing
// the bot through the Bot API.
type chatAPI struct {
	t   *testing.T
	url string
	bot *tgemu.Bot
}

func newChatAPI(t *testing.T) *chatAPI {
	t.Helper()
	emu := tgemu.New(tgemu.Options{})
	t.Cleanup(func() { emu.Close() })
	b := emu.AddBot("7:T", "questbot")
	chat := webchat.New(emu, b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/bot") {
			emu.ServeHTTP(w, r)
			return
		}
		chat.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return &chatAPI{t: t, url: srv.URL, bot: b}
}

// post sends JSON to the chat's API as a program does (no Origin) and decodes the answer.
func (c *chatAPI) post(path string, in, out any) int {
	c.t.Helper()
	body, _ := json.Marshal(in)
	resp, err := http.Post(c.url+path, "application/json", bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK && out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Fatalf("%s: %v in %s", path, err, raw)
		}
	}
	return resp.StatusCode
}

// botCall is the bot calling a Bot API method with form values.
func (c *chatAPI) botCall(method string, v url.Values) map[string]any {
	c.t.Helper()
	resp, err := http.PostForm(c.url+"/bot7:T/"+method, v)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	if out["ok"] != true {
		c.t.Fatalf("%s: %v", method, out)
	}
	return out
}

// Ensure a program can do what the page does, with JSON: upload a file with a caption (and the
// page's multipart form carries a caption too), make a group of users, write and press there as
// a member, and run an inline query from a group to a result posted via the bot; and one event
// stream carries every chat the page shows.
func TestChatAPIForPrograms(t *testing.T) {
	t.Parallel()
	c := newChatAPI(t)
	var ann, bob struct {
		ID int64 `json:"id"`
	}
	c.post("/api/users", map[string]any{"name": "Ann", "language": "en"}, &ann)
	c.post("/api/users", map[string]any{"name": "Bob", "language": "ru"}, &bob)

	// One stream for both users' chats and, later, the group's.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := c.stream(ctx, fmt.Sprintf("%d,%d", ann.ID, bob.ID))
	for range 2 {
		ev := <-events
		if ev["type"] != "snapshot" {
			t.Fatalf("first events: %v", ev)
		}
	}

	// A program's upload with a caption, as JSON.
	var up struct {
		MessageID int `json:"message_id"`
	}
	if code := c.post("/api/upload", map[string]any{"user": ann.ID, "name": "cave.qms", "data": []byte("quest"), "caption": "/compile"}, &up); code != 200 {
		t.Fatalf("a JSON upload: %d", code)
	}
	if m := c.bot.Messages(ann.ID); len(m) != 1 || m[0].FileName != "cave.qms" || m[0].Text != "/compile" {
		t.Fatalf("Ann's chat after the upload: %+v", m)
	}
	if ev := <-events; ev["type"] != "message" || int64(ev["chat_id"].(float64)) != ann.ID {
		t.Fatalf("the upload's event: %v", ev)
	}
	// The page's multipart upload carries its caption.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	mw.WriteField("user", fmt.Sprint(bob.ID))
	mw.WriteField("caption", "/compile")
	fw, _ := mw.CreateFormFile("file", "b.qms")
	fw.Write([]byte("quest"))
	mw.Close()
	rq, _ := http.NewRequest("POST", c.url+"/api/upload", &form)
	rq.Header.Set("Content-Type", mw.FormDataContentType())
	rq.Header.Set("Origin", c.url)
	resp, err := http.DefaultClient.Do(rq)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a multipart upload: %v %v", resp, err)
	}
	resp.Body.Close()
	if m := c.bot.Messages(bob.ID); len(m) != 1 || m[0].Text != "/compile" {
		t.Fatalf("Bob's chat after the upload: %+v", m)
	}
	if ev := <-events; int64(ev["chat_id"].(float64)) != bob.ID {
		t.Fatalf("the second upload's event: %v", ev)
	}
	if code := c.post("/api/upload", map[string]any{"user": ann.ID, "name": "x", "data": []byte("x"), "caption": strings.Repeat("й", 1025)}, nil); code != 400 {
		t.Errorf("a caption of 1025 characters: %d, want 400", code)
	}

	// A group of the two, made by Ann.
	var g tgemu.GroupInfo
	if code := c.post("/api/groups", map[string]any{"title": "Club", "by": ann.ID, "members": []int64{bob.ID}}, &g); code != 200 || g.ID >= 0 || len(g.Members) != 2 {
		t.Fatalf("a new group: %d %+v", code, g)
	}
	var groups []tgemu.GroupInfo
	getJSON(t, c.url+"/api/groups", &groups)
	if len(groups) != 1 || groups[0].Title != "Club" {
		t.Fatalf("the groups: %+v", groups)
	}
	if code := c.post("/api/send", map[string]any{"user": bob.ID, "chat": g.ID, "text": "/games"}, nil); code != 200 {
		t.Fatalf("Bob writes in the group: %d", code)
	}
	if m := c.bot.Messages(g.ID); len(m) != 1 || m[0].From != bob.ID {
		t.Fatalf("the group's messages: %+v", m)
	}
	// The bot answers in the group with a button; Ann presses it there.
	kb, _ := json.Marshal(tgbotapi.NewInlineKeyboardMarkup(tgbotapi.NewInlineKeyboardRow(tgbotapi.NewInlineKeyboardButtonData("Play", "go"))))
	sent := c.botCall("sendMessage", url.Values{"chat_id": {fmt.Sprint(g.ID)}, "text": {"Pick"}, "reply_markup": {string(kb)}})
	msgID := int(sent["result"].(map[string]any)["message_id"].(float64))
	var pressed struct {
		QueryID string `json:"query_id"`
	}
	if code := c.post("/api/press", map[string]any{"user": ann.ID, "chat": g.ID, "message_id": msgID, "data": "go"}, &pressed); code != 200 || pressed.QueryID == "" {
		t.Fatalf("Ann presses in the group: %d", code)
	}

	// An inline query from the group: the bot answers, Bob picks the result.
	var q struct {
		QueryID string `json:"query_id"`
	}
	if code := c.post("/api/inline", map[string]any{"user": bob.ID, "chat": g.ID, "query": "chess"}, &q); code != 200 || q.QueryID == "" {
		t.Fatalf("an inline query: %d", code)
	}
	var ans struct {
		Answered bool                 `json:"answered"`
		Results  []tgemu.InlineResult `json:"results"`
	}
	getJSON(t, c.url+"/api/inline/"+q.QueryID, &ans)
	if ans.Answered {
		t.Fatal("answered before the bot did")
	}
	results := `[{"type":"article","id":"r0","title":"Chess 1+0","input_message_content":{"message_text":"Blitz?"}}]`
	c.botCall("answerInlineQuery", url.Values{"inline_query_id": {q.QueryID}, "results": {results}, "next_offset": {"1"}})
	var first struct {
		Answered bool                 `json:"answered"`
		Results  []tgemu.InlineResult `json:"results"`
		More     bool                 `json:"more"`
	}
	getJSON(t, c.url+"/api/inline/"+q.QueryID, &first)
	if !first.Answered || !first.More || len(first.Results) != 1 {
		t.Fatalf("the first page: %+v", first)
	}
	// The next page: the same query from the answer's next_offset.
	if code := c.post("/api/inline/more", map[string]any{"query_id": q.QueryID}, &q); code != 200 || q.QueryID == "" {
		t.Fatalf("more results: %d", code)
	}
	results = `[{"type":"article","id":"r1","title":"Chess","input_message_content":{"message_text":"Let us play chess"}}]`
	c.botCall("answerInlineQuery", url.Values{"inline_query_id": {q.QueryID}, "results": {results}})
	getJSON(t, c.url+"/api/inline/"+q.QueryID, &ans)
	if !ans.Answered || len(ans.Results) != 1 || ans.Results[0].Title != "Chess" {
		t.Fatalf("the answer: %+v", ans)
	}
	if code := c.post("/api/inline/choose", map[string]any{"query_id": q.QueryID, "result_id": "r1"}, nil); code != 200 {
		t.Fatalf("choosing the result: %d", code)
	}
	msgs := c.bot.Messages(g.ID)
	if last := msgs[len(msgs)-1]; !last.ViaBot || last.Text != "Let us play chess" || last.From != bob.ID {
		t.Fatalf("the group's last message: %+v", last)
	}
}

// Ensure the page follows all its chats on one connection: seven users and a group on one
// stream, which a browser's six connections a host would not hold as a stream each.
func TestOneStreamForThePage(t *testing.T) {
	t.Parallel()
	c := newChatAPI(t)
	var ids []string
	var users []int64
	for i := range 7 {
		var u struct {
			ID int64 `json:"id"`
		}
		c.post("/api/users", map[string]any{"name": fmt.Sprintf("U%d", i)}, &u)
		ids, users = append(ids, fmt.Sprint(u.ID)), append(users, u.ID)
	}
	var g tgemu.GroupInfo
	c.post("/api/groups", map[string]any{"title": "All", "by": users[0], "members": users[1:]}, &g)
	ids = append(ids, fmt.Sprint(g.ID))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := c.stream(ctx, strings.Join(ids, ","))
	snapshots := map[int64]bool{}
	for range 8 {
		ev := <-events
		snapshots[int64(ev["chat_id"].(float64))] = ev["type"] == "snapshot"
	}
	if len(snapshots) != 8 {
		t.Fatalf("snapshots of %d chats, want 8", len(snapshots))
	}
	for _, u := range users {
		c.post("/api/send", map[string]any{"user": u, "text": "hi"}, nil)
	}
	c.post("/api/send", map[string]any{"user": users[6], "chat": g.ID, "text": "hello all"}, nil)
	got := map[int64]int{}
	for range 8 {
		ev := <-events
		if ev["type"] != "message" {
			t.Fatalf("event %v", ev)
		}
		got[int64(ev["chat_id"].(float64))]++
	}
	if len(got) != 8 {
		t.Fatalf("messages of %d chats on the stream, want 8: %v", len(got), got)
	}
}

// stream opens the event stream of chats and returns its events, decoded, until ctx ends.
func (c *chatAPI) stream(ctx context.Context, chats string) <-chan map[string]any {
	c.t.Helper()
	rq, _ := http.NewRequestWithContext(ctx, "GET", c.url+"/api/events?chats="+chats, nil)
	resp, err := http.DefaultClient.Do(rq)
	if err != nil || resp.StatusCode != 200 {
		c.t.Fatalf("the stream: %v %v", resp, err)
	}
	out := make(chan map[string]any, 64)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev map[string]any
			if json.Unmarshal([]byte(data), &ev) == nil {
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	// Reading the stream never waits for long: a stuck stream fails the test instead of hanging it.
	timed := make(chan map[string]any)
	go func() {
		for {
			select {
			case ev := <-out:
				timed <- ev
			case <-time.After(2 * time.Minute):
				c.t.Error("no event on the stream for two minutes")
				close(timed)
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return timed
}

// getJSON fetches a URL and decodes its JSON.
func getJSON(t *testing.T, u string, out any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}
