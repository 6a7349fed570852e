package botpg

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"maps"
	"strings"

	"github.com/questbot/questbot/bot"
)

// # Sealed secrets
//
// A credential must not rest in the database's files in clear: neither in the outbox's rows
// nor in the write-ahead log that records them, where a row deleted once sent still lies until
// the log is recycled. So a request that carries a secret is written sealed: before its row is
// queued, every value of every secret it carries (its own Request.Secrets, and those its
// transaction keeps with bot.KeepSecret that its parameters hold) is replaced, in its
// parameters, by the value sealed (AES-256-GCM, bound to the secret's kind and id), and
// outbox.secrets names the same sealed values. The row is opened when a sender claims it
// (decodeSecrets): in memory only, right before the request goes to Telegram. The database sees
// only sealed values, which the withholding of a failed row replaces as it replaced the clear
// ones. A fallback (Request.OnFailure) does not carry the secret: its copies of the values are
// withheld, since the fallback rows are not sealed.
//
// The key is the process's: by default a random key made when the store is made, which nobody
// ever sees; with WithSealKey, the key of TOKEN_KEY, so that every process of a deployment
// opens what another queued. A row whose secret cannot be opened (sealed by a process that
// stopped, under a random key of its own) is not sent: it fails as an expired secret does, and
// its credential is revoked by its feature, whose user is told to ask again.

// sealedPrefix and sealedSuffix frame a sealed value in a request's parameters.
const (
	sealedPrefix = "⟦sealed:"
	sealedSuffix = "⟧"
)

// sealer seals and opens the values of secrets.
type sealer struct{ aead cipher.AEAD }

// newSealer returns a sealer with a random key of its own.
func newSealer() *sealer {
	key := make([]byte, 32)
	rand.Read(key)
	block, _ := aes.NewCipher(key) // a 32-byte key is always a valid AES key
	aead, _ := cipher.NewGCM(block)
	return &sealer{aead: aead}
}

// sealedFor is the additional data that binds a sealed value to its secret.
func sealedFor(s bot.Secret) []byte { return []byte("questbot outbox secret " + s.Kind + " " + s.ID) }

// sealValue seals one value of secret s.
func (k *sealer) sealValue(s bot.Secret, v string) string {
	nonce := make([]byte, k.aead.NonceSize())
	rand.Read(nonce)
	return sealedPrefix + base64.RawURLEncoding.EncodeToString(k.aead.Seal(nonce, nonce, []byte(v), sealedFor(s))) + sealedSuffix
}

// openValue opens a value sealed by sealValue for s; ok is false when it is not a sealed value
// or the key does not open it.
func (k *sealer) openValue(s bot.Secret, sealed string) (string, bool) {
	inner, ok := strings.CutPrefix(sealed, sealedPrefix)
	if !ok {
		return "", false
	}
	if inner, ok = strings.CutSuffix(inner, sealedSuffix); !ok {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(inner)
	n := k.aead.NonceSize()
	if err != nil || len(raw) < n {
		return "", false
	}
	plain, err := k.aead.Open(nil, raw[:n], raw[n:], sealedFor(s))
	if err != nil {
		return "", false
	}
	return string(plain), true
}

// seal returns reqs as they are to be written: each request that carries secrets (its own, and
// those of declared its parameters hold) with their values sealed in its parameters, withheld
// in its fallbacks, and Secrets the sealed secrets. A secret is sealed once, so that every
// request carrying it names the same sealed values (markSecretSQL finds them). Requests without
// secrets are returned as they are.
func (k *sealer) seal(reqs []bot.Request, declared []bot.Secret) []bot.Request {
	if !hasSecrets(reqs, declared) {
		return reqs
	}
	type name struct{ kind, id string }
	sealed := map[name]bot.Secret{}
	sealOf := func(s bot.Secret) bot.Secret {
		n := name{s.Kind, s.ID}
		if out, ok := sealed[n]; ok {
			return out
		}
		out := s
		out.Values = make([]string, len(s.Values))
		for i, v := range s.Values {
			if v != "" {
				out.Values[i] = k.sealValue(s, v)
			}
		}
		sealed[n] = out
		return out
	}
	out := make([]bot.Request, len(reqs))
	for i, r := range reqs {
		var carried []bot.Secret
		carried = append(carried, r.Secrets...)
		for _, s := range declared {
			if s.Carries(r) && !hasSecret(carried, s) {
				carried = append(carried, s)
			}
		}
		if len(carried) == 0 {
			out[i] = r
			continue
		}
		r.Params = maps.Clone(r.Params)
		r.Secrets = make([]bot.Secret, len(carried))
		for j, s := range carried {
			ss := sealOf(s)
			r.Secrets[j] = ss
			for vi, v := range s.Values {
				if v == "" {
					continue
				}
				for p, text := range r.Params {
					r.Params[p] = strings.ReplaceAll(text, v, ss.Values[vi])
				}
			}
		}
		if len(r.OnFailure) > 0 {
			r.OnFailure = withheldFallbacks(r.OnFailure, carried)
		}
		out[i] = r
	}
	return out
}

// hasSecret reports whether list names s (its kind and id).
func hasSecret(list []bot.Secret, s bot.Secret) bool {
	for _, x := range list {
		if x.Kind == s.Kind && x.ID == s.ID {
			return true
		}
	}
	return false
}

// withheldFallbacks returns the fallbacks with every value of secrets withheld from their
// parameters.
func withheldFallbacks(fallbacks []bot.Request, secrets []bot.Secret) []bot.Request {
	out := make([]bot.Request, len(fallbacks))
	for i, f := range fallbacks {
		f.Params = maps.Clone(f.Params)
		for p, text := range f.Params {
			for _, s := range secrets {
				for _, v := range s.Values {
					if v != "" {
						text = strings.ReplaceAll(text, v, bot.Withheld)
					}
				}
			}
			f.Params[p] = text
		}
		out[i] = f
	}
	return out
}

// open opens the secrets of a claimed request in place: each sealed value back in clear, in the
// secret and in the parameters. A secret that cannot be opened is marked Unreadable, and the
// request is not sent (see bot.Secret.Unreadable).
func (k *sealer) open(req *bot.Request) {
	for i := range req.Secrets {
		s := &req.Secrets[i]
		for vi, v := range s.Values {
			if !strings.HasPrefix(v, sealedPrefix) {
				continue // a row queued before values were sealed
			}
			plain, ok := k.openValue(*s, v)
			if !ok {
				s.Unreadable = true
				continue
			}
			for p, text := range req.Params {
				req.Params[p] = strings.ReplaceAll(text, v, plain)
			}
			s.Values[vi] = plain
		}
	}
}
