-- Each view keeps its own marks of a board's seats. board_message (migrations 015 and 024) held
-- two: when the seat's board message was last sent in Telegram, which only the Telegram view
-- reads (bot/boards/telegram/tgstore), and when the seat's player last acted on the game on the
-- web, which the service's notification policy reads (bot/boards, notify.go;
-- sessions/board/boardpg). They part into a table of each; a row that had no mark of a kind
-- has none in its table.

-- When each seat's board message was last sent in Telegram: a message older than the view
-- edits is sent anew.
CREATE TABLE board_telegram_message (
    board_id bigint NOT NULL REFERENCES board_session (id) ON DELETE CASCADE,
    seat     smallint NOT NULL CHECK (seat IN (0, 1)),
    sent_at  timestamptz NOT NULL,
    PRIMARY KEY (board_id, seat)
);

-- When each seat's player last acted on the game on the web (a move, an answer, the moves
-- seen): while they are there, news of the game changes their Telegram board in place,
-- silently. A player who acts in Telegram loses the row.
CREATE TABLE board_web_presence (
    board_id bigint NOT NULL REFERENCES board_session (id) ON DELETE CASCADE,
    seat     smallint NOT NULL CHECK (seat IN (0, 1)),
    acted_at timestamptz NOT NULL,
    PRIMARY KEY (board_id, seat)
);

INSERT INTO board_telegram_message (board_id, seat, sent_at)
SELECT board_id, seat, sent_at FROM board_message WHERE sent_at IS NOT NULL;

INSERT INTO board_web_presence (board_id, seat, acted_at)
SELECT board_id, seat, web_at FROM board_message WHERE web_at IS NOT NULL;

DROP TABLE board_message;
