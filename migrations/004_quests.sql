-- Text quests: the catalogue (script), the running games (game) and the players' money and
-- statistics (user_stats).

-- A quest the bots can play. Language versions of one quest share a common_name; the catalogue
-- lists the newest version of each common name in the user's language.
CREATE TABLE script (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The bot that offers the quest; NULL: every bot.
    service_id    integer REFERENCES service (id) ON DELETE CASCADE,
    -- The name shown in menus and in /score.
    name          text NOT NULL,
    -- Groups the language versions (and versions) of one quest.
    common_name   text NOT NULL,
    -- The .qm/.qmm file, relative to the quest root (UPLOADS_DIR) unless absolute.
    file          text NOT NULL,
    version       integer NOT NULL DEFAULT 1,
    language      text NOT NULL DEFAULT 'en' CHECK (language IN ('ru', 'en')),
    -- Listed in the catalogue. An unlisted quest is still playable by its id.
    listed        boolean NOT NULL DEFAULT true,
    -- Credits added on a win, and taken on a death (see bot/questplay, money.go).
    win_bonus     integer NOT NULL DEFAULT 0 CHECK (win_bonus >= 0),
    death_penalty integer NOT NULL DEFAULT 0 CHECK (death_penalty >= 0),
    -- Who uploaded the quest; NULL for the quests the project ships.
    owner_id      bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (common_name, language, version)
);

CREATE INDEX script_common_name_idx ON script (common_name, language, version DESC);

-- Identifies one game from its launch to its end; part of every quest button's callback data,
-- so that the buttons of an earlier game are recognised as stale.
CREATE SEQUENCE game_seq AS bigint;

-- The running game of a user in a bot: at most one. The row is deleted when the game ends or is
-- cancelled. Each step updates it in the transaction that writes the step's messages.
CREATE TABLE game (
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    script_id  bigint NOT NULL REFERENCES script (id) ON DELETE CASCADE,
    game_id    bigint NOT NULL DEFAULT nextval('game_seq'),
    -- The quest player's state (package quest, State) as JSON: location, parameters,
    -- visibility, counters and the random generator's state.
    state      jsonb NOT NULL,
    -- Steps taken; a button carries the step it was shown at, so stale presses are refused.
    step       integer NOT NULL DEFAULT 0,
    -- A random value written with every change of the row. A process that remembers the game
    -- (bot/questplay keeps recent games in memory) updates it only where the nonce is still the
    -- one it knows, so a change made elsewhere, or a change of its own that was rolled back, is
    -- detected and the row read again.
    nonce      bigint NOT NULL DEFAULT 0,
    -- A sandbox game moves no credits and counts in no statistics.
    sandbox    boolean NOT NULL DEFAULT false,
    -- Credits taken from the player at launch and put into the quest's money parameter; the
    -- money parameter's value is paid back when the game ends or is abandoned.
    stake      bigint NOT NULL DEFAULT 0,
    -- Index of the quest's money parameter in state's params, -1 if the quest has none.
    money_param integer NOT NULL DEFAULT -1,
    started_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (service_id, user_id)
);

CREATE INDEX game_script_idx ON game (script_id);

-- A player's money and statistics in a bot. Counters are totals over all quests.
CREATE TABLE user_stats (
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credits    bigint NOT NULL DEFAULT 10000 CHECK (credits >= 0),
    launches   integer NOT NULL DEFAULT 0,
    wins       integer NOT NULL DEFAULT 0,
    failures   integer NOT NULL DEFAULT 0,
    deaths     integer NOT NULL DEFAULT 0,
    PRIMARY KEY (service_id, user_id)
);

-- The same counters per quest, for /score's table.
CREATE TABLE user_script_stats (
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    script_id  bigint NOT NULL REFERENCES script (id) ON DELETE CASCADE,
    launches   integer NOT NULL DEFAULT 0,
    wins       integer NOT NULL DEFAULT 0,
    failures   integer NOT NULL DEFAULT 0,
    deaths     integer NOT NULL DEFAULT 0,
    PRIMARY KEY (service_id, user_id, script_id)
);

-- The quests the project ships in uploads/ (sources in uploads/src).
INSERT INTO script (name, common_name, file, version, language, listed, win_bonus, death_penalty)
VALUES ('Груз до Боннасиса', 'cargo-run', 'cargo-run_ru.qmm', 1, 'ru', true, 500, 1000),
       ('Cargo run', 'cargo-run', 'cargo-run_en.qmm', 1, 'en', true, 500, 1000);
