-- Several bot processes on one database (bot.Transport, lease.go): one process at a time
-- long-polls each bot, the holder of the bot's lease. The holder renews it while it polls; once
-- expires_at has passed, any other process may take it over, and it resumes at the offset the
-- inbox stored with the last batch (service.update_offset), so no update is lost or stored twice
-- across a takeover. Times are those of the processes' clocks, which must agree (NTP) to well
-- under a lease's length.
CREATE TABLE poll_lease (
    service_id integer PRIMARY KEY REFERENCES service (id) ON DELETE CASCADE,
    -- The process holding the lease: its name (host, pid and a random part).
    holder     text NOT NULL,
    expires_at timestamptz NOT NULL,
    -- When the holder took the lease (not renewed): how long it has polled.
    taken_at   timestamptz NOT NULL
);
