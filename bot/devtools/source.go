package devtools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/devtools/devpg"
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/qms"
	"github.com/questbot/questbot/quest/questfs"
	"github.com/questbot/questbot/quest/questpg"
	"github.com/questbot/questbot/scripts"
)

// # Quest sources
//
// A .qms file is one of two things, told apart by its content: a quest source in the original
// bot's authoring language (text: valid UTF-8 without NUL bytes), or a binary save of the original
// bot (its fields are little-endian integers, so it always holds NUL bytes). A save is restored
// for anybody, as before; a source is for developers: it is stored as an upload of its own kind
// (dev/sources/<sha256>.qms, versions counted by its name) and compiled with /compile <name>, or
// at once when the message that brings it has the caption /compile.
//
// A compilation is a job of the queue of uploads (fetch.go), never the work of a transaction:
// /compile, and a source stored whose message had the caption /compile, record it, and a worker
// compiles outside any transaction (the sources are read in a short transaction before, the
// result stored in one after), within the compiler's limits (Config.CompileLimits,
// qms.DefaultLimits) and until the process stops; a compilation cut off by a stop is counted
// as an attempt, so that a source that never ends is set aside (fetch.go), not compiled at
// every start. Like every job of a chat, a compilation waits for the chat's older jobs:
// "/compile x" right after sending a new version of x.qms compiles that version; the
// compilation a caption asks for is recorded once its source is stored, after the files the
// chat sent meanwhile.
//
// Compiling reads the newest version of the source, and of every source its #include lines name
// (the developer's own uploads in the same bot, by name, with or without .qms), through package
// qms. A source that passes a limit of the compiler is told which one and where, and stores
// nothing. A source that does not compile gets the list of errors (the first 20, and their count),
// each with its file, line and column. What the compiler tolerated, as the original did (an
// unknown directive, a case to a missing site), comes as warnings with the compiled quest. A
// compiled quest goes the way of an uploaded .qmm: checked as one (it must decode,
// compile, start and enter its first location), stored as a new version of the developer's quest
// of the source's name, private, and run at once as a sandbox game.
//
// /decompile sends the running game's quest as a source (qms.Decompile): a developer may change
// it and send it back.

// maxSourceErrors is how many errors (or warnings) a compilation shows in the chat; the count
// says how many there were in all.
const maxSourceErrors = 20

// isSource reports whether a .qms file is a quest source rather than a binary save.
func isSource(data []byte) bool {
	return bytes.IndexByte(data, 0) < 0 && utf8.Valid(data)
}

// sourceKey is the name a source's versions are counted by, and the name #include finds it by:
// its file name without .qms, in lower case.
func sourceKey(name string) string {
	name = strings.TrimSpace(name)
	if strings.EqualFold(path.Ext(name), ".qms") {
		name = name[:len(name)-len(".qms")]
	}
	return strings.ToLower(strings.TrimSpace(name))
}

// uploadSource checks and stores an uploaded source, as a new version of the owner's source of
// that name, then compiles it when the message asked for it (its caption is /compile).
func (t *Tools) uploadSource(ctx context.Context, tx bot.Tx, u *bot.Update, label string, data []byte) error {
	txt := texts.For(u.User.Language).Dev
	if limit := t.max[kindSource]; int64(len(data)) > limit {
		return sayf(ctx, tx, u, txt.TooBig, label, size(int64(len(data))), size(limit))
	}
	key := sourceKey(label)
	if key == "" {
		key = "source"
	}
	db := tx.DB()
	hash := sum(data)
	last, err := t.store.LastUpload(ctx, db, u.Service, u.User.ID, "source", key)
	if err != nil {
		return err
	}
	if last.Version > 0 && last.SHA256 == hash {
		err = sayf(ctx, tx, u, txt.SourceSame, label, last.Version, key)
	} else {
		rel := "dev/sources/" + hash + ".qms"
		wrote, kerr := t.keep(rel, data)
		if kerr != nil {
			return kerr
		}
		err = t.store.AddSourceUpload(ctx, db, questpg.NewFileUpload{Service: u.Service, Owner: u.User.ID, Key: key,
			FileName: label, Version: last.Version + 1, File: rel, SHA256: hash, Size: len(data)})
		if err != nil {
			t.unstore(rel, wrote)
			return fmt.Errorf("devtools: %w", err)
		}
		err = sayf(ctx, tx, u, txt.SourceStored, label, last.Version+1, key)
	}
	if err != nil || !compileCaption(u) {
		return err
	}
	return t.recordCompile(ctx, tx, u, key)
}

// recordCompile records the compilation of the user's source key as a job of the queue of
// uploads, to be done after tx commits (compileJob).
func (t *Tools) recordCompile(ctx context.Context, tx bot.Tx, u *bot.Update, key string) error {
	payload, err := json.Marshal(u.Update)
	if err != nil {
		return fmt.Errorf("devtools: record compilation: %w", err)
	}
	err = t.fetches.Record(ctx, tx.DB(), devpg.NewFetch{Service: u.Service, Chat: u.Chat, User: u.User.ID,
		FileName: key, Payload: payload, Compile: key}, fetchChannel)
	if err != nil {
		return fmt.Errorf("devtools: record compilation: %w", err)
	}
	return nil
}

// compileCaption reports whether the message that brought a file asks for it to be compiled.
func compileCaption(u *bot.Update) bool {
	if u.Message == nil {
		return false
	}
	c := strings.Fields(u.Message.Caption)
	return len(c) > 0 && (c[0] == "/compile" || strings.HasPrefix(c[0], "/compile@"))
}

// compile is dev.compile (/compile <name>): it has the developer's source of that name
// compiled (recordCompile). The answers are the compilation's own; the codes left to the tree
// are usage and not_found (field list: the developer's sources), forbidden, and ok.
func (t *Tools) compile(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	if ok, err := t.mayDevelop(ctx, tx, u); err != nil || !ok {
		return forbidden, err
	}
	key := sourceKey(args["what"])
	if key == "" {
		return t.sourceList(ctx, tx, u, "usage")
	}
	files, err := t.store.SourceFiles(ctx, tx.DB(), u.Service, u.User.ID)
	if err != nil {
		return nil, err
	}
	if _, ok := files[key]; !ok {
		return t.sourceList(ctx, tx, u, "not_found")
	}
	if err := t.recordCompile(ctx, tx, u, key); err != nil {
		return nil, err
	}
	return &scripts.Result{Code: "ok"}, nil
}

// sourceList is a result of code with the developer's sources as its list field.
func (t *Tools) sourceList(ctx context.Context, tx bot.Tx, u *bot.Update, code string) (*scripts.Result, error) {
	files, err := t.store.SourceFiles(ctx, tx.DB(), u.Service, u.User.ID)
	if err != nil {
		return nil, err
	}
	txt := texts.For(u.User.Language).Dev
	if len(files) == 0 {
		return result(code, "list", txt.NoSources), nil
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, html.EscapeString(name))
	}
	slices.Sort(names)
	return result(code, "list", txt.YourSources+" "+strings.Join(names, ", ")), nil
}

// compiledSource is a source compiled: the quest, or the errors (err), and the warnings.
type compiledSource struct {
	key      string
	found    bool // false: the user has no such source (any more)
	q        *qmm.Quest
	warnings qms.ErrorList
	err      error
}

// compileSource compiles the source key of a developer, whose sources are files, within the
// compiler's limits and until ctx is done (then the error wraps ctx.Err()). It does no I/O but
// reading the sources' files: call it outside any transaction.
func (t *Tools) compileSource(ctx context.Context, files map[string]string, key string) compiledSource {
	if _, ok := files[key]; !ok {
		return compiledSource{key: key}
	}
	q, warnings, err := qms.CompileContext(ctx, &sourceFS{root: t.root, files: files}, key+".qms", t.compileLimits)
	return compiledSource{key: key, found: true, q: q, warnings: warnings, err: err}
}

// storeCompiled answers a compilation in tx: the errors (the limit passed), or the quest stored
// and started as a sandbox.
func (t *Tools) storeCompiled(ctx context.Context, tx bot.Tx, u *bot.Update, c compiledSource) error {
	txt := texts.For(u.User.Language).Dev
	key := c.key
	if !c.found {
		return sayf(ctx, tx, u, txt.SourceGone, key)
	}
	q, warnings, err := c.q, c.warnings, c.err
	var limit *qms.LimitError
	var list qms.ErrorList
	switch {
	case errors.As(err, &limit) && errors.As(err, &list):
		return say(ctx, tx, u, escapef(txt.SourceLimit, key, limitText(txt, limit))+
			"\n<pre>"+html.EscapeString(clip(list[len(list)-1].Error(), 300))+"</pre>")
	case errors.As(err, &list):
		return say(ctx, tx, u, problemList(escapef(txt.SourceErrors, key, len(list)), list))
	case err != nil:
		return sayf(ctx, tx, u, txt.SourceBroken, key, clip(err.Error(), 300))
	}
	var b bytes.Buffer
	if err := qmm.Encode(&b, q); err != nil {
		return sayf(ctx, tx, u, txt.SourceBroken, key, clip(err.Error(), 300))
	}
	st, err := t.storeQuest(ctx, tx, u, key+".qmm", b.Bytes())
	switch {
	case err != nil:
		return err
	case st.problem != "":
		return sayf(ctx, tx, u, txt.SourceBroken, key, st.problem)
	}
	var done string
	if st.same {
		done = escapef(txt.CompiledSame, key, st.version, st.script)
	} else {
		done = escapef(txt.Compiled, key, len(q.Locations), len(q.Jumps), st.script, st.version)
	}
	if len(warnings) > 0 {
		done = problemList(done+"\n"+escapef(txt.SourceWarnings, len(warnings)), warnings)
	}
	done = withWarnings(done, u, st.warnings)
	if err := say(ctx, tx, u, done); err != nil {
		return err
	}
	sc, err := t.store.Openable(ctx, tx.DB(), u.Service, u.User.ID, st.script)
	if err != nil {
		return fmt.Errorf("devtools: compiled quest %d: %w", st.script, err)
	}
	err = t.startSandbox(ctx, tx, u, sc, nil, "")
	if errors.Is(err, questfs.ErrUnplayable) {
		return sayf(ctx, tx, u, txt.Unplayable, reason(err))
	}
	return err
}

// limitText says which limit of the compiler a source passed, in the user's language.
func limitText(txt texts.Dev, l *qms.LimitError) string {
	n := strconv.FormatInt(l.Max, 10)
	switch l.Limit {
	case "sites":
		return fmt.Sprintf(txt.LimitSites, n)
	case "jumps":
		return fmt.Sprintf(txt.LimitJumps, n)
	case "params":
		return fmt.Sprintf(txt.LimitParams, n)
	case "memory":
		return fmt.Sprintf(txt.LimitMemory, strconv.FormatInt(l.Max>>20, 10))
	}
	return fmt.Sprintf(txt.LimitSteps, n)
}

// problemList is head (HTML) followed by the first errors or warnings of list, one a line, as
// preformatted text.
func problemList(head string, list qms.ErrorList) string {
	var b strings.Builder
	for i, e := range list {
		if i == maxSourceErrors {
			b.WriteString("…")
			break
		}
		b.WriteString(clip(e.Error(), 300))
		b.WriteByte('\n')
	}
	return head + "\n<pre>" + html.EscapeString(strings.TrimRight(b.String(), "\n")) + "</pre>"
}

// decompile is dev.decompile (/decompile): the running game's quest as a .qms source.
func (t *Tools) decompile(ctx context.Context, tx bot.Tx, u *bot.Update, args map[string]string) (*scripts.Result, error) {
	return t.document(ctx, tx, u, func(r *current) (string, []byte, error) {
		return fileBase(r.gm.Script.ID) + ".qms", qms.Decompile(r.qf.Doc), nil
	})
}

// sourceFS is a developer's sources as the compiler reads them: a name (with or without .qms,
// any case) opens the newest version of the source of that name.
type sourceFS struct {
	root  string
	files map[string]string // source key → stored file, relative to root
}

func (s *sourceFS) Open(name string) (fs.File, error) {
	rel, ok := s.files[sourceKey(name)]
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	f, err := os.Open(filepath.Join(s.root, rel))
	if err != nil {
		// The stored name says nothing to the developer: report the name they gave.
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.Unwrap(err)}
	}
	return f, nil
}
