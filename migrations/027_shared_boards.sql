-- A board played in one message that a whole chat sees: an inline message (posted from the bot's
-- inline results in any chat, known by its inline_message_id) or the bot's own message in a group
-- (chat_id, and message_id once a press on it told it). invite is the code of the board's
-- invitation, which the message's Join button redeems for whoever presses it first.
CREATE TABLE board_shared (
    board_id          bigint PRIMARY KEY REFERENCES board_session (id) ON DELETE CASCADE,
    inline_message_id text UNIQUE,
    chat_id           bigint,
    message_id        integer,
    invite            text NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    CHECK ((inline_message_id IS NULL) <> (chat_id IS NULL)),
    UNIQUE (chat_id, message_id)
);
