// Package relaypg keeps the records of the relay (bot/relay) in PostgreSQL, on the tables of
// migration 009_relay.sql, and is the only code that names them:
//
//   - relay_message: the messages relayed (a user's text to the admins, an admin's broadcast, a
//     reply to a copy), each naming its original in its author's chat; the text is not kept.
//   - relay_copy: the copies of a relayed message in other chats, by chat and message id, so that
//     a reply to a copy finds the original. The rows are written by the trigger of migration 009
//     when Telegram accepts a copy; this package reads them and counts them.
//   - black_list: the chats whose messages are not relayed. The admin commands (/ban, /unban)
//     write it through the stored procedures of migration 009; this package only reads it.
//   - broadcast: an admin's broadcast, from draft to done, stopped or cancelled, with its cursor
//     (the last user queued), its counts and the progress last shown to its author.
//   - news and news_receipt: the news items, and who was given which; a receipt is written with
//     the message that delivers the item, and marked delivered by the trigger of migration 009.
//
// Store holds nothing: every method works in the caller's transaction, so what the relay records
// commits with the messages it sends, or not at all. The statements are the relay's own; the
// locks that keep two processes apart are taken here and described by the methods that take
// them (LockInChat, LockRunning).
package relaypg
