-- The archive of each player's finished games (bot/boards/web, archive.go; the query is
-- sessions/board/boardpg's archive.go) and the rematches of finished games (bot/boards,
-- rematch.go).

-- A player's games, newest first: the archive walks a user's seats backwards by board id from
-- this index (the cursor is the last id of a page) and stops after a page; each board's row
-- comes by its primary key (the seat is in the index, so the walk reads the index alone).
-- board_seat_user_idx (user_id alone) leaves the order to a sort of
-- every game the user ever played.
CREATE INDEX board_seat_user_board_idx ON board_seat (user_id, board_id) INCLUDE (seat) WHERE user_id IS NOT NULL;

-- The rematch of a finished board: a new board of the same game and clock with the colours
-- swapped, opened by one of the old board's players (offered_by, their seat in it). Its state is
-- the new board's: waiting while offered, played once accepted, aborted when declined or
-- withdrawn. A board has at most one rematch.
CREATE TABLE board_rematch (
    board_id   bigint PRIMARY KEY REFERENCES board_session (id) ON DELETE CASCADE,
    rematch_id bigint NOT NULL UNIQUE REFERENCES board_session (id) ON DELETE CASCADE,
    offered_by smallint NOT NULL CHECK (offered_by IN (0, 1))
);

-- The pages of the old board learn of the offer, and of its answer (the new board's status
-- changes), on the old board's channel of live updates (018_board_events.sql), with the old
-- board's revision: the page reads its state again.
CREATE FUNCTION board_rematch_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'board_rematch' THEN
        PERFORM pg_notify('board_changed', b.id || ':' || b.revision || ':' ||
            floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint)
        FROM board_session b WHERE b.id = NEW.board_id;
    ELSE
        PERFORM pg_notify('board_changed', b.id || ':' || b.revision || ':' ||
            floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint)
        FROM board_rematch r JOIN board_session b ON b.id = r.board_id WHERE r.rematch_id = NEW.id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER board_rematch_offered AFTER INSERT ON board_rematch
    FOR EACH ROW EXECUTE FUNCTION board_rematch_notify();

CREATE TRIGGER board_rematch_answered AFTER UPDATE ON board_session
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND OLD.status = 'waiting')
    EXECUTE FUNCTION board_rematch_notify();
