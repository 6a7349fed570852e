-- The queue of uploads (bot/devtools, fetch.go) holds compilations too, and sets aside the jobs
-- that keep failing. A compilation of a .qms source (/compile, or the caption /compile) runs
-- outside any transaction, like a download: its row names the source to compile and no file.
-- A job tried fetchAttempts times without an end (it failed, or its process was cut off or
-- died while handling it) is quarantined instead of being claimed again: the row stays, with
-- its last error, for the operator to look at, no worker takes it, and it no longer holds back
-- the chat's later files. Sweep removes quarantined rows after 30 days.
ALTER TABLE dev_fetch
    ADD COLUMN compile text,
    ADD COLUMN quarantined_at timestamptz;
