// Package sessionpg keeps the quest sessions of package sessions in PostgreSQL. The boards of
// package sessions/board are kept by sessions/board/boardpg.
//
// Quests implements sessions.QuestStore on the tables of migrations 010 and 011 (quest_session,
// quest_session_player, quest_session_block, session_type), inside the caller's transaction
// (NewQuests(tx)): every session it returns is locked (SELECT … FOR UPDATE) until the
// transaction ends. Joins of one quest are serialised by a transaction-scoped advisory lock, so
// players joining at the same instant fill one session; the session row's CHECK (players <=
// max_players) makes an overfull session impossible whatever the code does. A player's row
// points at its game (live_game, a foreign key the database sets to NULL when the game's row is
// deleted), so a session learns that a player's game is over without reading the games. The
// timer job finds the sessions due (DueQuestSessions) and claims each with FOR UPDATE SKIP
// LOCKED (LockQuestSession), so two processes never settle one session twice.
//
// Users are rows of the users table and bots of service; this package never writes to them.
package sessionpg
