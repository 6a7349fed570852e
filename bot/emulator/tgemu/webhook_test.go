package tgemu

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/questbot/questbot/bot/testkit/wait"
)

// receiver is a webhook endpoint that records what it is sent and fails the first requests.
type receiver struct {
	mu       sync.Mutex
	failures int // requests left to answer 500
	inFlight int
	overlap  bool
	secrets  []string
	got      []int // update_ids answered 200, in order
	tries    int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	rc.inFlight++
	rc.overlap = rc.overlap || rc.inFlight > 1
	rc.tries++
	rc.secrets = append(rc.secrets, r.Header.Get("X-Telegram-Bot-Api-Secret-Token"))
	fail := rc.failures > 0
	if fail {
		rc.failures--
	}
	rc.mu.Unlock()
	defer func() {
		rc.mu.Lock()
		rc.inFlight--
		rc.mu.Unlock()
	}()
	var u tgbotapi.Update
	if err := json.NewDecoder(r.Body).Decode(&u); err != nil || r.Method != http.MethodPost {
		http.Error(w, "bad update", http.StatusBadRequest)
		return
	}
	if fail {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	rc.mu.Lock()
	rc.got = append(rc.got, u.UpdateID)
	rc.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (rc *receiver) received() []int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]int(nil), rc.got...)
}

// webhookSetup starts an emulator with bot "1:T" and its user 7 behind a real listener (srv),
// and a webhook receiver behind another (hook) that fails its first failures deliveries.
func webhookSetup(t *testing.T, failures int) (*Bot, *httptest.Server, *receiver, *httptest.Server) {
	t.Helper()
	emu := New(Options{})
	t.Cleanup(func() { emu.Close() })
	b := emu.AddBot("1:T", "b")
	b.AddUser(tgbotapi.User{ID: 7, FirstName: "Ann"})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	rc := &receiver{failures: failures}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	return b, srv, rc, hook
}

// Ensure a webhook gets every pending update, one at a time and in order, with the secret
// header, retried after a failure; getUpdates is refused meanwhile, and works again after
// deleteWebhook.
func TestWebhookDelivery(t *testing.T) {
	t.Parallel()
	b, srv, rc, hook := webhookSetup(t, 2)

	for _, text := range []string{"one", "two"} {
		if _, err := b.SendText(7, text); err != nil {
			t.Fatal(err)
		}
	}
	if code, resp := call(t, srv, "1:T", "setWebhook", url.Values{"url": {hook.URL + "/x"}, "secret_token": {"bad secret!"}}); code != 400 || resp.Ok {
		t.Errorf("a secret with unallowed characters: %d %+v, want 400", code, resp)
	}
	if code, _ := call(t, srv, "1:T", "setWebhook", url.Values{"url": {"ftp://host/x"}}); code != 400 {
		t.Errorf("an ftp URL: %d, want 400", code)
	}
	code, resp := call(t, srv, "1:T", "setWebhook", url.Values{"url": {hook.URL + "/x"}, "secret_token": {"s3cr3t_-X"}, "allowed_updates": {`["message","callback_query"]`}})
	if code != 200 || !resp.Ok {
		t.Fatalf("setWebhook: %d %+v", code, resp)
	}
	code, resp = call(t, srv, "1:T", "getUpdates", url.Values{})
	if code != 409 || resp.Description != "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first" {
		t.Errorf("getUpdates with a webhook: %d %q, want 409 Conflict", code, resp.Description)
	}
	if _, err := b.SendText(7, "three"); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "three deliveries", func() bool { return len(rc.received()) == 3 })
	if got := rc.received(); got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Errorf("delivered %v, want [1 2 3]", got)
	}
	rc.mu.Lock()
	if rc.overlap {
		t.Error("two deliveries of one bot were in flight at once")
	}
	if rc.tries != 5 {
		t.Errorf("%d requests, want 5 (two failures, three deliveries)", rc.tries)
	}
	for _, s := range rc.secrets {
		if s != "s3cr3t_-X" {
			t.Errorf("secret header %q, want s3cr3t_-X", s)
		}
	}
	rc.mu.Unlock()

	// The emulator acknowledges an update once the webhook's answer is back.
	wait.For(t, wait.Hang, "the last delivery acknowledged", func() bool { return b.WebhookInfo().PendingUpdateCount == 0 })
	code, resp = call(t, srv, "1:T", "getWebhookInfo", nil)
	var info WebhookInfo
	if err := json.Unmarshal(resp.Result, &info); code != 200 || err != nil {
		t.Fatalf("getWebhookInfo: %d %v", code, err)
	}
	if info.URL != hook.URL+"/x" || info.PendingUpdateCount != 0 || info.LastErrorMessage == "" || len(info.AllowedUpdates) != 2 {
		t.Errorf("getWebhookInfo: %+v", info)
	}

	if code, _ := call(t, srv, "1:T", "deleteWebhook", nil); code != 200 {
		t.Fatalf("deleteWebhook: %d", code)
	}
	if _, err := b.SendText(7, "four"); err != nil {
		t.Fatal(err)
	}
	code, resp = call(t, srv, "1:T", "getUpdates", url.Values{"offset": {"4"}})
	var ups []tgbotapi.Update
	if err := json.Unmarshal(resp.Result, &ups); code != 200 || err != nil || len(ups) != 1 || ups[0].Message.Text != "four" {
		t.Errorf("getUpdates after deleteWebhook: %d %s", code, resp.Result)
	}
	if n := len(rc.received()); n != 3 {
		t.Errorf("%d deliveries after deleteWebhook, want 3", n)
	}
	if info := b.WebhookInfo(); info.URL != "" || info.PendingUpdateCount != 1 {
		t.Errorf("WebhookInfo after deleteWebhook: %+v", info)
	}
}

// Ensure drop_pending_updates forgets the pending updates, and setWebhook with an empty url
// removes the webhook.
func TestWebhookDropPending(t *testing.T) {
	t.Parallel()
	b, srv, rc, hook := webhookSetup(t, 0)
	if _, err := b.SendText(7, "old"); err != nil {
		t.Fatal(err)
	}
	if code, _ := call(t, srv, "1:T", "setWebhook", url.Values{"url": {hook.URL}, "drop_pending_updates": {"true"}}); code != 200 {
		t.Fatalf("setWebhook: %d", code)
	}
	if _, err := b.SendText(7, "new"); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "a delivery", func() bool { return len(rc.received()) == 1 })
	if got := rc.received(); got[0] != 2 {
		t.Errorf("delivered %v, want [2]: the pending update was dropped", got)
	}
	// A webhook for button presses only is not sent the texts.
	if code, _ := call(t, srv, "1:T", "setWebhook", url.Values{"url": {hook.URL}, "allowed_updates": {`["callback_query"]`}}); code != 200 {
		t.Fatalf("setWebhook: %d", code)
	}
	if _, err := b.SendText(7, "skipped"); err != nil {
		t.Fatal(err)
	}
	wait.For(t, wait.Hang, "the text dropped", func() bool { return b.WebhookInfo().PendingUpdateCount == 0 })
	if got := rc.received(); len(got) != 1 {
		t.Errorf("delivered %v, want only [2]: allowed_updates leaves texts out", got)
	}
	if code, _ := call(t, srv, "1:T", "setWebhook", url.Values{"url": {""}}); code != 200 {
		t.Fatalf("setWebhook without url: %d", code)
	}
	if code, _ := call(t, srv, "1:T", "getUpdates", nil); code != 200 {
		t.Errorf("getUpdates after the webhook was removed: %d, want 200", code)
	}
}
