-- Hardening of the features: what a request that fails for good sends instead, and /save's
-- answer travelling with its file.

-- The requests queued in the same chat in place of a request that fails for good (bot.Request's
-- OnFailure): a JSON array of {"method", "params"}, or NULL.
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
