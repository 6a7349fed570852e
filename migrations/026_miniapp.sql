-- The web game server's pages opened as Telegram Mini Apps (bot/boards/web, miniapp.go): a page
-- logs its user in with the initData Telegram signed for it, once. The hash of each initData
-- accepted is kept here until it would be refused as stale anyway, so the same data cannot open
-- a second session (a replay); the transport's cleanup removes the expired rows.
CREATE TABLE web_app_data_used (
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    -- hash is the initData's own signature (its field hash), which names it.
    hash       bytea NOT NULL,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    used_at    timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (service_id, hash)
);

CREATE INDEX web_app_data_used_expires_idx ON web_app_data_used (expires_at);
