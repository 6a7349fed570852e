package tgemu

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// An emulator opened with a StateDir keeps its state there, as Telegram keeps a bot's chats: a
// bot that restarts finds its users, their chats and the updates it has not acknowledged, the
// numbering of updates and messages goes on where it was, and file_ids stay valid.
//
// The folder holds state.jsonl, a journal with one JSON record a line, and files/, the content of
// every file by its file_id. Every change is written to the journal, and synced to disk, before it
// takes effect and before the request that made it is answered, so a crash loses nothing that was
// answered; a line cut short by a crash is ignored. Open replays the journal and writes it again
// compacted (one record for each thing that still matters). A lock file keeps a second emulator
// off the folder.

// ErrStateBusy means another emulator already keeps its state in the folder.
var ErrStateBusy = errors.New("tgemu: the state folder is in use")

const (
	journalName = "state.jsonl"
	filesDir    = "files"
)

// journal is the state file of an emulator, open for appending.
type journal struct {
	mu       sync.Mutex
	dir      string
	f        *os.File
	lock     *os.File
	instance string // sets this emulator's file_ids apart from another's
	restored bool   // the folder held a state when it was opened
}

// record is one line of the journal: a change, or in a compacted journal, one thing as it is.
// The fields set in one record are applied in the order they are declared.
type record struct {
	Instance    string           `json:"instance,omitempty"`
	FileSeq     int              `json:"file_seq,omitempty"` // the numbering of files and bots
	File        *fileRecord      `json:"file,omitempty"`
	Bot         int64            `json:"bot,omitempty"` // the user id of the bot the rest is about
	User        *tgbotapi.User   `json:"user,omitempty"`
	Chat        *chatRecord      `json:"chat,omitempty"`
	Msg         *Message         `json:"msg,omitempty"` // a new message, or one as edited
	Del         *messageKey      `json:"del,omitempty"`
	Renumber    int              `json:"renumber,omitempty"` // pending updates numbered from here
	Ack         int              `json:"ack,omitempty"`      // updates below acknowledged
	Update      *tgbotapi.Update `json:"update,omitempty"`
	NextUpdate  int              `json:"next_update,omitempty"`
	CallbackSeq int              `json:"callback_seq,omitempty"`
	Callback    *callbackRecord  `json:"callback,omitempty"`
	Commands    *commandsRecord  `json:"commands,omitempty"`
}

type fileRecord struct {
	ID       string   `json:"id"`
	UniqueID string   `json:"unique_id"`
	Path     string   `json:"path"`
	Name     string   `json:"name,omitempty"`
	MIME     string   `json:"mime,omitempty"`
	Size     int      `json:"size"`
	Bot      int64    `json:"bot"`
	Kind     string   `json:"kind"`
	Width    int      `json:"width,omitempty"`
	Height   int      `json:"height,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Parent   string   `json:"parent,omitempty"`
	Seq      int      `json:"seq"`
}

type chatRecord struct {
	ID      int64 `json:"id"`
	NextID  int   `json:"next_id"`
	Blocked bool  `json:"blocked,omitempty"`
}

type messageKey struct {
	Chat int64 `json:"chat"`
	ID   int   `json:"id"`
}

type callbackRecord struct {
	ID       string `json:"id"`
	Chat     int64  `json:"chat"`
	Answered bool   `json:"answered,omitempty"`
	Seq      int    `json:"seq,omitempty"`
}

type commandsRecord struct {
	Scope string                `json:"scope"`
	Chat  int64                 `json:"chat,omitempty"`
	User  int64                 `json:"user,omitempty"`
	Lang  string                `json:"lang,omitempty"`
	List  []tgbotapi.BotCommand `json:"list"`
}

// Open returns an emulator with no bots that keeps its state in opts.StateDir (created if
// missing), restoring what an earlier emulator left there; AddBot then finds its bot's users and
// chats again. Without a StateDir it is New. It returns ErrStateBusy when another emulator uses
// the folder, and an error naming the line of a journal it cannot read.
func Open(opts Options) (*Server, error) {
	s := New(opts)
	if opts.StateDir == "" {
		return s, nil
	}
	dir, err := filepath.Abs(opts.StateDir)
	if err != nil {
		return nil, fmt.Errorf("tgemu: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, filesDir), 0o700); err != nil {
		return nil, fmt.Errorf("tgemu: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("tgemu: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("%w: %s", ErrStateBusy, dir)
	}
	j := &journal{dir: dir, lock: lock}
	if err := s.load(j); err != nil {
		lock.Close()
		return nil, err
	}
	if j.instance == "" {
		b := make([]byte, 3)
		rand.Read(b)
		j.instance = hex.EncodeToString(b)
	}
	s.state = j
	if err := s.compact(); err != nil {
		lock.Close()
		return nil, err
	}
	s.removeStrayFiles()
	return s, nil
}

// Restored reports whether the emulator found a saved state when it was opened. A bot that kept
// file_ids of an emulator without one holds ids that no longer exist.
func (s *Server) Restored() bool { return s.state != nil && s.state.restored }

// Close stops the webhook deliveries, closes the state's journal and releases its folder.
// Requests after Close are not saved.
func (s *Server) Close() error {
	s.stopWebhooks()
	j := s.state
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	var err error
	if j.f != nil {
		err = j.f.Close()
		j.f = nil
	}
	if cerr := j.lock.Close(); err == nil {
		err = cerr
	}
	return err
}

// instance is the part of file_ids that sets this emulator apart; "" for one in memory.
func (s *Server) instance() string {
	if s.state == nil {
		return ""
	}
	return s.state.instance
}

// save appends records to the journal and syncs it; a no-op for an emulator in memory.
func (s *Server) save(recs ...record) error {
	j := s.state
	if j == nil {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("tgemu: save state: %w", err)
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return fmt.Errorf("tgemu: save state: the emulator is closed")
	}
	if _, err := j.f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("tgemu: save state: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("tgemu: save state: %w", err)
	}
	return nil
}

// saveLocked saves a change of bot b (the caller holds b.mu).
func (b *Bot) saveLocked(r record) error {
	r.Bot = b.me.ID
	return b.srv.save(r)
}

// saveAPILocked is saveLocked for a Bot API method: a failure is Telegram's internal error.
func (b *Bot) saveAPILocked(r record) *apiError {
	return b.srv.stateError(b.saveLocked(r))
}

// stateError turns a failure to save the state into the answer of the request that needed it,
// and logs it: the operator has a disk to look at.
func (s *Server) stateError(err error) *apiError {
	if err == nil {
		return nil
	}
	s.log.Error("Emulator state not saved", slog.Any("error", err))
	return &apiError{code: 500, description: "Internal Server Error: the emulator could not save its state"}
}

// saveFileLocked writes a new file's content to the state's folder, then its record; the file is
// read from there from then on.
func (s *Server) saveFileLocked(f *file) error {
	if s.state == nil {
		return nil
	}
	// A smaller copy of a photo has no content of its own to keep: it is made from the photo.
	if f.parent == "" {
		if err := writeSynced(filepath.Join(s.state.dir, filesDir, f.id), f.data); err != nil {
			return fmt.Errorf("tgemu: save file: %w", err)
		}
	}
	if err := s.save(record{File: fileRecordOf(f, s.seq)}); err != nil {
		return err
	}
	f.data = nil
	return nil
}

func fileRecordOf(f *file, seq int) *fileRecord {
	return &fileRecord{ID: f.id, UniqueID: f.uniqueID, Path: f.path, Name: f.name, MIME: f.mime, Size: f.size, Bot: f.botID,
		Kind: f.kind, Width: f.width, Height: f.height, Sizes: f.sizes, Parent: f.parent, Seq: seq}
}

// content returns a file's content, from memory or from the state's folder; a smaller copy of a
// photo is made from the photo (smallCopy).
func (s *Server) content(f *file) ([]byte, error) {
	if f.parent != "" {
		return s.smallCopy(f)
	}
	if f.data != nil || s.state == nil {
		return f.data, nil
	}
	return os.ReadFile(filepath.Join(s.state.dir, filesDir, f.id))
}

// writeSynced writes a file and syncs it to disk.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
