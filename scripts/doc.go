// Package scripts is the database-driven command tree: the bot's slash commands and their
// dialogues, defined as rows rather than code, so that an operator changes them with SQL.
//
// A Tree holds the commands of one bot. Each command owns a tree of actions (folders, prompts,
// outputs, menus, stored-procedure and HTTP calls, quest launches); Validate checks a tree when
// it is loaded and lists every problem at once, and a command with a problem is never run. Run
// is the interpreter: it walks a command's actions for one user from a State (where the user is
// in the dialogue, and the values gathered so far) and returns Effects, as data, for the caller
// to carry out: texts and menus to send, messages to delete, quest operations, and calls whose
// results the walk waits for (a stored procedure or an HTTP request), after which the caller
// runs it again with the result.
//
// The walk only moves forward through a finite tree, so no dialogue can loop; a step bound
// guards that promise anyway. Alternatives are exclusive: the options of a menu and the result
// branches of a call run one at a time, after which the walk continues after the menu or call.
//
// The package is pure: no database, network or clock. Build makes a Tree from a Definition that
// scripts/scriptpg loads from the database; bot/scriptbot carries the effects out in Telegram.
package scripts
