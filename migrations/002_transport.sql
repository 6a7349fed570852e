-- The Telegram transport: updates received (inbox), requests to send (outbox), and the file ids
-- Telegram gave to files the bot uploaded.

-- Where the long poll of each bot resumes: the offset of the first update not yet stored. It is
-- written in the same transaction as the inbox rows, so a restart neither skips nor loses updates.
ALTER TABLE service ADD COLUMN update_offset bigint NOT NULL DEFAULT 0;

-- Every update, stored before Telegram is told (by the next getUpdates offset) that we have it.
-- Rows are handled one at a time per chat, in update_id order, and deleted once handled: the
-- offset, stored with them, keeps Telegram from delivering them again. An update whose handler
-- kept failing stays, marked handled, with its error, as a record.
CREATE TABLE inbox (
    service_id  integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    update_id   bigint NOT NULL,
    -- The ordering key: the chat of the update, or the user for updates without a chat (inline
    -- queries), or 0 for updates with neither.
    chat_id     bigint NOT NULL,
    payload     jsonb NOT NULL,
    -- The sender (Telegram's User object), recorded in users when the update is handled.
    sender      jsonb,
    received_at timestamptz NOT NULL DEFAULT now(),
    handled_at  timestamptz,
    attempts    integer NOT NULL DEFAULT 0,
    -- The last handler error; a row that failed too often is marked handled with its error kept.
    error       text,
    PRIMARY KEY (service_id, update_id)
);

CREATE INDEX inbox_pending_idx ON inbox (service_id, chat_id, update_id) WHERE handled_at IS NULL;
CREATE INDEX inbox_handled_idx ON inbox (handled_at) WHERE handled_at IS NOT NULL;

-- Requests to Telegram (sendMessage, editMessageText, ...), written by handlers in the transaction
-- of their state change and sent by the sender in id order per chat. A sent row is deleted; a row
-- that failed for good stays with status 'failed' and its error, as a record.
CREATE TABLE outbox (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service_id  integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    -- The chat the request is about; 0 for requests that belong to no chat (setMyCommands).
    chat_id     bigint NOT NULL,
    method      text NOT NULL,
    -- The request's parameters as Telegram reads them (string values; keyboards as JSON text).
    params      jsonb NOT NULL,
    -- For sendPhoto and sendDocument: the local file to upload, unless Telegram already has it.
    file_path   text,
    status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'failed')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- Not to be sent before this time (backoff after a transient failure, or a 429's retry_after).
    not_before  timestamptz NOT NULL DEFAULT now(),
    attempts    integer NOT NULL DEFAULT 0,
    last_error  text,
    failed_at   timestamptz
);

CREATE INDEX outbox_pending_idx ON outbox (service_id, chat_id, id) WHERE status = 'pending';

-- Files the bot uploaded once, by path, with the file_id Telegram returned, so that the next send
-- of the same file (same size and modification time) reuses it. file_ids are per bot.
CREATE TABLE tg_file (
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    path       text NOT NULL,
    size       bigint NOT NULL,
    mod_time   timestamptz NOT NULL,
    file_id    text NOT NULL,
    PRIMARY KEY (service_id, path)
);
