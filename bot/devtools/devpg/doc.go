// Package devpg keeps the developers' tools' queue of downloads (bot/devtools, fetch.go) in
// PostgreSQL: table dev_fetch (migration 016), a row per file sent into a chat that waits to be
// downloaded and checked, and the only code that names it.
//
// The queue has a store of its own rather than a place in quest/questpg, which keeps the
// uploads once they are checked (dev_upload): a row of dev_fetch is the transport's business,
// not the catalogue's (a Telegram file id, the update that brought the file, a worker's claim and
// its retries), only the tools use it, and the quest store, shared by every feature, should not
// have to know it. Either way each table keeps one owner; this way the owner is the code that
// runs the queue.
//
// A row is recorded in the transaction of the message that brings the file, and announced with
// NOTIFY on the channel Record is given, which PostgreSQL delivers when that transaction
// commits. A worker claims the oldest row of a chat whose turn it is with FOR UPDATE SKIP LOCKED
// for a time (a claim token and its end), outside any transaction; it removes the row in the
// transaction that handles the file (Take, which finds nothing once the claim was lost), or lets
// it go to be claimed again (Release). A row may also be the compilation of a source (migration
// 034: its compile column names the source, and it has no file). A row that keeps failing is
// set aside (Quarantine): it stays for the operator to see, no claim takes it and it holds back
// no later row of its chat, until DropQuarantined removes it.
package devpg
