-- The record of what happened on each board (bot/boards: events.go): every change a board
-- operation commits is written here, in its transaction, as numbered events, and announced on
-- the channel board_event. The views render from these rows, not from the game read again: the
-- web's stream sends them with their numbers (a reconnect with Last-Event-ID reads what it
-- missed from here), the differential tests of the views compare them.
--
-- id is the event's number, global and increasing. The events of one board are numbered in the
-- order they commit, since every operation holds the board's row lock from before it writes its
-- events until its commit; across boards the numbers of concurrent transactions may commit out
-- of order, so a reader that catches up does it board by board (board_id, id > the last seen).
--
-- kind is the event's stable name (bot/boards: EventKind*), seat the seat it is of (NULL: none),
-- actor the seat that made the change (NULL: the clock or nobody), source where it came from,
-- ply the board's ply after it, heard how each seat hears of it (the notification policy's
-- Hearing), data what a view needs to render it (the move as written and as people read it, the
-- plies taken back, the outcome, the draw offer, the clocks left).
--
-- Kept: the events of a board stay as long as the board (its game record); they go with it.
CREATE TABLE board_event (
    id       bigserial PRIMARY KEY,
    board_id bigint NOT NULL REFERENCES board_session (id) ON DELETE CASCADE,
    kind     text NOT NULL CHECK (kind ~ '^[a-z_]+$'),
    seat     smallint CHECK (seat IN (0, 1)),
    actor    smallint CHECK (actor IN (0, 1)),
    source   text NOT NULL CHECK (source IN ('telegram', 'web', 'bot', 'clock')),
    ply      integer NOT NULL CHECK (ply >= 0),
    heard    text[] NOT NULL CHECK (cardinality(heard) = 2),
    data     jsonb NOT NULL DEFAULT '{}',
    at       timestamptz NOT NULL
);

CREATE INDEX board_event_board_idx ON board_event (board_id, id);
