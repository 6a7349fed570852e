// Package relay carries messages between a bot's users and its admins (users.is_admin): users'
// texts to the admins, admins' broadcasts to the users, replies threaded both ways, a black list,
// and news. The router gives it only what the command tree and the uploads leave (its message
// handler comes after theirs): commands and the answers to prompts (hidden ones included) never
// reach it and are never relayed.
//
// # Users to admins
//
// A user's text in their private chat goes to every admin of the bot (who has written to it and
// not blocked it), headed with the user's name, username, chat id and where they are in their
// quest (the quest's name, the location and the step, from the quest store); the user is told it
// went. Messages of black-listed chats are not relayed: they get the tree's usual hint, and play
// as before. A user may have PerMinute messages relayed a minute; more are refused with a notice.
// A photo, sticker or other non-text message is answered with a notice that only text reaches
// the admins; documents are left to the uploads. Texts are passed on as plain text: Telegram's
// formatting of the original (bold, links) is not carried over.
//
// # Admins to users
//
// An admin's text that is not a reply is a broadcast to every user of the bot who speaks the
// admin's language (bot.Language of users.language), the admin excepted. Because forgetting to
// press "reply" would otherwise send a private answer to everyone, the bot first asks the admin
// to confirm, saying how many users it would reach; unconfirmed drafts are dropped after a day.
// Once confirmed, the message turns into the progress report ("sent 1 200 of 5 000", edited at
// most every ReportEvery) with a Stop button, and ends with the number reached and the number
// who had blocked the bot. Other admins among the recipients see the broadcast with its author.
//
// The Broadcast job sends running broadcasts: at each run (BroadcastSpec), each broadcast queues
// the copies for the next users in user id order, as many as keep Window copies waiting in the
// outbox, in the transaction that moves its cursor past them, so a restart resumes after the
// last user queued and nobody gets a broadcast twice. The transport's sender then sends them under Telegram's
// limits; users who blocked the bot are passed over (and a 403 met while sending counts the same
// way). Users who join after the broadcast started do not get it.
//
// # Replies
//
// Every copy is sent under the ref "relay:<id>" of its relayed message; migration 009 records the
// message_id Telegram gives each copy in relay_copy, keyed by chat and message id together
// (message ids repeat across chats). A reply to a copy, by an admin or a user, goes to the author
// of the original, as a reply to their original message, and is itself a relayed message whose
// copy can be answered in turn, so a conversation threads both ways. Copies shown to admins carry
// the header; copies shown to users are the bare text (the bot speaks for the admins). An admin's
// reply to anything but a copy is refused with an explanation rather than broadcast; a user's is
// relayed to the admins as any text. Links are kept for Keep (90 days); replies to older copies
// are treated as ordinary texts.
//
// # News
//
// News items (table news: English and Russian texts, a time window, an audience: everybody, only
// users who join after the item was written, or only those already there) are delivered by Wrap,
// around the update handler: a user's next message or button press in the window brings them the
// items they have not had, before the answer. Each user gets each item once: the receipt is
// written with the message in the update's transaction, and marked delivered when Telegram
// accepts it. Users who do not come back in the window do not get it; news is not a broadcast.
//
// The admin commands /ban, /unban, /banlist, /news, /newslist and /newsend are rows of the command
// tree with stored procedures (migration 009); each checks that its caller is an admin.
//
// # Storage
//
// The relay writes no SQL of its own. Its records (the relayed messages and the links of their
// copies, the black list, the broadcasts with their cursors, the news and their receipts) are kept
// by the Store it declares, which bot/relay/relaypg implements; the users, the outbox and the
// quests it reads through bot/botpg and quest/questpg. Every statement runs in the transaction of
// the update or of the job's step, so a broadcast's cursor moves with the copies it queued, and a
// news receipt is written with the message that delivers the item.
package relay
