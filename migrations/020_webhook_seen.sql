-- Updates received by webhook. Telegram delivers an update again until it gets a 2xx answer,
-- and an answer lost after the commit (the process died, the connection broke, the webhook was
-- deleted meanwhile) means a second delivery, by webhook or, after a switch back to long
-- polling, by getUpdates. The inbox cannot tell: its rows are deleted once handled, and a
-- webhook's updates may arrive out of order, so the poll's offset is no guide either. An update
-- id recorded here is never stored in the inbox again. Telegram keeps an undelivered update for
-- 24 hours, so the transport's cleanup removes rows older than that.
CREATE TABLE inbox_seen (
    service_id  integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    update_id   bigint NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (service_id, update_id)
);

CREATE INDEX inbox_seen_received_idx ON inbox_seen (received_at);
