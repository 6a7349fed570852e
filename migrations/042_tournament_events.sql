-- The record of what happened in each tournament (bot/boards: tournament_events.go; stored by
-- sessions/tournament/tournamentpg). Every change the tournament service commits (a player
-- joined or left, the start, a round paired, a game's result, the end, the call-off) is written
-- here, in its transaction, as numbered events, and announced on the channel tournament_event
-- ("<tournament>:<number of its last event>") at the commit. The web's tournament stream sends
-- them with their numbers, so that a reconnection with Last-Event-ID reads what it missed from
-- here, across a restart of the server too.
--
-- id is the event's number, global and increasing. The events of one tournament are numbered in
-- the order they commit: every change holds the tournament's row lock (or creates the row) from
-- before it writes its events until its commit. kind is the event's stable name (bot/boards:
-- Tournament*), data what a page needs to render it (the players by their numbers in the
-- tournament and their public names, never their Telegram ids; the games paired or finished).
--
-- Kept: a tournament's events stay as long as the tournament and go with it.
CREATE TABLE tournament_event (
    id            bigserial PRIMARY KEY,
    tournament_id bigint NOT NULL REFERENCES tournament (id) ON DELETE CASCADE,
    kind          text NOT NULL CHECK (kind ~ '^[a-z_]+$'),
    data          jsonb NOT NULL DEFAULT '{}',
    at            timestamptz NOT NULL
);

CREATE INDEX tournament_event_tournament_idx ON tournament_event (tournament_id, id);

-- The bare signals of migration 029 had one reader, the web's tournament stream, which follows
-- the record now.
DROP TRIGGER tournament_changed ON tournament;
DROP TRIGGER tournament_entrant_changed ON tournament_entrant;
DROP TRIGGER tournament_pairing_changed ON tournament_pairing;
DROP FUNCTION tournament_changed();
