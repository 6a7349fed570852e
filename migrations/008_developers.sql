-- Quest developers (package bot/devtools): the roles, the files users upload into the chat, and
-- the commands of developers (/load, /show, /set, /calc, /dump, /write, /save, /devhelp) and of
-- admins (/quests, /setquest, /grantdev, /revokedev, /developers) as rows of the command tree,
-- with the stored procedures they call.
--
-- Roles: every user; a developer of a bot (user_service.is_developer), who may upload quests and
-- images and use the developer commands; an admin (users.is_admin, of every bot), who may do all
-- a developer may and manage the catalogue and the developers. Uploading never makes anyone a
-- developer: an admin grants the role (/grantdev), or a bot gives it to every new user
-- (service.new_users_developers, set from NEW_USERS_ARE_DEVELOPERS).

-- ---- Roles

-- Every user who first writes to a bot whose new_users_developers is set becomes a developer of
-- it. Users known before the flag was set keep their role.
ALTER TABLE service ADD COLUMN new_users_developers boolean NOT NULL DEFAULT false;

-- Runs only for rows actually inserted (never for a known user's visit), so it costs nothing on
-- the path of every update.
CREATE FUNCTION dev_new_member() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE user_service us SET is_developer = true
    FROM service s
    WHERE s.id = NEW.service_id AND s.new_users_developers
        AND us.user_id = NEW.user_id AND us.service_id = NEW.service_id AND NOT us.is_developer;
    RETURN NULL;
END $$;

CREATE TRIGGER user_service_new_developer AFTER INSERT ON user_service
    FOR EACH ROW EXECUTE FUNCTION dev_new_member();

-- The Telegram ids the configuration names as admins (ADMINS), kept so that an id removed from
-- the configuration loses the role it gave, while admins made by SQL keep theirs. A configured
-- admin who has not written yet becomes one with their first message (their first update is
-- still handled as a user's).
CREATE TABLE configured_admin (
    user_id bigint PRIMARY KEY
);

CREATE FUNCTION dev_new_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE users SET is_admin = true
    WHERE id = NEW.id AND NOT is_admin AND EXISTS (SELECT FROM configured_admin c WHERE c.user_id = NEW.id);
    RETURN NULL;
END $$;

CREATE TRIGGER users_configured_admin AFTER INSERT ON users
    FOR EACH ROW EXECUTE FUNCTION dev_new_user();

-- ---- Uploads

-- A quest a developer uploaded. It stays private (only its owner and the admins open it, and
-- only as a sandbox) until an admin lists it in the catalogue; unlisted again, it is private
-- again.
ALTER TABLE script ADD COLUMN uploaded boolean NOT NULL DEFAULT false;

-- The files uploaded into the chat, one row per version. A file is stored under UPLOADS_DIR with
-- a name the bot makes from its content (dev/quests/<sha256>.qmm, dev/images/<sha256>.png),
-- never with a name or path the sender chose; the name the sender gave is only a label.
-- Versions are counted per owner, bot, kind and name.
CREATE TABLE dev_upload (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    service_id integer NOT NULL REFERENCES service (id) ON DELETE CASCADE,
    owner_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind IN ('quest', 'image')),
    -- What versions are counted by, lower case: a quest's file name without its extension, an
    -- image's file name (quests name their images with the extension).
    name       text NOT NULL,
    -- The file name as sent, cleaned of control characters, for display.
    file_name  text NOT NULL,
    version    integer NOT NULL CHECK (version >= 1),
    -- The stored file, relative to UPLOADS_DIR.
    file       text NOT NULL CHECK (file ~ '^dev/(quests|images)/[0-9a-f]{64}\.(qm|qmm|png|jpg|gif)$'),
    sha256     text NOT NULL,
    size       integer NOT NULL CHECK (size > 0),
    -- The catalogue entry of a quest.
    script_id  bigint REFERENCES script (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (service_id, owner_id, kind, name, version)
);

CREATE INDEX dev_upload_script_idx ON dev_upload (script_id);

-- The name a developer gives the player for the quest texts (/set Ranger), for the game's life;
-- NULL: the user's Telegram name.
ALTER TABLE game ADD COLUMN ranger text;

-- Whether a user may open quest p_script in bot p_service as a sandbox (/load, a restored save):
-- a quest of the bot that is listed, shipped with the project, or uploaded by the user; admins
-- open every quest of the bot.
CREATE FUNCTION dev_openable(p_user bigint, p_service integer, p_script bigint)
RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
        SELECT FROM script s
        WHERE s.id = p_script AND (s.service_id IS NULL OR s.service_id = p_service)
            AND (s.listed OR NOT s.uploaded OR s.owner_id = p_user
                OR EXISTS (SELECT FROM users u WHERE u.id = p_user AND u.is_admin)))
$$;

-- /start <id> (005_commands.sql) as before, except that a private uploaded quest is unknown to
-- it: it would be a counted game, with credits at stake, of a quest nobody has reviewed.
CREATE OR REPLACE FUNCTION quest_by_id(p_user bigint, p_service integer, p_id text)
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
    WHERE s.id = btrim(p_id)::bigint AND (s.service_id IS NULL OR s.service_id = p_service)
        AND (s.listed OR NOT s.uploaded);
    IF id IS NULL THEN
        RETURN jsonb_build_object('result_code', 'unknown');
    END IF;
    RETURN jsonb_build_object('result_code', 'ok', 'script', id::text);
END $$;

-- ---- Procedures of the admin commands. Each checks the role itself, so that a command wired
-- ---- to it by mistake cannot bypass the guard.

CREATE FUNCTION dev_is_admin(p_user bigint) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT COALESCE((SELECT is_admin FROM users WHERE id = p_user), false)
$$;

-- /setquest <id> <field> <value>: changes a quest of the bot. Fields: listed (yes/no), name,
-- lang (en/ru), common (the common name), bonus and penalty (credits, 0 to 1 000 000). Moving a
-- quest to another common name or language makes it the newest version there, so that it is
-- the one the catalogue shows once listed. Returns {"result_code": "ok", "quest": its name,
-- "value": the value as stored}, or usage, not_found, bad_value, not_admin.
CREATE FUNCTION dev_set_quest(p_user bigint, p_service integer, p_id text, p_field text, p_value text)
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
    ELSE
        RETURN jsonb_build_object('result_code', 'usage');
    END CASE;
    RETURN jsonb_build_object('result_code', 'ok', 'quest', (SELECT name FROM script WHERE id = want),
        'field', field, 'value', val);
END $$;

-- The user of a bot an admin names: a Telegram id or a @username (case ignored), who has
-- written to the bot; NULL when there is none.
CREATE FUNCTION dev_member(p_service integer, p_target text) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
DECLARE
    t  text := btrim(COALESCE(p_target, ''));
    id bigint;
BEGIN
    IF t ~ '^[0-9]{1,18}$' THEN
        SELECT us.user_id INTO id FROM user_service us WHERE us.service_id = p_service AND us.user_id = t::bigint;
    ELSIF t ~ '^@?[A-Za-z0-9_]{1,64}$' THEN
        SELECT us.user_id INTO id FROM user_service us JOIN users u ON u.id = us.user_id
        WHERE us.service_id = p_service AND lower(u.username) = lower(ltrim(t, '@'))
        ORDER BY u.last_seen_at DESC LIMIT 1;
    END IF;
    RETURN id;
END $$;

-- How a user is named to an admin: «First name» (@username, id).
CREATE FUNCTION dev_who(p_user bigint) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN u.first_name = '' THEN '' ELSE u.first_name || ' ' END
        || '(' || COALESCE('@' || u.username || ', ', '') || u.id::text || ')'
    FROM users u WHERE u.id = p_user
$$;

-- /grantdev and /revokedev: makes a user of the bot a developer of it (p_on) or not.
-- {"result_code": "ok" or "already", "who": the user}, or usage, unknown, not_admin.
CREATE FUNCTION dev_set_developer(p_user bigint, p_service integer, p_target text, p_on boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    target bigint;
BEGIN
    IF NOT dev_is_admin(p_user) THEN
        RETURN jsonb_build_object('result_code', 'not_admin');
    END IF;
    IF btrim(COALESCE(p_target, '')) = '' THEN
        RETURN jsonb_build_object('result_code', 'usage');
    END IF;
    target := dev_member(p_service, p_target);
    IF target IS NULL THEN
        RETURN jsonb_build_object('result_code', 'unknown');
    END IF;
    UPDATE user_service SET is_developer = p_on
    WHERE user_id = target AND service_id = p_service AND is_developer <> p_on;
    RETURN jsonb_build_object('result_code', CASE WHEN FOUND THEN 'ok' ELSE 'already' END, 'who', dev_who(target));
END $$;

-- /developers: the developers of the bot, one a line, at most 50 (the most recently seen).
-- {"result_code": "ok", "list": the lines, "count": how many there are} or "none", not_admin.
CREATE FUNCTION dev_developers(p_user bigint, p_service integer) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
DECLARE
    lines text;
    n     bigint;
BEGIN
    IF NOT dev_is_admin(p_user) THEN
        RETURN jsonb_build_object('result_code', 'not_admin');
    END IF;
    SELECT count(*) INTO n FROM user_service WHERE service_id = p_service AND is_developer;
    IF n = 0 THEN
        RETURN jsonb_build_object('result_code', 'none');
    END IF;
    SELECT string_agg(w, E'\n' ORDER BY seen DESC) INTO lines FROM (
        SELECT dev_who(us.user_id) AS w, us.last_seen_at AS seen FROM user_service us
        WHERE us.service_id = p_service AND us.is_developer ORDER BY us.last_seen_at DESC LIMIT 50) d;
    RETURN jsonb_build_object('result_code', 'ok', 'list', lines, 'count', n::text);
END $$;

-- ---- The commands. Ids come from the identity sequences, moved past any id an earlier
-- ---- migration or an operator gave by hand. None is shown in the command menu, which every
-- ---- user sees; /devhelp lists them.

INSERT INTO param_type (name) VALUES
    ('DEV_ARG'), ('DEV_QUEST'), ('DEV_SCRIPT'), ('DEV_LIST'), ('DEV_PARAM'), ('DEV_VALUE'),
    ('DEV_MIN'), ('DEV_MAX'), ('DEV_ERROR'), ('DEV_ID'), ('DEV_FIELD'), ('DEV_WHO'), ('DEV_COUNT')
ON CONFLICT DO NOTHING;

SELECT setval(pg_get_serial_sequence('command', 'id'), GREATEST((SELECT max(id) FROM command), 1000));
SELECT setval(pg_get_serial_sequence('action', 'id'), GREATEST((SELECT max(id) FROM action), 100000));

-- Helpers for writing command trees in SQL, kept for operators and later migrations:
--   tree_command(name, en, ru, params...)       a command hidden from the menu (order 100), its
--                                               descriptions and the parameters its arguments fill
--   tree_action(command, parent, order, type, param, request, result_code, guard, en, ru [, width])
--                                               an action with its English and Russian texts
--                                               (either may be NULL)
--   tree_request_params(action, name, param, ...) the named arguments of a call, in order
--   tree_response_params(action, key, param, ...) where a call's answer goes
-- Each returns the id it created (the last two nothing). For example:
--   SELECT tree_action(tree_command('ping', 'Ping', 'Пинг'), NULL, 1, 'output',
--       NULL, NULL, NULL, NULL, 'pong, {NAME}', 'понг, {NAME}');

CREATE FUNCTION tree_action(p_cmd bigint, p_parent bigint, p_order integer, p_type text, p_param text,
    p_request text, p_code text, p_guard text, p_en text, p_ru text, p_width integer DEFAULT 1)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    id bigint;
BEGIN
    INSERT INTO action (command_id, parent_id, order_num, type, width, param, request, result_code, guard)
    VALUES (p_cmd, p_parent, p_order, p_type, p_width, p_param, p_request, p_code, p_guard)
    RETURNING action.id INTO id;
    IF p_en IS NOT NULL THEN
        INSERT INTO localized_string (action_id, lang, text) VALUES (id, 'en', p_en);
    END IF;
    IF p_ru IS NOT NULL THEN
        INSERT INTO localized_string (action_id, lang, text) VALUES (id, 'ru', p_ru);
    END IF;
    RETURN id;
END $$;

-- The parameters of a command's arguments are filled in order, the last taking the rest of the text.
CREATE FUNCTION tree_command(p_name text, p_en text, p_ru text, VARIADIC p_params text[] DEFAULT '{}')
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    id bigint;
BEGIN
    INSERT INTO command (name, visible, order_num) VALUES (p_name, false, 100) RETURNING command.id INTO id;
    INSERT INTO localized_string (command_id, lang, text) VALUES (id, 'en', p_en), (id, 'ru', p_ru);
    FOR i IN 1 .. COALESCE(array_length(p_params, 1), 0) LOOP
        INSERT INTO command_param (command_id, order_num, param) VALUES (id, i, p_params[i]);
    END LOOP;
    RETURN id;
END $$;

CREATE FUNCTION tree_request_params(p_action bigint, VARIADIC p_pairs text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. array_length(p_pairs, 1) / 2 LOOP
        INSERT INTO request_param (action_id, order_num, name, param) VALUES (p_action, i, p_pairs[2 * i - 1], p_pairs[2 * i]);
    END LOOP;
END $$;

CREATE FUNCTION tree_response_params(p_action bigint, VARIADIC p_pairs text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. array_length(p_pairs, 1) / 2 LOOP
        INSERT INTO response_param (action_id, name, param) VALUES (p_action, p_pairs[2 * i - 1], p_pairs[2 * i]);
    END LOOP;
END $$;

DO $$
DECLARE
    dev       text := 'DEVELOPER == true || ADMIN == true';
    not_dev   text := 'DEVELOPER != true && ADMIN != true';
    dev_en    text := 'This command is for quest developers. An admin can make you one.';
    dev_ru    text := 'Эта команда — для разработчиков квестов. Сделать вас разработчиком может администратор.';
    adm_en    text := 'This command is for the bot''s admins.';
    adm_ru    text := 'Эта команда — для администраторов бота.';
    fail_en   text := 'Sorry, that did not work. Please try again later.';
    fail_ru   text := 'Извините, не получилось. Попробуйте позже.';
    game_en   text := 'No quest is running. /load <i>quest</i> starts one as a sandbox.';
    game_ru   text := 'Квест не запущен. /load <i>квест</i> запустит его в песочнице.';
    c bigint;
    p bigint;
    f bigint;
BEGIN
    -- /load [id or name]: a quest the user may open, run as a sandbox; without an argument,
    -- the user's uploads.
    c := tree_command('load', 'Run a quest privately (developers)', 'Запустить квест в песочнице (разработчикам)', 'DEV_ARG');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.find', NULL, dev, NULL, NULL);
    PERFORM tree_request_params(p, 'what', 'DEV_ARG');
    PERFORM tree_response_params(p, 'quest', 'DEV_QUEST', 'script', 'DEV_SCRIPT', 'list', 'DEV_LIST', 'error', 'DEV_ERROR');
    f := tree_action(c, p, 1, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, f, 1, 'output', NULL, NULL, NULL, NULL,
        '«{DEV_QUEST}» (#{DEV_SCRIPT}) runs as a sandbox: it moves no credits and counts in no statistics.',
        '«{DEV_QUEST}» (#{DEV_SCRIPT}) запущен в песочнице: кредиты не меняются, статистика не ведётся.');
    f := tree_action(c, f, 2, 'builtin', NULL, 'dev.run', NULL, NULL, NULL, NULL);
    PERFORM tree_request_params(f, 'script', 'DEV_SCRIPT');
    PERFORM tree_response_params(f, 'error', 'DEV_ERROR');
    PERFORM tree_action(c, f, 1, 'output', NULL, NULL, 'broken', NULL,
        'This quest cannot start: {DEV_ERROR}', 'Этот квест не запускается: {DEV_ERROR}');
    PERFORM tree_action(c, f, 2, 'output', NULL, NULL, 'error', NULL, fail_en, fail_ru);
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'broken', NULL,
        '«{DEV_QUEST}» (#{DEV_SCRIPT}) cannot start: {DEV_ERROR}', '«{DEV_QUEST}» (#{DEV_SCRIPT}) не запускается: {DEV_ERROR}');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'list', NULL,
        E'Your quests:\n{DEV_LIST}\n\n/load <i>number</i> or /load <i>name</i> runs one as a sandbox.',
        E'Ваши квесты:\n{DEV_LIST}\n\n/load <i>номер</i> или /load <i>название</i> запустит квест в песочнице.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'none', NULL,
        'You have not uploaded a quest yet: send a .qm or .qmm file into this chat. /load <i>number</i> runs any quest of the catalogue as a sandbox.',
        'Вы ещё не загрузили ни одного квеста: отправьте в этот чат файл .qm или .qmm. /load <i>номер</i> запустит в песочнице любой квест каталога.');
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'not_found', NULL,
        'There is no quest «{DEV_ARG}» you can open. /load without a name lists your quests.',
        'Квеста «{DEV_ARG}», доступного вам, нет. /load без названия покажет ваши квесты.');
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 6, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);

    -- /show id|params|jumps|location: the running game, answered in the chat.
    c := tree_command('show', 'Inspect the running quest (developers)', 'Состояние квеста (разработчикам)', 'DEV_ARG');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.show', NULL, dev, NULL, NULL);
    PERFORM tree_request_params(p, 'what', 'DEV_ARG');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'usage', NULL,
        '/show id — the location, /show params — the parameters, /show jumps — the jumps of the location, /show location — the location in full.',
        '/show id — локация, /show params — параметры, /show jumps — переходы локации, /show location — локация целиком.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'no_game', NULL, game_en, game_ru);
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 4, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);

    -- /set pN V | Money V | Ranger NAME: changes the running sandbox game and shows it again.
    c := tree_command('set', 'Change the running quest (developers)', 'Изменить квест (разработчикам)', 'DEV_ARG');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.set', NULL, dev, NULL, NULL);
    PERFORM tree_request_params(p, 'args', 'DEV_ARG');
    PERFORM tree_response_params(p, 'param', 'DEV_PARAM', 'value', 'DEV_VALUE', 'min', 'DEV_MIN', 'max', 'DEV_MAX');
    f := tree_action(c, p, 1, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, f, 1, 'output', NULL, NULL, NULL, NULL,
        '{DEV_PARAM} is now {DEV_VALUE}.', '{DEV_PARAM} теперь {DEV_VALUE}.');
    PERFORM tree_action(c, f, 2, 'retry_quest', NULL, NULL, NULL, NULL, NULL, NULL);
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'usage', NULL,
        'Usage: /set p<i>N</i> <i>value</i>, /set Money <i>value</i> or /set Ranger <i>name</i>.',
        'Использование: /set p<i>N</i> <i>значение</i>, /set Money <i>значение</i> или /set Ranger <i>имя</i>.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'no_game', NULL, game_en, game_ru);
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'not_sandbox', NULL,
        'Only a sandbox game can be changed, so that nothing set by hand counts. /load the quest to run it as a sandbox.',
        'Менять можно только игру в песочнице, чтобы ничего заданное вручную не засчитывалось. Запустите квест в песочнице командой /load.');
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, 'no_param', NULL,
        'This quest has no parameter {DEV_PARAM}.', 'В этом квесте нет параметра {DEV_PARAM}.');
    PERFORM tree_action(c, p, 6, 'output', NULL, NULL, 'no_money', NULL,
        'This quest has no money parameter.', 'В этом квесте нет параметра денег.');
    PERFORM tree_action(c, p, 7, 'output', NULL, NULL, 'range', NULL,
        '{DEV_PARAM} must be between {DEV_MIN} and {DEV_MAX}.', '{DEV_PARAM} должен быть от {DEV_MIN} до {DEV_MAX}.');
    PERFORM tree_action(c, p, 8, 'output', NULL, NULL, 'bad_value', NULL,
        '«{DEV_VALUE}» is not a whole number.', '«{DEV_VALUE}» — не целое число.');
    PERFORM tree_action(c, p, 9, 'output', NULL, NULL, 'bad_name', NULL,
        'A name is 1 to 32 characters on one line.', 'Имя — от 1 до 32 символов в одну строку.');
    PERFORM tree_action(c, p, 10, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 11, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);

    -- /calc <formula>: evaluated with the running game's parameters.
    c := tree_command('calc', 'Evaluate a quest formula (developers)', 'Вычислить формулу (разработчикам)', 'DEV_ARG');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.calc', NULL, dev, NULL, NULL);
    PERFORM tree_request_params(p, 'formula', 'DEV_ARG');
    PERFORM tree_response_params(p, 'value', 'DEV_VALUE', 'error', 'DEV_ERROR');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        '<code>{DEV_ARG}</code> = <b>{DEV_VALUE}</b>', '<code>{DEV_ARG}</code> = <b>{DEV_VALUE}</b>');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'usage', NULL,
        'Usage: /calc <i>formula</i>, such as /calc [p1] * 2 + [1..6]; [p<i>N</i>] are the parameters of the running quest.',
        'Использование: /calc <i>формула</i>, например /calc [p1] * 2 + [1..6]; [p<i>N</i>] — параметры запущенного квеста.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'syntax', NULL,
        E'The formula does not parse:\n<pre>{DEV_ERROR}</pre>', E'Формула не разбирается:\n<pre>{DEV_ERROR}</pre>');
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'error', NULL,
        'The formula fails: {DEV_ERROR}', 'Формула не вычисляется: {DEV_ERROR}');
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 6, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);

    -- /dump and /write: the running quest as a JSON document, or re-encoded as .qmm.
    FOR i IN 1 .. 2 LOOP
        IF i = 1 THEN
            c := tree_command('dump', 'The quest as JSON (developers)', 'Квест в JSON (разработчикам)');
            p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.dump', NULL, dev, NULL, NULL);
        ELSE
            c := tree_command('write', 'The quest as .qmm (developers)', 'Квест в .qmm (разработчикам)');
            p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.write', NULL, dev, NULL, NULL);
        END IF;
        PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'no_game', NULL, game_en, game_ru);
        PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
        PERFORM tree_action(c, p, 3, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
        PERFORM tree_action(c, p, 4, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
        PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);
    END LOOP;

    -- /save: the running game as a file, for everyone.
    c := tree_command('save', 'Save the game to a file', 'Сохранить игру в файл');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.save', NULL, NULL, NULL, NULL);
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        'Send this file back into this chat to go on from here. A restored game is a sandbox: it moves no credits and counts in no statistics.',
        'Отправьте этот файл обратно в чат, чтобы продолжить с этого места. Восстановленная игра идёт в песочнице: кредиты не меняются, статистика не ведётся.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'no_game', NULL,
        'No quest is running: there is nothing to save.', 'Квест не запущен: сохранять нечего.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);

    -- /devhelp
    c := tree_command('devhelp', 'Commands of developers and admins', 'Команды разработчиков и администраторов');
    PERFORM tree_action(c, NULL, 1, 'output', NULL, NULL, NULL, dev,
        E'<b>Quest developers</b>\nSend a .qm or .qmm file to upload a quest (private until an admin lists it), a .png, .jpg or .gif file to upload an image your quests name, a saved game (.qsave, or .qms of the old bot) to restore it.\n'
        || E'/load [<i>number or name</i>] — run a quest as a sandbox (no credits, no statistics); without an argument, your quests\n'
        || E'/show id | params | jumps | location — the running game\n'
        || E'/set p<i>N</i> <i>value</i> | Money <i>value</i> | Ranger <i>name</i> — change a sandbox game\n'
        || E'/calc <i>formula</i> — evaluate with the game''s parameters\n'
        || E'/dump — the quest as JSON; /write — the quest as .qmm; /save — the game as a file',
        E'<b>Разработчикам квестов</b>\nОтправьте файл .qm или .qmm, чтобы загрузить квест (он виден только вам, пока администратор не добавит его в каталог), файл .png, .jpg или .gif — картинку для ваших квестов, сохранённую игру (.qsave или .qms старого бота) — чтобы восстановить её.\n'
        || E'/load [<i>номер или название</i>] — запустить квест в песочнице (без кредитов и статистики); без аргумента — ваши квесты\n'
        || E'/show id | params | jumps | location — состояние игры\n'
        || E'/set p<i>N</i> <i>значение</i> | Money <i>значение</i> | Ranger <i>имя</i> — изменить игру в песочнице\n'
        || E'/calc <i>формула</i> — вычислить с параметрами игры\n'
        || E'/dump — квест в JSON; /write — квест в .qmm; /save — игра в файл');
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN == true',
        E'<b>Admins</b>\n/quests [<i>text</i>] — the uploaded quests\n'
        || E'/setquest <i>number</i> listed yes|no | name <i>text</i> | lang en|ru | common <i>name</i> | bonus <i>credits</i> | penalty <i>credits</i>\n'
        || E'/grantdev, /revokedev <i>id or @username</i> — the developer role; /developers — who has it',
        E'<b>Администраторам</b>\n/quests [<i>текст</i>] — загруженные квесты\n'
        || E'/setquest <i>номер</i> listed yes|no | name <i>текст</i> | lang en|ru | common <i>имя</i> | bonus <i>кредиты</i> | penalty <i>кредиты</i>\n'
        || E'/grantdev, /revokedev <i>id или @имя</i> — роль разработчика; /developers — у кого она есть');
    PERFORM tree_action(c, NULL, 3, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);

    -- /quests [text]: the uploaded quests (admins).
    c := tree_command('quests', 'Uploaded quests (admins)', 'Загруженные квесты (админам)', 'DEV_ARG');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.quests', NULL, 'ADMIN == true', NULL, NULL);
    PERFORM tree_request_params(p, 'filter', 'DEV_ARG');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'none', NULL,
        'No uploaded quest matches.', 'Подходящих загруженных квестов нет.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'forbidden', NULL, adm_en, adm_ru);
    PERFORM tree_action(c, p, 3, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', adm_en, adm_ru);

    -- /setquest <id> <field> <value> (admins).
    c := tree_command('setquest', 'Change a quest of the catalogue (admins)', 'Изменить квест каталога (админам)',
        'DEV_ID', 'DEV_FIELD', 'DEV_VALUE');
    p := tree_action(c, NULL, 1, 'procedure', NULL, 'dev_set_quest', NULL, 'ADMIN == true', NULL, NULL);
    PERFORM tree_request_params(p, 'user', 'USER', 'service', 'SERVICE', 'id', 'DEV_ID', 'field', 'DEV_FIELD', 'value', 'DEV_VALUE');
    PERFORM tree_response_params(p, 'quest', 'DEV_QUEST', 'field', 'DEV_FIELD', 'value', 'DEV_VALUE');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        'Quest #{DEV_ID} «{DEV_QUEST}»: {DEV_FIELD} is now {DEV_VALUE}.',
        'Квест #{DEV_ID} «{DEV_QUEST}»: {DEV_FIELD} теперь {DEV_VALUE}.');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'not_found', NULL,
        'This bot has no quest #{DEV_ID}. /quests lists the uploaded ones.',
        'В этом боте нет квеста #{DEV_ID}. /quests покажет загруженные.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'bad_value', NULL,
        '«{DEV_VALUE}» is not a valid {DEV_FIELD}: listed is yes or no; name is up to 64 characters; lang is en or ru; common is up to 64 lower-case letters, digits, «.», «_» or «-»; bonus and penalty are 0 to 1000000.',
        '«{DEV_VALUE}» — недопустимое значение {DEV_FIELD}: listed — yes или no; name — до 64 символов; lang — en или ru; common — до 64 строчных латинских букв, цифр, «.», «_» или «-»; bonus и penalty — от 0 до 1000000.');
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'usage', NULL,
        'Usage: /setquest <i>number</i> <i>field</i> <i>value</i>; the fields are listed (yes or no), name, lang (en or ru), common (the name its language versions share), bonus and penalty (credits on a win, on a death).',
        'Использование: /setquest <i>номер</i> <i>поле</i> <i>значение</i>; поля: listed (yes или no), name, lang (en или ru), common (общее имя языковых версий), bonus и penalty (кредиты за победу и за гибель).');
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, 'not_admin', NULL, adm_en, adm_ru);
    PERFORM tree_action(c, p, 6, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', adm_en, adm_ru);

    -- /grantdev and /revokedev <id or @username> (admins).
    FOR i IN 1 .. 2 LOOP
        IF i = 1 THEN
            c := tree_command('grantdev', 'Make a user a developer (admins)', 'Сделать разработчиком (админам)', 'DEV_ARG');
        ELSE
            c := tree_command('revokedev', 'Take the developer role (admins)', 'Снять роль разработчика (админам)', 'DEV_ARG');
        END IF;
        p := tree_action(c, NULL, 1, 'procedure', NULL, 'dev_set_developer', NULL, 'ADMIN == true', NULL, NULL);
        INSERT INTO request_param (action_id, order_num, name, param, default_value) VALUES
            (p, 1, 'user', 'USER', NULL), (p, 2, 'service', 'SERVICE', NULL), (p, 3, 'target', 'DEV_ARG', NULL),
            (p, 4, 'on', NULL, CASE WHEN i = 1 THEN 'true' ELSE 'false' END);
        PERFORM tree_response_params(p, 'who', 'DEV_WHO');
        IF i = 1 THEN
            PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
                '{DEV_WHO} is now a quest developer of this bot.', '{DEV_WHO} теперь разработчик квестов этого бота.');
            PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'already', NULL,
                '{DEV_WHO} is a developer already.', '{DEV_WHO} уже разработчик.');
        ELSE
            PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
                '{DEV_WHO} is no longer a developer of this bot.', '{DEV_WHO} больше не разработчик этого бота.');
            PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'already', NULL,
                '{DEV_WHO} is not a developer.', '{DEV_WHO} — не разработчик.');
        END IF;
        PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'unknown', NULL,
            'No user «{DEV_ARG}» has written to this bot. Give their Telegram id or @username.',
            'Пользователь «{DEV_ARG}» этому боту не писал. Укажите его id в Telegram или @имя.');
        PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'usage', NULL,
            'Usage: /grantdev <i>id</i> or /grantdev @<i>username</i>; /revokedev likewise.',
            'Использование: /grantdev <i>id</i> или /grantdev @<i>имя</i>; /revokedev так же.');
        PERFORM tree_action(c, p, 5, 'output', NULL, NULL, 'not_admin', NULL, adm_en, adm_ru);
        PERFORM tree_action(c, p, 6, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
        PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', adm_en, adm_ru);
    END LOOP;

    -- /developers (admins).
    c := tree_command('developers', 'Who the developers are (admins)', 'Кто разработчики (админам)');
    p := tree_action(c, NULL, 1, 'procedure', NULL, 'dev_developers', NULL, 'ADMIN == true', NULL, NULL);
    PERFORM tree_request_params(p, 'user', 'USER', 'service', 'SERVICE');
    PERFORM tree_response_params(p, 'list', 'DEV_LIST', 'count', 'DEV_COUNT');
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'ok', NULL,
        E'Developers of this bot ({DEV_COUNT}):\n{DEV_LIST}', E'Разработчики этого бота ({DEV_COUNT}):\n{DEV_LIST}');
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'none', NULL,
        'This bot has no developers. /grantdev makes one.', 'У этого бота нет разработчиков. /grantdev назначит.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'not_admin', NULL, adm_en, adm_ru);
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, 'ADMIN != true', adm_en, adm_ru);
END $$;

