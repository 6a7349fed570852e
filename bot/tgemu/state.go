package tgemu

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// Close closes the state's journal and releases its folder. Requests after Close are not saved.
func (s *Server) Close() error {
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
	if err := writeSynced(filepath.Join(s.state.dir, filesDir, f.id), f.data); err != nil {
		return fmt.Errorf("tgemu: save file: %w", err)
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

// content returns a file's content, from memory or from the state's folder.
func (s *Server) content(f *file) ([]byte, error) {
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

// acknowledgeLocked applies the offset of a getUpdates: the updates before it are acknowledged
// and forgotten. An offset beyond every update given out means the bot has seen a numbering this
// emulator does not remember (its state was lost, or the bot's database comes from another
// run): the numbering goes on from the offset, pending updates included, so that nothing a user
// sends is taken for acknowledged and dropped.
func (b *Bot) acknowledgeLocked(offset int) *apiError {
	renumber := offset > b.nextUpd
	if !renumber && (len(b.updates) == 0 || b.updates[0].UpdateID >= offset) {
		return nil
	}
	r := record{Ack: offset}
	if renumber {
		r.Renumber = offset
		b.srv.log.Info("getUpdates offset beyond the emulator's updates: their numbering goes on from it",
			slog.Int("offset", offset), slog.Int("next_update_id", b.nextUpd))
	}
	if e := b.saveAPILocked(r); e != nil {
		return e
	}
	b.applyLocked(r)
	return nil
}

// applyLocked applies a record of b's to the state in memory: while the journal is replayed, and
// for the changes that look the same live (acknowledgements).
func (b *Bot) applyLocked(r record) {
	if u := r.User; u != nil {
		cp := *u
		b.users[u.ID] = &cp
		b.chatLocked(u.ID)
	}
	if cr := r.Chat; cr != nil {
		c := b.chatLocked(cr.ID)
		c.nextID, c.blocked = max(c.nextID, cr.NextID), cr.Blocked
	}
	if r.Msg != nil {
		m := *r.Msg
		c := b.chatLocked(m.ChatID)
		if i := slices.IndexFunc(c.messages, func(x *Message) bool { return x.ID == m.ID }); i >= 0 {
			c.messages[i] = &m
		} else {
			c.messages = append(c.messages, &m)
			slices.SortFunc(c.messages, func(x, y *Message) int { return x.ID - y.ID })
		}
		c.nextID = max(c.nextID, m.ID+1)
		if !m.FromBot && !m.Edited {
			c.blocked = false
		}
	}
	if d := r.Del; d != nil {
		c := b.chatLocked(d.Chat)
		c.messages = slices.DeleteFunc(c.messages, func(m *Message) bool { return m.ID == d.ID })
	}
	if r.Renumber > 0 {
		for i := range b.updates {
			b.updates[i].UpdateID = r.Renumber + i
		}
		b.nextUpd = r.Renumber + len(b.updates)
	}
	if r.Ack > 0 {
		i := 0
		for i < len(b.updates) && b.updates[i].UpdateID < r.Ack {
			i++
		}
		b.updates = b.updates[i:]
		b.nextUpd = max(b.nextUpd, r.Ack)
	}
	if r.Update != nil {
		b.updates = append(b.updates, *r.Update)
		b.nextUpd = max(b.nextUpd, r.Update.UpdateID+1)
	}
	b.nextUpd = max(b.nextUpd, r.NextUpdate)
	b.cbSeq = max(b.cbSeq, r.CallbackSeq)
	if cb := r.Callback; cb != nil {
		b.callbacks[cb.ID] = &callback{chatID: cb.Chat, answered: cb.Answered}
		b.cbSeq = max(b.cbSeq, cb.Seq)
	}
	if cr := r.Commands; cr != nil {
		b.commands[commandsKey{scope: cr.Scope, chat: cr.Chat, user: cr.User, lang: cr.Lang}] = cr.List
	}
}

// load replays the journal of j's folder, if there is one, into s.
func (s *Server) load(j *journal) error {
	path := filepath.Join(j.dir, journalName)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tgemu: %w", err)
	}
	defer f.Close()
	j.restored = true
	s.restored = map[int64]*Bot{}
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(bytes.TrimSpace(line)) > 0 {
				// A crash cut the last change short; it was never answered.
				s.log.Warn("Emulator state: an unfinished last line is ignored", slog.String("file", path), slog.Int("line", n))
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("tgemu: read %s: %w", path, err)
		}
		var rec record
		if err := json.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("tgemu: %s line %d: %w (move the folder away to start the emulator afresh)", path, n, err)
		}
		s.applyRecord(j, rec)
	}
}

// applyRecord applies one record of the journal being loaded.
func (s *Server) applyRecord(j *journal, r record) {
	if r.Instance != "" {
		j.instance = r.Instance
	}
	s.seq = max(s.seq, r.FileSeq)
	if fr := r.File; fr != nil {
		s.files[fr.ID] = &file{id: fr.ID, uniqueID: fr.UniqueID, path: fr.Path, name: fr.Name, mime: fr.MIME, size: fr.Size,
			botID: fr.Bot, kind: fr.Kind, width: fr.Width, height: fr.Height, sizes: fr.Sizes, parent: fr.Parent}
		s.seq = max(s.seq, fr.Seq)
	}
	if r.Bot == 0 {
		return
	}
	b := s.restored[r.Bot]
	if b == nil {
		b = newBot(s, "", tgbotapi.User{ID: r.Bot, IsBot: true})
		s.restored[r.Bot] = b
	}
	b.applyLocked(r)
}

// compact writes the journal again with one record for each thing that still matters, and opens
// it for appending.
func (s *Server) compact() error {
	j := s.state
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.Encode(record{Instance: j.instance, FileSeq: s.seq})
	files := make([]*file, 0, len(s.files))
	for _, f := range s.files {
		files = append(files, f)
	}
	slices.SortFunc(files, func(x, y *file) int { return strings.Compare(x.id, y.id) })
	for _, f := range files {
		enc.Encode(record{File: fileRecordOf(f, 0)})
	}
	ids := make([]int64, 0, len(s.restored))
	for id := range s.restored {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		for _, r := range s.restored[id].snapshot() {
			r.Bot = id
			enc.Encode(r)
		}
	}
	path := filepath.Join(j.dir, journalName)
	if err := writeSynced(path+".new", buf.Bytes()); err != nil {
		return fmt.Errorf("tgemu: compact state: %w", err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		return fmt.Errorf("tgemu: compact state: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("tgemu: %w", err)
	}
	j.f = f
	return nil
}

// snapshot is the bot's state as records: users, chats and their messages, pending updates, the
// numbering, callbacks not yet answered, command lists.
func (b *Bot) snapshot() []record {
	out := []record{{NextUpdate: b.nextUpd, CallbackSeq: b.cbSeq}}
	users := make([]int64, 0, len(b.users))
	for id := range b.users {
		users = append(users, id)
	}
	slices.Sort(users)
	for _, id := range users {
		out = append(out, record{User: b.users[id]})
	}
	chats := make([]int64, 0, len(b.chats))
	for id := range b.chats {
		chats = append(chats, id)
	}
	slices.Sort(chats)
	for _, id := range chats {
		// The messages first: a user's message unblocks the chat, the chat's record says how it is.
		c := b.chats[id]
		for _, m := range c.messages {
			out = append(out, record{Msg: m})
		}
		out = append(out, record{Chat: &chatRecord{ID: id, NextID: c.nextID, Blocked: c.blocked}})
	}
	for i := range b.updates {
		out = append(out, record{Update: &b.updates[i]})
	}
	for id, cb := range b.callbacks {
		if !cb.answered {
			out = append(out, record{Callback: &callbackRecord{ID: id, Chat: cb.chatID}})
		}
	}
	for k, list := range b.commands {
		out = append(out, record{Commands: &commandsRecord{Scope: k.scope, Chat: k.chat, User: k.user, Lang: k.lang, List: list}})
	}
	return out
}

// removeStrayFiles deletes the content of files no record names: written just before a crash
// kept their record from the journal.
func (s *Server) removeStrayFiles() {
	dir := filepath.Join(s.state.dir, filesDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if _, ok := s.files[e.Name()]; !ok {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
