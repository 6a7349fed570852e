package botpg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/bot"
)

// queueOutbox adds the insertion of reqs, in order, to b and returns the lanes of the chats they
// are queued in. replyTo is the chat of the update being handled (0 outside an update): it
// decides the lane of a request that carries a state (bot.QueueLane). The requests of one state
// (consecutive, same chat and Request.State) are queued with the supersession of the pending
// rows of that state they make useless (supersedeSQL), in the same statement.
func (s *Store) queueOutbox(b *pgx.Batch, service int, reqs []bot.Request, replyTo int64) []bot.ChatKey {
	w := s.outboxWriter(b)
	touched := w.add(service, reqs, replyTo)
	w.flush()
	return touched
}

// outboxWriter queues the requests of several transactions' worth of work (the updates of a
// batch, or the chats one change shows itself in) into one pgx.Batch in as few statements as
// their order allows, most often one: the requests without a state, whatever their bot, chat or
// update, and each run of one state with the supersession of the pending rows of that state it
// makes useless go in one statement (insertSQL when there is no run of a state, supersedeSQL
// otherwise), whose rows take the outbox's ids in the order in which they were added. A run of a
// state that a run already in the statement has (same bot, chat and state) starts a new
// statement: its supersession must see the rows of the earlier run, which a statement's own
// insertions are not.
type outboxWriter struct {
	s *Store
	b *pgx.Batch
	// rows are the requests of the statement being gathered; services, and states ("" for
	// none), are theirs.
	services []int32
	states   []*string
	rows     rows
	// runs are the runs of a state among them, with what each supersedes.
	runs runs
	keys map[runKey]bool
}

// runKey names the pending rows one run of a state supersedes among.
type runKey struct {
	service int
	chat    int64
	state   string
}

// runs are the runs of a state of one statement as the columns supersedeSQL unnests.
type runs struct {
	services      []int32
	chats         []int64
	states, modes []string
	methods       []string // the methods an edit covers, joined by commas
	targets, msgs []*string
}

func (s *Store) outboxWriter(b *pgx.Batch) *outboxWriter { return &outboxWriter{s: s, b: b} }

// add queues reqs of bot service, in order, and returns the lanes of the chats they are queued
// in (see queueOutbox).
func (w *outboxWriter) add(service int, reqs []bot.Request, replyTo int64) []bot.ChatKey {
	var touched []bot.ChatKey
	seen := map[bot.ChatKey]bool{}
	note := func(chat int64, lane int16) {
		if k := (bot.ChatKey{Service: service, Chat: chat, Lane: bot.Lane(lane)}); !seen[k] {
			seen[k] = true
			touched = append(touched, k)
		}
	}
	for len(reqs) > 0 {
		// The next run: the requests of one state, or those up to the next state.
		n := 1
		for n < len(reqs) && sameRun(reqs[0], reqs[n]) {
			n++
		}
		batch := reqs[:n]
		reqs = reqs[n:]
		var state *string
		if st := batch[0].State; st != "" {
			key := runKey{service: service, chat: batch[0].ChatID, state: st}
			if w.keys[key] {
				w.flush()
			}
			if w.keys == nil {
				w.keys = map[runKey]bool{}
			}
			w.keys[key] = true
			var gone int
			batch, gone = coveredInRun(batch)
			w.s.superseded.Add(int64(gone))
			mode, methods, ref, msg := supersedes(batch)
			w.runs.add(service, key.chat, st, mode, methods, ref, msg)
			state = &st
		}
		from := len(w.rows.chats)
		w.rows.append(batch, replyTo)
		for range batch {
			w.services = append(w.services, int32(service))
			w.states = append(w.states, state)
		}
		for i, chat := range w.rows.chats[from:] {
			note(chat, w.rows.lanes[from+i])
		}
	}
	return touched
}

// add appends one run of a state.
func (r *runs) add(service int, chat int64, state, mode string, methods []string, ref, msg *string) {
	r.services = append(r.services, int32(service))
	r.chats = append(r.chats, chat)
	r.states = append(r.states, state)
	r.modes = append(r.modes, mode)
	r.methods = append(r.methods, strings.Join(methods, ","))
	r.targets = append(r.targets, ref)
	r.msgs = append(r.msgs, msg)
}

// flush queues the statement of the requests added since the last flush.
func (w *outboxWriter) flush() {
	if len(w.services) == 0 {
		return
	}
	r := w.rows
	if len(w.runs.states) == 0 {
		w.b.Queue(insertSQL, w.services, r.chats, r.methods, r.params, r.files, r.refs, r.targets, r.lanes, r.fallbacks, r.draws)
	} else {
		u := w.runs
		w.b.Queue(supersedeSQL, u.services, u.chats, u.states, u.modes, u.methods, u.targets, u.msgs,
			w.services, r.chats, w.states, r.methods, r.params, r.files, r.refs, r.targets, r.lanes, r.fallbacks, r.draws).
			QueryRow(func(row pgx.Row) error {
				var gone int64
				if err := row.Scan(&gone); err != nil {
					return err
				}
				w.s.superseded.Add(gone)
				return nil
			})
	}
	w.services, w.states, w.rows, w.runs, w.keys = nil, nil, rows{}, runs{}, nil
}

// coveredInRun drops the edits of a run of one state that a later edit of the same message in
// the run covers (a board shown again as it is, then with a selection, in one transaction), as
// supersedeSQL drops the pending ones, and returns what is left and how many were dropped.
func coveredInRun(reqs []bot.Request) ([]bot.Request, int) {
	if len(reqs) < 2 {
		return reqs, 0
	}
	target := func(r bot.Request) string {
		return r.TargetRef + "\x00" + r.Params["message_id"] + "\x00" + r.Params["inline_message_id"]
	}
	out := make([]bot.Request, 0, len(reqs))
	for i, r := range reqs {
		covered := false
		if _, edit := covers[r.Method]; edit {
			for _, later := range reqs[i+1:] {
				if !strings.HasPrefix(later.Method, "edit") {
					break // a copy or a deletion in between: the order matters
				}
				if target(later) == target(r) && slices.Contains(covers[later.Method], r.Method) {
					covered = true
					break
				}
			}
		}
		if !covered {
			out = append(out, r)
		}
	}
	return out, len(reqs) - len(out)
}

// sameRun reports whether b is queued in the same statement as a: both without a state, or both
// of the same state in the same chat.
func sameRun(a, b bot.Request) bool {
	return a.State == b.State && (a.State == "" || a.ChatID == b.ChatID)
}

// rows are requests as the columns of the outbox, for unnest.
type rows struct {
	chats                           []int64
	methods, params                 []string
	files, refs, targets, fallbacks []*string
	draws                           []*string
	lanes                           []int16
}

// append adds reqs to r.
func (r *rows) append(reqs []bot.Request, replyTo int64) {
	for _, q := range reqs {
		raw, _ := json.Marshal(q.Params) // a map of strings always marshals
		var file, ref, target, fallback, draw *string
		if q.FilePath != "" {
			file = &q.FilePath
		}
		if q.Draw != nil {
			raw, _ := json.Marshal(q.Draw) // two strings always marshal
			d := string(raw)
			draw = &d
		}
		if q.Ref != "" {
			ref = &q.Ref
		}
		if q.TargetRef != "" {
			target = &q.TargetRef
		}
		if len(q.OnFailure) > 0 {
			fallback = onFailure(q.OnFailure)
		}
		r.chats = append(r.chats, q.ChatID)
		r.methods = append(r.methods, q.Method)
		r.params = append(r.params, string(raw))
		r.files = append(r.files, file)
		r.refs = append(r.refs, ref)
		r.targets = append(r.targets, target)
		r.fallbacks = append(r.fallbacks, fallback)
		r.draws = append(r.draws, draw)
		r.lanes = append(r.lanes, int16(bot.QueueLane(q, replyTo)))
	}
}

// insertSQL queues requests without a state, each of its own bot ($1), in the order given.
const insertSQL = `
	INSERT INTO outbox (service_id, chat_id, method, params, file_path, ref, target_ref, lane, on_failure, draw)
	SELECT r.service, r.chat, r.method, r.params::jsonb, r.file, r.ref, r.target, r.lane, r.fallback::jsonb, r.draw::jsonb
	FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::smallint[],
		$9::text[], $10::text[]) WITH ORDINALITY AS r (service, chat, method, params, file, ref, target, lane, fallback, draw, n)
	ORDER BY r.n`

// The supersession modes of supersedeSQL: what pending rows of the state the new ones drop.
const (
	// dropAll: a copy sent anew drops every pending row of the state: its edits, the sends of
	// copies never sent, and the deletions of older copies (the new requests delete them).
	dropAll = "all"
	// dropShown: a deletion drops the pending edits and sends (a message never sent needs no
	// deletion: its send is dropped, and the deletion finds nothing to delete).
	dropShown = "shown"
	// dropEdits: an edit drops the pending edits of the same message that it covers (the
	// methods given).
	dropEdits = "edits"
)

// supersedeSQL queues requests ($8 to $18: bot, chat, state or none, and the columns of rows)
// in the order given, and drops, in the same statement, the pending rows that the runs of a
// state among them supersede. A run ($1 to $7, one element each) names its bot, chat and state,
// the mode ($4) and, for dropEdits, the methods its edits cover ($5, joined by commas) and the
// message edited: $6, the ref it is edited by, or $7, its message_id, or an inline message's
// inline_message_id. A statement holds at most one run of a state in a chat. Rows a sender holds
// (FOR UPDATE SKIP LOCKED) or whose send is under way without its batch (in_flight) are left to
// be sent, since Telegram may have them. A copy sent anew that replaces a copy never sent with
// a sound takes its sound (the notification the user is owed). It returns how many rows were
// dropped.
const supersedeSQL = `
	WITH run AS (
		SELECT * FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
			AS u (service, chat, state, mode, methods, target, msg)),
	gone AS (
		DELETE FROM outbox WHERE id IN (
			SELECT o.id FROM run u JOIN outbox o
				ON o.service_id = u.service AND o.chat_id = u.chat AND o.state = u.state
			WHERE o.status = 'pending' AND NOT o.in_flight
				AND CASE u.mode WHEN 'all' THEN true WHEN 'shown' THEN o.method NOT LIKE 'delete%'
					ELSE o.method = ANY(string_to_array(u.methods, ',')) AND o.target_ref IS NOT DISTINCT FROM u.target
						AND coalesce(o.params->>'message_id', o.params->>'inline_message_id') IS NOT DISTINCT FROM u.msg END
			FOR UPDATE OF o SKIP LOCKED)
		RETURNING service_id, chat_id, state, method, params),
	loud AS (
		SELECT DISTINCT service_id, chat_id, state FROM gone
		WHERE method LIKE 'send%' AND coalesce(params->>'disable_notification', '') <> 'true'),
	ins AS (
		INSERT INTO outbox (service_id, chat_id, method, params, file_path, ref, target_ref, lane, on_failure, state, draw)
		SELECT r.service, r.chat, r.method,
			CASE WHEN r.method LIKE 'send%' AND EXISTS (SELECT 1 FROM loud l
					WHERE l.service_id = r.service AND l.chat_id = r.chat AND l.state = r.state)
				THEN r.params::jsonb - 'disable_notification' ELSE r.params::jsonb END,
			r.file, r.ref, r.target, r.lane, r.fallback::jsonb, r.state, r.draw::jsonb
		FROM unnest($8::int[], $9::bigint[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
			$16::smallint[], $17::text[], $18::text[])
			WITH ORDINALITY AS r (service, chat, state, method, params, file, ref, target, lane, fallback, draw, n)
		ORDER BY r.n
		RETURNING 1)
	SELECT count(*) FROM gone`

// covers are the edits that an edit makes useless: a new photo comes with its caption and
// keyboard, a new caption with its keyboard.
var covers = map[string][]string{
	"editMessageMedia":       {"editMessageMedia", "editMessageCaption", "editMessageReplyMarkup"},
	"editMessageCaption":     {"editMessageCaption", "editMessageReplyMarkup"},
	"editMessageText":        {"editMessageText", "editMessageReplyMarkup"},
	"editMessageReplyMarkup": {"editMessageReplyMarkup"},
}

// supersedes returns what the requests of one state drop of its pending rows: the mode of
// supersedeSQL and, for dropEdits, the methods and the message edited (the first edit's: by its
// ref, or by its message_id).
func supersedes(reqs []bot.Request) (mode string, methods []string, ref, msg *string) {
	mode = dropEdits
	for _, r := range reqs {
		switch {
		case r.Aside:
			// An aside is worth sending only while it is the latest of its state: a newer one
			// drops the pending ones (see bot.Request.Aside).
			return dropAll, nil, nil, nil
		case strings.HasPrefix(r.Method, "send"):
			return dropAll, nil, nil, nil
		case strings.HasPrefix(r.Method, "delete"):
			mode = dropShown
		default:
			if methods == nil {
				if r.TargetRef != "" {
					ref = &r.TargetRef
				} else if id, ok := r.Params["message_id"]; ok {
					msg = &id
				} else if id, ok := r.Params["inline_message_id"]; ok {
					msg = &id // an inline message: its key may, rarely, be another's too
				}
			}
			methods = append(methods, covers[r.Method]...)
		}
	}
	if mode == dropShown {
		return mode, nil, nil, nil
	}
	return mode, methods, ref, msg
}

// onFailure is the stored form of a request's OnFailure: a JSON array of {method, params, lane,
// ref, target_ref}.
func onFailure(reqs []bot.Request) *string {
	type fallback struct {
		Method    string            `json:"method"`
		Params    map[string]string `json:"params"`
		Lane      bot.Lane          `json:"lane"`
		Ref       string            `json:"ref,omitempty"`
		TargetRef string            `json:"target_ref,omitempty"`
	}
	list := make([]fallback, len(reqs))
	for i, r := range reqs {
		list[i] = fallback{Method: r.Method, Params: r.Params, Lane: bot.LaneOf(r.Method), Ref: r.Ref, TargetRef: r.TargetRef}
	}
	raw, _ := json.Marshal(list) // strings, numbers and maps of strings always marshal
	s := string(raw)
	return &s
}

// Enqueue implements bot.Store.
func (s *Store) Enqueue(ctx context.Context, service int, reqs []bot.Request) ([]bot.ChatKey, error) {
	b := &pgx.Batch{}
	reqs = s.seal.seal(reqs, nil)
	touched := s.queueOutbox(b, service, reqs, 0)
	queueSecrets(b, service, reqs, nil)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("enqueue: %w", err)
	}
	return touched, nil
}

// PendingOutbox implements bot.Store.
func (s *Store) PendingOutbox(ctx context.Context, limit int) (map[bot.ChatKey]time.Time, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT ON (service_id, chat_id, lane) service_id, chat_id, lane, not_before
		FROM outbox WHERE status = 'pending'
		ORDER BY service_id, chat_id, lane, id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("pending outbox: %w", err)
	}
	defer rows.Close()
	out := map[bot.ChatKey]time.Time{}
	for rows.Next() {
		var k bot.ChatKey
		var lane int16
		var due *time.Time
		if err := rows.Scan(&k.Service, &k.Chat, &lane, &due); err != nil {
			return nil, fmt.Errorf("pending outbox: %w", err)
		}
		k.Lane = bot.Lane(lane)
		if due != nil {
			out[k] = *due
		} else {
			out[k] = time.Time{}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pending outbox: %w", err)
	}
	return out, nil
}

// sendClaimSQL claims the first pending row of each of a set of lanes of chats (arrays $1 of
// service ids, $2 of chat ids and $3 of lanes), with what is known of its file and the messages
// recorded under the ref it targets. A lane whose first row another process holds comes back
// without a row (busy), and so does a lane whose first row carries a state of which an older
// row is pending in another lane of the chat: the rows of one state go in the order they were
// queued, so that an edit never overtakes the send of the message it edits.
const sendClaimSQL = `
	WITH k AS (
		SELECT * FROM unnest($1::int[], $2::bigint[], $3::smallint[]) AS k (service_id, chat_id, lane)),
	h AS (
		SELECT o.service_id, o.chat_id, o.lane, min(o.id) AS id, count(*) AS n
		FROM outbox o JOIN k USING (service_id, chat_id, lane)
		WHERE o.status = 'pending' GROUP BY 1, 2, 3),
	c AS (
		SELECT o.* FROM outbox o JOIN h ON o.id = h.id
		WHERE o.status = 'pending' AND NOT EXISTS (
			SELECT 1 FROM outbox p
			WHERE p.service_id = o.service_id AND p.chat_id = o.chat_id AND p.state = o.state
				AND p.status = 'pending' AND p.id < o.id)
		FOR UPDATE OF o SKIP LOCKED)
	SELECT h.service_id, h.chat_id, h.lane, h.n, c.id, c.method, c.params, c.file_path, c.attempts,
		c.created_at, c.not_before, c.failing_since, f.file_id, f.size, f.mod_time, c.ref, c.target_ref, c.state,
		(SELECT array_agg(r.message_id ORDER BY r.sent_at, r.message_id) FROM sent_ref r
		 WHERE r.service_id = c.service_id AND r.chat_id = c.chat_id AND r.ref = c.target_ref), c.secrets,
		c.on_failure IS NOT NULL, c.draw
	FROM h LEFT JOIN c ON c.id = h.id
	LEFT JOIN tg_file f ON f.service_id = c.service_id AND f.path = c.file_path`

// SendBatch implements bot.Store. It works on a connection of its own with the transaction
// statements pipelined (BEGIN with the claim, the records with COMMIT), so a batch costs two
// round trips to the database and one commit around the requests to Telegram.
func (s *Store) SendBatch(ctx context.Context, now time.Time, chats []bot.ChatKey, send func(context.Context, []*bot.OutboxRow) []bot.Outcome) ([]bot.SendResult, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	// A connection released inside a transaction is closed by the pool, which rolls it back.
	defer conn.Release()
	rollback := func() { conn.Exec(context.WithoutCancel(ctx), "ROLLBACK") }
	services := make([]int32, len(chats))
	ids := make([]int64, len(chats))
	lanes := make([]int16, len(chats))
	out := make([]bot.SendResult, len(chats))
	index := map[bot.ChatKey]int{}
	for i, c := range chats {
		services[i], ids[i], lanes[i] = int32(c.Service), c.Chat, int16(c.Lane)
		out[i] = bot.SendResult{Chat: c, Err: bot.ErrNoWork}
		index[c] = i
	}
	var rows []*bot.OutboxRow
	var rowIdx []int
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(sendClaimSQL, services, ids, lanes).Query(func(r pgx.Rows) error {
		for r.Next() {
			row, n, due, err := scanClaim(r)
			if err != nil {
				return err
			}
			i := index[row.Chat]
			switch {
			case row.ID == 0:
				out[i].Err = bot.ErrBusy
				continue
			case due.After(now):
				out[i].Due = due
				continue
			}
			out[i].More = n > 1
			s.seal.open(&row.Request)
			rows = append(rows, row)
			rowIdx = append(rowIdx, i)
		}
		return r.Err()
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		rollback()
		return nil, fmt.Errorf("send: claim: %w", err)
	}
	if len(rows) == 0 {
		rollback()
		return out, nil
	}
	outcomes := send(ctx, rows)
	// The rows done with (sent, or dropped) are deleted in one statement, ahead of the records of
	// the others, which then never see them.
	b = &pgx.Batch{}
	var done []int64
	for j, row := range rows {
		if k := outcomes[j].Kind; k == bot.OutcomeSent || k == bot.OutcomeDropped {
			done = append(done, row.ID)
		}
	}
	if len(done) > 0 {
		b.Queue(`DELETE FROM outbox WHERE id = ANY($1)`, done)
	}
	for j, row := range rows {
		out[rowIdx[j]].Err, out[rowIdx[j]].Outcome, out[rowIdx[j]].State = nil, outcomes[j], row.Request.State
		queueOutcome(b, now, row, outcomes[j], func(int64) {})
	}
	b.Queue("COMMIT")
	// The records are written even when ctx was cancelled during the sends: Telegram has the
	// messages.
	if err := conn.SendBatch(context.WithoutCancel(ctx), b).Close(); err != nil {
		rollback()
		return nil, fmt.Errorf("send: record: %w", err)
	}
	return out, nil
}

// scanClaim reads a row of sendClaimSQL: the claimed row (its ID is 0 when the lane is busy),
// how many rows its lane has, and when it is due (zero: at once).
func scanClaim(r pgx.Rows) (*bot.OutboxRow, int64, time.Time, error) {
	var svc int32
	var chat, n int64
	var lane int16
	var id *int64
	var method, filePath, fileID *string
	var params []byte
	var attempts *int
	var created, due, failing, fileMod *time.Time
	var fileSize *int64
	var ref, target, state *string
	var refIDs []int64
	var secrets []byte
	var fallback *bool
	var draw []byte
	if err := r.Scan(&svc, &chat, &lane, &n, &id, &method, &params, &filePath, &attempts, &created, &due, &failing,
		&fileID, &fileSize, &fileMod, &ref, &target, &state, &refIDs, &secrets, &fallback, &draw); err != nil {
		return nil, 0, time.Time{}, err
	}
	row := &bot.OutboxRow{Chat: bot.ChatKey{Service: int(svc), Chat: chat, Lane: bot.Lane(lane)}}
	if id == nil {
		return row, n, time.Time{}, nil
	}
	row.ID, row.Attempts, row.Created = *id, *attempts, *created
	row.HasFallback = fallback != nil && *fallback
	row.Request = bot.Request{Method: *method, ChatID: chat}
	if err := json.Unmarshal(params, &row.Request.Params); err != nil {
		return nil, 0, time.Time{}, fmt.Errorf("decode row %d: %w", *id, err)
	}
	if failing != nil {
		row.FailingSince = *failing
	}
	if draw != nil {
		row.Request.Draw = &bot.Drawing{}
		if err := json.Unmarshal(draw, row.Request.Draw); err != nil {
			return nil, 0, time.Time{}, fmt.Errorf("decode the drawing of row %d: %w", *id, err)
		}
	}
	if err := decodeSecrets(row, secrets); err != nil {
		return nil, 0, time.Time{}, err
	}
	if ref != nil {
		row.Request.Ref = *ref
	}
	if state != nil {
		row.Request.State = *state
	}
	if target != nil {
		row.Request.TargetRef = *target
		for _, m := range refIDs {
			row.RefMessageIDs = append(row.RefMessageIDs, int(m))
		}
	}
	if filePath != nil {
		row.Request.FilePath = *filePath
		if fileID != nil {
			row.CachedFile = &bot.CachedFile{FileID: *fileID, Size: *fileSize, ModTime: *fileMod}
		}
	}
	var dueAt time.Time
	if due != nil {
		dueAt = *due
	}
	return row, n, dueAt, nil
}

// queueOutcome adds to b what becomes of row after an attempt whose outcome is o, at now. The
// deletion of a row done with is del's to queue.
func queueOutcome(b *pgx.Batch, now time.Time, row *bot.OutboxRow, o bot.Outcome, del func(id int64)) {
	chat, req := row.Chat, row.Request
	switch o.Kind {
	case bot.OutcomeSent:
		del(row.ID)
		if req.Ref != "" && len(o.MessageIDs) > 0 {
			b.Queue(`
				INSERT INTO sent_ref (service_id, chat_id, ref, message_id)
				SELECT $1, $2, $3, unnest($4::bigint[]) ON CONFLICT DO NOTHING`,
				chat.Service, chat.Chat, req.Ref, o.MessageIDs)
		}
		if req.TargetRef != "" && req.Method == "deleteMessage" {
			// The messages are gone: so is their record.
			b.Queue(`DELETE FROM sent_ref WHERE service_id = $1 AND chat_id = $2 AND ref = $3 AND message_id = ANY($4)`,
				chat.Service, chat.Chat, req.TargetRef, row.RefMessageIDs)
		}
		if f := o.Uploaded; f != nil {
			b.Queue(`
				INSERT INTO tg_file (service_id, path, size, mod_time, file_id) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (service_id, path) DO UPDATE SET size = EXCLUDED.size,
					mod_time = EXCLUDED.mod_time, file_id = EXCLUDED.file_id`,
				chat.Service, req.FilePath, f.Size, f.ModTime, f.FileID)
		}
	case bot.OutcomeDropped:
		del(row.ID)
	case bot.OutcomeRetry, bot.OutcomeGiveWay:
		lane := row.Chat.Lane
		if o.Kind == bot.OutcomeGiveWay {
			lane = bot.LaneRetry
		}
		b.Queue(`UPDATE outbox SET attempts = attempts + 1, not_before = $2, last_error = $3,
				failing_since = COALESCE(failing_since, $4), lane = $5, in_flight = false
			WHERE id = $1`, row.ID, o.RetryAt, o.Err, now, int16(lane))
	case bot.OutcomeFailed:
		b.Queue(`UPDATE outbox SET status = 'failed', failed_at = now(), attempts = attempts + 1, last_error = $2
			WHERE id = $1`, row.ID, o.Err)
		// What the user is to be told in place of a request that failed for good (its OnFailure),
		// in its chat, carrying the state the request carried (a newer state supersedes it as it
		// would have superseded the request); the sender's next scan finds it.
		b.Queue(`
			INSERT INTO outbox (service_id, chat_id, method, params, lane, ref, target_ref, state)
			SELECT o.service_id, o.chat_id, f.req->>'method', f.req->'params', (f.req->>'lane')::smallint,
				NULLIF(f.req->>'ref', ''), NULLIF(f.req->>'target_ref', ''), o.state
			FROM outbox o, jsonb_array_elements(o.on_failure) WITH ORDINALITY AS f (req, n)
			WHERE o.id = $1
			ORDER BY f.n`, row.ID)
	case bot.OutcomeBlocked:
		// The user had blocked the bot when the request reached Telegram, or the bot is out of
		// the group. The answer may be older than the user's last word in private, which
		// unblocked them (claimSQL): a request queued before that word fails alone and leaves
		// them unblocked; else they are marked blocked, and their chat's pending requests fail
		// with it. (Should they have blocked the bot again since, the next request shows it.)
		b.Queue(`UPDATE users SET blocked_at = now() WHERE id = $1
			AND last_seen_at <= (SELECT created_at FROM outbox WHERE id = $2)`, chat.Chat, row.ID)
		b.Queue(`UPDATE outbox SET status = 'failed', failed_at = now(), last_error = $3
			WHERE service_id = $1 AND chat_id = $2 AND status = 'pending'
				AND (id = $4 OR $2 < 0 OR EXISTS (SELECT FROM users WHERE id = $2 AND blocked_at IS NOT NULL))`,
			chat.Service, chat.Chat, o.Err, row.ID)
	case bot.OutcomeDetached:
		b.Queue(`UPDATE outbox SET not_before = $2, in_flight = true WHERE id = $1`, row.ID, o.RetryAt)
	}
	queueSecretOutcome(b, row, o)
}

// FinishSend implements bot.Store.
func (s *Store) FinishSend(ctx context.Context, now time.Time, row *bot.OutboxRow, lease time.Time, out bot.Outcome) (bool, error) {
	held := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM outbox WHERE id = $1 AND status = 'pending' AND not_before = $2 FOR UPDATE`,
			row.ID, lease).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		held = true
		b := &pgx.Batch{}
		if out.Kind == bot.OutcomeAbandon {
			// Nothing happened after all: the row is due again at once (or when it was told).
			var due *time.Time
			if !out.RetryAt.IsZero() {
				due = &out.RetryAt
			}
			b.Queue(`UPDATE outbox SET not_before = $2, in_flight = false WHERE id = $1`, row.ID, due)
		} else {
			queueOutcome(b, now, row, out, func(id int64) { b.Queue(`DELETE FROM outbox WHERE id = $1`, id) })
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return false, fmt.Errorf("finish send of row %d: %w", row.ID, err)
	}
	return held, nil
}

// OutboxStats implements bot.Store.
func (s *Store) OutboxStats(ctx context.Context) (map[bot.Lane]bot.LaneStats, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT lane, count(*), COALESCE(EXTRACT(epoch FROM now() - min(created_at)), 0)::float8
		FROM outbox WHERE status = 'pending' GROUP BY lane`)
	if err != nil {
		return nil, fmt.Errorf("outbox stats: %w", err)
	}
	defer rows.Close()
	out := map[bot.Lane]bot.LaneStats{}
	for rows.Next() {
		var lane int16
		var n int64
		var age float64
		if err := rows.Scan(&lane, &n, &age); err != nil {
			return nil, fmt.Errorf("outbox stats: %w", err)
		}
		out[bot.Lane(lane)] = bot.LaneStats{Depth: n, Oldest: time.Duration(age * float64(time.Second))}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("outbox stats: %w", err)
	}
	return out, nil
}

// pruneChunk is how many rows PruneFailed deletes in one statement, so that a large backlog is
// removed in short transactions.
const pruneChunk = 5000

// PruneFailed implements bot.Store.
func (s *Store) PruneFailed(ctx context.Context, age time.Duration) (int64, error) {
	var total int64
	for _, del := range []string{
		`DELETE FROM outbox WHERE id IN (SELECT id FROM outbox
			WHERE status = 'failed' AND failed_at < now() - $1::interval LIMIT $2)`,
		`DELETE FROM inbox_quarantine WHERE (service_id, digest) IN (SELECT service_id, digest FROM inbox_quarantine
			WHERE received_at < now() - $1::interval LIMIT $2)`,
	} {
		for {
			tag, err := s.pool.Exec(ctx, del, interval(age), pruneChunk)
			if err != nil {
				return total, fmt.Errorf("prune failed: %w", err)
			}
			total += tag.RowsAffected()
			if tag.RowsAffected() < pruneChunk {
				break
			}
		}
	}
	return total, nil
}
