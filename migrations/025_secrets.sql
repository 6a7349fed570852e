-- Credentials that end, and the streams they opened.
--
-- The web game server's event streams (bot/boards/web) live as long as their page: a stream
-- opened with a session, an API token, or as a spectator must end when that ends, in every
-- process of the server. Each end announces itself on the channel web_revoked, delivered at
-- commit to every process listening (the board events hub listens), whatever made it: a logout,
-- /token revoke, the players switching spectators off, an operator's SQL, a user deleted.
--
-- Payloads: "s:<hex of the session's hash>" (a session ended), "t:<token id>" (a token revoked
-- or deleted), "b:<board id>" (spectators may no longer watch the board). None holds a secret.
CREATE FUNCTION web_session_ended() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('web_revoked', 's:' || encode(OLD.hash, 'hex'));
    RETURN NULL;
END
$$;

CREATE TRIGGER web_session_ended AFTER DELETE ON web_session
    FOR EACH ROW EXECUTE FUNCTION web_session_ended();

CREATE FUNCTION web_api_token_ended() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('web_revoked', 't:' || OLD.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER web_api_token_revoked AFTER UPDATE OF revoked_at ON web_api_token
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION web_api_token_ended();

CREATE TRIGGER web_api_token_deleted AFTER DELETE ON web_api_token
    FOR EACH ROW EXECUTE FUNCTION web_api_token_ended();

CREATE FUNCTION board_spectators_ended() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('web_revoked', 'b:' || OLD.board_id);
    ELSIF NOT NEW.allowed THEN
        PERFORM pg_notify('web_revoked', 'b:' || NEW.board_id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER board_spectators_ended AFTER INSERT OR UPDATE OR DELETE ON board_spectators
    FOR EACH ROW EXECUTE FUNCTION board_spectators_ended();
