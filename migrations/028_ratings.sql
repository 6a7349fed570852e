-- Board game ratings become Glicko-2 (sessions/board, glicko.go): each player's rating per bot
-- and game gains its deviation (RD) and volatility, and the time of the last rated game (from
-- which the deviation grows again); each rated game leaves a row of each player's rating
-- history; /top shows the best players of a game, and /rating answers with a chart.

-- The Elo ratings carry over as Glicko-2 ratings: the Elo number is kept as the rating. Elo
-- says nothing of how certain it is, and a K of 32 makes it noisy, so a player with rated games
-- starts at RD 200 (provisional, about what three or four games against established players
-- leave a newcomer with: their next games move the rating quickly towards its true level, but
-- not as wildly as a newcomer's); a player who never played a rated game keeps 1500 ± 350. The
-- volatility starts at 0.06 for everybody.
ALTER TABLE board_stats ALTER COLUMN rating TYPE double precision;
ALTER TABLE board_stats ALTER COLUMN rating SET DEFAULT 1500;
ALTER TABLE board_stats
    ADD COLUMN deviation  double precision NOT NULL DEFAULT 350 CHECK (deviation > 0 AND deviation <= 350),
    ADD COLUMN volatility double precision NOT NULL DEFAULT 0.06 CHECK (volatility > 0),
    -- The end of the player's last rated game in this game (NULL: none yet).
    ADD COLUMN rated_at   timestamptz;
UPDATE board_stats SET deviation = 200, rated_at = updated_at WHERE rated > 0;

-- The leaderboards: a bot's rated players of a game, best first.
CREATE INDEX board_stats_top_idx ON board_stats (service_id, variant, rating DESC) WHERE rated > 0;

-- The rating of a player after each rated game (one row per player and game), written in the
-- transaction that records the result. The history starts with this migration: the Elo games
-- before it left no rows.
CREATE TABLE board_rating_history (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service_id integer NOT NULL,
    user_id    bigint NOT NULL,
    variant    text NOT NULL,
    board_id   bigint NOT NULL REFERENCES board_session (id) ON DELETE CASCADE,
    rated_at   timestamptz NOT NULL,
    rating     double precision NOT NULL,
    deviation  double precision NOT NULL,
    volatility double precision NOT NULL,
    FOREIGN KEY (service_id, user_id, variant) REFERENCES board_stats ON DELETE CASCADE,
    UNIQUE (board_id, user_id)
);

CREATE INDEX board_rating_history_user_idx ON board_rating_history (service_id, user_id, variant, rated_at);

INSERT INTO param_type (name) VALUES ('BOARD_TOP_ARG');

DO $$
DECLARE
    c bigint;
    p bigint;
    f bigint;
    b bigint;
BEGIN
    -- /top [game]: the best players of a game (bot/boards/telegram, rating.go); without a game,
    -- or with one the bot does not know, a menu of the games.
    c := tree_command('top', 'The best players of a board game', 'Лучшие игроки в настольной игре', 'BOARD_TOP_ARG');
    UPDATE command SET visible = true, order_num = 6 WHERE id = c;
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'board.top', NULL, NULL, NULL, NULL);
    PERFORM tree_request_params(p, 'args', 'BOARD_TOP_ARG');
    PERFORM tree_response_params(p, 'games', 'BOARD_GAME');
    f := tree_action(c, p, 1, 'folder', NULL, NULL, 'menu', NULL, NULL, NULL);
    PERFORM tree_action(c, f, 1, 'list_menu', 'BOARD_GAME', NULL, NULL, NULL,
        'The best players of which game?', 'Лучшие игроки какой игры?', 2);
    b := tree_action(c, f, 2, 'builtin', NULL, 'board.top', NULL, NULL, NULL, NULL);
    PERFORM tree_request_params(b, 'game', 'BOARD_GAME');
END $$;

-- /rating answers with a chart of the ratings once there are rated games (the built-in sends
-- it); until then with the table of results, whose note no longer speaks of Elo.
UPDATE localized_string SET text =
    E'<pre>{BOARD_TABLE}</pre>\nGames against the bot count, unrated. Your rating (Glicko-2) starts with your first game against another player.'
WHERE lang = 'en' AND action_id IN (SELECT a.id FROM action a JOIN action p ON p.id = a.parent_id
    WHERE p.request = 'board.rating' AND a.result_code = 'ok');
UPDATE localized_string SET text =
    E'<pre>{BOARD_TABLE}</pre>\nПартии с ботом считаются, но без рейтинга. Ваш рейтинг (Glicko-2) начнётся с первой партии с другим игроком.'
WHERE lang = 'ru' AND action_id IN (SELECT a.id FROM action a JOIN action p ON p.id = a.parent_id
    WHERE p.request = 'board.rating' AND a.result_code = 'ok');

-- /help names /top.
UPDATE localized_string
SET text = replace(text, E'/rating — your board game results\n',
    E'/rating — your board game results\n/top — the best players of a game\n')
WHERE action_id = 601 AND lang = 'en';
UPDATE localized_string
SET text = replace(text, E'/rating — ваши результаты в играх\n',
    E'/rating — ваши результаты в играх\n/top — лучшие игроки в игре\n')
WHERE action_id = 601 AND lang = 'ru';
