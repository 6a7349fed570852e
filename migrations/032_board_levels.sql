-- The bot's levels in /games (015_boards.sql) are chosen from the list the built-in
-- board.levels (bot/boards/telegram) gives for the chosen game, each labelled with the level's
-- measured rating in that game where there is one ("Strong ≈2450") and in the user's language,
-- instead of from three fixed folders: a game lists only the levels it offers.
--
-- The rows are found by what they do, not by their ids: a menu whose folders each run board.bot
-- with a fixed level. The menu keeps its row, and so its texts (an operator's edits included),
-- width and guard, and becomes a list menu of BOARD_LEVEL under the built-in. The first level's
-- board.bot, with its failure text, follows the list and takes the chosen level; the folders,
-- and the other levels' calls under them, go.

INSERT INTO param_type (name) VALUES ('BOARD_LEVEL');

DO $$
DECLARE
    m record;
    keep bigint;
    p bigint;
    f bigint;
BEGIN
    FOR m IN
        SELECT DISTINCT menu.id, menu.command_id, menu.parent_id, menu.order_num
        FROM action menu
        JOIN action folder ON folder.parent_id = menu.id AND folder.type = 'folder'
        JOIN action b ON b.parent_id = folder.id AND b.type = 'builtin' AND b.request = 'board.bot'
        JOIN request_param rp ON rp.action_id = b.id AND rp.name = 'level' AND rp.param IS NULL
        WHERE menu.type = 'menu'
    LOOP
        SELECT b.id INTO keep
        FROM action folder
        JOIN action b ON b.parent_id = folder.id AND b.type = 'builtin' AND b.request = 'board.bot'
        WHERE folder.parent_id = m.id AND folder.type = 'folder'
        ORDER BY folder.order_num, folder.id, b.order_num, b.id
        LIMIT 1;

        -- The built-in takes the menu's place; the menu and the kept call go under it, in turn.
        p := tree_action(m.command_id, m.parent_id, m.order_num, 'builtin', NULL, 'board.levels', NULL, NULL, NULL, NULL);
        PERFORM tree_request_params(p, 'game', 'BOARD_GAME');
        PERFORM tree_response_params(p, 'levels', 'BOARD_LEVEL');
        f := tree_action(m.command_id, p, 1, 'folder', NULL, NULL, NULL, NULL, NULL, NULL);
        UPDATE action SET parent_id = f, order_num = 1, type = 'list_menu', param = 'BOARD_LEVEL' WHERE id = m.id;
        UPDATE action SET parent_id = f, order_num = 2 WHERE id = keep;
        UPDATE request_param SET param = 'BOARD_LEVEL', default_value = NULL WHERE action_id = keep AND name = 'level';
        DELETE FROM action WHERE parent_id = m.id;
    END LOOP;
END $$;
