-- The game row owned by its store (quest/questpg), and quest sessions that learn of a player's
-- game ending from the database itself.

-- A game's state was the quest player's own JSON encoding, which made its field names a schema
-- that other code queried. It is now split: where the game stands is in columns (phase,
-- location), the rest in a document whose shape quest/questpg owns and versions
-- (state_version). Rows written before stay version 0 (the player's encoding) until their next
-- step rewrites them; the columns are filled for them here.
ALTER TABLE game
    ADD COLUMN state_version smallint NOT NULL DEFAULT 0,
    ADD COLUMN phase text,
    ADD COLUMN location integer;

UPDATE game SET phase = state->>'state', location = (state->>'loc')::integer;

ALTER TABLE game
    ALTER COLUMN phase SET NOT NULL,
    ALTER COLUMN location SET NOT NULL,
    ALTER COLUMN state_version DROP DEFAULT;

-- A game is known by its id alone (it comes from game_seq), so other tables may point at it.
CREATE UNIQUE INDEX game_game_id_idx ON game (game_id);

-- A session's player points at its game while the game runs. When the game's row is deleted
-- (the game ended, was cancelled, or another replaced it) the database clears the pointer, and
-- the session's timer job takes the player out: no code reads the games to find out.
ALTER TABLE quest_session_player
    ADD COLUMN live_game bigint REFERENCES game (game_id) ON DELETE SET NULL;

UPDATE quest_session_player p SET live_game = p.game_id
WHERE EXISTS (SELECT 1 FROM game g WHERE g.game_id = p.game_id);

CREATE INDEX quest_session_player_gone_idx ON quest_session_player (session_id) WHERE live_game IS NULL;
