package tgemu

import (
	"bufio"
	"bytes"
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

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Replaying and compacting the journal of state.go.

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
