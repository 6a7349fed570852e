-- Notifications of pending moves (bot/boards, notify.go): each user's setting (the delay, the
-- quiet hours in their UTC offset), the pending notifications (one per board and seat, claimed
-- by the board-notify job and delivered through the outbox), the clock reminders already sent,
-- and the command /notify.

-- A user's notification setting. delay NULL: by the game's time control (at once without a
-- clock or with a clock of minutes, 15 minutes for correspondence). Quiet hours are whole hours
-- of the user's local day (quiet_from inclusive, quiet_to exclusive, across midnight when
-- quiet_from > quiet_to), both NULL when there are none; utc_offset is in minutes.
CREATE TABLE board_notify_setting (
    user_id    bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    delay      text CHECK (delay IN ('now', '15m', '1h', 'never')),
    quiet_from smallint CHECK (quiet_from BETWEEN 0 AND 23),
    quiet_to   smallint CHECK (quiet_to BETWEEN 0 AND 23),
    utc_offset smallint NOT NULL DEFAULT 0 CHECK (utc_offset BETWEEN -720 AND 840),
    CHECK ((quiet_from IS NULL) = (quiet_to IS NULL) AND (quiet_from IS NULL OR quiet_from <> quiet_to))
);

-- A pending notification: the news (kind) that reached a seat at a ply, from the seat that made
-- it, to be sent at due_at unless the seat has seen it by then. A newer news of the same board
-- for the same seat replaces it.
CREATE TABLE board_notification (
    board_id   bigint NOT NULL REFERENCES board_session (id) ON DELETE CASCADE,
    seat       smallint NOT NULL CHECK (seat IN (0, 1)),
    ply        integer NOT NULL CHECK (ply >= 0),
    kind       text NOT NULL CHECK (kind IN ('start', 'move', 'offer', 'end')),
    actor      smallint CHECK (actor IN (0, 1)),
    due_at     timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (board_id, seat)
);

CREATE INDEX board_notification_due_idx ON board_notification (due_at);

-- The ply at which the player to move of a game with a running clock of minutes (Fischer,
-- byo-yomi, sandglass) was last reminded that little time is left: once a ply.
CREATE TABLE board_clock_reminder (
    board_id bigint PRIMARY KEY REFERENCES board_session (id) ON DELETE CASCADE,
    ply      integer NOT NULL
);

DO $$
DECLARE
    c bigint;
BEGIN
    -- /notify: the built-in shows the setting with buttons to change it (bot/boards).
    c := tree_command('notify', 'Notifications of your board games', 'Уведомления о ваших партиях');
    UPDATE command SET visible = true, order_num = 7 WHERE id = c;
    PERFORM tree_action(c, NULL, 1, 'builtin', NULL, 'board.notify', NULL, NULL, NULL, NULL);
END $$;

-- /help names /notify.
UPDATE localized_string
SET text = replace(text, E'/rating — your board game results\n',
    E'/rating — your board game results\n/notify — when to tell you of your opponents'' moves\n')
WHERE action_id = 601 AND lang = 'en';
UPDATE localized_string
SET text = replace(text, E'/rating — ваши результаты в играх\n',
    E'/rating — ваши результаты в играх\n/notify — когда сообщать о ходах соперников\n')
WHERE action_id = 601 AND lang = 'ru';
