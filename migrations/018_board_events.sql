-- Live updates of boards for the web game server (bot/boards/web): every change of a board that
-- a page must show announces itself on the channel board_changed, so each process of the server
-- listening there can push it to the pages watching that board.
--
-- The payload is "<board id>:<revision>:<microseconds since the Unix epoch>", the last part being
-- clock_timestamp() when the row changed, so a listener can measure how long the event took to
-- reach a page. NOTIFY is delivered when the transaction commits, and never if it rolls back: an
-- event never announces a change that is not there to read. Each payload is distinct (the
-- revision moves on), so PostgreSQL's folding of identical notifications of one transaction
-- never hides a change.
CREATE FUNCTION board_changed_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('board_changed', NEW.id || ':' || NEW.revision || ':' ||
        floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint);
    RETURN NULL;
END
$$;

-- A new board.
CREATE TRIGGER board_session_created AFTER INSERT ON board_session
    FOR EACH ROW EXECUTE FUNCTION board_changed_notify();

-- A saved board: every save moves the revision on (sessions/sessionpg); the status is watched
-- too, so a change of state made without a new revision still reaches the pages. Updates that
-- change neither, such as the AI worker's lease on the bot's turn, announce nothing.
CREATE TRIGGER board_session_changed AFTER UPDATE ON board_session
    FOR EACH ROW
    WHEN (OLD.revision IS DISTINCT FROM NEW.revision OR OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION board_changed_notify();
