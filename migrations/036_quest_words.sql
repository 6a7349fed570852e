-- The names a player gives the player tags of the quests' texts (/settings, bot/questplay):
-- their own name for <Ranger> and <Player>, and the planets and stars of <FromPlanet>,
-- <FromStar> (where the ranger comes from) and <ToPlanet>, <ToStar> (where the quest sends them).
-- NULL is the default: the Telegram first name, and the real names of the quest's language.
-- quest/questpg owns the table; a running game reads it with its row.
CREATE TABLE player_names (
    user_id     bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    ranger      text,
    from_planet text,
    from_star   text,
    to_planet   text,
    to_star     text,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO param_type (name) VALUES ('SETTINGS_ARG') ON CONFLICT DO NOTHING;

-- /settings [field value]: the built-in quest.settings shows the names, or changes one, and
-- answers itself.
DO $$
DECLARE
    c bigint;
    p bigint;
BEGIN
    c := tree_command('settings', 'Your name and planets in quests', 'Ваше имя и планеты в квестах', 'SETTINGS_ARG');
    UPDATE command SET visible = true, order_num = 89 WHERE id = c;
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'quest.settings', NULL, NULL, NULL, NULL);
    PERFORM tree_request_params(p, 'what', 'SETTINGS_ARG');
END $$;

-- /help names /settings.
UPDATE localized_string
SET text = replace(text, E'/lang — change the language\n',
    E'/settings — your name and planets in quests\n/lang — change the language\n')
WHERE action_id = 601 AND lang = 'en';
UPDATE localized_string
SET text = replace(text, E'/lang — сменить язык\n',
    E'/settings — ваше имя и планеты в квестах\n/lang — сменить язык\n')
WHERE action_id = 601 AND lang = 'ru';

-- ---- The catalogue's words.

-- The titles and descriptions of a quest in each language, given at import (questbot quests add
-- reads them from a manifest beside the files): the catalogue shows a quest under its title in
-- the player's language, else under its name, and a search finds a quest by its title in any
-- language. Keyed by the common name that a quest's language versions share. quest/questpg owns
-- the table.
CREATE TABLE quest_title (
    common_name text NOT NULL,
    lang        text NOT NULL CHECK (lang IN ('en', 'ru')),
    title       text NOT NULL CHECK (title <> ''),
    description text NOT NULL DEFAULT '',
    PRIMARY KEY (common_name, lang)
);

-- The quests for /quest [name] (005_commands.sql): a name also matches a quest's titles in every
-- language (quest_title), and /quest without a name always shows the catalogue ("many"), even of
-- one quest, so that it browses and never starts a quest by itself.
CREATE OR REPLACE FUNCTION quest_catalogue(p_user bigint, p_service integer, p_lang text, p_name text)
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
        WHERE lower(q.name) = want OR lower(q.common_name) = want
            OR EXISTS (SELECT FROM quest_title t WHERE t.common_name = q.common_name AND lower(t.title) = want);
        IF n = 0 THEN
            SELECT jsonb_agg(jsonb_build_object('value', q.id::text, 'label', q.name) ORDER BY q.name, q.id), count(*)
            INTO found, n FROM quest_list(p_service, lang) q
            WHERE strpos(lower(q.name), want) > 0 OR strpos(lower(q.common_name), want) > 0
                OR EXISTS (SELECT FROM quest_title t WHERE t.common_name = q.common_name AND strpos(lower(t.title), want) > 0);
        END IF;
    END IF;
    IF n = 0 THEN
        RETURN jsonb_build_object('result_code', 'none');
    ELSIF n = 1 AND want <> '' THEN
        RETURN jsonb_build_object('result_code', 'one', 'script', found->0->>'value');
    END IF;
    RETURN jsonb_build_object('result_code', 'many', 'list', found);
END $$;

-- ---- Moving between quests.

-- /quest and /start <id> (005_commands.sql) no longer launch a quest over a running one: /quest
-- browses during a game as at any time (the running game no longer cuts it short with an offer
-- to cancel), and the quest that /quest <name> or /start <id> names is offered by the built-in
-- quest.offer (bot/questplay), which asks the player of another game first (Leave and start?)
-- and launches it only on Yes.
DO $$
DECLARE
    running bigint;
    cat     bigint;
BEGIN
    SELECT r.id, c.id INTO running, cat
    FROM action r
    JOIN command q ON q.id = r.command_id AND q.name = 'quest' AND q.service_id IS NULL
    JOIN action c ON c.parent_id = r.id AND c.request = 'quest_catalogue'
    WHERE r.parent_id IS NULL AND r.request = 'quest_running';
    IF running IS NOT NULL THEN
        UPDATE action SET parent_id = NULL, order_num = r.order_num FROM action r WHERE action.id = cat AND r.id = running;
        DELETE FROM action WHERE id = running;
    END IF;
END $$;

UPDATE action a SET type = 'builtin', request = 'quest.offer', param = NULL
FROM command c
WHERE c.id = a.command_id AND c.service_id IS NULL AND a.type = 'quest' AND a.param = 'SCRIPT'
    AND ((c.name = 'quest' AND a.result_code = 'one') OR (c.name = 'start' AND a.result_code = 'ok'));

INSERT INTO request_param (action_id, order_num, name, param)
SELECT a.id, 1, 'script', 'SCRIPT'
FROM action a JOIN command c ON c.id = a.command_id
WHERE c.service_id IS NULL AND c.name IN ('quest', 'start') AND a.request = 'quest.offer';

-- ---- /restart: the running sandbox game from its start (bot/devtools, dev.restart).

DO $$
DECLARE
    dev     text := 'DEVELOPER == true || ADMIN == true';
    not_dev text := 'DEVELOPER != true && ADMIN != true';
    dev_en  text := 'This command is for quest developers. An admin can make you one.';
    dev_ru  text := 'Эта команда — для разработчиков квестов. Сделать вас разработчиком может администратор.';
    c bigint;
    p bigint;
BEGIN
    c := tree_command('restart', 'Start the sandbox game again (developers)', 'Начать игру в песочнице заново (разработчикам)');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.restart', NULL, dev, NULL, NULL);
    PERFORM tree_response_params(p, 'error', 'DEV_ERROR');
    PERFORM tree_action(c, p, 1, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'no_game', NULL,
        'No quest is running. /load <i>quest</i> starts one as a sandbox.',
        'Квест не запущен. /load <i>квест</i> запустит его в песочнице.');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'not_sandbox', NULL,
        'Only a sandbox game starts again by hand. /load the quest to run it as a sandbox.',
        'Заново начинается вручную только игра в песочнице. Запустите квест в песочнице командой /load.');
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'broken', NULL,
        'The quest cannot start: {DEV_ERROR}', 'Квест не запускается: {DEV_ERROR}');
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 6, 'output', NULL, NULL, NULL, NULL,
        'Sorry, that did not work. Please try again later.', 'Извините, не получилось. Попробуйте позже.');
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);
END $$;

UPDATE localized_string l SET text = CASE l.lang
    WHEN 'en' THEN replace(l.text, E'/show id |', E'/restart — the sandbox game from its start\n/show id |')
    ELSE replace(l.text, E'/show id |', E'/restart — игра в песочнице с начала\n/show id |') END
FROM action a JOIN command c ON c.id = a.command_id
WHERE l.action_id = a.id AND c.name = 'devhelp' AND c.service_id IS NULL;
