package migrations_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/questbot/questbot/migrations"
)

// Ensure migration 032 turns the three fixed level folders of /games into the list of
// board.levels, found by what the rows do: the menu keeps its texts as an operator left them
// (English edited here) and its width, and becomes the list menu of BOARD_LEVEL under the
// built-in, which asks for the chosen game; one board.bot follows it, taking the chosen level,
// with the failure text as the operator left it; no call with a fixed level stays.
func TestBoardLevelsRewired(t *testing.T) {
	ctx := context.Background()
	conn := emptyDatabase(t, "board_levels")
	if err := migrations.MigrateTo(ctx, conn, 31); err != nil {
		t.Fatal(err)
	}
	const menuText, failText = "Pick the bot's level:", "That game cannot start now."
	// An operator's edits: the menu's prompt, and the failure text of the first level's call.
	tag, err := conn.Exec(ctx, `UPDATE localized_string SET text = $1
		WHERE lang = 'en' AND text = 'Choose the bot''s strength:'`, menuText)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("the menu's prompt edited: %v, %v", tag, err)
	}
	tag, err = conn.Exec(ctx, `UPDATE localized_string SET text = $1 WHERE lang = 'en' AND action_id = (
		SELECT o.id FROM action b
		JOIN request_param rp ON rp.action_id = b.id AND rp.name = 'level' AND rp.default_value = 'easy'
		JOIN action o ON o.parent_id = b.id AND o.type = 'output'
		WHERE b.request = 'board.bot')`, failText)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("the failure text edited: %v, %v", tag, err)
	}
	var games int64
	if err := conn.QueryRow(ctx, `SELECT id FROM command WHERE name = 'games'`).Scan(&games); err != nil {
		t.Fatal(err)
	}
	if err := migrations.MigrateTo(ctx, conn, 32); err != nil {
		t.Fatal(err)
	}

	// texts gives an action's English and Russian texts.
	texts := func(id int64) (en, ru string) {
		t.Helper()
		err := conn.QueryRow(ctx, `SELECT
			coalesce((SELECT text FROM localized_string WHERE action_id = $1 AND lang = 'en'), ''),
			coalesce((SELECT text FROM localized_string WHERE action_id = $1 AND lang = 'ru'), '')`, id).Scan(&en, &ru)
		if err != nil {
			t.Fatal(err)
		}
		return en, ru
	}
	// params gives an action's request parameters as "name=PARAM" (or "name:default"), in order.
	params := func(id int64) string {
		t.Helper()
		rows, _ := conn.Query(ctx, `SELECT name || coalesce('=' || param, '') || coalesce(':' || default_value, '')
			FROM request_param WHERE action_id = $1 ORDER BY order_num`, id)
		list, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(list, " ")
	}

	var levels, parent int64
	err = conn.QueryRow(ctx, `SELECT id, parent_id FROM action WHERE command_id = $1 AND request = 'board.levels'`, games).
		Scan(&levels, &parent)
	if err != nil {
		t.Fatalf("board.levels in /games: %v", err)
	}
	if en, ru := texts(parent); en != "🤖 Play the bot" || ru != "🤖 Играть с ботом" {
		t.Errorf("board.levels under %q / %q, want the folder of the bot", en, ru)
	}
	if got := params(levels); got != "game=BOARD_GAME" {
		t.Errorf("board.levels asks %q", got)
	}
	var answer string
	err = conn.QueryRow(ctx, `SELECT string_agg(name || '=' || param, ' ') FROM response_param WHERE action_id = $1`, levels).Scan(&answer)
	if err != nil || answer != "levels=BOARD_LEVEL" {
		t.Errorf("board.levels answers into %q, %v", answer, err)
	}

	// Under the built-in: a folder of the list menu, then the call.
	rows, _ := conn.Query(ctx, `SELECT c.id, c.type, coalesce(c.param, ''), coalesce(c.request, ''), c.width
		FROM action f JOIN action c ON c.parent_id = f.id
		WHERE f.parent_id = $1 AND f.type = 'folder' AND f.result_code IS NULL ORDER BY c.order_num`, levels)
	type child struct {
		id                   int64
		kind, param, request string
		width                int
	}
	children, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (child, error) {
		var c child
		return c, r.Scan(&c.id, &c.kind, &c.param, &c.request, &c.width)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(children) != 2 {
		t.Fatalf("under board.levels: %+v, want the list menu and board.bot", children)
	}
	menu, call := children[0], children[1]
	if menu.kind != "list_menu" || menu.param != "BOARD_LEVEL" || menu.width != 3 {
		t.Errorf("the menu: %+v, want a list menu of BOARD_LEVEL, 3 a row", menu)
	}
	if en, ru := texts(menu.id); en != menuText || ru != "Выберите силу бота:" {
		t.Errorf("the menu's texts: %q / %q", en, ru)
	}
	var under int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM action WHERE parent_id = $1`, menu.id).Scan(&under); err != nil || under != 0 {
		t.Errorf("the list menu keeps %d children, %v", under, err)
	}
	if call.kind != "builtin" || call.request != "board.bot" || params(call.id) != "game=BOARD_GAME level=BOARD_LEVEL" {
		t.Errorf("after the menu: %+v asking %q, want board.bot with the chosen level", call, params(call.id))
	}
	var fail int64
	err = conn.QueryRow(ctx, `SELECT id FROM action WHERE parent_id = $1 AND type = 'output' AND result_code = 'invalid'`, call.id).Scan(&fail)
	if err != nil {
		t.Fatalf("board.bot's failure text: %v", err)
	}
	if en, ru := texts(fail); en != failText || !strings.HasPrefix(ru, "Извините, эту партию начать нельзя.") {
		t.Errorf("board.bot's failure text: %q / %q", en, ru)
	}
	var calls int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM action WHERE command_id = $1 AND request = 'board.bot'`, games).Scan(&calls); err != nil || calls != 1 {
		t.Errorf("/games calls board.bot %d times, %v", calls, err)
	}

	// The rest of the migrations still apply.
	if err := migrations.Apply(ctx, conn); err != nil {
		t.Fatal(err)
	}
}
