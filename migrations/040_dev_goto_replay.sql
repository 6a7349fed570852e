-- The developers' moves through a sandbox game (bot/devtools, path.go): /goto enters a location
-- of the running sandbox game by its number, /replay plays the path of the running sandbox game
-- again on the newest version of its quest the developer uploaded. The built-ins answer in the
-- developer's language themselves; the tree words the refusal of the role and a failure.

DO $$
DECLARE
    dev     text := 'DEVELOPER == true || ADMIN == true';
    not_dev text := 'DEVELOPER != true && ADMIN != true';
    dev_en  text := 'This command is for quest developers. An admin can make you one.';
    dev_ru  text := 'Эта команда — для разработчиков квестов. Сделать вас разработчиком может администратор.';
    fail_en text := 'Sorry, that did not work. Please try again later.';
    fail_ru text := 'Извините, не получилось. Попробуйте позже.';
    c bigint;
    p bigint;
BEGIN
    c := tree_command('goto', 'Go to a location of the sandbox game (developers)',
        'Перейти в локацию игры в песочнице (разработчикам)', 'DEV_ARG');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.goto', NULL, dev, NULL, NULL);
    PERFORM tree_request_params(p, 'where', 'DEV_ARG');
    PERFORM tree_action(c, p, 1, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);

    c := tree_command('replay', 'Replay your path on the new version of the quest (developers)',
        'Повторить ваш путь на новой версии квеста (разработчикам)');
    p := tree_action(c, NULL, 1, 'builtin', NULL, 'dev.replay', NULL, dev, NULL, NULL);
    PERFORM tree_response_params(p, 'error', 'DEV_ERROR');
    PERFORM tree_action(c, p, 1, 'folder', NULL, NULL, 'ok', NULL, NULL, NULL);
    PERFORM tree_action(c, p, 2, 'output', NULL, NULL, 'broken', NULL,
        'The new version cannot be played: {DEV_ERROR}', 'Новую версию нельзя сыграть: {DEV_ERROR}');
    PERFORM tree_action(c, p, 3, 'output', NULL, NULL, 'forbidden', NULL, dev_en, dev_ru);
    PERFORM tree_action(c, p, 4, 'output', NULL, NULL, NULL, NULL, fail_en, fail_ru);
    PERFORM tree_action(c, NULL, 2, 'output', NULL, NULL, NULL, not_dev, dev_en, dev_ru);
END $$;

-- /devhelp names them, after /restart (036_quest_words.sql).
UPDATE localized_string l SET text = CASE l.lang
    WHEN 'en' THEN replace(l.text, E'/show id |',
        E'/goto <i>location</i> — the sandbox game enters a location (12 or L12)\n'
        || E'/replay — your path played again on the newest version you uploaded\n/show id |')
    ELSE replace(l.text, E'/show id |',
        E'/goto <i>локация</i> — игра в песочнице переходит в локацию (12 или L12)\n'
        || E'/replay — ваш путь заново на самой новой загруженной версии\n/show id |') END
FROM action a JOIN command c ON c.id = a.command_id
WHERE l.action_id = a.id AND c.name = 'devhelp' AND c.service_id IS NULL;
