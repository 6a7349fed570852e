package tgemu

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Webhooks, as Telegram delivers them: while a bot has a webhook set, getUpdates is refused with
// 409 Conflict and the pending updates are POSTed to the webhook's URL instead, one update per
// request, in update_id order; the next goes out only after the bot answered the previous one
// with a 2xx status, which acknowledges it. Updates of a type the webhook's allowed_updates
// leaves out are acknowledged without delivery. A failed delivery (no answer, or any other status) is
// tried again after a wait that doubles up to webhookMaxBackoff, and is shown by getWebhookInfo
// as the last error. The webhook itself lives in memory only: an emulator opened again from its
// state has none until the bot sets it again (the bot does so on every start).

// Delivery retry waits: the first after a failure, and the longest.
const (
	webhookMinBackoff = 50 * time.Millisecond
	webhookMaxBackoff = 2 * time.Second
)

// webhook is a bot's webhook: where and how its updates are delivered, and the goroutine that
// delivers them until stop is called.
type webhook struct {
	url            string
	secret         string
	allowedUpdates []string
	stop           context.CancelFunc
	done           chan struct{}

	// Set by the delivery goroutine under the bot's lock.
	lastErrorDate    int64
	lastErrorMessage string
}

// WebhookInfo is getWebhookInfo's answer.
type WebhookInfo struct {
	URL                  string   `json:"url"`
	HasCustomCertificate bool     `json:"has_custom_certificate"`
	PendingUpdateCount   int      `json:"pending_update_count"`
	LastErrorDate        int64    `json:"last_error_date,omitempty"`
	LastErrorMessage     string   `json:"last_error_message,omitempty"`
	AllowedUpdates       []string `json:"allowed_updates,omitempty"`
}

// WebhookInfo returns what getWebhookInfo would answer, for tests and viewers.
func (b *Bot) WebhookInfo() WebhookInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.webhookInfoLocked()
}

func (b *Bot) webhookInfoLocked() WebhookInfo {
	info := WebhookInfo{PendingUpdateCount: len(b.updates)}
	if h := b.hook; h != nil {
		info.URL, info.AllowedUpdates = h.url, h.allowedUpdates
		info.LastErrorDate, info.LastErrorMessage = h.lastErrorDate, h.lastErrorMessage
	}
	return info
}

// validSecret reports whether s is a secret_token Telegram accepts: 1 to 256 characters of
// A-Z, a-z, 0-9, _ and -.
func validSecret(s string) bool {
	if len(s) < 1 || len(s) > 256 {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// setWebhook sets, replaces or (with an empty url) removes the bot's webhook. Telegram wants an
// https URL; the emulator, which runs beside the bot, takes http as well.
func (b *Bot) setWebhook(p params) (any, *apiError) {
	raw := p.get("url")
	if raw == "" {
		return b.deleteWebhook(p)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, badRequest("bad webhook: An HTTPS URL must be provided for webhook")
	}
	secret := p.get("secret_token")
	if secret != "" && !validSecret(secret) {
		return nil, badRequest("secret token contains unallowed characters")
	}
	var allowed []string
	if a := p.get("allowed_updates"); a != "" {
		if err := json.Unmarshal([]byte(a), &allowed); err != nil {
			return nil, badRequest("can't parse allowed updates JSON object")
		}
	}
	b.hookMu.Lock()
	defer b.hookMu.Unlock()
	b.mu.Lock()
	old := b.hook
	b.hook = nil
	b.mu.Unlock()
	old.halt()
	ctx, cancel := context.WithCancel(context.Background())
	h := &webhook{url: raw, secret: secret, allowedUpdates: allowed, stop: cancel, done: make(chan struct{})}
	b.mu.Lock()
	if p.get("drop_pending_updates") == "true" {
		b.dropPendingLocked()
	}
	b.hook = h
	b.wakeLocked()
	b.mu.Unlock()
	go b.deliver(ctx, h)
	return true, nil
}

// deleteWebhook removes the webhook, if any; getUpdates works again afterwards.
func (b *Bot) deleteWebhook(p params) (any, *apiError) {
	b.hookMu.Lock()
	defer b.hookMu.Unlock()
	b.mu.Lock()
	old := b.hook
	b.hook = nil
	b.mu.Unlock()
	old.halt()
	if p.get("drop_pending_updates") == "true" {
		b.mu.Lock()
		b.dropPendingLocked()
		b.mu.Unlock()
	}
	return true, nil
}

// halt stops a webhook's deliveries and waits until its goroutine ended; nil does nothing.
func (h *webhook) halt() {
	if h == nil {
		return
	}
	h.stop()
	<-h.done
}

// dropPendingLocked acknowledges every pending update, as drop_pending_updates does.
func (b *Bot) dropPendingLocked() {
	if len(b.updates) == 0 {
		return
	}
	last := b.updates[len(b.updates)-1].UpdateID
	if e := b.acknowledgeLocked(last + 1); e != nil {
		b.srv.log.Error("Dropping pending updates failed", slog.String("error", e.description))
	}
}

// wakeLocked wakes whoever waits for updates: long polls and the webhook's delivery.
func (b *Bot) wakeLocked() {
	close(b.wake)
	b.wake = make(chan struct{})
}

// deliver POSTs the pending updates to the webhook one at a time until ctx ends.
func (b *Bot) deliver(ctx context.Context, h *webhook) {
	defer close(h.done)
	client := &http.Client{Timeout: 60 * time.Second}
	backoff := webhookMinBackoff
	for {
		b.mu.Lock()
		var next *tgbotapi.Update
		if len(b.updates) > 0 {
			u := b.updates[0]
			next = &u
		}
		wake := b.wake
		b.mu.Unlock()
		if next == nil {
			select {
			case <-ctx.Done():
				return
			case <-wake:
				continue
			}
		}
		var err error
		if h.allows(next) {
			err = b.post(ctx, client, h, next)
		}
		// A delivery answered 2xx is acknowledged even when the webhook was changed meanwhile.
		if err != nil && ctx.Err() != nil {
			return
		}
		b.mu.Lock()
		if err != nil {
			h.lastErrorDate, h.lastErrorMessage = b.srv.now().Unix(), err.Error()
			b.mu.Unlock()
			b.srv.log.Debug("Webhook delivery failed", slog.Int("update_id", next.UpdateID), slog.Any("error", err))
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, webhookMaxBackoff)
			continue
		}
		backoff = webhookMinBackoff
		if e := b.acknowledgeLocked(next.UpdateID + 1); e != nil {
			b.srv.log.Error("Acknowledging a delivered update failed", slog.String("error", e.description))
		}
		b.mu.Unlock()
	}
}

// allows reports whether the webhook's allowed_updates let u through; an update of a type not
// listed is acknowledged without being delivered, as Telegram drops it. An empty list allows
// every type the emulator produces.
func (h *webhook) allows(u *tgbotapi.Update) bool {
	if len(h.allowedUpdates) == 0 {
		return true
	}
	var kind string
	switch {
	case u.Message != nil:
		kind = "message"
	case u.EditedMessage != nil:
		kind = "edited_message"
	case u.CallbackQuery != nil:
		kind = "callback_query"
	case u.MyChatMember != nil:
		kind = "my_chat_member"
	case u.ChatMember != nil:
		kind = "chat_member"
	default:
		return true
	}
	return slices.Contains(h.allowedUpdates, kind)
}

// deliveryError is a failed webhook delivery, worded as getWebhookInfo's last_error_message.
type deliveryError string

func (e deliveryError) Error() string { return string(e) }

// post delivers one update; any answer but a 2xx is an error.
func (b *Bot) post(ctx context.Context, client *http.Client, h *webhook, u *tgbotapi.Update) error {
	body, err := json.Marshal(u)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if h.secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", h.secret)
	}
	resp, err := client.Do(req)
	if err != nil {
		return deliveryError("Connection refused: " + strings.TrimSpace(err.Error()))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return deliveryError("Wrong response from the webhook: " + resp.Status)
	}
	return nil
}

// stopWebhooks stops the webhook deliveries of every bot (Close).
func (s *Server) stopWebhooks() {
	s.mu.Lock()
	bots := make([]*Bot, 0, len(s.bots))
	for _, b := range s.bots {
		bots = append(bots, b)
	}
	s.mu.Unlock()
	for _, b := range bots {
		b.hookMu.Lock()
		b.mu.Lock()
		h := b.hook
		b.hook = nil
		b.mu.Unlock()
		h.halt()
		b.hookMu.Unlock()
	}
}
