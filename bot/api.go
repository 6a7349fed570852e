package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// DefaultEndpoint is Telegram's Bot API, as a tgbotapi endpoint pattern.
const DefaultEndpoint = tgbotapi.APIEndpoint

// NewHTTPClient returns the HTTP client the transport uses: bounded connection set-up and no
// overall timeout (every call sets its own deadline through its context), with enough idle
// connections for the sender's parallel requests.
func NewHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 0, // long polls hold the header back; the context bounds them
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   128,
		ForceAttemptHTTP2:     true,
	}}
}

// redact replaces every occurrence of the token in s with "<token>": as it is, and as it is
// written in a URL, where any of its bytes may be escaped as %XX (in either case) and a space as
// "+" (the URL of a failed request in its error shows a token with a space as %20).
func redact(s, token string) string {
	if token == "" {
		return s
	}
	s = strings.ReplaceAll(s, token, "<token>")
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := escapedPrefix(s[i:], token); n > 0 {
			b.WriteString("<token>")
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// escapedPrefix returns the length of the start of s that spells token, each byte escaped as in
// a URL or as it is, or 0 when s does not start with it. (redact has replaced the token written
// plainly before, so that a token holding "%" is found either way.)
func escapedPrefix(s, token string) int {
	j := 0
	for k := 0; k < len(token); k++ {
		c := token[k]
		switch {
		case j+3 <= len(s) && s[j] == '%' && isHex(s[j+1]) && isHex(s[j+2]) && unhex(s[j+1])<<4|unhex(s[j+2]) == c:
			j += 3
		case j < len(s) && s[j] == c:
			j++
		case c == ' ' && j < len(s) && s[j] == '+':
			j++
		default:
			return 0
		}
	}
	return j
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// redactedError is a transport error with the token taken out of its text. It does not unwrap to
// the original, whose text holds the token (it is in every Bot API URL).
type redactedError struct {
	msg     string
	timeout bool
}

func (e *redactedError) Error() string { return e.msg }

// Timeout reports whether the request timed out.
func (e *redactedError) Timeout() bool { return e.timeout }

// ctxClient gives tgbotapi, whose calls take no context, a context per call, and takes the token
// out of every transport error. When ex is set, it records the status and the start of the body
// of the answer, which explain an answer tgbotapi cannot read.
type ctxClient struct {
	ctx   context.Context
	c     *http.Client
	token string
	ex    *exchange
}

func (c ctxClient) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.c.Do(req.WithContext(c.ctx))
	if err != nil {
		var ne net.Error
		timeout := errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
		return nil, &redactedError{msg: redact(err.Error(), c.token), timeout: timeout}
	}
	if c.ex != nil {
		c.ex.status = resp.StatusCode
		resp.Body = &headReader{ReadCloser: resp.Body, ex: c.ex}
	}
	return resp, nil
}

// API is one bot's connection to the Bot API (Telegram's, or another server such as the
// emulator). It wraps tgbotapi with a context per call and token redaction.
type API struct {
	bot      *tgbotapi.BotAPI
	client   *http.Client
	token    string
	endpoint string
}

// NewAPI connects to the Bot API at endpoint (a tgbotapi pattern such as DefaultEndpoint or
// tgemu.Endpoint(url)) and introduces the bot with getMe. Errors never contain the token.
func NewAPI(ctx context.Context, token, endpoint string, client *http.Client) (*API, error) {
	if client == nil {
		client = NewHTTPClient()
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ex := &exchange{}
	b, err := tgbotapi.NewBotAPIWithClient(token, endpoint, ctxClient{ctx: ctx, c: client, token: token, ex: ex})
	if err != nil {
		return nil, fmt.Errorf("getMe: %w", (&API{token: token}).apiError(nil, err, ex))
	}
	return &API{bot: b, client: client, token: token, endpoint: endpoint}, nil
}

// me returns the bot's own account.
func (a *API) me() tgbotapi.User { return a.bot.Self }

// with returns a copy of the library's client whose requests run under ctx, and the record of
// its answer.
func (a *API) with(ctx context.Context) (*tgbotapi.BotAPI, *exchange) {
	b := *a.bot
	ex := &exchange{}
	b.Client = ctxClient{ctx: ctx, c: a.client, token: a.token, ex: ex}
	return &b, ex
}

// getUpdates long-polls for updates from offset, waiting up to timeout, and returns them raw.
func (a *API) getUpdates(ctx context.Context, offset int64, timeout time.Duration) ([]json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout+15*time.Second)
	defer cancel()
	b, ex := a.with(ctx)
	resp, err := b.MakeRequest("getUpdates", tgbotapi.Params{
		"offset":  strconv.FormatInt(offset, 10),
		"timeout": strconv.Itoa(int(timeout / time.Second)),
		"limit":   "100",
	})
	if err != nil {
		return nil, a.apiError(resp, err, ex)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(resp.Result, &raw); err != nil {
		return nil, ex.unexpected(a.token)
	}
	return raw, nil
}

// requestTimeout is how long a request may take: 30 s, or 2 minutes with a file to upload.
func requestTimeout(req Request) time.Duration {
	if req.FilePath != "" {
		return 2 * time.Minute
	}
	return 30 * time.Second
}

// do sends one request and returns Telegram's result. A file to upload is read from
// req.FilePath unless fileID names a copy Telegram already has.
func (a *API) do(ctx context.Context, req Request, fileID string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout(req))
	defer cancel()
	b, ex := a.with(ctx)
	params := tgbotapi.Params{}
	for k, v := range req.Params {
		params[k] = v
	}
	var resp *tgbotapi.APIResponse
	var err error
	if req.Method == "editMessageMedia" && req.FilePath != "" {
		media, merr := withMedia(req.Params["media"], fileField(req.Method), fileID)
		if merr != nil {
			return nil, &Error{Code: 400, Description: merr.Error()}
		}
		params["media"] = media
	}
	if field := fileField(req.Method); field != "" && req.FilePath != "" && fileID == "" {
		f, ferr := os.Open(req.FilePath)
		if ferr != nil {
			return nil, &Error{Code: 400, Description: "file unreadable: " + ferr.Error()}
		}
		defer f.Close()
		resp, err = b.UploadFiles(req.Method, params, []tgbotapi.RequestFile{{
			Name: field,
			Data: tgbotapi.FileReader{Name: baseName(req.FilePath), Reader: f},
		}})
	} else {
		if field := fileField(req.Method); field != "" && fileID != "" && req.Method != "editMessageMedia" {
			params[field] = fileID
		}
		resp, err = b.MakeRequest(req.Method, params)
	}
	if err != nil {
		return nil, a.apiError(resp, err, ex)
	}
	return resp.Result, nil
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Error is an error answer of the Bot API.
type Error struct {
	Code        int
	Description string
	// RetryAfter is the wait a 429 asks for.
	RetryAfter time.Duration
}

// Error returns the code and Telegram's description.
func (e *Error) Error() string {
	return fmt.Sprintf("telegram: %d %s", e.Code, e.Description)
}

// apiError turns what tgbotapi returned into an *Error when the Bot API answered, an
// *answerError when the server answered something else (ex records the answer), or a redacted
// transport error. (tgbotapi leaves the code out of upload errors; the response has it.)
func (a *API) apiError(resp *tgbotapi.APIResponse, err error, ex *exchange) error {
	var tgErr *tgbotapi.Error
	if errors.As(err, &tgErr) {
		e := &Error{Code: tgErr.Code, Description: tgErr.Message, RetryAfter: time.Duration(tgErr.RetryAfter) * time.Second}
		if e.Code == 0 && resp != nil {
			e.Code = resp.ErrorCode
		}
		if e.Code == 0 && ex != nil && ex.status != 0 {
			// "ok": false without an error_code: not the Bot API's shape.
			return ex.unexpected(a.token)
		}
		return e
	}
	var re *redactedError
	if errors.As(err, &re) {
		return re
	}
	if ex != nil && ex.status != 0 {
		// The server answered, but not with JSON tgbotapi could read.
		return ex.unexpected(a.token)
	}
	return errors.New(redact(err.Error(), a.token))
}

// answerError is an answer of the server at the Bot API's address that is not a Bot API answer:
// the error page of a proxy, an empty body, JSON of another shape. It says nothing about the
// request, so the sender tries it again like any transient failure.
type answerError struct {
	// Status is the HTTP status of the answer.
	Status int
	// Excerpt is the start of the body, on one line, without the token, cut after 200 bytes.
	Excerpt string
}

// Error returns the HTTP status and the excerpt.
func (e *answerError) Error() string {
	return fmt.Sprintf("bot api: HTTP %d %s, not a Bot API answer: %s", e.Status, http.StatusText(e.Status), e.Excerpt)
}

// Sizes of what an answer's record keeps: the start of the body, and the excerpt of it that an
// answerError shows.
const (
	maxHead    = 1024
	maxExcerpt = 200
)

// exchange is the record of one call's answer: its HTTP status and the start of its body.
type exchange struct {
	status int
	head   []byte
}

// unexpected is the answerError of the recorded answer.
func (ex *exchange) unexpected(token string) *answerError {
	return &answerError{Status: ex.status, Excerpt: excerpt(ex.head, token)}
}

// headReader keeps the first maxHead bytes read of a body in its exchange. On Close it reads on
// up to that size, so that an answer tgbotapi stopped reading early is still recorded.
type headReader struct {
	io.ReadCloser
	ex *exchange
}

func (h *headReader) Read(p []byte) (int, error) {
	n, err := h.ReadCloser.Read(p)
	if room := maxHead - len(h.ex.head); room > 0 {
		h.ex.head = append(h.ex.head, p[:min(n, room)]...)
	}
	return n, err
}

func (h *headReader) Close() error {
	if room := maxHead - len(h.ex.head); room > 0 {
		rest, _ := io.ReadAll(io.LimitReader(h.ReadCloser, int64(room)))
		h.ex.head = append(h.ex.head, rest...)
	}
	return h.ReadCloser.Close()
}

// excerpt makes the start of a body fit for a log line: the token taken out (also a piece of it
// cut off at the end), whitespace and control characters folded into single spaces, invalid
// UTF-8 replaced, and cut with an ellipsis after maxExcerpt bytes, on a character boundary.
func excerpt(head []byte, token string) string {
	s := redact(string(head), token)
	for i := len(token) - 1; i > 0; i-- {
		if strings.HasSuffix(s, token[:i]) {
			s = s[:len(s)-i]
			break
		}
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if b.Len()+utf8.RuneLen(r) > maxExcerpt {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "(empty body)"
	}
	return b.String()
}

// ErrFileTooBig means a file to download is larger than the caller accepts.
var ErrFileTooBig = errors.New("bot: file too big")

// download fetches a file a user sent (getFile, then the file itself), up to max bytes, and
// returns its content and the path Telegram gives it.
func (a *API) download(ctx context.Context, fileID string, max int64) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	b, ex := a.with(ctx)
	f, err := b.GetFile(tgbotapi.FileConfig{FileID: fileID})
	if err != nil {
		return nil, "", a.apiError(nil, err, ex)
	}
	if int64(f.FileSize) > max {
		return nil, "", fmt.Errorf("%w: %d bytes", ErrFileTooBig, f.FileSize)
	}
	// The file's URL holds the token; it is on the server of the API endpoint.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.fileURL(f.FilePath), nil)
	if err != nil {
		return nil, "", errors.New(redact(err.Error(), a.token))
	}
	resp, err := ctxClient{ctx: ctx, c: a.client, token: a.token}.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", &Error{Code: resp.StatusCode, Description: "file download failed"}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, "", errors.New(redact(err.Error(), a.token))
	}
	if int64(len(data)) > max {
		return nil, "", ErrFileTooBig
	}
	return data, f.FilePath, nil
}

// fileURL is the download URL of a file path: the API endpoint's server with /file/bot<token>/.
func (a *API) fileURL(path string) string {
	api := fmt.Sprintf(a.endpoint, a.token, "")
	base := strings.TrimSuffix(api, "/bot"+a.token+"/")
	return base + "/file/bot" + a.token + "/" + path
}
