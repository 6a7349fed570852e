package bot

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Webhook mode. With Config.Webhook set, Telegram POSTs each update to
// <Webhook>/telegram/<bot id> (the bot's Telegram user id) instead of answering getUpdates.
// Each bot has a random secret_token, made by the first process that needs it and kept in the
// store (service.webhook_secret), so that every process behind the public address accepts the
// bot's deliveries; each receiving process calls setWebhook with it at start (the same URL and
// secret: calls of several processes agree). WebhookHandler refuses a request without that
// secret in its X-Telegram-Bot-Api-Secret-Token header (401, nothing stored), stores the update
// in the inbox through the same path as the long poll (Accept), and answers 200 only once it is
// committed. To change the secret, an operator clears the column and restarts one receiving
// process, which makes a new one and sets it; the others read it again from the store on the
// first delivery their copy refuses (at most once a second per bot).
// Telegram delivers an update again until it gets a 2xx, so nothing it sent is lost: a crash
// before the commit means another delivery, one after it means the update waits in the inbox.
// A delivery whose 200 was lost is delivered again; the store knows it by its update_id (see
// Store.SaveUpdates) and does not store it twice.
// A delivery still signed with a secret just replaced is refused until setWebhook with the new
// one went through, and Telegram retries it then.

// WebhookPath is the path prefix under which WebhookHandler receives updates.
const WebhookPath = "/telegram/"

// maxWebhookBody is the largest update body the handler reads; Telegram's updates are far
// smaller.
const maxWebhookBody = 1 << 20

// newSecret returns a secret_token: 32 random bytes in the URL-safe base64 alphabet (A-Z, a-z,
// 0-9, _ and -), which is what Telegram allows.
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// loadSecret reads the bot's webhook secret from the store, making and storing one when there is
// none.
func (t *Transport) loadSecret(ctx context.Context, b *botEntry) error {
	fresh, err := newSecret()
	if err != nil {
		return err
	}
	secret, err := t.cfg.Store.WebhookSecret(ctx, b.service, fresh)
	if err != nil {
		return err
	}
	b.secret.Store(&secret)
	b.secretRead.Store(time.Now().UnixNano())
	return nil
}

// checkSecret reports whether got is the bot's webhook secret. A secret that differs from this
// process's copy is checked again against the store, at most once a second, in case another
// process replaced it.
func (t *Transport) checkSecret(ctx context.Context, b *botEntry, got string) bool {
	if matches(b.secret.Load(), got) {
		return true
	}
	last := b.secretRead.Load()
	now := time.Now().UnixNano()
	if now-last < int64(time.Second) || !b.secretRead.CompareAndSwap(last, now) {
		return false
	}
	secret, err := t.cfg.Store.WebhookSecret(ctx, b.service, "")
	if err != nil {
		t.log.Warn("Reading the webhook secret failed", slog.Int("service_id", b.service), slog.Any("error", err))
		return false
	}
	if secret != "" {
		b.secret.Store(&secret)
	}
	return matches(&secret, got)
}

// matches compares a secret in constant time; a missing or empty secret matches nothing.
func matches(secret *string, got string) bool {
	return secret != nil && *secret != "" && subtle.ConstantTimeCompare([]byte(got), []byte(*secret)) == 1
}

// webhookURL returns the URL Telegram posts a bot's updates to in webhook mode.
func webhookURL(base string, botID int64) string {
	return strings.TrimSuffix(base, "/") + WebhookPath + strconv.FormatInt(botID, 10)
}

// setWebhook points Telegram at this process for one bot, trying until it succeeds or ctx ends.
func (t *Transport) setWebhook(ctx context.Context, b *botEntry) {
	log := t.log.With(slog.Int("service_id", b.service))
	url := webhookURL(t.cfg.Webhook, b.api.me().ID)
	backoff := time.Second
	for ctx.Err() == nil {
		_, err := b.api.do(ctx, Request{Method: "setWebhook", Params: map[string]string{
			"url":          url,
			"secret_token": *b.secret.Load(),
		}}, "")
		if err == nil {
			log.Info("Webhook set", slog.String("url", url))
			return
		}
		if ctx.Err() != nil {
			return
		}
		wait := retryIn(err, &backoff)
		log.Warn("setWebhook failed", slog.Any("error", err), slog.Duration("retry_in", wait))
		sleep(ctx, t.clock, wait)
	}
}

// deleteWebhook removes the bot's webhook so that getUpdates works, and reports whether it did.
// A failure is logged; the long poll goes on and asks again if Telegram refuses it.
func (t *Transport) deleteWebhook(ctx context.Context, log *slog.Logger, b *botEntry) bool {
	if _, err := b.api.do(ctx, Request{Method: "deleteWebhook"}, ""); err != nil {
		if ctx.Err() == nil {
			log.Warn("deleteWebhook failed", slog.Any("error", err))
		}
		return false
	}
	return true
}

// isWebhookConflict reports whether err is Telegram's refusal of getUpdates while a webhook is
// set (409 Conflict).
func isWebhookConflict(err error) bool {
	var apiErr *Error
	return errors.As(err, &apiErr) && apiErr.Code == http.StatusConflict
}

// WebhookHandler returns the handler of POST /telegram/<bot id> for the bots added to the
// transport; mount it at WebhookPath. It answers 404 for a bot it does not serve, 401 for a
// missing or wrong secret, 400 for a body that is not a JSON object, 500 when the update could
// not be stored (Telegram then delivers it again), and 200 once it is stored.
func (t *Transport) WebhookHandler() http.Handler {
	return http.HandlerFunc(t.serveWebhook)
}

func (t *Transport) serveWebhook(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, WebhookPath)
	if !ok {
		http.NotFound(w, r)
		return
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	b := t.botByID(id)
	if b == nil {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !t.checkSecret(r.Context(), b, r.Header.Get("X-Telegram-Bot-Api-Secret-Token")) {
		t.m.WebhookRefused.Inc()
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	log := t.log.With(slog.Int("service_id", b.service))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
	if err != nil {
		log.Warn("Webhook request unreadable", slog.Any("error", err))
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	// Anything that is a JSON object is stored: one the store cannot handle is quarantined, as
	// from the long poll, rather than refused and delivered again forever.
	body = bytes.TrimSpace(body)
	if !json.Valid(body) || len(body) == 0 || body[0] != '{' {
		log.Warn("Webhook request is not an update", slog.Int("bytes", len(body)))
		http.Error(w, "not an update", http.StatusBadRequest)
		return
	}
	if err := t.Accept(r.Context(), b.service, []json.RawMessage{body}); err != nil {
		log.Error("Storing a webhook update failed; Telegram will deliver it again", slog.Any("error", err))
		http.Error(w, "not stored", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// botByID returns the bot with this Telegram user id, or nil.
func (t *Transport) botByID(id int64) *botEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range t.bots {
		if b.api.me().ID == id {
			return b
		}
	}
	return nil
}
