// Package devtools gives quest developers and admins their tools in the chat: uploads of quests,
// images and saved games, private (sandbox) runs, inspection and changes of the running game,
// exports, and the admin commands that manage the catalogue and the developer role.
//
// The commands are rows of the command tree (migration 008_developers.sql), not code: the tree
// parses the arguments, guards each command by role (DEVELOPER == true || ADMIN == true, or
// ADMIN == true) with a refusal branch for everybody else, and words every answer in English
// and Russian. The tree calls the built-ins of this package (Tools.Builtins: dev.find, dev.run,
// dev.show, dev.set, dev.calc, dev.dump, dev.write, dev.save, dev.quests, dev.log and
// dev.positions of migration 016 (log.go), dev.compile and dev.decompile of migration 023
// (source.go), dev.restart of migration 036, dev.goto and dev.replay of migration 040
// (path.go)), which check the role again themselves and answer with
// result codes, and stored procedures for what is plain SQL (dev_set_quest, dev_set_developer,
// dev_developers, dev_delete_upload). Uploads come through Tools.HandleMessage,
// which the router offers every message the command tree left and which takes every document
// and nothing else. The tools keep the games, the catalogue and the uploads through quest/questpg
// and the queue of files waiting to be downloaded through bot/devtools/devpg (the only code on
// dev_fetch), write no SQL of their own, open quest files through quest/questfs and have the
// quest player (bot/questplay, behind the Player interface) show the games they start or change.
//
// # Roles
//
// Everybody may play, /save a game and restore a save. A developer of a bot
// (user_service.is_developer) may also upload quests and images and use the developer commands;
// an admin (users.is_admin) may do everything a developer may, in every bot, and manage the
// catalogue and the developers. Uploading never makes anyone a developer: an admin grants the
// role with /grantdev (and takes it with /revokedev), or a bot gives it to every user who first
// writes to it (service.new_users_developers, from NEW_USERS_ARE_DEVELOPERS). Admins are made
// with SQL or by the ADMINS configuration (bot/botpg's Users.ApplyRoles); a user ADMINS names who
// has not written yet is an admin from their first message on (the row made for them then has
// the role).
//
// # Uploads
//
// A file's kind is its extension: .qm and .qmm are quests, .png, .jpg (.jpeg) and .gif images,
// .qsave saved games, and .qms either a quest source (text) or a saved game of the original bot
// (binary), told apart by the content (source.go); anything else is refused. Each kind has a size limit, checked
// against the size Telegram announces before the download and again while downloading. The
// content is checked whole before anything is stored: a quest must decode, compile, start and
// enter its first location; an image must be of the format its extension says, at most 10000
// pixels a side and 16 megapixels in all, take at most 64 MB of memory to decode
// (Config.MaxImageMemory; all three checked from its header, before the pixels are decoded, see
// imagecost.go), and decode. Images are decoded one at a time. A rejected file gets a message
// saying why and leaves nothing behind.
//
// Accepted files are stored under UPLOADS_DIR/dev/quests and dev/images with names made from
// their content (the SHA-256), never with a name or path the sender chose; the sender's file
// name is only a label. Each upload is a row of dev_upload: its owner, bot, kind, name and
// version (the versions of a name are counted per owner and bot; the same file sent again is
// recognised and stores nothing). A quest upload also gets a catalogue entry (script) of its
// own, unlisted and private: only its owner and the admins open it, and only as a sandbox; /start
// with its number does not launch it (a counted game of a quest nobody reviewed could mint
// credits). An admin lists it with /setquest, after which it is a quest like any other;
// unlisted again, it is private again. The images a quest names are looked for first among its
// owner's uploads in its bot (the newest version of that file name, ignoring case, a name
// without an extension standing also for the name with .jpg or .png, as Space Rangers' quests
// name their art), then among the images the project ships and those of the operator's
// IMAGES_DIR (Images). The answer to an upload lists the checker's warnings (questfs.Lint), an
// image found nowhere among them, with the place that names it; the quest is stored all the same.
//
// An uploaded quest is listed in the language of its texts (questfs.Language), whoever uploads it.
// The checker's warnings (questfs.Lint: images found nowhere, the editor's default texts,
// locations no jump reaches, dead ends, parameters nothing uses, a quest without a choice,
// formulas that do not parse, read a parameter the quest lacks or divide by what is or may be
// zero) follow
// the answer to an upload and to /compile, in the developer's language, each naming its place.
// The commands speak the developer's language throughout: the phases of /show and the failures of
// /calc too (a formula's syntax error is the reference's message in English, its place in Russian).
// /log names the quest by the file name it was uploaded under, as questbot replay finds it.
//
// The file is not downloaded in the transaction of the message that brings it, which would hold
// that transaction (and the other chats' updates batched with it) for as long as the download
// takes. The message is answered at once and the file recorded (devpg); RunFetches downloads it
// outside any transaction, bounded in size and time, and checks and stores it in a transaction of
// its own, each chat's files in the order they came; a crash at any point loses no upload (see
// fetch.go). A file stored whose transaction then failed is removed by Sweep, which runs at
// start and as a scheduled job (SweepSpec).
//
// A .qms source is compiled the same way, as a job of that queue, never inside a transaction,
// within the compiler's limits (Config.CompileLimits) and until the process stops (source.go).
// No job is taken up forever: one that keeps failing, or is cut off by stops or crashes, is
// quarantined after its third attempt, and its sender told (fetch.go).
//
// # Sandbox games
//
// /load runs a quest the user may open (a listed quest, one the project ships, their own upload;
// an admin any quest of the bot) as a sandbox game: it takes no stake, moves no credits when it
// ends and counts in no statistics (see quest/questpg). A restored save is a sandbox
// game too. /set changes only sandbox games, so that nothing set by hand ever counts; a value
// must lie within the parameter's bounds. /set Money sets the quest's money parameter, which is
// what the quest's texts show as money; /set Ranger sets the name the quest's texts call the
// player, for the rest of that game. The screen's choices are offered again with the value set
// (quest.Reoffer), so that a jump its condition now allows is there when the screen is shown again.
//
// /goto 12 (or L12) enters a location of the sandbox game by the number the quest's editor shows,
// as if the game had arrived there: its changes are made and its screen shown. /replay plays the
// moves of the running sandbox game (its log) again, from the same seed, on the newest version of
// its quest the developer uploaded, and stops at the first move that version no longer offers,
// saying where (the move, the location) and why (the jump is gone, leaves another location, is
// not offered or cannot be taken); the game goes on there in the new version. The answer to the
// upload of a new version of the quest being run points to /replay. A game that has ended has no
// log left: /replay works on the running game.
//
// /show, /calc, /dump and /write work on any running game and change nothing: /calc draws from
// a copy of the game's random generator, /dump and /write read the quest's file. The files sent
// by /dump, /write and /save are written under dev/out and removed after a day.
//
// The save format is documented in save.go.
package devtools
