-- Board games in Telegram (bot/boards): the commands /games, /mygames and /rating as rows of the
-- command tree (with the helpers of 008_developers.sql), and the record of when each player's
-- board message was last sent. (An invite link, /start g<code>, is taken by bot/boards before
-- the tree's /start, so that /start works the same in a bot without board games.)

-- When a player's board message was last sent (bot/boards, show.go): a message older than the
-- transport keeps its ref for is sent anew rather than edited.
CREATE TABLE board_message (
    board_id bigint NOT NULL REFERENCES board_session (id) ON DELETE CASCADE,
    seat     smallint NOT NULL CHECK (seat IN (0, 1)),
    sent_at  timestamptz NOT NULL,
    PRIMARY KEY (board_id, seat)
);

INSERT INTO param_type (name) VALUES ('BOARD_GAME'), ('BOARD_CONTROL'), ('BOARD_TABLE');

DO $$
DECLARE
    fail_en text := 'Sorry, this game cannot be started. Send /games to choose another.';
    fail_ru text := 'Извините, эту партию начать нельзя. Отправьте /games, чтобы выбрать другую.';
    c bigint;
    p bigint;
    f bigint;
    m bigint;
    o bigint;
    l bigint;
    b bigint;
    lvl text[] := ARRAY['easy', 'normal', 'strong'];
    lvl_en text[] := ARRAY['Easy', 'Normal', 'Strong'];
    lvl_ru text[] := ARRAY['Лёгкий', 'Средний', 'Сильный'];
    how text[] := ARRAY['board.find', 'board.invite'];
    how_en text[] := ARRAY['🔎 Find an opponent', '✉️ Invite a friend'];
    how_ru text[] := ARRAY['🔎 Найти соперника', '✉️ Пригласить друга'];
BEGIN
    -- /games: choose a game, then how to play it: against the bot (at a level), against whoever
    -- waits for the same game and clock (or the next to come), or against a friend with a link.
    -- The built-ins (bot/boards) send the boards themselves.
    c := tree_command('games', 'Play a board game', 'Сыграть в настольную игру');
    UPDATE command SET visible = true, order_num = 4 WHERE id = c;
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'board.games', NULL, NULL, NULL, NULL);
    PERFORM tree_response_params(p, 'games', 'BOARD_GAME');
    f := tree_action(c, p, 1, 'folder', NULL, NULL, NULL, NULL, NULL, NULL);
    PERFORM tree_action(c, f, 1, 'list_menu', 'BOARD_GAME', NULL, NULL, NULL, 'Choose a game:', 'Выберите игру:', 2);
    m := tree_action(c, f, 2, 'menu', NULL, NULL, NULL, NULL, 'How do you want to play?', 'Как будете играть?');
    o := tree_action(c, m, 1, 'folder', NULL, NULL, NULL, NULL, '🤖 Play the bot', '🤖 Играть с ботом');
    l := tree_action(c, o, 1, 'menu', NULL, NULL, NULL, NULL, 'Choose the bot''s strength:', 'Выберите силу бота:', 3);
    FOR i IN 1 .. 3 LOOP
        f := tree_action(c, l, i, 'folder', NULL, NULL, NULL, NULL, lvl_en[i], lvl_ru[i]);
        b := tree_action(c, f, 1, 'builtin', NULL, 'board.bot', NULL, NULL, NULL, NULL);
        INSERT INTO request_param (action_id, order_num, name, param, default_value)
        VALUES (b, 1, 'game', 'BOARD_GAME', NULL), (b, 2, 'level', NULL, lvl[i]);
        PERFORM tree_action(c, b, 1, 'output', NULL, NULL, 'invalid', NULL, fail_en, fail_ru);
    END LOOP;
    FOR i IN 1 .. 2 LOOP
        o := tree_action(c, m, i + 1, 'folder', NULL, NULL, NULL, NULL, how_en[i], how_ru[i]);
        p := tree_action(c, o, 1, 'builtin', NULL, 'board.controls', NULL, NULL, NULL, NULL);
        PERFORM tree_response_params(p, 'controls', 'BOARD_CONTROL');
        f := tree_action(c, p, 1, 'folder', NULL, NULL, NULL, NULL, NULL, NULL);
        PERFORM tree_action(c, f, 1, 'list_menu', 'BOARD_CONTROL', NULL, NULL, NULL, 'Choose the clock:', 'Выберите контроль времени:', 2);
        b := tree_action(c, f, 2, 'builtin', NULL, how[i], NULL, NULL, NULL, NULL);
        PERFORM tree_request_params(b, 'game', 'BOARD_GAME', 'control', 'BOARD_CONTROL');
        PERFORM tree_action(c, b, 1, 'output', NULL, NULL, 'invalid', NULL, fail_en, fail_ru);
    END LOOP;

    -- /mygames: the user's games, those where it is their turn first, each a button that brings
    -- its board back.
    c := tree_command('mygames', 'Your board games', 'Ваши партии');
    UPDATE command SET visible = true, order_num = 5 WHERE id = c;
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'board.mine', NULL, NULL, NULL, NULL);
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'none', NULL,
        'You have no board games in play. Send /games to start one.',
        'Сейчас у вас нет партий. Отправьте /games, чтобы начать.');

    -- /rating: per game, played, won, lost, drawn and the Elo rating.
    c := tree_command('rating', 'Your board game results', 'Ваши результаты в играх');
    UPDATE command SET visible = true, order_num = 6 WHERE id = c;
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'board.rating', NULL, NULL, NULL, NULL);
    PERFORM tree_response_params(p, 'table', 'BOARD_TABLE');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        E'<pre>{BOARD_TABLE}</pre>\nElo ratings move with games between players (everybody starts at 1500); games against the bot count, unrated.',
        E'<pre>{BOARD_TABLE}</pre>\nРейтинг Эло меняют партии между игроками (у всех он начинается с 1500); партии с ботом считаются, но на рейтинг не влияют.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'none', NULL,
        'You have not finished a board game yet. Send /games to start one.',
        'Вы ещё не закончили ни одной партии. Отправьте /games, чтобы начать.');

END $$;

-- /help names the board games' commands.
UPDATE localized_string SET text = E'/quest — choose a quest (/quest <i>name</i> starts it at once)\n/score — your results and credits\n/retry — show the quest again\n/games — play a board game: against the bot, an opponent or a friend\n/mygames — your board games\n/rating — your board game results\n/lang — change the language\n\nIn a quest, press the buttons under its text. In a board game, tap a piece, then where it goes, or type the move (e3-f4, Nf3).'
WHERE action_id = 601 AND lang = 'en';
UPDATE localized_string SET text = E'/quest — выбрать квест (/quest <i>название</i> сразу запускает его)\n/score — ваши результаты и кредиты\n/retry — показать квест ещё раз\n/games — сыграть в настольную игру: с ботом, с соперником или с другом\n/mygames — ваши партии\n/rating — ваши результаты в играх\n/lang — сменить язык\n\nВ квесте нажимайте кнопки под текстом. В партии нажмите фигуру, потом куда ей пойти, или напишите ход (e3-f4, Кf3).'
WHERE action_id = 601 AND lang = 'ru';
