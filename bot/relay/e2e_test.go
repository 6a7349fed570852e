package relay_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Ensure a user's text reaches both admins with the user's name and quest position in each
// admin's language, replies thread both ways (admin to user as a reply to the original, user to
// that admin as a reply to the admin's message), copies are found by chat and message id
// together, and an admin's reply to anything but a copy is refused with nothing stored.
func TestRelayAndReplies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cast(t)
	e.Send(t, ann, "/quest cargo")
	e.WaitFor(t, "Ann's game", func() bool {
		return e.Game(t, e.service, ann) != nil
	})
	e.waitIdle(t)

	// Alice answers the greeting: not a relayed message.
	greeting := e.WaitText(t, alice, 0, "Questbot")
	e.reply(t, alice, greeting.ID, "Hi bot")
	e.WaitText(t, alice, 0, "went nowhere")
	if n := e.QueryInt(t, `SELECT count(*) FROM relay_message`) + e.QueryInt(t, `SELECT count(*) FROM broadcast`); n != 0 {
		t.Fatalf("an admin's reply to the bot stored %d rows", n)
	}

	question := e.Send(t, ann, "Where is the exit?")
	e.WaitText(t, ann, 0, "went to the admins")
	aliceCopy := e.WaitText(t, alice, 0, "Where is the exit?")
	for _, want := range []string{"<b>Ann</b> @ann · id <code>101</code>", "«Cargo run», location ", ", step 0"} {
		if !strings.Contains(aliceCopy.Text, want) {
			t.Errorf("Alice's copy %q lacks %q", aliceCopy.Text, want)
		}
	}
	borisCopy := e.WaitText(t, boris, 0, "Where is the exit?")
	if !strings.Contains(borisCopy.Text, "«Cargo run», локация ") {
		t.Errorf("Boris's copy %q is not headed in Russian", borisCopy.Text)
	}
	e.Send(t, bob, "Hello <admins> & co")
	if m := e.WaitText(t, alice, 0, "Hello &lt;admins&gt; &amp; co"); !strings.Contains(m.Text, "<i>not in a quest</i>") {
		t.Errorf("Bob's copy %q", m.Text)
	}
	e.WaitText(t, boris, 0, "<i>не в квесте</i>")
	veraQuestion := e.Send(t, vera, "Где выход?")
	e.WaitText(t, alice, 0, "Где выход?")
	veraCopy := e.WaitText(t, boris, 0, "Где выход?")
	e.waitIdle(t)

	// Message ids repeat across chats: Boris's copy of Vera's message has the id of Alice's
	// copy of Ann's (Alice's chat had two more messages).
	if veraCopy.ID != aliceCopy.ID {
		t.Fatalf("the ids do not collide as planned: Alice's copy of Ann's %d, Boris's copy of Vera's %d", aliceCopy.ID, veraCopy.ID)
	}
	answer := e.reply(t, alice, aliceCopy.ID, "Take the left door.")
	e.WaitText(t, alice, 0, "Sent to Ann.")
	got := e.WaitText(t, ann, 0, "Take the left door.")
	if got.Text != "Take the left door." || got.ReplyTo != question {
		t.Errorf("Ann got %q replying to %d, want the bare text replying to %d", got.Text, got.ReplyTo, question)
	}
	e.reply(t, boris, veraCopy.ID, "Здравствуйте, Вера")
	if got := e.WaitText(t, vera, 0, "Здравствуйте, Вера"); got.ReplyTo != veraQuestion {
		t.Errorf("Vera got a reply to %d, want to %d", got.ReplyTo, veraQuestion)
	}
	e.WaitText(t, boris, 0, "Отправлено: Вера.")
	e.waitIdle(t)
	if e.CountText(ann, "Здравствуйте") != 0 || e.CountText(vera, "left door") != 0 {
		t.Fatal("a reply reached the wrong user")
	}

	// Ann answers Alice's reply: it reaches Alice alone, as a reply to her message.
	borisBefore := len(e.BotMessages(boris))
	thanks := e.reply(t, ann, got.ID, "Thanks!")
	back := e.WaitText(t, alice, 0, "Thanks!")
	if back.ReplyTo != answer || !strings.Contains(back.Text, "<b>Ann</b>") {
		t.Errorf("Alice got %q replying to %d, want Ann's header replying to %d", back.Text, back.ReplyTo, answer)
	}
	// And the thread goes on (once the copy is recorded, as it is when the outbox is empty).
	e.waitIdle(t)
	e.reply(t, alice, back.ID, "You are welcome")
	if m := e.WaitText(t, ann, 0, "You are welcome"); m.ReplyTo != thanks {
		t.Errorf("Ann got a reply to %d, want to %d", m.ReplyTo, thanks)
	}
	e.waitIdle(t)
	if n := len(e.BotMessages(boris)); n != borisBefore {
		t.Errorf("Boris got %d messages of a thread between Ann and Alice", n-borisBefore)
	}
}

// Ensure an admin's text becomes a broadcast only once confirmed, reaches the users of the
// admin's language alone, reports its progress, and a user's reply to it reaches its author.
func TestBroadcastByLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cast(t)

	e.Send(t, alice, "Maintenance tonight")
	ask := e.WaitText(t, alice, 0, "every user who speaks English: 2")
	e.Press(t, alice, ask, "Cancel")
	e.WaitFor(t, "the cancellation", func() bool { return e.message(t, alice, ask.ID).Text == "Not sent." })
	e.waitIdle(t)
	if e.CountText(ann, "Maintenance") != 0 {
		t.Fatal("a cancelled broadcast was sent")
	}

	original := e.Send(t, alice, "Maintenance at 22:00")
	ask = e.WaitText(t, alice, 1, "every user who speaks English: 2")
	e.Press(t, alice, ask, "Send")
	for _, u := range []int64{ann, bob} {
		if m := e.WaitText(t, u, 0, "Maintenance at 22:00"); m.Text != "Maintenance at 22:00" {
			t.Errorf("user %d got %q", u, m.Text)
		}
	}
	e.WaitFor(t, "the report", func() bool {
		return e.message(t, alice, ask.ID).Text == "Broadcast finished: sent to 2 of 2 users."
	})
	if m := e.message(t, alice, ask.ID); len(m.Keyboard) != 0 {
		t.Errorf("the finished report keeps its buttons: %+v", m.Keyboard)
	}

	e.Send(t, boris, "Технические работы")
	ask = e.WaitText(t, boris, 0, "все, кто говорит на языке «русский»: 1")
	e.Press(t, boris, ask, "Отправить")
	e.WaitText(t, vera, 0, "Технические работы")
	e.WaitFor(t, "the report", func() bool {
		return e.message(t, boris, ask.ID).Text == "Рассылка закончена: отправлено 1 из 1."
	})
	e.waitIdle(t)
	for _, u := range []int64{vera, boris} {
		if e.CountText(u, "Maintenance") != 0 {
			t.Errorf("user %d got the English broadcast", u)
		}
	}
	for _, u := range []int64{ann, bob, alice} {
		if e.CountText(u, "Технические") != 0 {
			t.Errorf("user %d got the Russian broadcast", u)
		}
	}

	copyOf := e.WaitText(t, bob, 0, "Maintenance at 22:00")
	e.reply(t, bob, copyOf.ID, "Will my quest be saved?")
	m := e.WaitText(t, alice, 0, "Will my quest be saved?")
	if m.ReplyTo != original || !strings.Contains(m.Text, "<b>Bob</b>") {
		t.Errorf("Alice got %q replying to %d, want Bob's header replying to %d", m.Text, m.ReplyTo, original)
	}
	e.WaitText(t, bob, 0, "went to the admins")
	e.waitIdle(t)
	if e.CountText(boris, "quest be saved") != 0 {
		t.Error("a reply to Alice's broadcast reached Boris")
	}
}

// Ensure the black list is managed by admins only, keeps a user's texts from the admins (they get
// the usual hint, and can still play), and is undone by /unban.
func TestBlackList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cast(t)
	for _, cmd := range []string{"/ban 102", "/unban 102", "/banlist"} {
		skip := len(e.BotMessages(ann))
		e.Send(t, ann, cmd)
		e.WaitText(t, ann, skip, "for the bot's admins")
	}

	for _, c := range []struct{ cmd, want string }{
		{"/ban", "Usage: /ban"},
		{"/ban 999", "No user «999» has written to this bot"},
		{"/ban 202", "is an admin"},
		{"/banlist", "The black list is empty."},
		{"/ban @Bob", "Bob @bob (id 102) is on the black list"},
		{"/ban 102", "Bob @bob (id 102) is already on the black list."},
		{"/banlist", "102 · Bob @bob · "},
	} {
		skip := len(e.BotMessages(alice))
		e.Send(t, alice, c.cmd)
		e.WaitText(t, alice, skip, c.want)
	}
	e.waitIdle(t)

	e.Send(t, bob, "buy cheap credits")
	e.WaitText(t, bob, 0, "Send /quest to choose a quest")
	e.Send(t, bob, "/quest cargo")
	e.WaitFor(t, "Bob's game", func() bool {
		return e.Game(t, e.service, bob) != nil
	})
	e.waitIdle(t)
	if e.CountText(alice, "cheap credits")+e.CountText(boris, "cheap credits") != 0 ||
		e.QueryInt(t, `SELECT count(*) FROM relay_message WHERE author_id = $1`, bob) != 0 {
		t.Fatal("a black-listed user's text was relayed or stored")
	}

	skip := len(e.BotMessages(alice))
	e.Send(t, alice, "/unban bob")
	e.WaitText(t, alice, skip, "is off the black list")
	e.Send(t, alice, "/unban 102")
	e.WaitText(t, alice, skip, "is not on the black list")
	e.Send(t, bob, "sorry, a real question")
	e.WaitText(t, alice, 0, "sorry, a real question")
}

// Ensure the answers to the command tree's prompts, a user's (plain and hidden) and an admin's,
// are never relayed nor broadcast.
func TestPromptAnswersNotRelayed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Exec(t, `
		INSERT INTO param_type (name, hidden) VALUES ('NOTE', false), ('PIN', true);
		WITH c AS (INSERT INTO command (name, visible) VALUES ('secret', false) RETURNING id),
		     a AS (INSERT INTO action (command_id, order_num, type, param)
		           SELECT id, n, t, p FROM c, (VALUES (1, 'input', 'NOTE'), (2, 'input', 'PIN'), (3, 'output', NULL))
		               AS v (n, t, p) RETURNING id, order_num)
		INSERT INTO localized_string (action_id, lang, text)
		SELECT id, 'en', (ARRAY['A note?', 'Your PIN?', 'Thank you.'])[order_num] FROM a;`)
	e.cast(t)
	e.Send(t, ann, "/secret")
	e.WaitText(t, ann, 0, "A note?")
	e.Send(t, ann, "my plain note")
	e.WaitText(t, ann, 0, "Your PIN?")
	e.Send(t, ann, "4321")
	e.WaitText(t, ann, 0, "Thank you.")

	e.Send(t, alice, "/news")
	e.WaitText(t, alice, 0, "Write the news in English")
	e.Send(t, alice, "-")
	e.WaitText(t, alice, 0, "Cancelled: no news was published.")
	e.waitIdle(t)
	for _, a := range []int64{alice, boris} {
		if e.CountText(a, "plain note")+e.CountText(a, "4321") != 0 {
			t.Errorf("admin %d got a prompt's answer", a)
		}
	}
	if e.CountText(ann, "went to the admins") != 0 || e.QueryInt(t, `SELECT count(*) FROM relay_message`) != 0 ||
		e.QueryInt(t, `SELECT count(*) FROM news`) != 0 {
		t.Error("a prompt's answer was relayed or stored")
	}
}

// Ensure news reach each user once, in their language, with a receipt, by audience (everybody,
// new users, users already there) and inside their window only; /newslist and /newsend manage
// them, and only admins may.
func TestNews(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cast(t)
	e.Send(t, ann, "/news")
	e.WaitText(t, ann, 0, "for the bot's admins")

	e.Send(t, alice, "/news")
	e.WaitText(t, alice, 0, "Write the news in English")
	e.Send(t, alice, "New quests are out! <3")
	e.WaitText(t, alice, 0, "Now the same in Russian")
	e.Send(t, alice, "Новые квесты!")
	e.Press(t, alice, e.WaitText(t, alice, 0, "Who gets it?"), "Everybody (mandatory)")
	e.Press(t, alice, e.WaitText(t, alice, 0, "For how long"), "7 days")
	done := e.WaitText(t, alice, 0, "is published")
	id := strings.TrimPrefix(strings.Fields(done.Text)[1], "#")
	e.waitIdle(t)
	if e.QueryInt(t, `SELECT count(*) FROM broadcast`)+e.QueryInt(t, `SELECT count(*) FROM relay_message`) != 0 {
		t.Fatal("the news dialogue's answers were relayed")
	}

	e.Send(t, ann, "/help")
	e.WaitText(t, ann, 0, "New quests are out! &lt;3")
	e.WaitText(t, ann, 0, "choose a quest")
	e.Send(t, ann, "/help")
	e.Send(t, vera, "/help")
	e.WaitText(t, vera, 0, "Новые квесты!")
	e.waitIdle(t)
	if n := e.CountText(ann, "New quests are out"); n != 1 {
		t.Errorf("Ann got the news %d times, want once", n)
	}
	msgs := e.BotMessages(ann)
	if i := len(msgs) - 3; !strings.Contains(msgs[i].Text, "New quests") {
		t.Errorf("the news does not come before the answer: %q", msgs[i].Text)
	}
	e.WaitFor(t, "the receipts", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM news_receipt WHERE delivered_at IS NOT NULL AND message_id IS NOT NULL`) == 2
	})

	e.Exec(t, `INSERT INTO news (service_id, text_en, audience) VALUES ($1, 'Welcome, newcomer!', 'new'),
		($1, 'For old friends', 'existing')`, e.service)
	e.Exec(t, `INSERT INTO news (service_id, text_en, starts_at, ends_at) VALUES
			($1, 'Too late', now() - interval '2 days', now() - interval '1 day'),
			($1, 'Too early', now() + interval '1 day', NULL)`, e.service)
	e.Send(t, ann, "/help")
	e.WaitText(t, ann, 0, "For old friends")
	const dan = 104
	e.user(t, dan, "Dan", "en", false)
	e.Send(t, dan, "/start")
	e.WaitText(t, dan, 0, "Welcome, newcomer!")
	e.WaitText(t, dan, 0, "New quests are out!")
	e.WaitText(t, dan, 0, "Questbot")
	e.waitIdle(t)
	for who, s := range map[int64]string{ann: "Welcome, newcomer", dan: "For old friends"} {
		if e.CountText(who, s) != 0 {
			t.Errorf("user %d got %q", who, s)
		}
	}
	for _, u := range []int64{ann, dan} {
		if e.CountText(u, "Too late")+e.CountText(u, "Too early") != 0 {
			t.Errorf("user %d got news outside its window", u)
		}
	}

	e.Send(t, alice, "/newslist")
	list := e.WaitText(t, alice, 0, "<b>News</b>")
	if !strings.Contains(list.Text, "#"+id+" · everybody · until ") || !strings.Contains(list.Text, "delivered: 3") {
		t.Errorf("the news list: %q", list.Text)
	}
	e.Send(t, alice, "/newsend "+id)
	e.WaitText(t, alice, 0, "News #"+id+" is withdrawn")
	e.Send(t, alice, "/newsend "+id)
	e.WaitText(t, alice, 0, "There is no news #"+id)
	e.Send(t, bob, "/help")
	e.WaitText(t, bob, 1, "choose a quest")
	e.waitIdle(t)
	if e.CountText(bob, "New quests") != 0 {
		t.Error("withdrawn news was delivered")
	}
}

// Ensure a broadcast interrupted by a restart resumes where it stopped: every user gets it exactly
// once, users who blocked the bot (before it started, or while it ran) are passed over and
// counted, and the progress is reported along the way.
func TestBroadcastRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user(t, alice, "Alice", "en", true)
	e.Send(t, alice, "/start")
	const first, n = 1000, 30
	for i := range n {
		id := int64(first + i)
		e.Bot.AddUser(tgbotapi.User{ID: id, FirstName: "User" + strconv.Itoa(i), LanguageCode: "en"})
	}
	e.Exec(t, `INSERT INTO users (id, chat_id, first_name, language) SELECT i, i, 'User' || (i - $1), 'en'
		FROM generate_series($1::bigint, $1 + $2 - 1) i`, first, n)
	e.Exec(t, `INSERT INTO user_service (user_id, service_id) SELECT i, $3 FROM generate_series($1::bigint, $1 + $2 - 1) i`,
		first, n, e.service)
	e.Bot.Block(first, true)
	e.WaitText(t, alice, 0, "Questbot")
	e.waitIdle(t)
	e.WaitFor(t, "the block to be recorded", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM users WHERE blocked_at IS NOT NULL`) == 1
	})

	// The first process sends ten copies, then stalls with the next five in the outbox.
	e.limit(10)
	e.Send(t, alice, "Season two starts today")
	ask := e.WaitText(t, alice, 0, fmt.Sprintf("every user who speaks English: %d", n))
	e.Press(t, alice, ask, "Send")
	e.WaitFor(t, "ten copies sent and five waiting", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM relay_copy`) == 10 &&
			e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'pending' AND ref LIKE 'relay:%'`) == 5
	})
	e.WaitFor(t, "the progress report", func() bool {
		return strings.Contains(e.message(t, alice, ask.ID).Text, "sent 10 of 30")
	})
	// A user whose copy waits in the outbox blocks the bot.
	late := int64(e.QueryInt(t, `SELECT min(chat_id) FROM outbox WHERE status = 'pending' AND ref LIKE 'relay:%'`))
	e.Bot.Block(late, true)
	e.WaitFor(t, "the block to be recorded", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM users WHERE blocked_at IS NOT NULL`) == 2
	})
	e.stop()
	e.unlimit()
	e.stop = e.start(t)

	e.WaitFor(t, "the broadcast to finish", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM broadcast WHERE status = 'done'`) == 1
	})
	e.waitIdle(t)
	for i := range n {
		id := int64(first + i)
		want := 1
		if id == first || id == late {
			want = 0
		}
		if got := e.CountText(id, "Season two starts today"); got != want {
			t.Errorf("user %d got the broadcast %d times, want %d", id, got, want)
		}
	}
	report := e.message(t, alice, ask.ID)
	if want := "Broadcast finished: sent to 28 of 30 users. 2 could not be reached (they blocked the bot)."; report.Text != want {
		t.Errorf("the report is %q, want %q", report.Text, want)
	}
}

// Ensure the Stop button ends a running broadcast and takes its waiting copies out of the outbox,
// and non-text messages, floods, a bot without admins and an
// admin alone in their language get clear answers with nothing stored.
func TestStopAndRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user(t, ann, "Ann", "en", false)
	e.Send(t, ann, "/start")
	e.WaitText(t, ann, 0, "Questbot")
	e.Send(t, ann, "hello?")
	e.WaitText(t, ann, 0, "nobody reads messages here")
	e.user(t, alice, "Alice", "en", true)
	e.user(t, boris, "Борис", "ru", true)
	e.Send(t, boris, "/start")
	e.WaitText(t, boris, 0, "Questbot")
	e.Send(t, boris, "Всем привет")
	e.WaitText(t, boris, 0, "Больше никто здесь не говорит на языке «русский»")
	e.waitIdle(t)
	if n := e.QueryInt(t, `SELECT count(*) FROM relay_message`) + e.QueryInt(t, `SELECT count(*) FROM broadcast`); n != 0 {
		t.Fatalf("%d rows stored for messages that went nowhere", n)
	}

	if _, err := e.Bot.SendSticker(ann, "🙂"); err != nil {
		t.Fatal(err)
	}
	e.WaitText(t, ann, 0, "Only text messages reach the admins.")
	for i := range 11 {
		e.Send(t, ann, fmt.Sprintf("message %d", i))
	}
	e.WaitText(t, ann, 0, "Please wait a minute")
	e.waitIdle(t)
	if n := e.QueryInt(t, `SELECT count(*) FROM relay_message WHERE author_id = $1`, ann); n != 10 {
		t.Errorf("%d messages relayed in a minute, want 10", n)
	}

	// A broadcast whose copies are held in the outbox, stopped.
	e.limit(0)
	e.Send(t, alice, "/start")
	e.WaitText(t, alice, 0, "Questbot")
	e.Send(t, alice, "Quiz at noon")
	ask := e.WaitText(t, alice, 0, "every user who speaks English: 1")
	e.Press(t, alice, ask, "Send")
	e.WaitFor(t, "the copy to wait in the outbox", func() bool {
		return e.QueryInt(t, `SELECT count(*) FROM outbox WHERE status = 'pending' AND ref LIKE 'relay:%'`) == 1
	})
	e.WaitFor(t, "the Stop button", func() bool { return strings.Contains(e.message(t, alice, ask.ID).Text, "sent 0 of 1") })
	stop := e.message(t, alice, ask.ID)
	e.Press(t, alice, stop, "Stop")
	e.WaitFor(t, "the report", func() bool {
		return e.message(t, alice, ask.ID).Text == "Broadcast stopped: sent to 0 of 1 users."
	})
	e.unlimit()
	e.waitIdle(t)
	if e.CountText(ann, "Quiz at noon") != 0 || e.QueryInt(t, `SELECT count(*) FROM broadcast WHERE status = 'stopped'`) != 1 {
		t.Error("a stopped broadcast went on")
	}
	if len(e.message(t, alice, ask.ID).Keyboard) != 0 {
		t.Error("the stopped report keeps its Stop button")
	}
}
