// Package questplay plays Space Rangers text quests in Telegram: it launches a quest of the
// catalogue for a user, shows each screen of the game as one message, takes button presses as
// the player's choices and keeps every game in the database through its Store (quest/questpg),
// step by step, in the transaction that writes the step's messages.
//
// # Screens
//
// A screen is what package quest's View gives: the text of a location, of a jump's description,
// of a critical message, the task (greeting) or the success text (congratulation). It becomes one
// HTML message (see render.go): the quest markup is converted, everything else is escaped, the
// parameter lines that changed in the step follow the text, in the quest's own formatting, and
// the active choices are inline buttons. Parameters are kept apart from the story: a screen shows
// only what its step changed (a game's first screen, and /retry, all of them), with a last button
// "📊 Parameters" that edits the screen to show all of them (in a message of their own when they
// do not fit it); a screen left keeps its text and the choice made, without them. A choice too long
// for a button is written in full under the text, numbered, with a short numbered button. A
// location image, when the quest names one that exists beside the quest file or in the
// operator's images folder (found as quest/questfs finds images: any case, .jpg or .png added to
// a name without an extension), or one that Config.Images finds (the images developers upload),
// makes the screen one photo with the text as its caption and the buttons under it; a text too
// long for a caption (1024 characters) follows the photo as a message of its own. A screen whose
// picture is the one of the screen just before comes without it: the picture is not sent again.
//
// A button's callback data is "q:<game>:<step>:<action>": the game's id (a new one per launch),
// the step at which the screen was shown and the quest action. A press is performed only when
// the game and step are the current ones and the action is an active choice of the current
// state; anything else is answered "this choice is no longer available" and changes nothing.
// After a choice the pressed message stays in the chat as a transcript, its buttons replaced by
// the choice made (a multiplayer quest's only loses its buttons): no screen of the story is ever
// deleted, in any dialect, the screens of the starting location and of empty locations included.
// The step's new screen is the answer and goes first; the edit of the screen left goes aside
// (bot.Request.Aside), when the chat's limits allow, so that a step costs the player no wait. An
// ending offers the quest again and the catalogue (catalogue.go, which also shows /quest's pages).
//
// # Words
//
// The player tags of the quests' texts name the player and real places in both languages: the
// player's own name and planets of /settings, else the Telegram first name and
// quest.NamedPlayer's names (settings.go). A task or congratulation left at the quest editor's
// default is not shown as such (words.go). A choice number typed under a screen that numbers its
// long choices chooses (typed.go).
//
// # Dialects
//
// Each quest of the catalogue names the dialect it is played in: reference, the reference player
// exactly (the default), or dagazbot, for the quests written for the original Telegram bot, whose
// interpreter showed them differently and had one rule of play of its own. dialect.go lists
// what the dagazbot dialect changes: the buttons' order and width, the locations a step passes
// through and the "Next"s it takes by itself, the pictures, <Money>, and the rule for jumps that
// share a text.
//
// # Persistence and cost
//
// The store keeps the player's quest.State, which restores a game exactly (location, parameters,
// visibility, counters, the random generator's state), so a restart resumes every game. Each
// step writes the new state (or, at an ending, settles money and statistics and deletes the
// game) in the transport's transaction, together with the step's outbox rows.
//
// Games played recently are also remembered in memory (live.go). A step of a remembered game
// costs one statement: the update, made conditional on the row's nonce (a random value written
// with every change), so that a change made by another process, or a step of this one whose
// transaction was rolled back, is noticed and the row read again. A step of a game not
// remembered (after a restart) costs two: the read and the update. With the transport's own
// round trips (the claim with BEGIN, the handler's savepoint, the commit with the outbox rows,
// the first and last shared by the updates of a batch) a step takes at most four.
//
// Compiled quests come from quest/questfs, shared by all games and the developers' tools, so a
// click never parses a file.
//
// # Money
//
// quest/questpg states the rule binding the quest's money parameter to the player's credits;
// the stake is all the credits up to the value the quest starts its money parameter at.
//
// # Multiplayer
//
// The jumps "!session" and "!wait" of multiplayer quests are settled by the rules of package
// sessions, stored by sessions/sessionpg, never shown as plain buttons; see multi.go. Their
// deadlines are settled by the SettleSessions job (jobs.go).
package questplay
