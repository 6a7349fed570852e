package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// callbackAnswerTTL is how old a button press (or an inline query) may be for its answer to be
// sent: Telegram refuses answers to older queries ("query is too old"). An answer older than that is dropped, and one
// that would be by the time of its retry is not retried. The age is counted from when the answer
// was queued.
const callbackAnswerTTL = 15 * time.Second

// asideRetry spreads the retries of the updates that yielded the bot's overall slot.
const asideRetry = 200 * time.Millisecond

// globalYieldAtMost is how long an update yields the bot's overall slots to the conversations
// before it takes one: longer than it yields its chat's (yieldAtMost), since only a bot busy with
// answers in all its chats at once keeps it waiting, and an answer held behind it waits in
// every chat.
const globalYieldAtMost = 15 * time.Second

// attempt sends one row and decides what becomes of it. A panic on the way is a transient
// failure of the row, not the end of the process.
func (s *sender) attempt(ctx context.Context, row *OutboxRow) (out Outcome) {
	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("send panic: %v", r)
			s.t.log.Error("Sending panicked", slog.Int64("outbox_id", row.ID), slog.Any("error", err),
				slog.String("stack", string(debug.Stack())))
			out = s.retry(row, row.Request, s.clock.Now(), err, s.t.log)
		}
	}()
	req := row.Request
	log := withholding(s.t.log, req.Secrets).With(slog.Int64("chat_id", row.Chat.Chat), slog.String("method", req.Method),
		slog.Int64("outbox_id", row.ID))
	api := s.t.api(row.Chat.Service)
	now := s.clock.Now()
	if api == nil {
		// A bot of another process: leave the row to it.
		return Outcome{Kind: OutcomeAbandon, RetryAt: later(now, time.Minute)}
	}
	if (req.Method == "answerCallbackQuery" || req.Method == "answerInlineQuery") && now.Sub(row.Created) > callbackAnswerTTL {
		log.Debug("The button press is too old to be answered; the answer is dropped")
		return s.outcome(req, Outcome{Kind: OutcomeDropped})
	}
	if secretExpired(req, now) {
		return s.expired(req, log)
	}
	if secretUnreadable(req) {
		return s.unreadable(req, log)
	}
	if req.TargetRef != "" {
		var ok bool
		if req, ok = resolveRef(req, row.RefMessageIDs); !ok {
			log.Debug("No message is known under the ref; the request is dropped", slog.String("ref", req.TargetRef))
			return s.outcome(req, Outcome{Kind: OutcomeDropped})
		}
	}
	if counted(req.Method) {
		// An update yields the bot's overall slots to the conversations too: it goes only when
		// a slot is free at once, unless it has waited for globalYieldAtMost already.
		if row.Chat.Lane == LaneUpdates && now.Sub(row.Created) < globalYieldAtMost {
			if next, busy := s.global.busy(); busy {
				// Later, at a random moment, so that the updates waiting do not all come back at once.
				return Outcome{Kind: OutcomeAbandon, RetryAt: later(next, rand.N(asideRetry))}
			}
		}
		if at := s.pace.reserve(row.Chat, now); !at.IsZero() {
			return Outcome{Kind: OutcomeAbandon, RetryAt: at}
		}
		if err := s.global.wait(ctx); err != nil {
			return Outcome{Kind: OutcomeAbandon}
		}
	}
	if req.Draw != nil {
		// The file is drawn now, as the request goes (see Request.Draw).
		if err := drawFile(ctx, req); err != nil {
			if errors.Is(err, ErrNoDrawer) {
				log.Error("The file of the request cannot be drawn in this process", slog.Any("error", err))
				return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: err.Error()})
			}
			if ctx.Err() != nil {
				return Outcome{Kind: OutcomeAbandon}
			}
			log.Warn("Drawing the file of the request failed", slog.Any("error", err))
			return s.retry(row, req, now, err, log)
		}
	}
	var fileID string
	var st os.FileInfo
	if req.FilePath != "" {
		var err error
		if st, err = os.Stat(req.FilePath); err != nil {
			log.Warn("File to send is missing", slog.Any("error", err))
			return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: err.Error()})
		}
		// The database keeps microseconds.
		if f := row.CachedFile; f != nil && f.Size == st.Size() && f.ModTime.Equal(st.ModTime().Truncate(time.Microsecond)) {
			fileID = f.FileID
		}
	}
	if h := s.t.cfg.Hooks.BeforeSend; h != nil && h(row) {
		return Outcome{Kind: OutcomeAbandon}
	}
	start := time.Now()
	result, err := api.do(ctx, req, fileID)
	if time.Since(start) > s.t.cfg.SlowSend {
		s.pace.markTroubled(paceKey(row.Chat))
	}
	if err == nil {
		if counted(req.Method) {
			s.pace.answered(row.Chat, s.clock.Now())
		}
		if h := s.t.cfg.Hooks.AfterSend; h != nil && h(row) {
			return Outcome{Kind: OutcomeAbandon}
		}
		return s.outcome(req, sentOutcome(req, result, fileID, st))
	}
	if ctx.Err() != nil {
		// Stopping: the row stays and is sent again by the next run (at most one duplicate).
		return Outcome{Kind: OutcomeAbandon}
	}
	return s.failed(row, req, err, log)
}

// sentOutcome is the outcome of a request Telegram accepted: the message ids to record under its
// ref, and the file_id of a file it uploaded.
func sentOutcome(req Request, result json.RawMessage, fileID string, st os.FileInfo) Outcome {
	out := Outcome{Kind: OutcomeSent}
	if req.Ref != "" {
		if id := sentMessageID(result); id != 0 {
			out.MessageIDs = []int{id}
		}
	}
	if req.FilePath != "" && fileID == "" {
		if id := uploadedFileID(result); id != "" {
			out.Uploaded = &CachedFile{FileID: id, Size: st.Size(), ModTime: st.ModTime().Truncate(time.Microsecond)}
		}
	}
	return out
}

// failed decides what becomes of a row whose request failed with err.
func (s *sender) failed(row *OutboxRow, req Request, err error, log *slog.Logger) Outcome {
	now := s.clock.Now()
	var apiErr *Error
	if errors.As(err, &apiErr) {
		switch {
		case apiErr.Code == 429:
			wait := max(apiErr.RetryAfter, time.Second)
			s.t.m.FloodWaits.Inc()
			s.t.m.FloodWaitSecond.Add(wait.Seconds())
			if req.Method == "answerCallbackQuery" && now.Add(wait).Sub(row.Created) > callbackAnswerTTL {
				log.Warn("Flood limit hit; the button press would be too old to answer after the wait, so it is not retried",
					slog.Duration("retry_after", wait))
				return s.outcome(req, Outcome{Kind: OutcomeDropped})
			}
			log.Warn("Flood limit hit; waiting", slog.Duration("retry_after", wait))
			return s.outcome(req, Outcome{Kind: OutcomeRetry, RetryAt: later(now, wait), Err: apiErr.Error()})
		case apiErr.Code == 403 && IsInlineKey(row.Chat.Chat):
			// An inline message is nobody's chat: the refusal is this request's alone.
			log.Warn("Telegram refused an edit of an inline message", slog.String("description", apiErr.Description))
			return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: apiErr.Error()})
		case apiErr.Code == 403:
			log.Info("The user blocked the bot; their pending messages are dropped")
			return s.outcome(req, Outcome{Kind: OutcomeBlocked, Err: apiErr.Error()})
		case apiErr.Code == 400 && notModified(req.Method, apiErr.Description):
			// The message already shows what the edit asks for: a repeated edit (the row sent
			// again after a restart) or two edits to the same content. Nothing is left to do.
			log.Debug("The edit changed nothing; the message already shows it")
			return s.outcome(req, Outcome{Kind: OutcomeSent})
		case apiErr.Code == 400:
			log.Warn("Telegram rejected a request", slog.String("description", withholdSecrets(apiErr.Description, req.Secrets)),
				slog.String("params", withheldParams(req)))
			return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: apiErr.Error()})
		case apiErr.Code >= 400 && apiErr.Code < 500 && apiErr.Code != 409:
			log.Error("Telegram refused a request", slog.Any("error", err))
			return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: apiErr.Error()})
		}
	}
	var page *answerError
	if errors.As(err, &page) && refusesRequest(page.Status) {
		log.Error("The server refused the request itself; it is not tried again", slog.Any("error", err))
		return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: page.Error()})
	}
	// Transient: a 5xx, a timeout, a broken connection, another answer that is not the Bot API's.
	return s.retry(row, req, now, err, log)
}

// refusesRequest reports whether an HTTP status that is not the Bot API's answer (a proxy's
// error page) refuses the request itself, so that sending it again would be refused again: its
// body is too large (a photo, a document, over the proxy's limit), its URL too long, or its
// content of a type the server takes not. Other statuses of a proxy (a bad gateway, a timeout,
// a page for every request while the proxy is misconfigured) may pass, and are retried.
func refusesRequest(status int) bool {
	switch status {
	case http.StatusRequestEntityTooLarge, http.StatusRequestURITooLong, http.StatusUnsupportedMediaType:
		return true
	}
	return false
}

// notModified reports whether Telegram refused an edit because the message already has the
// content and keyboard it asks for.
func notModified(method, description string) bool {
	return strings.HasPrefix(method, "edit") && strings.Contains(description, "message is not modified")
}

// retry decides what becomes of a row after a transient failure at now: another attempt after a
// backoff; or, after too many (maxSendAttempts; maxAttemptsWithFallback for a request that has a
// fallback, which is then sent in its place), giving up; for a button press answer that would then be too old,
// dropping it; for a row that has held its lane for GiveWayAfter, moving it to LaneRetry.
func (s *sender) retry(row *OutboxRow, req Request, now time.Time, err error, log *slog.Logger) Outcome {
	limit := maxSendAttempts
	if row.HasFallback {
		limit = maxAttemptsWithFallback
	}
	if row.Attempts+1 >= limit {
		log.Error("Sending failed too often; the request is given up", slog.Any("error", err), slog.Int("attempts", row.Attempts+1))
		return s.outcome(req, Outcome{Kind: OutcomeFailed, Err: err.Error()})
	}
	wait := backoff(row.Attempts)
	at := later(now, wait)
	if req.Method == "answerCallbackQuery" && at.Sub(row.Created) > callbackAnswerTTL {
		log.Warn("Sending failed; the button press would be too old to answer by the retry, so it is not retried",
			slog.Any("error", err))
		return s.outcome(req, Outcome{Kind: OutcomeDropped})
	}
	since := row.FailingSince
	if since.IsZero() {
		since = now
	}
	if row.Chat.Lane != LaneRetry && at.Sub(since) > s.t.cfg.GiveWayAfter {
		log.Warn("Sending keeps failing; the request gives way to the ones after it and is retried aside",
			slog.Any("error", err), slog.Duration("retry_in", wait), slog.Duration("failing_for", now.Sub(since)))
		s.t.m.Retries.Inc()
		return s.outcome(req, Outcome{Kind: OutcomeGiveWay, RetryAt: at, Err: err.Error()})
	}
	log.Warn("Sending failed; will retry", slog.Any("error", err), slog.Duration("retry_in", wait))
	s.t.m.Retries.Inc()
	return s.outcome(req, Outcome{Kind: OutcomeRetry, RetryAt: at, Err: err.Error()})
}

func (s *sender) outcome(req Request, out Outcome) Outcome {
	// What is recorded of the failure never holds the request's secrets.
	out.Err = withholdSecrets(out.Err, req.Secrets)
	name := [...]string{"sent", "retry", "failed", "blocked", "abandoned", "dropped", "gave_way", "detached"}[out.Kind]
	s.t.m.Sends.WithLabelValues(req.Method, name).Inc()
	return out
}

// backoff is the wait before attempt n+1 of a transiently failing request: 250 ms doubling up to
// five minutes, with jitter so that chats failing together do not retry together.
func backoff(attempts int) time.Duration {
	d := 250 * time.Millisecond << min(attempts, 11)
	d = min(d, 5*time.Minute)
	return time.Duration(float64(d) * (0.75 + rand.Float64()/2))
}

// resolveRef returns req aimed at ids, the messages sent under its TargetRef, or false when there
// are none. A deletion of several messages becomes one deleteMessages; any other method acts on
// the last message (the part of a split text that carries the keyboard). req's Params are copied,
// not changed.
func resolveRef(req Request, ids []int) (Request, bool) {
	if len(ids) == 0 {
		return req, false
	}
	params := make(map[string]string, len(req.Params)+1)
	for k, v := range req.Params {
		params[k] = v
	}
	req.Params = params
	if req.Method == "deleteMessage" && len(ids) > 1 {
		raw, _ := json.Marshal(ids) // a slice of ints always marshals
		req.Method = "deleteMessages"
		params["message_ids"] = string(raw)
		return req, true
	}
	params["message_id"] = strconv.Itoa(ids[len(ids)-1])
	return req, true
}

// sentMessageID finds the message_id of the message a send method returned, or 0.
func sentMessageID(result json.RawMessage) int {
	var m struct {
		MessageID int `json:"message_id"`
	}
	if json.Unmarshal(result, &m) != nil {
		return 0
	}
	return m.MessageID
}

// uploadedFileID finds the file_id of the file in a sendPhoto or sendDocument result.
func uploadedFileID(result json.RawMessage) string {
	var m tgbotapi.Message
	if json.Unmarshal(result, &m) != nil {
		return ""
	}
	if n := len(m.Photo); n > 0 {
		return m.Photo[n-1].FileID
	}
	if m.Document != nil {
		return m.Document.FileID
	}
	return ""
}
