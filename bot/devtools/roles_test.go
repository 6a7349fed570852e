package devtools_test

import (
	"context"
	"image/color"
	"strings"
	"testing"

	"github.com/questbot/questbot/bot/botpg"
)

const (
	devRefusal   = "This command is for quest developers."
	adminRefusal = "This command is for the bot's admins."
)

// Ensure every developer and admin command refuses users without the role, in a sentence; an
// upload never makes anyone a developer; an admin grants and revokes the role; ADMINS makes
// admins (also of users who had not written yet) and takes back only what it gave; and
// NEW_USERS_ARE_DEVELOPERS makes new users developers, not the ones known before.
func TestRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	e.user(1, "Ada", "ada", "en")
	e.user(2, "Dev", "dev", "en")
	e.user(3, "Pat", "pat", "en")
	e.user(4, "Ru", "ru_user", "ru")
	// Ada is an admin by configuration before she ever writes.
	if err := botpg.NewUsers().ApplyRoles(ctx, e.Pool, []int{e.service}, nil, []int64{1}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []int64{1, 2, 3, 4} {
		e.hello(t, u)
	}
	if e.QueryInt(t, `SELECT count(*) FROM users WHERE id = 1 AND is_admin`) != 1 {
		t.Fatal("the configured admin did not become one when she first wrote")
	}

	for _, cmd := range []string{"/load", "/load 1", "/load cargo", "/show id", "/set p1 1", "/calc 1+1", "/dump", "/write", "/devhelp",
		"/compile x", "/decompile"} {
		e.ask(t, 3, cmd, devRefusal)
	}
	for _, cmd := range []string{"/quests", "/setquest 1 listed no", "/grantdev 3", "/revokedev 2", "/developers"} {
		e.ask(t, 3, cmd, adminRefusal)
	}
	e.ask(t, 4, "/show params", "Эта команда — для разработчиков квестов.")
	e.ask(t, 4, "/quests", "Эта команда — для администраторов бота.")

	// Saves are for everybody: a player saves a counted game and restores it as a sandbox.
	e.ask(t, 3, "/save", "No quest is running: there is nothing to save.")
	n := e.LastID(3)
	e.Send(t, 3, "/quest cargo")
	e.screen(t, 3, n)
	n = e.LastID(3)
	e.Send(t, 3, "/save")
	_, saved := e.document(t, 3, n, ".qsave")
	e.put(t, 3, "cargo.qsave", saved, "The saved game of «Cargo run» goes on as a sandbox")
	if g := e.Game(t, e.service, 3); g == nil || !g.Sandbox {
		t.Error("the restored game is not a sandbox")
	}

	// An upload does not make a developer.
	before := e.stored(t)
	e.put(t, 3, "probe.qmm", probe(t, "one"), "Only quest developers can upload")
	e.put(t, 3, "map.png", pngOf(t, 2, 2, color.White), "Only quest developers can upload")
	e.WaitIdle(t)
	if got := e.stored(t); got.uploads != before.uploads || got.scripts != before.scripts || len(got.files) != len(before.files) {
		t.Errorf("a refused upload left %+v (before %+v)", got, before)
	}
	if e.QueryInt(t, `SELECT count(*) FROM user_service WHERE user_id = 3 AND is_developer`) != 0 {
		t.Error("uploading made the user a developer")
	}

	// The admin manages the role.
	e.ask(t, 1, "/developers", "This bot has no developers.")
	e.ask(t, 1, "/grantdev @Dev", "Dev (@dev, 2) is now a quest developer of this bot.")
	e.ask(t, 1, "/grantdev 2", "is a developer already")
	e.ask(t, 1, "/grantdev @nobody", "No user «@nobody» has written to this bot.")
	e.ask(t, 1, "/grantdev 999", "No user «999» has written to this bot.")
	e.ask(t, 1, "/grantdev", "Usage: /grantdev")
	e.ask(t, 1, "/developers", "Developers of this bot (1):\nDev (@dev, 2)")
	help := e.ask(t, 2, "/devhelp", "Quest developers")
	if strings.Contains(help.Text, "Admins") {
		t.Error("a developer sees the admins' help")
	}
	if !strings.Contains(help.Text, "/compile <i>name</i>") || !strings.Contains(help.Text, "/decompile — the quest as a .qms source") {
		t.Errorf("the developers' help does not name /compile and /decompile: %q", help.Text)
	}
	e.ask(t, 1, "/devhelp", "/setquest")
	e.ask(t, 2, "/load", "You have not uploaded a quest yet")
	e.ask(t, 1, "/revokedev @dev", "is no longer a developer of this bot.")
	e.ask(t, 1, "/revokedev @dev", "is not a developer.")
	e.ask(t, 2, "/load", devRefusal)
	// An admin is a developer too.
	e.ask(t, 1, "/load", "You have not uploaded a quest yet")

	// New users become developers once the bot is set so; known users keep their role.
	on := true
	if err := botpg.NewUsers().ApplyRoles(ctx, e.Pool, []int{e.service}, &on, []int64{1}); err != nil {
		t.Fatal(err)
	}
	e.user(5, "Neo", "neo", "en")
	e.hello(t, 5)
	e.ask(t, 5, "/load", "You have not uploaded a quest yet")
	e.ask(t, 3, "/load", devRefusal)

	// Ada leaves the configuration and loses the role; an admin made with SQL keeps it.
	e.makeAdmin(t, 3)
	if err := botpg.NewUsers().ApplyRoles(ctx, e.Pool, []int{e.service}, nil, nil); err != nil {
		t.Fatal(err)
	}
	e.ask(t, 1, "/quests", adminRefusal)
	e.ask(t, 3, "/quests", "No uploaded quest matches.")
	e.WaitIdle(t)
}

// Ensure a user ADMINS names who has never written is an admin from their very first message:
// an admin's command as the first message is obeyed, not refused, and so is the admin's first
// text in a chat (an admin's text is a broadcast to prepare, not a message for the admins).
func TestConfiguredAdminFirstMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	e.user(7, "Ada", "ada", "en")
	e.user(8, "Bea", "bea", "en")
	if err := botpg.NewUsers().ApplyRoles(ctx, e.Pool, []int{e.service}, nil, []int64{7, 8}); err != nil {
		t.Fatal(err)
	}
	if e.QueryInt(t, `SELECT count(*) FROM users WHERE id IN (7, 8)`) != 0 {
		t.Fatal("the configured admins exist before they write")
	}
	e.ask(t, 7, "/developers", "This bot has no developers.")
	// Bea's first message is a text: as an admin's, it is not passed on to the admins.
	n := e.LastID(8)
	e.Send(t, 8, "Hello everybody")
	reply := e.WaitTextAfter(t, 8, n, "")
	if !strings.Contains(reply.Text, "so this goes to <b>every user who speaks English") {
		t.Errorf("the configured admin's first text was not taken for an admin's broadcast: %q", reply.Text)
	}
	if e.QueryInt(t, `SELECT count(*) FROM users WHERE id IN (7, 8) AND is_admin`) != 2 {
		t.Error("the configured admins are not admins in the users table")
	}
	e.WaitIdle(t)
}
