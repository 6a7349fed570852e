-- The bot's commands as a command tree (see 003_scripts.sql and package scripts): /start [id],
-- /quest [name], /lang, /score, /retry and /help, with the stored procedures they call. These
-- rows are the defaults of every bot (service_id NULL); an operator may change them, or give one
-- bot its own command of the same name, with SQL.
--
-- Procedures called by the tree take positional arguments, the user and the bot first, and
-- return JSON; "result_code" picks the branch.

INSERT INTO param_type (name) VALUES
    ('START'), ('QUEST'), ('QUEST_NAME'), ('SCRIPT'), ('LIST'), ('SCORE');

-- The catalogue of a bot in a language: each listed quest once, in that language when it has a
-- version in it, else in English, newest version first.
CREATE FUNCTION quest_list(p_service integer, p_lang text)
RETURNS TABLE (id bigint, name text, common_name text) LANGUAGE sql STABLE AS $$
    SELECT DISTINCT ON (s.common_name) s.id, s.name, s.common_name
    FROM script s
    WHERE s.listed AND s.language IN (p_lang, 'en') AND (s.service_id IS NULL OR s.service_id = p_service)
    ORDER BY s.common_name, s.language = p_lang DESC, s.version DESC, s.id DESC
$$;

-- Whether the user plays a quest in this bot: {"result_code": "running", "quest": its name} or
-- {"result_code": "none"}.
CREATE FUNCTION quest_running(p_user bigint, p_service integer)
RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT COALESCE(
        (SELECT jsonb_build_object('result_code', 'running', 'quest', s.name)
         FROM game g JOIN script s ON s.id = g.script_id
         WHERE g.service_id = p_service AND g.user_id = p_user),
        jsonb_build_object('result_code', 'none'))
$$;

-- The quests for /quest [name] (see quest_list): without a name, the catalogue; with one, the
-- quests whose name or common name is it, else contains it, ignoring case. Listed quests only.
-- {"result_code": "one", "script": id} when exactly one quest is left, {"result_code": "many",
-- "list": [{"value": id, "label": name}, ...]} when several, {"result_code": "none"} when none.
CREATE FUNCTION quest_catalogue(p_user bigint, p_service integer, p_lang text, p_name text)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
    want  text := lower(btrim(COALESCE(p_name, '')));
    lang  text := CASE WHEN p_lang = 'ru' THEN 'ru' ELSE 'en' END;
    found jsonb;
    n     integer := 0;
BEGIN
    IF want = '' THEN
        SELECT jsonb_agg(jsonb_build_object('value', q.id::text, 'label', q.name) ORDER BY q.name, q.id), count(*)
        INTO found, n FROM quest_list(p_service, lang) q;
    ELSE
        SELECT jsonb_agg(jsonb_build_object('value', q.id::text, 'label', q.name) ORDER BY q.name, q.id), count(*)
        INTO found, n FROM quest_list(p_service, lang) q
        WHERE lower(q.name) = want OR lower(q.common_name) = want;
        IF n = 0 THEN
            SELECT jsonb_agg(jsonb_build_object('value', q.id::text, 'label', q.name) ORDER BY q.name, q.id), count(*)
            INTO found, n FROM quest_list(p_service, lang) q
            WHERE strpos(lower(q.name), want) > 0 OR strpos(lower(q.common_name), want) > 0;
        END IF;
    END IF;
    IF n = 0 THEN
        RETURN jsonb_build_object('result_code', 'none');
    ELSIF n = 1 THEN
        RETURN jsonb_build_object('result_code', 'one', 'script', found->0->>'value');
    END IF;
    RETURN jsonb_build_object('result_code', 'many', 'list', found);
END $$;

-- The quest of a deep link (/start <id>): {"result_code": "ok", "script": id} when the bot offers
-- quest <id> (listed or not: a link is how an unlisted quest is shared), "greet" without an id,
-- "unknown" otherwise. The id arrives as the user typed it.
CREATE FUNCTION quest_by_id(p_user bigint, p_service integer, p_id text)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
    id bigint;
BEGIN
    IF btrim(COALESCE(p_id, '')) = '' THEN
        RETURN jsonb_build_object('result_code', 'greet');
    END IF;
    IF btrim(p_id) !~ '^[0-9]{1,18}$' THEN
        RETURN jsonb_build_object('result_code', 'unknown');
    END IF;
    SELECT s.id INTO id FROM script s
    WHERE s.id = btrim(p_id)::bigint AND (s.service_id IS NULL OR s.service_id = p_service);
    IF id IS NULL THEN
        RETURN jsonb_build_object('result_code', 'unknown');
    END IF;
    RETURN jsonb_build_object('result_code', 'ok', 'script', id::text);
END $$;

-- Sets the user's language ('en' or 'ru') and returns {"lang": it}.
CREATE FUNCTION set_language(p_user bigint, p_lang text)
RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
    IF p_lang NOT IN ('en', 'ru') THEN
        RETURN jsonb_build_object('result_code', 'invalid');
    END IF;
    UPDATE users SET language = p_lang WHERE id = p_user;
    RETURN jsonb_build_object('result_code', 'ok', 'lang', p_lang);
END $$;

-- The user's results as a monospace table, one row per quest (language versions together, named
-- in the user's language when it has a version in it), a totals row and the credits:
-- {"result_code": "ok", "score": the text} or {"result_code": "empty"}.
CREATE FUNCTION quest_score(p_user bigint, p_service integer, p_lang text)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
    ru      boolean := p_lang = 'ru';
    r       record;
    names   text[] := ARRAY[]::text[];
    counts  text[] := ARRAY[]::text[];
    lines   text[] := ARRAY[]::text[];
    head    text := CASE WHEN ru THEN 'Квест' ELSE 'Quest' END;
    total   text := CASE WHEN ru THEN 'Итого' ELSE 'Total' END;
    w       integer;
    st      user_stats%ROWTYPE;
BEGIN
    SELECT * INTO st FROM user_stats us WHERE us.service_id = p_service AND us.user_id = p_user;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('result_code', 'empty');
    END IF;
    FOR r IN
        SELECT left(COALESCE(
                   (SELECT s2.name FROM script s2 WHERE s2.common_name = s.common_name AND s2.language = p_lang
                    ORDER BY s2.version DESC LIMIT 1),
                   min(s.name)), 24) AS name,
               sum(x.wins) AS wins, sum(x.failures) AS failures, sum(x.deaths) AS deaths,
               sum(x.launches) AS launches
        FROM user_script_stats x JOIN script s ON s.id = x.script_id
        WHERE x.service_id = p_service AND x.user_id = p_user
        GROUP BY s.common_name ORDER BY 1
    LOOP
        names := names || r.name;
        counts := counts || (lpad(r.wins::text, 3) || ' ' || lpad(r.failures::text, 3) || ' '
            || lpad(r.deaths::text, 3) || ' ' || lpad(r.launches::text, 5));
    END LOOP;
    SELECT greatest(COALESCE(max(char_length(n)), 0), char_length(head), char_length(total)) INTO w
    FROM unnest(names) AS n;
    lines := lines || (rpad(head, w) || CASE WHEN ru THEN '  Поб Пор Гиб Всего' ELSE '  Win Los Die   All' END);
    FOR i IN 1 .. COALESCE(array_length(names, 1), 0) LOOP
        lines := lines || (rpad(names[i], w) || '  ' || counts[i]);
    END LOOP;
    lines := lines || (rpad(total, w) || '  ' || lpad(st.wins::text, 3) || ' ' || lpad(st.failures::text, 3) || ' '
        || lpad(st.deaths::text, 3) || ' ' || lpad(st.launches::text, 5));
    lines := lines || ((CASE WHEN ru THEN 'Кредиты: ' ELSE 'Credits: ' END) || st.credits::text);
    RETURN jsonb_build_object('result_code', 'ok', 'score', array_to_string(lines, E'\n'));
END $$;

-- The commands. Ids are fixed so that the tree below can name its parents; the identity
-- sequences move past them at the end.
INSERT INTO command (id, name, visible, order_num) VALUES
    (1, 'quest', true, 1),
    (2, 'lang', true, 90),
    (3, 'start', false, 0),
    (4, 'score', true, 2),
    (5, 'retry', true, 3),
    (6, 'help', true, 91);

INSERT INTO command_param (command_id, order_num, param) VALUES
    (1, 1, 'QUEST_NAME'),
    (3, 1, 'START');

INSERT INTO localized_string (command_id, lang, text) VALUES
    (1, 'en', 'Choose a quest'),         (1, 'ru', 'Выбрать квест'),
    (2, 'en', 'Change the language'),    (2, 'ru', 'Сменить язык'),
    (3, 'en', 'Start'),                  (3, 'ru', 'Начать'),
    (4, 'en', 'Your results'),           (4, 'ru', 'Ваши результаты'),
    (5, 'en', 'Show the quest again'),   (5, 'ru', 'Показать квест ещё раз'),
    (6, 'en', 'What I can do'),          (6, 'ru', 'Что я умею');

INSERT INTO action (id, command_id, parent_id, order_num, type, width, param, request, result_code, guard) VALUES
    -- /quest [name]: with a running quest, offer to cancel it; else the catalogue.
    (101, 1, NULL, 1, 'procedure', 1, NULL, 'quest_running', NULL, NULL),
    (102, 1, 101, 1, 'menu', 2, NULL, NULL, 'running', NULL),
    (103, 1, 102, 1, 'folder', 1, NULL, NULL, NULL, NULL),
    (104, 1, 103, 1, 'cancel_quest', 1, NULL, NULL, NULL, NULL),
    (105, 1, 103, 2, 'output', 1, NULL, NULL, NULL, NULL),
    (106, 1, 102, 2, 'folder', 1, NULL, NULL, NULL, NULL),
    (107, 1, 106, 1, 'output', 1, NULL, NULL, NULL, NULL),
    (108, 1, 101, 2, 'procedure', 1, NULL, 'quest_catalogue', NULL, NULL),
    (109, 1, 108, 1, 'folder', 1, NULL, NULL, 'many', NULL),
    (110, 1, 109, 1, 'list_menu', 3, 'LIST', NULL, NULL, NULL),
    (111, 1, 109, 2, 'quest', 1, 'LIST', NULL, NULL, NULL),
    (112, 1, 108, 2, 'quest', 1, 'SCRIPT', NULL, 'one', NULL),
    (113, 1, 108, 3, 'output', 1, NULL, NULL, 'none', 'QUEST_NAME != ''''' ),
    (114, 1, 108, 4, 'output', 1, NULL, NULL, 'none', 'QUEST_NAME == '''''),
    -- /lang: choose, then move the running quest to the new language.
    (201, 2, NULL, 1, 'menu', 2, NULL, NULL, NULL, NULL),
    (202, 2, 201, 1, 'procedure', 1, NULL, 'set_language', NULL, NULL),
    (203, 2, 201, 2, 'procedure', 1, NULL, 'set_language', NULL, NULL),
    (204, 2, NULL, 2, 'refresh', 1, NULL, NULL, NULL, NULL),
    (205, 2, NULL, 3, 'output', 1, NULL, NULL, NULL, NULL),
    -- /start [id]: a deep link launches its quest; a plain /start greets.
    (301, 3, NULL, 1, 'procedure', 1, NULL, 'quest_by_id', NULL, NULL),
    (302, 3, 301, 1, 'quest', 1, 'SCRIPT', NULL, 'ok', NULL),
    (303, 3, 301, 2, 'output', 1, NULL, NULL, 'greet', NULL),
    (304, 3, 301, 3, 'output', 1, NULL, NULL, 'unknown', NULL),
    -- /score
    (401, 4, NULL, 1, 'procedure', 1, NULL, 'quest_score', NULL, NULL),
    (402, 4, 401, 1, 'output', 1, NULL, NULL, 'ok', NULL),
    (403, 4, 401, 2, 'output', 1, NULL, NULL, NULL, NULL),
    -- /retry
    (501, 5, NULL, 1, 'procedure', 1, NULL, 'quest_running', NULL, NULL),
    (502, 5, 501, 1, 'retry_quest', 1, NULL, NULL, 'running', NULL),
    (503, 5, 501, 2, 'output', 1, NULL, NULL, NULL, NULL),
    -- /help
    (601, 6, NULL, 1, 'output', 1, NULL, NULL, NULL, NULL);

INSERT INTO request_param (action_id, order_num, name, param, default_value) VALUES
    (101, 1, 'user', 'USER', NULL), (101, 2, 'service', 'SERVICE', NULL),
    (108, 1, 'user', 'USER', NULL), (108, 2, 'service', 'SERVICE', NULL),
    (108, 3, 'lang', 'LANG', NULL), (108, 4, 'name', 'QUEST_NAME', NULL),
    (202, 1, 'user', 'USER', NULL), (202, 2, 'lang', NULL, 'en'),
    (203, 1, 'user', 'USER', NULL), (203, 2, 'lang', NULL, 'ru'),
    (301, 1, 'user', 'USER', NULL), (301, 2, 'service', 'SERVICE', NULL), (301, 3, 'id', 'START', NULL),
    (401, 1, 'user', 'USER', NULL), (401, 2, 'service', 'SERVICE', NULL), (401, 3, 'lang', 'LANG', NULL),
    (501, 1, 'user', 'USER', NULL), (501, 2, 'service', 'SERVICE', NULL);

INSERT INTO response_param (action_id, name, param) VALUES
    (101, 'quest', 'QUEST'),
    (108, 'script', 'SCRIPT'), (108, 'list', 'LIST'),
    (202, 'lang', 'LANG'), (203, 'lang', 'LANG'),
    (301, 'script', 'SCRIPT'),
    (401, 'score', 'SCORE');

INSERT INTO localized_string (action_id, lang, text) VALUES
    (102, 'en', 'You are playing «{QUEST}». Cancel it?'),
    (102, 'ru', 'Вы играете в «{QUEST}». Прервать квест?'),
    (103, 'en', 'Yes'), (103, 'ru', 'Да'),
    (105, 'en', 'The quest is cancelled. Send /quest to choose another one.'),
    (105, 'ru', 'Квест прерван. Отправьте /quest, чтобы выбрать другой.'),
    (106, 'en', 'No'), (106, 'ru', 'Нет'),
    (107, 'en', 'Carry on! /retry shows where you are.'),
    (107, 'ru', 'Продолжайте! /retry покажет, где вы остановились.'),
    (110, 'en', 'Choose a quest:'), (110, 'ru', 'Выберите квест:'),
    (113, 'en', 'I have no quest called «{QUEST_NAME}». Send /quest to see them all.'),
    (113, 'ru', 'Квеста «{QUEST_NAME}» у меня нет. Отправьте /quest, чтобы увидеть все.'),
    (114, 'en', 'There are no quests yet.'), (114, 'ru', 'Квестов пока нет.'),
    (201, 'en', 'Choose your language:'), (201, 'ru', 'Выберите язык:'),
    (202, 'en', 'English'),
    (203, 'en', 'Русский'),
    (205, 'en', 'I speak English with you now.'),
    (205, 'ru', 'Теперь я говорю с вами по-русски.'),
    (303, 'en', 'Hello, <b>{NAME}</b>! I am Questbot: I play Space Rangers text quests with you. Send /quest to choose one.'),
    (303, 'ru', 'Привет, <b>{NAME}</b>! Я Questbot: играю с вами в текстовые квесты «Космических рейнджеров». Отправьте /quest, чтобы выбрать квест.'),
    (304, 'en', 'There is no quest with this number. Send /quest to choose one.'),
    (304, 'ru', 'Квеста с таким номером нет. Отправьте /quest, чтобы выбрать квест.'),
    (402, 'en', '<pre>{SCORE}</pre>'),
    (403, 'en', 'You have not played any quest yet. Send /quest to choose one.'),
    (403, 'ru', 'Вы ещё не сыграли ни одного квеста. Отправьте /quest, чтобы выбрать квест.'),
    (503, 'en', 'No quest is running. Send /quest to choose one.'),
    (503, 'ru', 'Сейчас вы не играете в квест. Отправьте /quest, чтобы выбрать квест.'),
    (601, 'en', E'/quest — choose a quest (/quest <i>name</i> starts it at once)\n/score — your results and credits\n/retry — show the quest again\n/lang — change the language\n\nIn a quest, press the buttons under its text.'),
    (601, 'ru', E'/quest — выбрать квест (/quest <i>название</i> сразу запускает его)\n/score — ваши результаты и кредиты\n/retry — показать квест ещё раз\n/lang — сменить язык\n\nВ квесте нажимайте кнопки под текстом.');

SELECT setval(pg_get_serial_sequence('command', 'id'), 1000);
SELECT setval(pg_get_serial_sequence('action', 'id'), 100000);
