package bot

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"
)

// Secret is a credential a request carries to its chat (Request.Secrets): an API token, a login
// link. What the transport does with it is told in the package doc ("Secrets").
type Secret struct {
	// Kind and ID name the credential as the feature that issued it knows it (Kind such as
	// "web.token", ID its number there); the transport only hands them back (SecretFailure).
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// Values are the strings that are the secret, as they appear in the request's parameters.
	Values []string `json:"values"`
	// Expires is when the credential stops being worth delivering; zero: never. A request
	// whose secret has expired is not sent.
	Expires time.Time `json:"expires,omitzero"`
	// Unreadable is set by the store on a claimed request whose secret it could not open (it
	// was sealed under a key this process does not hold): the request is not sent, and fails
	// as a request whose secret expired.
	Unreadable bool `json:"-"`
}

// Withheld is what stands for a secret's value in a request kept after it failed.
const Withheld = "[withheld]"

// SecretFailure is a credential whose delivery failed for good, as the transport's store records
// it for the feature that issued it.
type SecretFailure struct {
	// Service and Chat are the bot and the chat the request was for.
	Service int
	Chat    int64
	// Kind and ID are the Secret's.
	Kind, ID string
	// Reason is the request's last error (without the secret), or that the secret expired.
	Reason string
	At     time.Time
}

// ErrNoSecrets is returned by KeepSecret for a Tx that cannot keep secrets.
var ErrNoSecrets = errors.New("bot: this transaction cannot carry secrets")

// secretKeeper is a Tx that attaches secrets to the requests it queues (the transport's store's).
type secretKeeper interface {
	KeepSecret(Secret)
}

// KeepSecret tells tx that s travels in the requests it queues: every request of tx, given to
// Send before or after, whose parameters hold one of s.Values carries s, as if it were in its
// Secrets. A feature calls it where it makes the secret, so that the texts that show it (the
// command tree's, for instance) need not know. It fails with ErrNoSecrets, and the feature must
// not hand the secret out, for a Tx that cannot (one of a test).
func KeepSecret(tx Tx, s Secret) error {
	for {
		if k, ok := tx.(secretKeeper); ok {
			k.KeepSecret(s)
			return nil
		}
		w, ok := tx.(interface{ Unwrap() Tx })
		if !ok {
			return ErrNoSecrets
		}
		tx = w.Unwrap()
	}
}

// Unwrap returns the Tx the dispatcher's wrapper wraps, so that KeepSecret reaches the store's.
func (t *trackingTx) Unwrap() Tx { return t.Tx }

// Carries reports whether a request's parameters hold one of s's values (as a part of any of
// them: a token inside a text, a ticket inside a link).
func (s Secret) Carries(r Request) bool {
	for _, v := range s.Values {
		if v == "" {
			continue
		}
		for _, p := range r.Params {
			if strings.Contains(p, v) {
				return true
			}
		}
	}
	return false
}

// withholdSecrets returns text with every value of secrets replaced by Withheld.
func withholdSecrets(text string, secrets []Secret) string {
	for _, s := range secrets {
		for _, v := range s.Values {
			if v != "" {
				text = strings.ReplaceAll(text, v, Withheld)
			}
		}
	}
	return text
}

// withheldParams is a request's parameters as JSON with its secrets withheld, for a log line.
func withheldParams(req Request) string {
	raw, _ := json.Marshal(req.Params) // a map of strings always marshals
	return withholdSecrets(string(raw), req.Secrets)
}

// secretExpired reports whether a request carries a secret that has expired by now.
func secretExpired(req Request, now time.Time) bool {
	for _, s := range req.Secrets {
		if !s.Expires.IsZero() && !now.Before(s.Expires) {
			return true
		}
	}
	return false
}

// secretUnreadable reports whether a request carries a secret its store could not open.
func secretUnreadable(req Request) bool {
	for _, s := range req.Secrets {
		if s.Unreadable {
			return true
		}
	}
	return false
}

// unreadable is the outcome of a request whose secret the store could not open: it fails for
// good without being sent, which revokes the credential, as an expired one.
func (s *sender) unreadable(req Request, log *slog.Logger) Outcome {
	log.Warn("The request carries a secret sealed with a key this process does not hold; it is not sent")
	return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: "not sent: the secret it carries was sealed by another process's key"})
}

// expired is the outcome of a request whose secret expired before it could be sent: it fails for
// good without being sent, which revokes the credential (see the package doc).
func (s *sender) expired(req Request, log *slog.Logger) Outcome {
	log.Warn("The request carries a secret that expired before it could be sent; it is not sent")
	return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: "not sent: the secret it carries expired first"})
}

// withholding returns log, or for a request with secrets a logger that withholds them from every
// line: the message, and every attribute's value written as text.
func withholding(log *slog.Logger, secrets []Secret) *slog.Logger {
	if len(secrets) == 0 {
		return log
	}
	return slog.New(&withholdHandler{inner: log.Handler(), secrets: secrets})
}

// withholdHandler is a slog.Handler that withholds secrets from what it passes on.
type withholdHandler struct {
	inner   slog.Handler
	secrets []Secret
}

func (h *withholdHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *withholdHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, withholdSecrets(r.Message, h.secrets), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *withholdHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return &withholdHandler{inner: h.inner.WithAttrs(clean), secrets: h.secrets}
}

func (h *withholdHandler) WithGroup(name string) slog.Handler {
	return &withholdHandler{inner: h.inner.WithGroup(name), secrets: h.secrets}
}

// attr is a with every value that is text (strings, errors, anything printed) withheld.
func (h *withholdHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		group := v.Group()
		clean := make([]any, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindString, slog.KindAny:
		return slog.String(a.Key, withholdSecrets(v.String(), h.secrets))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
