package scriptbot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/scripts"
)

// maxResponse bounds the body of an HTTP action's answer that is read.
const maxResponse = 1 << 20

// call makes a procedure, HTTP or built-in call and returns its result. A procedure or HTTP call
// that fails gives the result code "error" (logged), so that the tree can branch on it; only a
// failure of the update's own transaction, or of a built-in, is returned as an error.
func (h *Handler) call(ctx context.Context, tx bot.Tx, u *bot.Update, log *slog.Logger, e scripts.Effect) (*scripts.Result, error) {
	switch e := e.(type) {
	case scripts.CallProcedure:
		return h.procedure(ctx, tx, log, e)
	case scripts.HTTPRequest:
		return h.request(ctx, log, e), nil
	case scripts.CallBuiltin:
		b := h.cfg.Builtins[e.Name]
		if b == nil {
			// The tree was validated against another set of built-ins.
			log.Warn("Built-in not implemented", slog.String("builtin", e.Name))
			return &scripts.Result{Code: "error"}, nil
		}
		res, err := b(ctx, tx, u, e.Args)
		if err != nil {
			return nil, fmt.Errorf("built-in %s: %w", e.Name, err)
		}
		if res == nil {
			res = &scripts.Result{}
		}
		return res, nil
	}
	return nil, fmt.Errorf("scriptbot: %T is not a call", e)
}

// procedure calls a stored procedure behind a savepoint: its arguments are passed as text
// parameters (PostgreSQL converts them to the types the procedure declares) and its result,
// whatever its type, is read as JSON.
func (h *Handler) procedure(ctx context.Context, tx bot.Tx, log *slog.Logger, e scripts.CallProcedure) (*scripts.Result, error) {
	placeholders := make([]string, len(e.Args))
	args := make([]any, len(e.Args))
	for i, a := range e.Args {
		placeholders[i] = "$" + strconv.Itoa(i+1)
		args[i] = a
	}
	sql := fmt.Sprintf("SELECT to_jsonb(%s(%s))::text", pgx.Identifier(strings.Split(e.Name, ".")).Sanitize(),
		strings.Join(placeholders, ", "))
	sp, err := tx.DB().Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("procedure %s: %w", e.Name, err)
	}
	// The call runs under its own statement timeout, set and reset around it in one round trip.
	// The transaction may be shared with other chats' updates, so the setting must not outlive
	// the call; rolling back the savepoint undoes it too.
	var out *string
	b := &pgx.Batch{}
	b.Queue(`SELECT set_config('statement_timeout', $1, true)`, strconv.FormatInt(h.procTimeout.Milliseconds(), 10))
	b.Queue(sql, args...).QueryRow(func(row pgx.Row) error { return row.Scan(&out) })
	b.Queue(`SET LOCAL statement_timeout TO DEFAULT`)
	if err := sp.SendBatch(ctx, b).Close(); err != nil {
		if rerr := sp.Rollback(ctx); rerr != nil {
			return nil, fmt.Errorf("procedure %s: %w", e.Name, rerr)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		log.Warn("Procedure failed", slog.String("procedure", e.Name), slog.Any("error", err))
		return &scripts.Result{Code: "error"}, nil
	}
	if err := sp.Commit(ctx); err != nil {
		return nil, fmt.Errorf("procedure %s: %w", e.Name, err)
	}
	if out == nil {
		return &scripts.Result{}, nil
	}
	return parseResult([]byte(*out), ""), nil
}

// parseResult reads a call's JSON answer: an object's fields, its "result_code" (else code) as
// the result code; a bare value is the result code itself.
func parseResult(raw []byte, code string) *scripts.Result {
	res := &scripts.Result{Code: code}
	if err := json.Unmarshal(raw, &res.Fields); err == nil {
		if rc, ok := res.Fields["result_code"]; ok && code == "" {
			res.Code = textOf(rc)
		}
		return res
	}
	if code == "" {
		res.Code = textOf(raw)
	}
	return res
}

func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if string(raw) == "null" {
		return ""
	}
	return strings.TrimSpace(string(raw))
}

// request makes an HTTP action's request and waits for the answer, at most e.Timeout. The result
// code is the status code, or "error" when no answer came.
func (h *Handler) request(ctx context.Context, log *slog.Logger, e scripts.HTTPRequest) *scripts.Result {
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	var body io.Reader
	target := e.URL
	switch e.Method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
		if len(e.Body) > 0 {
			q := url.Values{}
			for k, v := range e.Body {
				q.Set(k, v)
			}
			sep := "?"
			if strings.Contains(target, "?") {
				sep = "&"
			}
			target += sep + q.Encode()
		}
	default:
		raw, _ := json.Marshal(e.Body) // a map of strings always marshals
		body = strings.NewReader(string(raw))
	}
	req, err := http.NewRequestWithContext(ctx, e.Method, target, body)
	if err != nil {
		log.Warn("HTTP action failed", slog.String("method", e.Method), slog.Any("error", err))
		return &scripts.Result{Code: "error"}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := h.http.Do(req)
	if err != nil {
		log.Warn("HTTP action failed", slog.String("method", e.Method), slog.Any("error", err))
		return &scripts.Result{Code: "error"}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	return parseResult(raw, strconv.Itoa(resp.StatusCode))
}
