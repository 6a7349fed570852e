package devtools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/botpg"
	"github.com/questbot/questbot/bot/devtools/devpg"
	"github.com/questbot/questbot/bot/texts"
)

// # Downloads
//
// A file sent into the chat is not downloaded in the transaction of the message that brings it:
// a slow download would hold that transaction, and the batch of other chats' updates that shares
// it, for as long as it lasts. The message handler records the file to fetch (a dev_fetch row,
// migration 016) and answers at once; the download runs outside any transaction, bounded in size
// (the kind's limit) and in time (Config.FetchTimeout); then the file is checked and stored in a
// transaction of its own (bot.Transport.Do), which removes the row.
//
// RunFetches is the worker. It looks for recorded files at start (what a stopped or crashed
// process left), whenever a transaction that recorded one commits (PostgreSQL's NOTIFY, which is
// delivered on commit only), when a download ends, and every fetchScan. A worker claims a row for
// the time a download may take plus a margin: a process that dies holding it lets go when the
// claim runs out, and another takes it again. So a crash at any point loses no upload: before the
// message's commit the message is handled again; after it the row waits; a download cut short is
// started again; a check whose transaction did not commit is done again (a file it wrote is the
// same file, named by its content, or is swept).
//
// Each chat's files are handled in the order they were sent, one at a time; several chats'
// files download at once (Config.FetchWorkers). The user's other messages are answered
// meanwhile and do not wait for the file: a save restored, or a quest uploaded, takes effect
// when its check is done, after the messages answered before it.
//
// The queue's statements are its store's (Config.Fetches, bot/devtools/devpg's by default):
// recording a file with its notification, the claim, the removal with the handling of the file,
// and the release.
//
// A download that fails is tried again after FetchRetry (times the attempts), up to
// fetchAttempts times; a file larger than announced, or one Telegram refuses to hand out, is not
// tried again. Either way the user is told, and the row goes.
//
// The queue also holds compilations of .qms sources (source.go): a row without a file that
// names the source; the worker compiles it outside any transaction and stores the result in a
// transaction of its own, like a file.
//
// Every job is bounded: a claim counts an attempt, and only a stop during a download (which
// costs nothing to do again) takes it back. A job whose handling fails is tried again up to
// fetchAttempts times; one whose handling was cut off (the process stopped while compiling or
// storing, or died, its claim then running out) counts that attempt too. A job claimed again
// after fetchAttempts attempts without an end, or failing at its last, is never handled again:
// it is quarantined (devpg: the row stays, with its last error, for the operator, and holds back
// none of the chat's later files; Sweep removes it after quarantineAge) and its sender is told
// that it was given up (texts.Dev.Quarantined). So no input, however it fails, is taken up at
// every start.

// Defaults of the downloads' settings (Config).
const (
	defaultFetchWorkers = 4
	defaultFetchTimeout = time.Minute
	defaultFetchRetry   = 10 * time.Second
)

const (
	// fetchAttempts is how often a file is downloaded, or checked, before it is given up.
	fetchAttempts = 3
	// fetchScan is how often the worker looks for rows no notification announced: retries due,
	// and claims of a process that died.
	fetchScan = 10 * time.Second
	// fetchChannel is the PostgreSQL notification channel of recorded files.
	fetchChannel = "questbot_dev_fetch"
	// claimMargin is how long a claim outlives the download's time limit: the check after it.
	claimMargin = time.Minute
	// claimTimeout bounds the statement that claims a file, which the stop does not cut off.
	claimTimeout = 10 * time.Second
	// quarantineAge is how long a quarantined job stays for the operator to look at.
	quarantineAge = 30 * 24 * time.Hour
)

// Fetcher is what the downloads need of the transport; bot.Transport implements it.
type Fetcher interface {
	Doer
	// Download fetches a file a user of a bot sent, up to max bytes (bot.ErrFileTooBig beyond),
	// within ctx; bot.ErrNoBot when this process does not run the bot.
	Download(ctx context.Context, service int, fileID string, max int64) ([]byte, string, error)
}

var _ Fetcher = (*bot.Transport)(nil)

// recordFetch records the document of the update to be fetched after the update's transaction
// commits, wakes the workers (on commit), and tells the user it is on its way.
func (t *Tools) recordFetch(ctx context.Context, tx bot.Tx, u *bot.Update, label string) error {
	payload, err := json.Marshal(u.Update)
	if err != nil {
		return fmt.Errorf("devtools: record upload: %w", err)
	}
	doc := u.Message.Document
	err = t.fetches.Record(ctx, tx.DB(), devpg.NewFetch{Service: u.Service, Chat: u.Chat, User: u.User.ID,
		FileID: doc.FileID, FileName: label, Size: doc.FileSize, Payload: payload}, fetchChannel)
	if err != nil {
		return fmt.Errorf("devtools: record upload: %w", err)
	}
	return sayf(ctx, tx, u, texts.For(u.User.Language).Dev.Received, label)
}

// fetchJob is a recorded file a worker has claimed.
type fetchJob struct {
	id       int64
	service  int
	chat     int64
	user     int64
	fileID   string
	label    string
	attempts int // this one included
	update   tgbotapi.Update
	claim    string
	// compile, when not "", makes the job the compilation of the sender's source of that name.
	compile string
}

// fetchRun is a run of RunFetches.
type fetchRun struct {
	*Tools
	pool *pgxpool.Pool
	f    Fetcher
	// poke wakes the loop that claims files.
	poke func()
}

// RunFetches downloads and handles the files users send, until ctx is done; pool is the
// database, f the transport. Run it once per process, beside the transport.
func (t *Tools) RunFetches(ctx context.Context, pool *pgxpool.Pool, f Fetcher) {
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	r := &fetchRun{Tools: t, pool: pool, f: f, poke: poke}
	var wg sync.WaitGroup
	wg.Go(func() { r.listen(ctx) })
	slots := make(chan struct{}, t.fetchWorkers)
	tick := time.NewTicker(fetchScan)
	defer tick.Stop()
	for ctx.Err() == nil {
		// Only this loop fills the slots, so one is free while the length is below capacity.
		for len(slots) < cap(slots) {
			job, err := r.claim(ctx)
			if err != nil {
				if ctx.Err() == nil {
					t.log.Warn("Claiming an upload failed", slog.Any("error", err))
				}
				break
			}
			if job == nil {
				break
			}
			slots <- struct{}{}
			wg.Go(func() {
				defer func() {
					<-slots
					poke()
				}()
				r.fetch(ctx, job)
			})
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-tick.C:
		}
	}
	wg.Wait()
}

// listen wakes the claiming loop whenever a transaction that recorded a file commits, until ctx
// is done (botpg.Watch).
func (r *fetchRun) listen(ctx context.Context) {
	pool := r.pool
	if r.listenPool != nil {
		pool = r.listenPool
	}
	botpg.Watch(ctx, pool, fetchChannel, r.log, r.poke)
}

// claim claims the next file to fetch (the oldest recorded file of a chat whose turn it is, see
// devpg.Store.Claim) for the time a download may take plus claimMargin; nil when there is none.
//
// The claim is not cut off by the process's stop: PostgreSQL may make a claim whose answer a
// cancellation loses, and the row would then stay held until its claim ran out, minutes after
// the next process started. A claim answered once the stop began is let go at once instead, its
// attempt not counted.
func (r *fetchRun) claim(ctx context.Context) (*fetchJob, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var token [16]byte
	rand.Read(token[:])
	job := &fetchJob{claim: hex.EncodeToString(token[:])}
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimTimeout)
	defer cancel()
	f, err := r.fetches.Claim(qctx, r.pool, job.claim, r.fetchTimeout+claimMargin)
	if err == nil && f != nil && ctx.Err() != nil {
		job.id = f.ID
		r.release(ctx, job, 0, "", false)
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("devtools: claim upload: %w", err)
	}
	if f == nil {
		return nil, nil
	}
	job.id, job.service, job.chat, job.user = f.ID, f.Service, f.Chat, f.User
	job.fileID, job.label, job.attempts, job.compile = f.FileID, f.FileName, f.Attempts, f.Compile
	if err := json.Unmarshal(f.Payload, &job.update); err != nil {
		// recordFetch wrote it; should it not read, the file is handled without the message
		// (the handlers need only its sender and chat).
		job.update = tgbotapi.Update{}
	}
	return job, nil
}

// fetch downloads a claimed file and has it handled, or does the compilation the job is.
func (r *fetchRun) fetch(ctx context.Context, job *fetchJob) {
	t := r.Tools
	log := t.log.With(slog.Int("service_id", job.service), slog.Int64("chat_id", job.chat), slog.Int64("fetch_id", job.id))
	if job.attempts > fetchAttempts {
		// Every attempt before this one ended without an answer: the process stopped while
		// handling the job, or died holding it. It is not tried again.
		log.Error("Upload cut off too often; it is quarantined", slog.Int("attempts", job.attempts-1))
		r.quarantine(ctx, job, log, "cut off while handled")
		return
	}
	if job.compile != "" {
		r.compileJob(ctx, job, log)
		return
	}
	k, ext := kindOf(job.label)
	limit := t.max[k]
	dctx, cancel := context.WithTimeout(ctx, t.fetchTimeout)
	start := time.Now()
	data, _, err := r.f.Download(dctx, job.service, job.fileID, limit)
	cancel()
	var apiErr *bot.Error
	switch {
	case ctx.Err() != nil:
		// Stopping: the file waits for the next run, as it was.
		r.release(ctx, job, 0, "", false)
	case errors.Is(err, bot.ErrNoBot):
		// Another process runs this bot; it takes the file.
		r.release(ctx, job, time.Minute, err.Error(), false)
	case errors.Is(err, bot.ErrFileTooBig):
		r.settle(ctx, job, log, func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
			return sayf(ctx, tx, u, texts.For(u.User.Language).Dev.TooBigUnsized, job.label, size(limit))
		})
	case err != nil:
		log.Warn("Upload not downloaded", slog.Any("error", err), slog.Duration("took", time.Since(start)),
			slog.Int("attempt", job.attempts))
		refused := errors.As(err, &apiErr) && apiErr.Code >= 400 && apiErr.Code < 500 && apiErr.Code != 429
		if !refused && job.attempts < fetchAttempts {
			r.release(ctx, job, t.fetchRetry*time.Duration(job.attempts), err.Error(), true)
			return
		}
		r.settle(ctx, job, log, func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
			return sayf(ctx, tx, u, texts.For(u.User.Language).Dev.NoDownload, job.label)
		})
	default:
		r.settle(ctx, job, log, func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
			return t.handleFile(ctx, tx, u, job.label, k, ext, data)
		})
	}
}

// errLost means a claimed row was taken by another worker after the claim ran out, or removed.
var errLost = errors.New("devtools: the upload is no longer ours")

// errNoSender means the user who sent a file is not known (any more): there is nobody to answer.
var errNoSender = errors.New("devtools: the sender of the upload is unknown")

// settle runs fn on the file's update in a transaction of its own that removes the file's row:
// fn's answer and the row's removal commit together. A failure is retried like a download, then
// given up with an apology.
func (r *fetchRun) settle(ctx context.Context, job *fetchJob, log *slog.Logger, fn bot.Handler) {
	t := r.Tools
	err := r.f.Do(ctx, job.service, func(ctx context.Context, tx bot.Tx) error {
		u, err := t.take(ctx, tx, job)
		if err != nil {
			return err
		}
		return fn(ctx, tx, u)
	})
	switch {
	case err == nil:
	case errors.Is(err, errLost):
		log.Debug("Upload taken over by another worker")
	default:
		r.failed(ctx, job, log, err)
	}
}

// failed lets a job whose handling failed with err go: to be tried again, or, at its last
// attempt, quarantined. A handling cut off by the process's stop counts as an attempt.
func (r *fetchRun) failed(ctx context.Context, job *fetchJob, log *slog.Logger, err error) {
	switch {
	case ctx.Err() != nil:
		r.release(ctx, job, 0, "cut off: "+err.Error(), true)
	case job.attempts < fetchAttempts:
		log.Warn("Upload not handled; it will be tried again", slog.Any("error", err), slog.Int("attempt", job.attempts))
		r.release(ctx, job, r.fetchRetry*time.Duration(job.attempts), err.Error(), true)
	default:
		log.Error("Upload not handled; it is quarantined", slog.Any("error", err))
		r.quarantine(ctx, job, log, err.Error())
	}
}

// quarantine sets a claimed job aside for good and tells its sender, in a transaction of its
// own.
func (r *fetchRun) quarantine(ctx context.Context, job *fetchJob, log *slog.Logger, lastError string) {
	t := r.Tools
	err := r.f.Do(ctx, job.service, func(ctx context.Context, tx bot.Tx) error {
		ok, err := t.fetches.Quarantine(ctx, tx.DB(), job.id, job.claim, lastError)
		switch {
		case err != nil:
			return fmt.Errorf("devtools: quarantine upload %d: %w", job.id, err)
		case !ok:
			return errLost
		}
		u, err := t.sender(ctx, tx, job)
		switch {
		case errors.Is(err, errNoSender):
			return nil // set aside all the same
		case err != nil:
			return err
		}
		return sayf(ctx, tx, u, texts.For(u.User.Language).Dev.Quarantined, job.label, fetchAttempts)
	})
	if err != nil && !errors.Is(err, errLost) {
		log.Error("Quarantining the upload failed; its claim runs out", slog.Any("error", err))
	}
}

// compileJob does a claimed compilation: it reads the sender's sources in a short transaction,
// compiles outside any, and answers in a transaction of its own that removes the job (settle).
func (r *fetchRun) compileJob(ctx context.Context, job *fetchJob, log *slog.Logger) {
	t := r.Tools
	var files map[string]string
	err := r.f.Do(ctx, job.service, func(ctx context.Context, tx bot.Tx) error {
		var err error
		files, err = t.store.SourceFiles(ctx, tx.DB(), job.service, job.user)
		return err
	})
	if err != nil {
		r.failed(ctx, job, log, fmt.Errorf("devtools: sources of %d: %w", job.user, err))
		return
	}
	start := time.Now()
	c := t.compileSource(ctx, files, job.compile)
	if ctx.Err() != nil {
		log.Warn("Compilation cut off by the stop", slog.String("source", job.compile), slog.Duration("took", time.Since(start)))
		r.release(ctx, job, 0, "cut off while compiling", true)
		return
	}
	log.Debug("Source compiled", slog.String("source", job.compile), slog.Duration("took", time.Since(start)))
	r.settle(ctx, job, log, func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		ok, err := t.mayDevelop(ctx, tx, u)
		if err != nil {
			return err
		}
		if !ok {
			return say(ctx, tx, u, texts.For(u.User.Language).Dev.NotDeveloper)
		}
		return t.storeCompiled(ctx, tx, u, c)
	})
}

// take removes the claimed row in tx (errLost when it is no longer this claim's) and returns
// the update that brought the file, with its sender as the database knows them now
// (errNoSender, the row removed in tx all the same, when the database does not know them).
func (t *Tools) take(ctx context.Context, tx bot.Tx, job *fetchJob) (*bot.Update, error) {
	ok, err := t.fetches.Take(ctx, tx.DB(), job.id, job.claim)
	if err != nil {
		return nil, fmt.Errorf("devtools: take upload %d: %w", job.id, err)
	}
	if !ok {
		return nil, errLost
	}
	return t.sender(ctx, tx, job)
}

// sender returns the update that brought the job, with its sender as the database knows them
// now; errNoSender when the database does not know them.
func (t *Tools) sender(ctx context.Context, tx bot.Tx, job *fetchJob) (*bot.Update, error) {
	p, err := t.users.Profile(ctx, tx.DB(), job.user)
	if errors.Is(err, botpg.ErrNoUser) {
		return nil, errNoSender
	}
	if err != nil {
		return nil, fmt.Errorf("devtools: sender of upload %d: %w", job.id, err)
	}
	return &bot.Update{Update: job.update, Service: job.service, Chat: job.chat, User: &bot.User{ID: p.ID, ChatID: p.Chat,
		Username: p.Username, FirstName: p.FirstName, Language: p.Lang, IsAdmin: p.Admin}}, nil
}

// release lets a claimed row go, to be taken again after wait; counted false takes back the
// attempt the claim counted (the process is stopping, or the bot is another process's).
func (r *fetchRun) release(ctx context.Context, job *fetchJob, wait time.Duration, lastError string, counted bool) {
	// The row is let go also when ctx was cancelled: the next run takes it at once.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := r.fetches.Release(rctx, r.pool, job.id, job.claim, wait, lastError, counted)
	if err != nil {
		r.log.Warn("Letting an upload go failed; its claim runs out", slog.Int64("fetch_id", job.id), slog.Any("error", err))
		return
	}
	if wait > 0 && ctx.Err() == nil {
		time.AfterFunc(wait, r.poke)
	}
}

// handleFile checks and stores a downloaded file, or restores a save, answering in tx. The
// sender's role is read again: it may have changed since the file was sent.
func (t *Tools) handleFile(ctx context.Context, tx bot.Tx, u *bot.Update, label string, k kind, ext string, data []byte) error {
	if k == kindQMS {
		if !isSource(data) {
			if limit := t.max[kindSave]; int64(len(data)) > limit {
				return sayf(ctx, tx, u, texts.For(u.User.Language).Dev.TooBig, label, size(int64(len(data))), size(limit))
			}
			return t.restore(ctx, tx, u, label, ext, data)
		}
		k = kindSource
	}
	if k != kindSave {
		ok, err := t.mayDevelop(ctx, tx, u)
		if err != nil {
			return err
		}
		if !ok {
			return say(ctx, tx, u, texts.For(u.User.Language).Dev.NotDeveloper)
		}
	}
	switch k {
	case kindQuest:
		return t.uploadQuest(ctx, tx, u, label, data)
	case kindImage:
		return t.uploadImage(ctx, tx, u, label, ext, data)
	case kindSave:
		return t.restore(ctx, tx, u, label, ext, data)
	case kindSource:
		return t.uploadSource(ctx, tx, u, label, data)
	}
	return sayf(ctx, tx, u, texts.For(u.User.Language).Dev.Unsupported, label)
}
