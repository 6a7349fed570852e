package botpg

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// # Tokens of the bots configured in the database
//
// A bot is configured in the database by a row of the service table with its token. The token
// is a secret, so it is not kept there in plain text: it is sealed (AES-256-GCM, bound to its
// row) with a key the database never sees, from the environment (TOKEN_KEY, or a file named by
// TOKEN_KEY_FILE; see cmd/questbot). An operator adds or replaces a bot's token in plain text,
// with SQL, in service.token; the next start with the key seals it into service.token_sealed
// and clears the plain column (migration 016 added the sealed column and moved nothing, so no
// bot is lost on the way). Without a key, plain tokens keep working, and each start warns that
// they are in plain text; sealed ones cannot be read, and their bots do not run until the key
// is given.

// TokenKey is the key that seals the tokens of the bots configured in the database.
type TokenKey struct{ aead cipher.AEAD }

// ErrTokenKey means a token key is malformed.
var ErrTokenKey = errors.New("botpg: a token key is 32 bytes, as 64 hex digits or in base64")

// ErrSealed means a bot's token is sealed and cannot be opened: no key was given, or another
// than the one that sealed it.
var ErrSealed = errors.New("botpg: the bot's token is sealed and the key given does not open it")

// ParseTokenKey reads a token key: 32 bytes written as 64 hex digits or in base64 (padded or
// not). Surrounding white space is ignored, so that the key may be a file's content.
func ParseTokenKey(s string) (*TokenKey, error) {
	s = strings.TrimSpace(s)
	var key []byte
	if b, err := hex.DecodeString(s); err == nil {
		key = b
	} else if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		key = b
	} else if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		key = b
	}
	if len(key) != 32 {
		return nil, ErrTokenKey
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTokenKey, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTokenKey, err)
	}
	return &TokenKey{aead: aead}, nil
}

// boundTo is the additional data that binds a sealed token to its row: a sealed token copied to
// another row does not open there.
func boundTo(service int) []byte { return []byte("questbot service " + strconv.Itoa(service)) }

// seal seals the token of service: a random nonce, then the sealed token.
func (k *TokenKey) seal(service int, token string) []byte {
	nonce := make([]byte, k.aead.NonceSize())
	rand.Read(nonce)
	return k.aead.Seal(nonce, nonce, []byte(token), boundTo(service))
}

// open opens a token sealed by seal for service.
func (k *TokenKey) open(service int, sealed []byte) (string, error) {
	n := k.aead.NonceSize()
	if len(sealed) < n {
		return "", ErrSealed
	}
	plain, err := k.aead.Open(nil, sealed[:n], sealed[n:], boundTo(service))
	if err != nil {
		return "", ErrSealed
	}
	return string(plain), nil
}

// ConfiguredBot is an enabled bot configured in the service table.
type ConfiguredBot struct {
	Service int
	// Token is the bot's token; empty when Err is set.
	Token string
	// Plain reports that the token is stored in plain text: no key was given to seal it.
	Plain bool
	// Err is why the token cannot be read (ErrSealed).
	Err error
}

// SealTokens seals the tokens stored in plain text in the service table, in one transaction:
// each replaces the row's sealed token, if any, and the plain column is cleared; a row that never
// ran gets its Telegram id from the token (the number before the colon) unless another row has
// it, so that the bot finds its row again by that id (see RegisterService).
func SealTokens(ctx context.Context, pool *pgxpool.Pool, key *TokenKey) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, token FROM service WHERE token IS NOT NULL ORDER BY id FOR UPDATE`)
		if err != nil {
			return err
		}
		type plain struct {
			id    int
			token string
		}
		list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (plain, error) {
			var p plain
			err := r.Scan(&p.id, &p.token)
			return p, err
		})
		if err != nil {
			return err
		}
		for _, p := range list {
			var botID *int64
			if before, _, ok := strings.Cut(p.token, ":"); ok {
				if n, err := strconv.ParseInt(before, 10, 64); err == nil && n > 0 {
					botID = &n
				}
			}
			_, err := tx.Exec(ctx, `
				UPDATE service s SET token_sealed = $2, token = NULL,
					bot_user_id = COALESCE(s.bot_user_id,
						CASE WHEN NOT EXISTS (SELECT 1 FROM service o WHERE o.bot_user_id = $3) THEN $3 END)
				WHERE s.id = $1`, p.id, key.seal(p.id, p.token), botID)
			if err != nil {
				return fmt.Errorf("service %d: %w", p.id, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("seal bot tokens: %w", err)
	}
	return nil
}

// ConfiguredBots returns the enabled bots configured in the service table, by id, opening the
// sealed tokens with key (nil: none is opened). It writes nothing.
func ConfiguredBots(ctx context.Context, pool *pgxpool.Pool, key *TokenKey) ([]ConfiguredBot, error) {
	rows, err := pool.Query(ctx, `
		SELECT id, token, token_sealed FROM service
		WHERE enabled AND (token IS NOT NULL OR token_sealed IS NOT NULL) ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("configured bots: %w", err)
	}
	bots, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ConfiguredBot, error) {
		var b ConfiguredBot
		var plain *string
		var sealed []byte
		if err := r.Scan(&b.Service, &plain, &sealed); err != nil {
			return b, err
		}
		switch {
		case plain != nil:
			b.Token, b.Plain = *plain, true
		case key == nil:
			b.Err = ErrSealed
		default:
			b.Token, b.Err = key.open(b.Service, sealed)
		}
		return b, nil
	})
	if err != nil {
		return nil, fmt.Errorf("configured bots: %w", err)
	}
	return bots, nil
}
