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

-- Secrets in the outbox (see the package doc of bot). A request that carries a credential (an API
-- token of /token, a login link of /web) names it in outbox.secrets: a JSON array of
-- {"kind", "id", "values", "expires"}, the credential as its feature knows it (kind and id), the
-- strings that are the secret as they appear in the parameters, and when it expires (null:
-- never). A sent row is deleted. A row that fails for good (refused, the user blocked the bot,
-- given up, its secret expired before it could be sent) keeps its parameters with every value
-- replaced by "[withheld]" and loses its secrets, in the transaction that records its failure,
-- which also records the credential in outbox_secret_failure, for its feature to revoke.
ALTER TABLE outbox ADD COLUMN secrets jsonb;

-- The rows that carry a secret, pending or failed but not yet withheld: few at any time.
CREATE INDEX outbox_secrets_idx ON outbox (service_id, chat_id) WHERE secrets IS NOT NULL;

-- params with every value of every secret of secrets replaced by "[withheld]".
CREATE FUNCTION outbox_withhold(params jsonb, secrets jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    k text;
    v text;
    s text;
    out jsonb := '{}';
BEGIN
    FOR k, v IN SELECT key, value FROM jsonb_each_text(params) LOOP
        FOR s IN SELECT jsonb_array_elements_text(e->'values') FROM jsonb_array_elements(COALESCE(secrets, '[]')) e LOOP
            IF s <> '' THEN
                v := replace(v, s, '[withheld]');
            END IF;
        END LOOP;
        out := out || jsonb_build_object(k, v);
    END LOOP;
    RETURN out;
END
$$;

-- The credentials whose delivery failed for good, by the transport (bot/botpg), for the feature
-- that issued them (bot/boards/web for the kinds web.token and web.ticket) to take with FOR
-- UPDATE SKIP LOCKED, revoke and delete in one transaction. Records of a kind nobody takes are
-- removed after FAILED_RETENTION.
CREATE TABLE outbox_secret_failure (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    -- The chat the request was for.
    chat_id    bigint NOT NULL,
    kind       text NOT NULL,
    ref        text NOT NULL,
    -- Why: the request's last error (already withheld of the secret), or that it expired.
    reason     text NOT NULL,
    failed_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX outbox_secret_failure_kind_idx ON outbox_secret_failure (service_id, kind, id);
