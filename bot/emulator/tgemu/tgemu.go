// Package tgemu is a Telegram Bot API emulator: an HTTP server that answers the Bot API methods
// Questbot uses with Telegram's JSON shapes and error format, and a set of simulated users who
// write to the bots, press their buttons and upload files.
//
// The bot side is the real Bot API over HTTP: point a client at Endpoint(server URL) and it
// behaves as it would against api.telegram.org, limits included (4096 characters, 64-byte
// callback_data, well-formed HTML, inline keyboard shape, and optionally the flood limits), so
// the same transport code serves Telegram and the emulator. Photos are checked as Telegram checks
// them, answered in Telegram's sizes (smaller JPEG copies, then the original), and replaced in
// place by editMessageMedia; photos and documents are the media emulated. The user side is Go
// methods on Bot (SendText, Press, SendDocument) and a stream of chat events (Subscribe), which
// the web chat and the end-to-end tests use. Updates reach the bot by getUpdates or, once it
// called setWebhook, by POSTs to its webhook, one at a time and in order (webhook.go). Faults are injected on demand: 429 with
// retry_after, 5xx, slow answers, and 403 for users who blocked the bot.
//
// Private chats are emulated, each with the id of its user, and groups as far as the bot's
// handling of them needs (group.go). New keeps the state in memory; Open with a StateDir keeps it
// in a folder as well, so that users, chats, pending updates and file_ids outlive a restart as
// they do on Telegram (see state.go). The emulator depends on
// nothing but the standard library and the Telegram types.
package tgemu

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Endpoint returns the endpoint pattern, as tgbotapi.NewBotAPIWithClient wants it, of an emulator
// served at baseURL (for example "http://127.0.0.1:8080").
func Endpoint(baseURL string) string { return strings.TrimSuffix(baseURL, "/") + "/bot%s/%s" }

// Options tune an emulator.
type Options struct {
	// EnforceRateLimits makes the emulator answer 429 when a bot sends more than Telegram allows:
	// about 30 messages a second overall, one a second per chat after a short burst (three at
	// once), and 20 a minute per group, with some tolerance for network jitter. Messages sent and
	// messages edited count alike (Telegram limits edits too); answers to button presses,
	// deletions and the command menu do not. Off, it accepts any rate (load tests).
	EnforceRateLimits bool
	// Log receives a line for every 4xx and 5xx answer, at debug level. Nil discards.
	Log *slog.Logger
	// StateDir, when set, is where Open keeps the emulator's state (users, chats, pending
	// updates, files), so that it lives on across restarts as Telegram's does. Empty: memory only.
	StateDir string
	// Now is the emulator's clock, by which it dates messages and measures the flood limits;
	// time.Now unless set. A test that gives the bot's transport a clock it moves by hand gives
	// the emulator the same one, so that both agree on how much time passed between two sends.
	Now func() time.Time
	// LocalURL is an address on this machine or a private network that the emulator fetches
	// photos from although Telegram could not (fetch.go): the operator's PUBLIC_URL for a trial
	// on one machine. Every address under it is allowed (AllowLocal adds more).
	LocalURL string
}

// Server is the emulator. It is an http.Handler serving /bot<token>/<method> and the file
// downloads /file/bot<token>/<path>. Create it with New; the zero value is not usable.
type Server struct {
	opts Options
	log  *slog.Logger

	mu    sync.Mutex
	bots  map[string]*Bot
	files map[string]*file // by file_id
	seq   int              // for file ids and bot ids

	// state is the journal of an emulator opened with a StateDir, nil otherwise; restored holds
	// the bots read from it until AddBot claims them by their id.
	state    *journal
	restored map[int64]*Bot
	// local are the addresses Telegram could not reach that the emulator fetches from anyway
	// (Options.LocalURL, AllowLocal).
	local []string
}

// New returns an emulator with no bots.
func New(opts Options) *Server {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, bots: map[string]*Bot{}, files: map[string]*file{}}
	if opts.LocalURL != "" {
		s.local = []string{opts.LocalURL}
	}
	return s
}

// AddBot registers a bot token and returns the bot. The bot's user id is the number before the
// colon of the token when there is one, as on Telegram. Adding a token twice returns the same bot.
func (s *Server) AddBot(token, username string) *Bot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.bots[token]; ok {
		return b
	}
	s.seq++
	id := int64(1_000_000 + s.seq)
	if before, _, ok := strings.Cut(token, ":"); ok {
		var n int64
		if _, err := fmt.Sscan(before, &n); err == nil && n > 0 {
			id = n
		}
	}
	me := tgbotapi.User{ID: id, IsBot: true, FirstName: username, UserName: username}
	// A bot of the saved state is the same account, whatever its token is this time.
	b := s.restored[id]
	if b != nil {
		delete(s.restored, id)
		b.token, b.me = token, me
	} else {
		b = newBot(s, token, me)
	}
	s.bots[token] = b
	return b
}

// newBot returns a bot with no users, chats or updates.
func newBot(s *Server, token string, me tgbotapi.User) *Bot {
	return &Bot{
		srv:       s,
		token:     token,
		me:        me,
		wake:      make(chan struct{}),
		users:     map[int64]*tgbotapi.User{},
		chats:     map[int64]*chat{},
		callbacks: map[string]*callback{},
		commands:  map[commandsKey][]tgbotapi.BotCommand{},
		counts:    map[string]int{},
		nextUpd:   1,
	}
}

// bot returns the bot with this token, or nil.
func (s *Server) bot(token string) *Bot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bots[token]
}

// apiError is a Telegram error answer.
type apiError struct {
	code        int
	description string
	retryAfter  int
	// page: the error is answered as an HTML page, as a proxy would (Fault.Page).
	page bool
}

func (e *apiError) Error() string { return e.description }

func badRequest(format string, args ...any) *apiError {
	return &apiError{code: 400, description: "Bad Request: " + fmt.Sprintf(format, args...)}
}

// ServeHTTP answers Bot API requests and file downloads.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if rest, ok := strings.CutPrefix(path, "/file/bot"); ok {
		s.serveFile(w, r, rest)
		return
	}
	rest, ok := strings.CutPrefix(path, "/bot")
	if !ok {
		writeError(w, &apiError{code: 404, description: "Not Found"})
		return
	}
	token, method, ok := strings.Cut(rest, "/")
	b := s.bot(token)
	if !ok || b == nil {
		writeError(w, &apiError{code: 401, description: "Unauthorized"})
		return
	}
	p, err := readParams(r)
	if err != nil {
		writeError(w, badRequest("%v", err))
		return
	}
	result, aerr := b.call(r, method, p)
	if aerr != nil {
		s.log.Debug("Emulated Bot API error", slog.String("method", method), slog.Int("code", aerr.code), slog.String("description", aerr.description))
		writeError(w, aerr)
		return
	}
	raw, err := json.Marshal(result)
	if err != nil {
		writeError(w, &apiError{code: 500, description: "Internal Server Error"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(tgbotapi.APIResponse{Ok: true, Result: raw})
}

func writeError(w http.ResponseWriter, e *apiError) {
	if e.page {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(e.code)
		status := fmt.Sprintf("%d %s", e.code, http.StatusText(e.code))
		fmt.Fprintf(w, "<html>\r\n<head><title>%s</title></head>\r\n<body>\r\n<center><h1>%s</h1></center>\r\n</body>\r\n</html>\r\n", status, status)
		return
	}
	resp := tgbotapi.APIResponse{Ok: false, ErrorCode: e.code, Description: e.description}
	if e.retryAfter > 0 {
		resp.Parameters = &tgbotapi.ResponseParameters{RetryAfter: e.retryAfter}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.code)
	json.NewEncoder(w).Encode(resp)
}

// params are a request's parameters, from the query, a form, a multipart form or a JSON body.
type params struct {
	values map[string]string
	files  map[string]upload
}

type upload struct {
	name string
	data []byte
}

func (p params) get(name string) string { return p.values[name] }

func (p params) int64(name string) (int64, error) {
	v := p.values[name]
	if v == "" {
		return 0, badRequest("%s is empty", name)
	}
	var n int64
	if _, err := fmt.Sscan(v, &n); err != nil {
		return 0, badRequest("%s is invalid", name)
	}
	return n, nil
}

const maxUpload = 50 << 20 // Telegram's limit for bots' uploads

func readParams(r *http.Request) (params, error) {
	p := params{values: map[string]string{}, files: map[string]upload{}}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var m map[string]any
		if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxUpload)).Decode(&m); err != nil {
			return p, fmt.Errorf("can't parse JSON request: %v", err)
		}
		for k, v := range m {
			switch v := v.(type) {
			case string:
				p.values[k] = v
			default:
				raw, _ := json.Marshal(v)
				p.values[k] = string(raw)
			}
		}
		for k, v := range r.URL.Query() {
			p.values[k] = v[0]
		}
		return p, nil
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxUpload); err != nil {
			return p, fmt.Errorf("can't parse multipart request: %v", err)
		}
		for name, fhs := range r.MultipartForm.File {
			f, err := fhs[0].Open()
			if err != nil {
				return p, err
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return p, err
			}
			p.files[name] = upload{name: fhs[0].Filename, data: data}
		}
	default:
		if err := r.ParseForm(); err != nil {
			return p, fmt.Errorf("can't parse request: %v", err)
		}
	}
	for k, v := range r.Form {
		p.values[k] = v[0]
	}
	return p, nil
}

// file is a file the emulator holds: uploaded by a bot or by a user, for the bot whose user id is
// botID. Its content is data, or, when data is nil, the file of its id in the state's folder.
type file struct {
	id, uniqueID, path, name, mime string
	data                           []byte
	size                           int
	botID                          int64
	// kind is "photo" or "document", as the Bot API tells file types apart.
	kind string
	// A photo has its pixel size, and the ids of its sizes, smallest first and itself last; a
	// smaller size names the original photo as its parent.
	width, height int
	sizes         []string
	parent        string
	// A smaller copy of a photo is made from it when first read (smallCopy), once.
	copyOnce sync.Once
	copyData []byte
	copyErr  error
}

func (s *Server) addFile(b *Bot, name, mimeType string, data []byte, kind string) (*file, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addFileLocked(b, name, mimeType, data, kind)
}

// addFileLocked stores a new file, saved in the state's folder (and then read from there) when
// the emulator keeps its state.
func (s *Server) addFileLocked(b *Bot, name, mimeType string, data []byte, kind string) (*file, error) {
	return s.addFileWithLocked(b, name, mimeType, data, kind, nil)
}

// fileID is the file_id of file number seq of a kind ("photos", "documents"). The emulator's
// instance, when it keeps its state, sets its ids apart from those of another emulator.
func fileID(instance, kind string, seq int) string {
	return fmt.Sprintf("EMU%s%s%06d", instance, strings.ToUpper(kind[:1]), seq)
}

// addFileWithLocked is addFileLocked with more fields set by with before the file is saved.
func (s *Server) addFileWithLocked(b *Bot, name, mimeType string, data []byte, kind string, with func(*file)) (*file, error) {
	s.seq++
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		ext = name[i:]
	}
	f := &file{
		id:       fileID(s.instance(), kind, s.seq),
		uniqueID: fmt.Sprintf("U%s%06d", s.instance(), s.seq),
		path:     fmt.Sprintf("%s/file_%d%s", kind, s.seq, ext),
		name:     name,
		mime:     mimeType,
		data:     data,
		size:     len(data),
		botID:    b.me.ID,
		kind:     strings.TrimSuffix(kind, "s"),
	}
	if with != nil {
		with(f)
	}
	if err := s.saveFileLocked(f); err != nil {
		s.seq--
		return nil, err
	}
	s.files[f.id] = f
	return f, nil
}

func (s *Server) file(id string) *file {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[id]
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, rest string) {
	token, path, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	var found *file
	if b := s.bots[token]; b != nil {
		for _, f := range s.files {
			if f.path == path && f.botID == b.me.ID {
				found = f
				break
			}
		}
	}
	s.mu.Unlock()
	if found == nil {
		http.NotFound(w, r)
		return
	}
	data, err := s.content(found)
	if err != nil {
		s.log.Error("Emulated file unreadable", slog.String("file_id", found.id), slog.Any("error", err))
		http.Error(w, "file unreadable", http.StatusInternalServerError)
		return
	}
	if found.mime != "" {
		w.Header().Set("Content-Type", found.mime)
	}
	w.Write(data)
}

// FileData returns the content, name and MIME type of a file by its file_id, for viewers such as
// the web chat.
func (s *Server) FileData(fileID string) (data []byte, name, mimeType string, ok bool) {
	f := s.file(fileID)
	if f == nil {
		return nil, "", "", false
	}
	data, err := s.content(f)
	if err != nil {
		s.log.Error("Emulated file unreadable", slog.String("file_id", f.id), slog.Any("error", err))
		return nil, "", "", false
	}
	return data, f.name, f.mime, true
}

// now is the emulator's clock.
func (s *Server) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}
