-- The transport's answers to faults of the Bot API server (see the transport's package doc).

-- Updates that cannot be handled: undecodable ones (a field of the wrong type), and those whose
-- update_id no offset can acknowledge. They are kept here exactly as received, acknowledged, and
-- never handled; the transport logs and counts each. A copy delivered again is stored once (by
-- its digest). Rows are removed after the retention of failed records (the transport's
-- cleanup).
CREATE TABLE inbox_quarantine (
    service_id  integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    -- The SHA-256 of the payload.
    digest      bytea NOT NULL,
    -- The update_id, when it could be read.
    update_id   bigint,
    payload     bytea NOT NULL,
    reason      text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (service_id, digest)
);

CREATE INDEX inbox_quarantine_received_idx ON inbox_quarantine (received_at);

-- The outbox's lanes: each chat's rows are sent in order within a lane, and the lanes of a chat
-- do not wait for each other. 0: the conversation (messages, edits, deletions); 1: the answers
-- to button presses; 2: the chat's command menu; 3: rows of the others that kept failing and
-- gave way, retried here without holding the rows after them.
ALTER TABLE outbox
    ADD COLUMN lane smallint NOT NULL DEFAULT 0 CHECK (lane BETWEEN 0 AND 3),
    -- When the row's first transient failure happened: how long it has held its lane.
    ADD COLUMN failing_since timestamptz,
    -- NULL: due at once. A row never tried needs no time of the database's clock, which the
    -- sender, with a clock of its own in tests, would have to agree with.
    ALTER COLUMN not_before DROP NOT NULL,
    ALTER COLUMN not_before DROP DEFAULT;

UPDATE outbox SET lane = CASE WHEN method = 'answerCallbackQuery' THEN 1 ELSE 2 END
WHERE status = 'pending' AND method IN ('answerCallbackQuery', 'setMyCommands', 'deleteMyCommands');

DROP INDEX outbox_pending_idx;
CREATE INDEX outbox_pending_idx ON outbox (service_id, chat_id, lane, id) WHERE status = 'pending';

-- Failed rows are removed after the retention of failed records (the transport's cleanup).
CREATE INDEX outbox_failed_idx ON outbox (failed_at) WHERE status = 'failed';
