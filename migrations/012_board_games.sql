-- Board games (packages sessions and sessions/sessionpg): the time-control catalogue, the
-- boards with their seats and moves, invites, and the players' statistics and ratings. The
-- rules live in Go (sessions, engine); these tables keep everything a restart needs: whose turn
-- it is, the move list with the position after every move (so a replay can be checked), the
-- clocks and the deadline the scheduled job enforces. Durations are microseconds, the precision
-- of timestamptz, so clock arithmetic reads back exactly what it wrote.

-- The standard time controls a player chooses from (sessions.Controls lists the same). A board
-- copies its control's values, so changing or deleting a row here never changes a game.
--   none:           no clock.
--   correspondence: each move within per_move_us of the turn's start.
--   fischer:        main_us each, extra_us added after every move.
--   byoyomi:        main_us each, then every move within extra_us.
--   sandglass:      main_us each; the mover's thinking time goes to the opponent.
CREATE TABLE board_time_control (
    name        text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 32),
    mode        text NOT NULL CHECK (mode IN ('none', 'correspondence', 'fischer', 'byoyomi', 'sandglass')),
    main_us     bigint NOT NULL DEFAULT 0 CHECK (main_us >= 0),
    extra_us    bigint NOT NULL DEFAULT 0 CHECK (extra_us >= 0),
    per_move_us bigint NOT NULL DEFAULT 0 CHECK (per_move_us >= 0),
    -- Menu order.
    sort        integer NOT NULL DEFAULT 0
);

INSERT INTO board_time_control (name, mode, main_us, extra_us, per_move_us, sort) VALUES
    ('none', 'none', 0, 0, 0, 1),
    ('corr1d', 'correspondence', 0, 0, 86400000000, 2),
    ('corr3d', 'correspondence', 0, 0, 259200000000, 3),
    ('blitz10+5', 'fischer', 600000000, 5000000, 0, 4);

-- A board: one game of an engine variant in a bot.
--   waiting:  the creator waits for an opponent (matchmaking, or an invite when private).
--   active:   being played; to_move is to move, until deadline (NULL: no clock runs).
--   finished: over; result, winner and end_reason say how.
--   aborted:  withdrawn, or nobody joined within 7 days.
-- revision moves on with every save: a board read earlier is saved only if it is unchanged.
CREATE TABLE board_session (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service_id      integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    variant         text NOT NULL,
    -- The engine options in their canonical text (sessions.Options.String), compared by
    -- matchmaking.
    options         text NOT NULL DEFAULT '',
    seed            bigint NOT NULL,
    -- The time control: its catalogue name and its values.
    control         text NOT NULL DEFAULT '',
    clock_mode      text NOT NULL CHECK (clock_mode IN ('none', 'correspondence', 'fischer', 'byoyomi', 'sandglass')),
    main_us         bigint NOT NULL DEFAULT 0,
    extra_us        bigint NOT NULL DEFAULT 0,
    per_move_us     bigint NOT NULL DEFAULT 0,
    status          text NOT NULL CHECK (status IN ('waiting', 'active', 'finished', 'aborted')),
    private         boolean NOT NULL DEFAULT false,
    created_by      bigint NOT NULL REFERENCES users (id),
    created_at      timestamptz NOT NULL,
    started_at      timestamptz,
    ended_at        timestamptz,
    start_position  text NOT NULL,
    -- The position after the last move; ply is the number of moves (rows of board_move).
    position        text NOT NULL,
    ply             integer NOT NULL DEFAULT 0 CHECK (ply >= 0),
    to_move         smallint NOT NULL CHECK (to_move IN (0, 1)),
    turn_started_at timestamptz,
    deadline        timestamptz,
    -- A pending draw offer: the seat that made it, at which ply.
    offer_seat      smallint CHECK (offer_seat IN (0, 1)),
    offer_ply       integer,
    -- The correspondence reminder of the current ply has been sent.
    reminded        boolean NOT NULL DEFAULT false,
    rated           boolean NOT NULL DEFAULT false,
    -- The seat the bot holds, if any (set when the board is created).
    bot_seat        smallint CHECK (bot_seat IN (0, 1)),
    result          text CHECK (result IN ('win', 'draw')),
    winner          smallint CHECK (winner IN (0, 1)),
    end_reason      text CHECK (end_reason IN ('rules', 'resignation', 'timeout', 'agreement')),
    -- The engine's reason for an end by the rules ("checkmate", ...).
    end_detail      text NOT NULL DEFAULT '',
    revision        bigint NOT NULL DEFAULT 1,
    -- The AI worker's lease on the bot's turn: the revision it claimed, until when.
    bot_claim_rev   bigint,
    bot_claim_until timestamptz,
    CHECK ((status = 'finished') = (result IS NOT NULL)),
    CHECK ((result IS NULL) = (end_reason IS NULL)),
    CHECK ((result IS NOT DISTINCT FROM 'win') = (winner IS NOT NULL)),
    CHECK ((offer_seat IS NULL) = (offer_ply IS NULL))
);

-- Matchmaking: the oldest public waiting board of a game under the same rules and clock.
CREATE INDEX board_session_match_idx ON board_session
    (service_id, variant, options, clock_mode, main_us, extra_us, per_move_us, created_at)
    WHERE status = 'waiting' AND NOT private;
-- Deadlines (timeouts and correspondence reminders).
CREATE INDEX board_session_deadline_idx ON board_session (deadline) WHERE status = 'active';
-- The bot's turns, for the AI worker.
CREATE INDEX board_session_bot_turn_idx ON board_session (turn_started_at)
    WHERE status = 'active' AND bot_seat = to_move;
-- Cleanup of boards nobody joined.
CREATE INDEX board_session_waiting_idx ON board_session (created_at) WHERE status = 'waiting';

-- The two seats of a board: seat 0 plays the engine's first side. An empty seat (a waiting
-- board) has neither a user nor a bot.
CREATE TABLE board_seat (
    board_id      bigint NOT NULL REFERENCES board_session (id) ON DELETE CASCADE,
    seat          smallint NOT NULL CHECK (seat IN (0, 1)),
    user_id       bigint REFERENCES users (id),
    bot           text CHECK (bot IN ('easy', 'normal', 'strong')),
    -- What is left of the main time as of the start of the current turn.
    clock_us      bigint NOT NULL DEFAULT 0,
    -- The last ply the seat has seen (a move the opponent has not seen may be taken back).
    seen_ply      integer NOT NULL DEFAULT 0 CHECK (seen_ply >= 0),
    -- The seat offered a draw since the last move.
    offered       boolean NOT NULL DEFAULT false,
    -- Elo before and after a rated game, once it has finished.
    rating_before integer,
    rating_after  integer,
    PRIMARY KEY (board_id, seat),
    UNIQUE (board_id, user_id),
    CHECK (user_id IS NULL OR bot IS NULL)
);

CREATE INDEX board_seat_user_idx ON board_seat (user_id) WHERE user_id IS NOT NULL;

-- The moves of a board, one row per ply, with the position after the move and both clocks.
CREATE TABLE board_move (
    board_id  bigint NOT NULL REFERENCES board_session (id) ON DELETE CASCADE,
    ply       integer NOT NULL CHECK (ply >= 1),
    seat      smallint NOT NULL CHECK (seat IN (0, 1)),
    -- The canonical notation.
    move      text NOT NULL,
    position  text NOT NULL,
    played_at timestamptz NOT NULL,
    spent_us  bigint NOT NULL,
    clock0_us bigint NOT NULL,
    clock1_us bigint NOT NULL,
    PRIMARY KEY (board_id, ply)
);

-- Invites to a waiting board (the link /start g<code>): single use, expiring. Only the SHA-256
-- of the code is kept, so the table does not give the links away.
CREATE TABLE board_invite (
    code_hash  bytea PRIMARY KEY CHECK (length(code_hash) = 32),
    board_id   bigint NOT NULL REFERENCES board_session (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    used_by    bigint REFERENCES users (id),
    CHECK ((used_at IS NULL) = (used_by IS NULL))
);

CREATE INDEX board_invite_board_idx ON board_invite (board_id);
CREATE INDEX board_invite_expires_idx ON board_invite (expires_at);

-- A player's results per bot and variant. Games against the bot count in played, won, lost
-- and drawn; only games between two users (rated of them) move the Elo rating.
CREATE TABLE board_stats (
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    variant    text NOT NULL,
    played     integer NOT NULL DEFAULT 0,
    won        integer NOT NULL DEFAULT 0,
    lost       integer NOT NULL DEFAULT 0,
    drawn      integer NOT NULL DEFAULT 0,
    rated      integer NOT NULL DEFAULT 0,
    rating     integer NOT NULL DEFAULT 1500,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (service_id, user_id, variant),
    CHECK (played = won + lost + drawn AND rated <= played)
);
