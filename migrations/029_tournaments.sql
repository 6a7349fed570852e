-- Tournaments of board games (bot/boards, tournament.go; stored by
-- sessions/tournament/tournamentpg, the only code on these tables). Each game of a tournament is
-- an ordinary board (board_session), named by its pairing.

-- A tournament: a game and a time control, a system, and its life.
--   created:  players join and leave until starts_at;
--   running:  paired round by round (round robin, Swiss) or continuously (arena, until ends_at);
--   finished: the standings are final (or it was called off: cancelled is set).
-- round is the last round paired (an arena counts its waves of pairings as rounds).
CREATE TABLE tournament (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service_id   integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    variant      text NOT NULL,
    -- The time control's name: a name of the catalogue (board_time_control) or "M+S" (Fischer,
    -- M minutes and S seconds a move).
    control      text NOT NULL,
    system       text NOT NULL CHECK (system IN ('roundrobin', 'swiss', 'arena')),
    -- Swiss: the number of rounds; arena: how long it is played.
    rounds       integer NOT NULL DEFAULT 0 CHECK (rounds >= 0),
    duration_us  bigint NOT NULL DEFAULT 0 CHECK (duration_us >= 0),
    max_players  integer NOT NULL CHECK (max_players >= 2),
    starts_at    timestamptz NOT NULL,
    -- Arena: when pairing stops (starts_at + duration, set at the start).
    ends_at      timestamptz,
    state        text NOT NULL CHECK (state IN ('created', 'running', 'finished')),
    cancelled    boolean NOT NULL DEFAULT false,
    round        integer NOT NULL DEFAULT 0,
    created_by   bigint NOT NULL REFERENCES users (id),
    created_at   timestamptz NOT NULL,
    finished_at  timestamptz
);

-- The tournament job's claims: those due to start, and those running.
CREATE INDEX tournament_due_idx ON tournament (starts_at) WHERE state = 'created';
CREATE INDEX tournament_running_idx ON tournament (id) WHERE state = 'running';
CREATE INDEX tournament_creator_idx ON tournament (service_id, created_by) WHERE state <> 'finished';

-- A player entered: rating is the rating they were seeded by (set at the start), program is set
-- for a program that joined through the API with its token. free_since (arena) is when the
-- player became free for a game (NULL: playing, or not running); message_at is when their
-- standings message was last sent in Telegram.
CREATE TABLE tournament_entrant (
    tournament_id bigint NOT NULL REFERENCES tournament (id) ON DELETE CASCADE,
    user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    joined_at     timestamptz NOT NULL,
    rating        double precision NOT NULL DEFAULT 0,
    program       boolean NOT NULL DEFAULT false,
    free_since    timestamptz,
    message_at    timestamptz,
    PRIMARY KEY (tournament_id, user_id)
);

-- A pairing of a round: white and black with their board, or a bye (black and board NULL).
-- result is NULL until the board finishes; finished_at orders an arena's games as they ended.
-- A player is paired once a round: a round is never paired twice, whichever process tries.
CREATE TABLE tournament_pairing (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tournament_id bigint NOT NULL REFERENCES tournament (id) ON DELETE CASCADE,
    round         integer NOT NULL CHECK (round >= 1),
    white         bigint NOT NULL REFERENCES users (id),
    black         bigint REFERENCES users (id),
    board_id      bigint UNIQUE REFERENCES board_session (id) ON DELETE SET NULL,
    result        text CHECK (result IN ('white', 'draw', 'black')),
    finished_at   timestamptz,
    UNIQUE (tournament_id, round, white),
    UNIQUE (tournament_id, round, black),
    CHECK (black IS NULL OR black <> white)
);

CREATE INDEX tournament_pairing_open_idx ON tournament_pairing (tournament_id, round) WHERE result IS NULL;

-- Who may create tournaments in a bot besides its admins, and how many open (created or running)
-- tournaments one user may have at once. Without a row: users may not create; the limit is 1.
CREATE TABLE tournament_setting (
    service_id       integer PRIMARY KEY REFERENCES service (id) ON DELETE CASCADE,
    users_may_create boolean NOT NULL DEFAULT false,
    max_open         integer NOT NULL DEFAULT 1 CHECK (max_open >= 0)
);

-- The live standings of the web (bot/boards/web, tournament.go): every change of a tournament,
-- its players or its pairings NOTIFYs tournament_changed with the tournament's id, delivered at
-- commit to every process listening.
CREATE FUNCTION tournament_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    t bigint;
BEGIN
    IF TG_TABLE_NAME = 'tournament' THEN
        t := COALESCE(NEW.id, OLD.id);
    ELSIF TG_OP = 'DELETE' THEN
        t := OLD.tournament_id;
    ELSE
        t := NEW.tournament_id;
    END IF;
    PERFORM pg_notify('tournament_changed', t::text);
    RETURN NULL;
END
$$;

CREATE TRIGGER tournament_changed AFTER INSERT OR UPDATE ON tournament
    FOR EACH ROW EXECUTE FUNCTION tournament_changed();
CREATE TRIGGER tournament_entrant_changed AFTER INSERT OR DELETE ON tournament_entrant
    FOR EACH ROW EXECUTE FUNCTION tournament_changed();
CREATE TRIGGER tournament_pairing_changed AFTER INSERT OR UPDATE ON tournament_pairing
    FOR EACH ROW EXECUTE FUNCTION tournament_changed();
