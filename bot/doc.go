// Package bot is Questbot's Telegram transport: the path every update and every reply takes,
// built so that nothing acknowledged is ever lost and Telegram's limits are never hit.
//
// An update flows through three stages, each of which commits to the database before the next
// sees it:
//
//   - The receiver long-polls getUpdates for each bot (several bots run in one process) and stores
//     each batch in the inbox, together with the next offset, before asking for that offset, which
//     is what acknowledges the batch to Telegram; it calls deleteWebhook first. In webhook mode
//     (Config.Webhook) Telegram POSTs each update to WebhookHandler instead, which checks the
//     secret token set with setWebhook, stores the update through the same path (Accept) and
//     answers 200 only after the commit, so a delivery not stored is delivered again. A delivery
//     stored whose answer was lost comes again too (by webhook, or by getUpdates after a switch
//     back to polling): the ids of a webhook's updates are kept for the day Telegram may
//     deliver them, and a second copy is not stored.
//   - The dispatcher handles each chat's updates one at a time in update order, different chats in
//     parallel. An update's handler runs in one transaction with the upsert of its sender, the
//     domain's state change and the requests it wants sent (the outbox rows): all commit together.
//     Button presses the handler leaves unanswered are answered for it. Under load a worker takes
//     the first update of several chats into one transaction, each handler's database work behind
//     a savepoint of its own, so a failing handler is rolled back alone while the batch shares the
//     round trips and the commit.
//   - The sender drains the outbox under Telegram's limits (Limits), waits out 429 retry_after,
//     retries transient failures with backoff, and drops permanent ones with a record; a 403
//     marks the user blocked and drops that chat's pending rows. Each chat's rows go in order
//     within a lane (Lane): the conversation, the answers to button presses, the chat's command
//     menu, and the updates (the states of objects that changed elsewhere, below), which do not
//     wait for each other. The first rows of several lanes go to Telegram at once and are
//     recorded together; a chat waiting or failing holds no other chat back, and a chat whose
//     answers were slow is sent alone for a while. A file a request names by its description
//     (Request.Draw, draw.go) is drawn by the sender as the request goes, so the transaction
//     that queued it pays nothing for it and a superseded state is never drawn.
//
// The cost of an update: the path is built to ask PostgreSQL as little as possible per update,
// since on a small machine the bot and the database share the same cores. Each stage works on
// batches, and sends each batch's statements in one pipeline (pgx batches, with BEGIN and
// COMMIT in the pipeline too), so that a batch costs a round trip or two and one commit
// whatever its size:
//
//   - the receiver handles a poll's updates itself, in the transaction that stores the
//     quarantine and moves the offset (IntakeHandler): one statement finds the updates not seen
//     before and whether their chats have updates waiting, and records their senders; the
//     updates of idle chats are handled at once, so a quick update is never written to the
//     inbox at all; those that must wait behind their chat's stored updates, those whose
//     handler failed (the attempt counted), and all of them once the handlers have spent
//     Config.IntakeBudget go to the inbox for the workers, in the same commit;
//   - a worker claims the first stored update of each of its chats, and records their senders,
//     in one statement that deletes the updates it takes (the deletion is the lock that keeps other
//     workers and processes off them; an update whose handler fails is put back, as it was, in
//     the same transaction); after the handlers, the requests of all its updates go in one
//     insertion (or as few as the runs of states between them allow, in order), and the commit
//     follows in the same round trip;
//   - a sender claims the first row of each of its lanes in one statement, and deletes the rows
//     sent in one statement, pipelined with the records of the others and the commit.
//
// Nothing is decoded twice on the way in (an update's id comes from its one decoding), the
// statements are prepared once per connection (pgx's statement cache), and those whose plan
// would depend on how many rows they touch are written so that PostgreSQL keeps one generic
// plan. The inbox watch of a process passes over the batches its own store stored, which its
// dispatcher was told of already, so that a batch is not claimed a second time for nothing.
// Under load, with most updates handled at intake, an update costs about 0.6 statements in 0.3
// round trips and 0.6 KB of write-ahead log (questbot loadtest prints these figures, with the
// CPU time of the process and of PostgreSQL per update). The guarantees above hold for every
// batch: a failing handler is rolled back alone (its savepoint) and its update put back (or
// stored) for another attempt, and a batch that cannot commit leaves every update and row of it
// as it was.
//
// Superseded states: a request may say which state of which object it carries (Request.State,
// such as "board:42", the board message of a game in the chat). Only requests that merely show
// the present of an object carry one; words the user must read (a reply, a quest screen, a
// notice) never do, and are never dropped. When a state is queued in a chat, the pending rows of
// the same state it makes useless are deleted in the statement that queues it:
//
//   - an edit drops the pending edits of the same message (the same ref, or the same
//     message_id) that it covers (a photo's edit covers a caption's, which covers a keyboard's;
//     a text's covers a keyboard's), so there is at most one pending edit of a message whose
//     edits carry its whole state;
//   - a copy sent anew (with the deletion of the older copies before it) drops every pending
//     row of the state: its edits, the copies never sent and their deletions; when a dropped copy
//     would have rung (no disable_notification), the new copy rings instead: the user is still
//     told;
//   - a deletion drops the pending edits and copies: a message never sent needs no deletion.
//
// A row being sent is never dropped: one a sender holds (SKIP LOCKED) or whose send goes on
// without its batch (in_flight), since Telegram may have it; the newer state follows it. The
// rows of one state are sent in the order they were queued, whatever their lanes: a lane whose
// first row has an older row of its state pending elsewhere waits for it, so an edit never
// overtakes the copy it edits. Crash contract: the drop and the newer state commit together, so
// a restart neither sends a dropped state again nor loses the latest one; what was in flight at
// a crash is sent once more, as any row, before the newer state.
//
// Replies first: a state queued in answer to the chat's own update (the board the user just
// pressed) is the answer to what the user did and goes in the conversation; a state queued for
// any other chat, or outside an update (the opponent's board, a move made on the web, the bot's
// move, a job), goes in LaneUpdates (QueueLane), and so does an aside (Request.Aside: what follows
// the user's action without answering it, such as the quest screen left, edited to show the
// choice; a newer aside of its state drops the pending ones). The lanes of a chat share its
// limits, and the conversation goes first: a message of LaneUpdates yields the chat's next slot
// to a reply that waits for one, and the last message of the chat's burst, for at most
// yieldAtMost, so neither starves; and it goes only when the bot's overall slot is free at once,
// never reserving one ahead of the conversations, for at most globalYieldAtMost. The metrics count the rows
// superseded and give the depth of each lane and the age of its oldest row (the oldest reply
// waiting is the conversation's).
//
// Inline messages: a message posted through the bot's inline mode has no chat the bot knows, only
// an inline_message_id. Its edits are queued under a key of their own (InlineKey: a hash of the
// id with bit 62 set, a range no Telegram chat id reaches), so they are ordered and paced as one
// chat of their own, supersede only the pending edits of the same inline message (by its
// inline_message_id, as a chat's edits by message_id), and a refusal (403) fails the request
// alone: no user is marked blocked. An inline query, a chosen inline result and a press under an
// inline message are ordered in the inbox by their sender, and the answer to an inline query goes
// in the sender's answers lane, dropped like a button's answer once too old. "message is not
// modified" is success, as for any edit.
//
// Faults of the Bot API server, and what becomes of them:
//
//   - An update PostgreSQL cannot hold as it is (U+0000, an unpaired surrogate, bytes that are not
//     UTF-8) is stored with U+FFFD in their place and handled. One that cannot be decoded, or whose
//     update_id no offset can acknowledge (beyond 2^63-2), is quarantined: kept as received in
//     inbox_quarantine, logged, counted, acknowledged and never handled. The offset never goes
//     back. A press of a button under an inline message (no message) is its sender's.
//   - A getUpdates answered at once without anything new is asked again a second after the last
//     one started, not at once.
//   - A request that keeps failing transiently holds the rows after it in its lane for at most
//     Config.GiveWayAfter, then gives way: it moves to LaneRetry and is retried there, late, up
//     to ten attempts. A request that has a fallback (Request.OnFailure: a board's text in place
//     of its picture) is tried three times only, then fails and its fallback is sent, so that a
//     server failing one method for good (a 5xx to every editMessageMedia) costs the user a
//     second, not minutes. The answer to a button press is not sent, nor retried, once the press
//     is too old for Telegram to accept it.
//   - A request still running Config.SlowSend after its batch started (or long after the others
//     of its batch ended) stops holding the batch: its row is leased for as long as the request
//     may take, the batch is recorded without it, and it records its own outcome when it ends.
//   - An answer that is not the Bot API's (a proxy's error page) is logged with its HTTP status
//     and a short excerpt of the body, without the token, and retried; unless the status refuses
//     the request itself (413: its body is too large for the proxy, as a photo may be; 414; 415),
//     which would be refused again: that request fails at once, as one Telegram refuses does,
//     and its Request.OnFailure is sent.
//   - The records of what failed for good (outbox rows with their texts, quarantined updates)
//     are removed after Config.FailedRetention by Cleanup.
//
// Crash safety: an update stored but not handled is handled after a restart; a row committed but
// not sent is sent after a restart. A row that was being sent when the process died (Telegram
// may have it, but its removal was not committed) is sent once more: a crash duplicates each
// request that was in flight at most once, and only those. At most one row of each lane of a
// chat is in flight, so a chat gets at most one duplicate of its conversation per crash; over
// all chats, up to Senders × Batch rows, plus the slow sends that went on without their batch,
// may be in flight. Claims take the first row of a lane with FOR UPDATE SKIP LOCKED on that row
// alone (a slow send's row by its lease), so a second process never takes a lane's rows out of
// order and never sends a row twice.
//
// Several processes: any number of processes may run the transport on one database, each with
// a Role (all, poller, worker). Each bot is long-polled by the one process holding its poll
// lease, taken over within about Config.PollLease when that process dies, resuming at the stored
// offset; every working process dispatches and sends through the claims above. See lease.go.
//
// Time: the transport's policies (rate limits, 429 waits, backoff, how long a failing row may
// hold its lane, how old a button press may be, the pauses of the long poll) run on a Clock,
// which tests replace; the deadlines of I/O are real time.
//
// Messages by reference: a handler may name a message it sends (Request.Ref) and later act on it
// by that name (DeleteRef, EditHTMLRef) without knowing its message_id. The sender records the
// message_id Telegram returns in the transaction that removes the row, and fills it into a
// request that targets the ref when that request's turn comes; since a chat's conversation goes
// in order, a message queued earlier in the chat is known by then, across restarts too. A request
// whose ref names no known message (its message was never sent, or gave way and is not sent yet)
// is dropped (logged at debug level), never retried. Records are removed when their messages
// are deleted by ref, else after 48 hours.
//
// Secrets: a request may carry a credential to its chat, an API token or a login link
// (Request.Secrets; or KeepSecret in the handler's transaction, which marks each request of the
// transaction whose parameters hold the secret, so that the texts that show it need not know).
// Such a request is not sent once its secret has expired: it fails as undelivered. Once it is
// done, nothing of the secret stays at rest: a sent row is deleted; a row that fails for good
// (refused, the user blocked the bot, given up, expired, dropped for its ref) is kept with every
// value of the secret replaced by Withheld, and the credential (the kind and id its feature gave
// it) is recorded by the store in the transaction of the failure, for that feature to take and
// revoke (a job of its own, with FOR UPDATE SKIP LOCKED: botpg.Outbox.TakeSecretFailures); the
// transport knows nothing of the features' tables. The error recorded and every log line of the
// attempt withhold the secret too. The row of an expired secret that no process sends (its bot
// runs nowhere) is failed the same way by Cleanup.
//
// Storage is the Store interface (implemented in bot/botpg); the Bot API is reached through
// tgbotapi with our own poll loop, a context per call and the token redacted from every error.
// bot/emulator/tgemu emulates the Bot API for the web chat and the tests; bot/emulator/webchat is the web page on
// which simulated users talk to the bot through the emulator.
package bot
