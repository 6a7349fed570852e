-- Quests written for the original Telegram bot (DagazBotV3) play by its rules: each quest of the
-- catalogue names the dialect it is played in (bot/questplay says what each changes), settable
-- with /setquest N dialect … and on import (questbot quests add). Also: /quest shows the quest
-- player's paged catalogue, /score speaks in words, every game keeps its moves, and the
-- developers get /log, /positions and /delete.

-- reference: the reference player (space-rangers-quest), exactly; dagazbot: the original bot's
-- rendering rules and its rule for jumps that share a text.
ALTER TABLE script ADD COLUMN dialect text NOT NULL DEFAULT 'reference'
    CHECK (dialect IN ('reference', 'dagazbot'));

-- /setquest <id> <field> <value> (008_developers.sql) with one more field: dialect (reference or
-- dagazbot).
CREATE OR REPLACE FUNCTION dev_set_quest(p_user bigint, p_service integer, p_id text, p_field text, p_value text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    want  bigint;
    field text := lower(btrim(COALESCE(p_field, '')));
    val   text := btrim(COALESCE(p_value, ''));
    s     script%ROWTYPE;
    n     bigint;
BEGIN
    IF NOT dev_is_admin(p_user) THEN
        RETURN jsonb_build_object('result_code', 'not_admin');
    END IF;
    IF btrim(COALESCE(p_id, '')) !~ '^#?[0-9]{1,18}$' OR field = '' OR val = '' THEN
        RETURN jsonb_build_object('result_code', 'usage');
    END IF;
    want := ltrim(btrim(p_id), '#')::bigint;
    SELECT * INTO s FROM script
    WHERE id = want AND (service_id IS NULL OR service_id = p_service) FOR UPDATE;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('result_code', 'not_found');
    END IF;
    CASE field
    WHEN 'listed' THEN
        IF lower(val) IN ('yes', 'on', 'true', '1', 'да') THEN
            UPDATE script SET listed = true WHERE id = want;
            val := 'yes';
        ELSIF lower(val) IN ('no', 'off', 'false', '0', 'нет') THEN
            UPDATE script SET listed = false WHERE id = want;
            val := 'no';
        ELSE
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
    WHEN 'name' THEN
        IF char_length(val) > 64 OR val ~ '[[:cntrl:]]' THEN
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
        UPDATE script SET name = val WHERE id = want;
    WHEN 'lang', 'language' THEN
        val := lower(val);
        IF val NOT IN ('en', 'ru') THEN
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
        IF val <> s.language THEN
            SELECT COALESCE(max(version), 0) + 1 INTO n FROM script WHERE common_name = s.common_name AND language = val;
            UPDATE script SET language = val, version = n WHERE id = want;
        END IF;
    WHEN 'common' THEN
        val := lower(val);
        IF val !~ '^[a-z0-9][a-z0-9_.-]{0,63}$' THEN
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
        IF val <> s.common_name THEN
            SELECT COALESCE(max(version), 0) + 1 INTO n FROM script WHERE common_name = val AND language = s.language;
            UPDATE script SET common_name = val, version = n WHERE id = want;
        END IF;
    WHEN 'bonus', 'penalty' THEN
        IF val !~ '^[0-9]{1,7}$' OR val::integer > 1000000 THEN
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
        val := val::integer::text;
        IF field = 'bonus' THEN
            UPDATE script SET win_bonus = val::integer WHERE id = want;
        ELSE
            UPDATE script SET death_penalty = val::integer WHERE id = want;
        END IF;
    WHEN 'dialect' THEN
        val := lower(val);
        IF val NOT IN ('reference', 'dagazbot') THEN
            RETURN jsonb_build_object('result_code', 'bad_value');
        END IF;
        UPDATE script SET dialect = val WHERE id = want;
    ELSE
        RETURN jsonb_build_object('result_code', 'usage');
    END CASE;
    RETURN jsonb_build_object('result_code', 'ok', 'quest', (SELECT name FROM script WHERE id = want),
        'field', field, 'value', val);
END $$;

-- The texts of /setquest and /devhelp that list the fields.
UPDATE localized_string l SET text = CASE l.lang
    WHEN 'en' THEN '«{DEV_VALUE}» is not a valid {DEV_FIELD}: listed is yes or no; name is up to 64 characters; lang is en or ru; common is up to 64 lower-case letters, digits, «.», «_» or «-»; bonus and penalty are 0 to 1000000; dialect is reference or dagazbot.'
    ELSE '«{DEV_VALUE}» — недопустимое значение {DEV_FIELD}: listed — yes или no; name — до 64 символов; lang — en или ru; common — до 64 строчных латинских букв, цифр, «.», «_» или «-»; bonus и penalty — от 0 до 1000000; dialect — reference или dagazbot.' END
FROM action a JOIN command c ON c.id = a.command_id
WHERE l.action_id = a.id AND c.name = 'setquest' AND c.service_id IS NULL AND a.result_code = 'bad_value';

UPDATE localized_string l SET text = CASE l.lang
    WHEN 'en' THEN 'Usage: /setquest <i>number</i> <i>field</i> <i>value</i>; the fields are listed (yes or no), name, lang (en or ru), common (the name its language versions share), bonus and penalty (credits on a win, on a death), dialect (reference: as the reference player; dagazbot: as the original bot, for the quests written for it).'
    ELSE 'Использование: /setquest <i>номер</i> <i>поле</i> <i>значение</i>; поля: listed (yes или no), name, lang (en или ru), common (общее имя языковых версий), bonus и penalty (кредиты за победу и за гибель), dialect (reference — как эталонный плеер; dagazbot — как исходный бот, для квестов, написанных для него).' END
FROM action a JOIN command c ON c.id = a.command_id
WHERE l.action_id = a.id AND c.name = 'setquest' AND c.service_id IS NULL AND a.result_code = 'usage';

UPDATE localized_string l SET text = regexp_replace(l.text, '(penalty <i>[^<]*</i>)', '\1 | dialect reference|dagazbot')
FROM action a JOIN command c ON c.id = a.command_id
WHERE l.action_id = a.id AND c.name = 'devhelp' AND c.service_id IS NULL AND l.text LIKE '%/setquest%';

-- ---- The catalogue a page at a time.

-- /quest (005_commands.sql): when several quests match, the quest player's catalogue
-- (quest.catalogue, bot/questplay) shows them a page at a time, with what is new to the player and
-- how many players finished each, instead of one menu of every quest.
DO $$
DECLARE
    many bigint;
    cmd  bigint;
    p    bigint;
BEGIN
    SELECT f.id, f.command_id INTO many, cmd
    FROM action f
    JOIN action c ON c.id = f.parent_id AND c.request = 'quest_catalogue'
    JOIN command q ON q.id = f.command_id AND q.name = 'quest' AND q.service_id IS NULL
    WHERE f.result_code = 'many';
    IF many IS NULL THEN
        RETURN; -- an operator rebuilt /quest: it stays as they made it
    END IF;
    DELETE FROM action WHERE parent_id = many;
    p := tree_action(cmd, many, 1, 'builtin', NULL, 'quest.catalogue', NULL, NULL, NULL, NULL);
    PERFORM tree_request_params(p, 'name', 'QUEST_NAME');
END $$;

-- How many players finished a quest, counted by the catalogue.
CREATE INDEX user_script_stats_script_idx ON user_script_stats (script_id);

-- ---- /score: columns in words, and what credits are.

INSERT INTO param_type (name) VALUES ('CREDITS') ON CONFLICT DO NOTHING;

-- The user's results as a monospace table, one row per quest (language versions together, named
-- in the user's language when it has a version in it) and a totals row, and the credits apart:
-- {"result_code": "ok", "score": the table, "credits": the credits} or {"result_code": "empty"}.
CREATE OR REPLACE FUNCTION quest_score(p_user bigint, p_service integer, p_lang text)
RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
    ru     boolean := p_lang = 'ru';
    heads  text[] := CASE WHEN ru THEN ARRAY['Квест', 'Побед', 'Провалов', 'Гибелей', 'Игр']
                          ELSE ARRAY['Quest', 'Won', 'Failed', 'Died', 'Played'] END;
    total  text := CASE WHEN ru THEN 'Итого' ELSE 'Total' END;
    r      record;
    names  text[] := ARRAY[]::text[];
    counts bigint[] := ARRAY[]::bigint[];
    lines  text[] := ARRAY[]::text[];
    w      integer;
    st     user_stats%ROWTYPE;
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
        counts := counts || ARRAY[r.wins, r.failures, r.deaths, r.launches]::bigint[];
    END LOOP;
    names := names || total;
    counts := counts || ARRAY[st.wins, st.failures, st.deaths, st.launches]::bigint[];
    SELECT greatest(COALESCE(max(char_length(n)), 0), char_length(heads[1])) INTO w FROM unnest(names) AS n;
    lines := lines || (rpad(heads[1], w) || '  ' || heads[2] || ' ' || heads[3] || ' ' || heads[4] || ' ' || heads[5]);
    FOR i IN 1 .. array_length(names, 1) LOOP
        lines := lines || (rpad(names[i], w) || '  '
            || lpad(counts[4 * i - 3]::text, char_length(heads[2])) || ' '
            || lpad(counts[4 * i - 2]::text, char_length(heads[3])) || ' '
            || lpad(counts[4 * i - 1]::text, char_length(heads[4])) || ' '
            || lpad(counts[4 * i]::text, char_length(heads[5])));
    END LOOP;
    RETURN jsonb_build_object('result_code', 'ok', 'score', array_to_string(lines, E'\n'), 'credits', st.credits::text);
END $$;

-- The answer of /score: the table, then the credits and what they are.
DO $$
DECLARE
    call bigint;
    ok   bigint;
BEGIN
    SELECT a.id INTO call FROM action a JOIN command c ON c.id = a.command_id
    WHERE c.name = 'score' AND c.service_id IS NULL AND a.request = 'quest_score';
    SELECT a.id INTO ok FROM action a WHERE a.parent_id = call AND a.result_code = 'ok';
    IF call IS NULL OR ok IS NULL THEN
        RETURN; -- an operator rebuilt /score
    END IF;
    INSERT INTO response_param (action_id, name, param) VALUES (call, 'credits', 'CREDITS');
    DELETE FROM localized_string WHERE action_id = ok;
    INSERT INTO localized_string (action_id, lang, text) VALUES
        (ok, 'en', E'<pre>{SCORE}</pre>\nCredits: <b>{CREDITS}</b>. You begin with 10 000. A quest with money plays with part of them and pays back what is left when it ends; a win adds the quest''s bonus, a death takes its penalty.'),
        (ok, 'ru', E'<pre>{SCORE}</pre>\nКредиты: <b>{CREDITS}</b>. Вначале их 10 000. Квест с деньгами играет на часть из них и возвращает оставшееся, когда кончается; победа добавляет награду квеста, гибель отнимает штраф.');
END $$;

-- ---- The log of each game (quest/questlog): the moves made from its start, for /log and
-- ---- /positions. NULL for the games started before the log was kept.

ALTER TABLE game ADD COLUMN moves jsonb;

-- ---- Developers' commands: /log, /positions (bot/devtools) and /delete.

-- /delete <id>: deletes a developer's own upload of a quest (that version: its catalogue entry and
-- its upload row; the stored file goes with the next sweep). A listed quest must be unlisted by
-- an admin first, and a quest another player's game runs stays; the owner's own game of it ends.
-- {"result_code": "ok", "quest": its name, "version": its version}, or usage, not_found (no such
-- upload of the user's), listed, playing.
CREATE FUNCTION dev_delete_upload(p_user bigint, p_service integer, p_id text)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    want bigint;
    s    script%ROWTYPE;
    v    integer;
BEGIN
    IF btrim(COALESCE(p_id, '')) !~ '^#?[0-9]{1,18}$' THEN
        RETURN jsonb_build_object('result_code', 'usage');
    END IF;
    want := ltrim(btrim(p_id), '#')::bigint;
    SELECT * INTO s FROM script
    WHERE id = want AND uploaded AND owner_id = p_user AND service_id = p_service FOR UPDATE;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('result_code', 'not_found');
    END IF;
    IF s.listed THEN
        RETURN jsonb_build_object('result_code', 'listed', 'quest', s.name);
    END IF;
    IF EXISTS (SELECT FROM game g WHERE g.script_id = want AND NOT (g.user_id = p_user AND g.service_id = p_service)) THEN
        RETURN jsonb_build_object('result_code', 'playing', 'quest', s.name);
    END IF;
    SELECT d.version INTO v FROM dev_upload d WHERE d.script_id = want ORDER BY d.version DESC LIMIT 1;
    DELETE FROM game WHERE script_id = want;
    DELETE FROM dev_upload WHERE script_id = want;
    DELETE FROM script WHERE id = want;
    RETURN jsonb_build_object('result_code', 'ok', 'quest', s.name, 'version', COALESCE(v, s.version)::text);
END $$;

INSERT INTO param_type (name) VALUES ('DEV_VERSION') ON CONFLICT DO NOTHING;

DO $$
DECLARE
    dev     text := 'DEVELOPER == true || ADMIN == true';
    not_dev text := 'DEVELOPER != true && ADMIN != true';
    dev_en  text := 'This command is for quest developers. An admin can make you one.';
    dev_ru  text := 'Эта команда — для разработчиков квестов. Сделать вас разработчиком может администратор.';
    fail_en text := 'Sorry, that did not work. Please try again later.';
    fail_ru text := 'Извините, не получилось. Попробуйте позже.';
    game_en text := 'No quest is running. /load <i>quest</i> starts one as a sandbox.';
    game_ru text := 'Квест не запущен. /load <i>квест</i> запустит его в песочнице.';
    old_en  text := 'This game began before games kept their moves. /load the quest again to have them.';
    old_ru  text := 'Эта игра началась раньше, чем игры стали запоминать ходы. Запустите квест заново командой /load.';
    c bigint;
    p bigint;
BEGIN
    -- /log: the moves of the running game, as a file.
    c := tree_command('log', 'The moves of the game as a file (developers)', 'Ходы игры в файл (разработчикам)');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.log', NULL, dev, NULL, NULL);
    PERFORM tree_action(c, p, 1, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'no_game', NULL, game_en, game_ru);
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'incomplete', NULL, old_en, old_ru);
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);

    -- /positions: the locations the running game entered, with counts.
    c := tree_command('positions', 'Locations the game visited (developers)', 'Где побывала игра (разработчикам)');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.positions', NULL, dev, NULL, NULL);
    PERFORM tree_response_params(p, 'error', 'DEV_ERROR');
    PERFORM tree_action(c, p, 1, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'no_game', NULL, game_en, game_ru);
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'incomplete', NULL, old_en, old_ru);
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'broken', NULL,
        'The moves of this game do not replay: {DEV_ERROR}', 'Ходы этой игры не повторяются: {DEV_ERROR}');
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 6, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);

    -- /delete <number>: deletes an own upload.
    c := tree_command('delete', 'Delete an upload of yours (developers)', 'Удалить свою загрузку (разработчикам)', 'DEV_ARG');
    p := tree_action(c, NULL, 1, 'procedure', NULL, 'dev_delete_upload', NULL, dev, NULL, NULL);
    PERFORM tree_request_params(p, 'user', 'USER', 'service', 'SERVICE', 'id', 'DEV_ARG');
    PERFORM tree_response_params(p, 'quest', 'DEV_QUEST', 'version', 'DEV_VERSION');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        'Deleted: «{DEV_QUEST}», version {DEV_VERSION}.', 'Удалено: «{DEV_QUEST}», версия {DEV_VERSION}.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'usage', NULL,
        'Usage: /delete <i>number</i>; /load without an argument lists your quests with their numbers.',
        'Использование: /delete <i>номер</i>; /load без аргумента покажет ваши квесты с номерами.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'not_found', NULL,
        'You have no upload #{DEV_ARG}. /load without an argument lists yours.',
        'У вас нет загрузки #{DEV_ARG}. /load без аргумента покажет ваши.');
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'listed', NULL,
        '«{DEV_QUEST}» is in the catalogue: an admin must take it out (/setquest {DEV_ARG} listed no) before it can be deleted.',
        '«{DEV_QUEST}» есть в каталоге: прежде чем удалить, администратор должен убрать его оттуда (/setquest {DEV_ARG} listed no).');
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, 'playing', NULL,
        'Someone is playing «{DEV_QUEST}» now: it cannot be deleted until they finish.',
        'В «{DEV_QUEST}» сейчас кто-то играет: удалить его можно, когда игра закончится.');
    PERFORM tree_action(c, p, 6, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);
END $$;

UPDATE localized_string l SET text = CASE l.lang
    WHEN 'en' THEN l.text || E'\n/log — the moves of the game as a file (questbot replay plays it); /positions — the locations it visited\n/delete <i>number</i> — delete an upload of yours'
    ELSE l.text || E'\n/log — ходы игры в файл (его повторит questbot replay); /positions — где она побывала\n/delete <i>номер</i> — удалить свою загрузку' END
FROM action a JOIN command c ON c.id = a.command_id
WHERE l.action_id = a.id AND c.name = 'devhelp' AND c.service_id IS NULL AND a.guard = 'DEVELOPER == true || ADMIN == true';
