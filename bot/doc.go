// Package bot is Questbot's Telegram transport: the path every update and every reply takes,
// built so that nothing acknowledged is ever lost and Telegram's limits are never hit.
//
// An update flows through three stages, each of which commits to the database before the next
// sees it:
//
//   - The receiver long-polls getUpdates for each bot (several bots run in one process) and stores
//     each batch in the inbox, together with the next offset, before asking for that offset, which
//     is what acknowledges the batch to Telegram. A webhook would call Transport.Accept instead.
//   - The dispatcher handles each chat's updates one at a time in update order, different chats in
//     parallel. An update's handler runs in one transaction with the upsert of its sender, the
//     domain's state change and the requests it wants sent (the outbox rows): all commit together.
//     Button presses the handler leaves unanswered are answered for it. Under load a worker takes
//     the first update of several chats into one transaction, each handler's database work behind
//     a savepoint of its own, so a failing handler is rolled back alone while the batch shares the
//     round trips and the commit.
//   - The sender drains the outbox per chat in row order under Telegram's limits (Limits), waits
//     out 429 retry_after, retries transient failures with backoff, and drops permanent ones with
//     a record; a 403 marks the user blocked and drops that chat's pending rows. The first rows of
//     several chats go to Telegram at once and are recorded together; a chat waiting or failing
//     holds no other chat back, and a chat whose answers were slow is sent alone for a while.
//
// Crash safety: an update stored but not handled is handled after a restart; a row committed but
// not sent is sent after a restart; a row sent but not yet removed when the process died is sent
// once more (at most one duplicate per crash). Claims take the first row of a chat with FOR
// UPDATE SKIP LOCKED on that row alone, so a second process never takes a chat's rows out of
// order and never sends a row twice.
//
// Messages by reference: a handler may name a message it sends (Request.Ref) and later act on it
// by that name (DeleteRef, EditHTMLRef) without knowing its message_id. The sender records the
// message_id Telegram returns in the transaction that removes the row, and fills it into a
// request that targets the ref when that request's turn comes; since a chat's rows go in order, a
// message queued earlier in the chat is known by then, across restarts too. A request whose ref
// names no known message is dropped (logged at debug level), never retried. Records are removed
// when their messages are deleted by ref, else after 48 hours.
//
// Storage is the Store interface (implemented in bot/botpg); the Bot API is reached through
// tgbotapi with our own poll loop, a context per call and the token redacted from every error.
// bot/tgemu emulates the Bot API for the web chat and the tests; bot/webchat is the web page on
// which simulated users talk to the bot through the emulator.
package bot
