-- A request whose file is drawn when it is sent (bot.Request.Draw): the drawer's name and its
-- key, {"drawer": ..., "key": ...}, or NULL for a request whose file is there already.
ALTER TABLE outbox ADD COLUMN draw jsonb;
