-- Superseded states in the outbox (see the package doc of bot): a request may name the object
-- whose state it carries (outbox.state, such as 'board:42', the board message of a game in the
-- chat). A newer state of the same object queued in a chat drops the older pending requests it
-- makes useless, in the transaction that queues it, and the rows of one object are sent in the
-- order they were queued whatever their lanes.
ALTER TABLE outbox
    ADD COLUMN state text,
    -- A send that went on without its batch (its row leased, see bot.OutcomeDetached): its
    -- outcome is not known yet, so a newer state never drops it.
    ADD COLUMN in_flight boolean NOT NULL DEFAULT false;

-- Lane 4 holds the states of objects that reach a chat from elsewhere (another player's move,
-- the bot's, a job's): below the conversation, which they never hold up.
ALTER TABLE outbox DROP CONSTRAINT outbox_lane_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_lane_check CHECK (lane BETWEEN 0 AND 4);

CREATE INDEX outbox_state_idx ON outbox (service_id, chat_id, state, id)
    WHERE status = 'pending' AND state IS NOT NULL;

-- When a seat's player last acted on the game on the web (a move, an answer, the moves seen):
-- while they are there, news of the game changes their Telegram board in place, silently.
ALTER TABLE board_message
    ADD COLUMN web_at timestamptz,
    ALTER COLUMN sent_at DROP NOT NULL;
