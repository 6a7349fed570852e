-- Hardening of the features: what a request that fails for good sends instead, /save's answer
-- travelling with its file, files sent into the chat downloaded outside the transaction of the
-- message that brought them, and the tokens of the bots configured in the database sealed.

-- The requests queued in the same chat in place of a request that fails for good (bot.Request's
-- OnFailure): a JSON array of {"method", "params", "lane"}, or NULL.
ALTER TABLE outbox ADD COLUMN on_failure jsonb;

-- /save sends its explanation as the caption of the file (bot/devtools), so that the text
-- arrives with the file or not at all, and the user hears when Telegram refused the file. The
-- answer the tree gave to a successful save said the same thing without the file: it goes.
WITH ok AS (
    SELECT a.id FROM action a
    JOIN action call ON call.id = a.parent_id AND call.type = 'builtin' AND call.request = 'dev.save'
    WHERE a.type = 'output' AND a.result_code = 'ok')
DELETE FROM localized_string WHERE action_id IN (SELECT id FROM ok);

UPDATE action a SET type = 'folder'
FROM action call
WHERE call.id = a.parent_id AND call.type = 'builtin' AND call.request = 'dev.save'
    AND a.type = 'output' AND a.result_code = 'ok';

-- Files users sent into the chat that wait to be downloaded and handled (bot/devtools, fetch.go).
-- The message's transaction records the file; a worker claims the row, downloads the file outside
-- any transaction, and handles it in a transaction of its own that deletes the row. A claim
-- (a token and its end) keeps other workers off while it lasts; a worker that dies lets go when
-- it runs out.
CREATE TABLE dev_fetch (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service_id    integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    -- The chat the file was sent in, where the answer goes; each chat's files go in id order.
    chat_id       bigint NOT NULL,
    user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    file_id       text NOT NULL,
    -- The file's name as the sender gave it, made safe: a label, never a path.
    file_name     text NOT NULL,
    -- The size Telegram announced.
    size          bigint NOT NULL,
    -- The update that brought the file (Telegram's JSON).
    payload       jsonb NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- Not to be fetched before this time (after a failed attempt).
    not_before    timestamptz NOT NULL DEFAULT now(),
    attempts      integer NOT NULL DEFAULT 0,
    last_error    text,
    claim         text,
    claimed_until timestamptz
);

CREATE INDEX dev_fetch_chat_idx ON dev_fetch (service_id, chat_id, id);

-- The tokens of the bots configured in the database, sealed with a key from the environment
-- (bot/botpg, tokens.go): a random nonce, then the token sealed with AES-256-GCM and bound to
-- its row. An operator still writes a new token in plain text into service.token; the next start
-- with the key seals it here and clears the plain column. Nothing is moved by this migration, so
-- a bot whose token is in plain text keeps running until then.
ALTER TABLE service ADD COLUMN token_sealed bytea;
