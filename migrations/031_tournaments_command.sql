-- /tournaments joins the command tree, beside /games, /top and /rating: it shows in the
-- command menu and in /help, and an operator can move or hide it like any command. The
-- built-in board.tournaments (bot/boards/telegram, tournament.go) sends the list of the
-- tournaments open to join and running, with their buttons and join links, itself.

DO $$
DECLARE
    c bigint;
BEGIN
    c := tree_command('tournaments', 'Board game tournaments', 'Турниры по настольным играм');
    UPDATE command SET visible = true, order_num = 6 WHERE id = c;
    PERFORM tree_action(c, NULL, 1, 'builtin', NULL, 'board.tournaments', NULL, NULL, NULL, NULL);
END $$;

-- /help names /tournaments.
UPDATE localized_string
SET text = replace(text, E'/top — the best players of a game\n',
    E'/top — the best players of a game\n/tournaments — tournaments to join and their standings\n')
WHERE action_id = 601 AND lang = 'en';
UPDATE localized_string
SET text = replace(text, E'/top — лучшие игроки в игре\n',
    E'/top — лучшие игроки в игре\n/tournaments — турниры: вступить и следить за таблицей\n')
WHERE action_id = 601 AND lang = 'ru';
