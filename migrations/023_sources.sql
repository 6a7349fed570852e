-- Quest sources in the original bot's .qms language (package qms): developers upload them into
-- the chat, /compile builds one into a quest of theirs and runs it as a sandbox, /decompile sends
-- the running quest as a source.

-- A source is an upload of its own kind, stored as dev/sources/<sha256>.qms; its versions are
-- counted by its name, like a quest's. A source's #include names another source of the same
-- developer in the same bot (its newest version).
ALTER TABLE dev_upload DROP CONSTRAINT dev_upload_kind_check;
ALTER TABLE dev_upload ADD CONSTRAINT dev_upload_kind_check CHECK (kind IN ('quest', 'image', 'source'));
ALTER TABLE dev_upload DROP CONSTRAINT dev_upload_file_check;
ALTER TABLE dev_upload ADD CONSTRAINT dev_upload_file_check
    CHECK (file ~ '^dev/(quests|images|sources)/[0-9a-f]{64}\.(qm|qmm|png|jpg|gif|qms)$');

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
    c bigint;
    p bigint;
BEGIN
    -- /compile <name>: compiles the newest version of an uploaded source, stores the quest as the
    -- developer's upload of that name and runs it as a sandbox. The built-in answers itself:
    -- the errors of a source that does not compile, or what it stored.
    c := tree_command('compile', 'Compile an uploaded .qms source (developers)', 'Собрать загруженный исходник .qms (разработчикам)', 'DEV_ARG');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.compile', NULL, dev, NULL, NULL);
    PERFORM tree_request_params(p, 'what', 'DEV_ARG');
    PERFORM tree_response_params(p, 'list', 'DEV_LIST');
    PERFORM tree_action(c, p, 1, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'usage', NULL,
        E'Usage: /compile <i>name</i> compiles a .qms source you uploaded. Send a .qms file into this chat to upload one (with the caption /compile to compile it at once).\n{DEV_LIST}',
        E'Использование: /compile <i>имя</i> собирает загруженный вами исходник .qms. Чтобы загрузить исходник, отправьте файл .qms в этот чат (с подписью /compile — чтобы сразу собрать).\n{DEV_LIST}');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'not_found', NULL,
        E'You have no source «{DEV_ARG}».\n{DEV_LIST}', E'У вас нет исходника «{DEV_ARG}».\n{DEV_LIST}');
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 5, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);

    -- /decompile: the running game's quest as a .qms source.
    c := tree_command('decompile', 'The quest as a .qms source (developers)', 'Квест в исходник .qms (разработчикам)');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.decompile', NULL, dev, NULL, NULL);
    PERFORM tree_action(c, p, 1, 'output', NULL, NULL, 'no_game', NULL, game_en, game_ru);
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 3, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);
END $$;

-- /devhelp (008_developers.sql) names the sources and the two commands, unless an operator
-- rewrote its text.
UPDATE localized_string l SET text = CASE l.lang
    WHEN 'en' THEN replace(l.text, E'/dump — the quest as JSON;',
        E'Send a .qms source (the original bot''s quest language) to upload it; /compile <i>name</i> builds it into a quest and runs it as a sandbox (the caption /compile does it on upload)\n/decompile — the quest as a .qms source; /dump — the quest as JSON;')
    ELSE replace(l.text, E'/dump — квест в JSON;',
        E'Отправьте исходник .qms (язык квестов исходного бота), чтобы загрузить его; /compile <i>имя</i> соберёт из него квест и запустит в песочнице (подпись /compile — сразу при загрузке)\n/decompile — квест в исходник .qms; /dump — квест в JSON;') END
FROM action a JOIN command c ON c.id = a.command_id
WHERE l.action_id = a.id AND c.name = 'devhelp' AND c.service_id IS NULL AND l.text LIKE '%/dump%';
