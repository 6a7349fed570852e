package app_test

import (
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Ensure a user blocking the bot in their private chat, and unblocking it, is recorded from
// Telegram's my_chat_member updates, for that user alone: another user's block stays, and a
// my_chat_member that is not about this bot in the user's own chat (a group's, one sent by
// someone else, one about another member) touches nobody's blocked_at.
func TestBlockedAtFollowsMembership(t *testing.T) {
	t.Parallel()
	e, _ := startBot(t, "member_test_bot")
	const ann, bob, cid, grp = 1, 2, 3, -1002
	for _, u := range []int64{ann, bob, cid} {
		e.User(u, "U", "en")
		e.Send(t, u, "/help")
		e.WaitTextAfter(t, u, 0, "choose a quest")
	}
	blocked := func() map[int64]bool {
		t.Helper()
		out := map[int64]bool{}
		for _, u := range []int64{ann, bob, cid} {
			out[u] = e.QueryInt(t, `SELECT count(*) FROM users WHERE id = $1 AND blocked_at IS NOT NULL`, u) == 1
		}
		return out
	}
	check := func(step string, want map[int64]bool) {
		t.Helper()
		e.WaitHandled(t)
		got := blocked()
		for u, w := range want {
			if got[u] != w {
				t.Errorf("%s: user %d blocked %v, want %v", step, u, got[u], w)
			}
		}
	}

	e.Bot.Block(ann, true)
	e.Bot.Block(bob, true)
	check("Ann and Bob block the bot", map[int64]bool{ann: true, bob: true, cid: false})
	e.Bot.Block(ann, false)
	check("Ann unblocks it", map[int64]bool{ann: false, bob: true, cid: false})

	me := e.Bot.Me()
	user := func(id int64) tgbotapi.User { return tgbotapi.User{ID: id, FirstName: "U"} }
	member := func(chat tgbotapi.Chat, from, about tgbotapi.User, status string) tgbotapi.Update {
		return tgbotapi.Update{MyChatMember: &tgbotapi.ChatMemberUpdated{Chat: chat, From: from,
			OldChatMember: tgbotapi.ChatMember{User: &about, Status: "member"},
			NewChatMember: tgbotapi.ChatMember{User: &about, Status: status}}}
	}
	private := func(id int64) tgbotapi.Chat { return tgbotapi.Chat{ID: id, Type: "private"} }
	// Bob's chat, but the update comes from Ann: forged, and changes nothing.
	e.Bot.QueueUpdate(member(private(bob), user(ann), me, "member"))
	// Ann's chat and from Ann, but about another member than the bot.
	e.Bot.QueueUpdate(member(private(ann), user(ann), user(bob), "kicked"))
	check("updates about someone else", map[int64]bool{ann: false, bob: true, cid: false})

	// Cid blocks the bot in private, then adds it to a group and Ann removes it from there: the
	// group's memberships are not the users' blocks.
	e.Bot.Block(cid, true)
	check("Cid blocks the bot", map[int64]bool{ann: false, bob: true, cid: true})
	if err := e.Bot.AddGroup(grp, "Rangers", cid, ann); err != nil {
		t.Fatal(err)
	}
	if err := e.Bot.RemoveFromGroup(grp, ann); err != nil {
		t.Fatal(err)
	}
	check("a group's memberships", map[int64]bool{ann: false, bob: true, cid: true})

	// Cid writes to the bot in another group: the private chat stays blocked.
	const grp2 = -1003
	if err := e.Bot.AddGroup(grp2, "Pilots", cid); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Bot.SendGroupText(grp2, cid, "/help@member_test_bot"); err != nil {
		t.Fatal(err)
	}
	e.WaitTextAfter(t, grp2, 0, "choose a quest")
	check("Cid writes in a group", map[int64]bool{ann: false, bob: true, cid: true})

	// Writing again in private unblocks too, as the transport records every sender there.
	again := e.Send(t, bob, "/help")
	e.WaitTextAfter(t, bob, again, "choose a quest")
	check("Bob writes again", map[int64]bool{ann: false, bob: false, cid: true})
}
