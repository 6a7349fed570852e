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
