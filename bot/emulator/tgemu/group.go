package tgemu

import (
	"cmp"
	"fmt"
	"log/slog"
	"slices"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// # Groups
//
// Besides the private chats, the emulator knows group chats as far as the bot's handling of
// them needs: a group has a (negative) id, a title and members among the simulated users; the
// members write texts, commands and replies into it, and the bot answers there. Adding the bot to
// a group, or removing it, reaches the bot as a my_chat_member update, as on Telegram. The web
// chat shows the groups beside the private chats (Groups lists them).

// group is what a group chat has beyond its messages.
type group struct {
	title   string
	members map[int64]bool
	// left: the bot was removed from the group; its requests about the group answer 403.
	left bool
}

func (g *group) apiChat(id int64) *tgbotapi.Chat {
	return &tgbotapi.Chat{ID: id, Type: "group", Title: g.title}
}

// AddGroup creates a group chat with the bot and the given simulated users as members, as if
// the user by added the bot to it: the bot gets a my_chat_member update (from left to member).
// A group's id is negative, as on Telegram.
func (b *Bot) AddGroup(id int64, title string, by int64, members ...int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if id >= 0 {
		return fmt.Errorf("tgemu: a group id is negative, not %d", id)
	}
	if b.chats[id] != nil {
		return fmt.Errorf("tgemu: chat %d exists", id)
	}
	u, err := b.userLocked(by)
	if err != nil {
		return err
	}
	g := &group{title: title, members: map[int64]bool{by: true}}
	for _, m := range members {
		if _, err := b.userLocked(m); err != nil {
			return err
		}
		g.members[m] = true
	}
	c := b.chatLocked(id)
	c.group = g
	b.memberUpdateLocked(g.apiChat(id), u, "left", "member")
	return nil
}

// RemoveFromGroup is the user by removing the bot from a group: the bot gets a my_chat_member
// update (from member to kicked), and its requests about the group answer 403 from then on.
func (b *Bot) RemoveFromGroup(id, by int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	g, u, err := b.memberLocked(id, by)
	if err != nil {
		return err
	}
	g.left = true
	b.memberUpdateLocked(g.apiChat(id), u, "member", "kicked")
	return nil
}

// memberUpdateLocked queues the my_chat_member update of the bot's status in chat going from old
// to next, by user from.
func (b *Bot) memberUpdateLocked(chat *tgbotapi.Chat, from *tgbotapi.User, old, next string) {
	me := b.me
	b.queueSavedLocked(tgbotapi.Update{MyChatMember: &tgbotapi.ChatMemberUpdated{
		Chat: *chat, From: *from, Date: int(b.srv.now().Unix()),
		OldChatMember: tgbotapi.ChatMember{User: &me, Status: old},
		NewChatMember: tgbotapi.ChatMember{User: &me, Status: next},
	}})
}

// queueSavedLocked numbers an update no message comes with, saves it and queues it. An update
// that cannot be saved is not queued (and logged): a lost group event only matters to a test.
func (b *Bot) queueSavedLocked(u tgbotapi.Update) {
	upd := b.numberLocked(u)
	if err := b.saveLocked(record{Update: &upd}); err != nil {
		b.srv.log.Error("Emulated update not saved", slog.Any("error", err))
		return
	}
	b.queueLocked(upd)
}

// memberLocked returns the group id and its member user.
func (b *Bot) memberLocked(id, user int64) (*group, *tgbotapi.User, error) {
	c := b.chats[id]
	if c == nil || c.group == nil {
		return nil, nil, fmt.Errorf("tgemu: no group %d", id)
	}
	if !c.group.members[user] {
		return nil, nil, fmt.Errorf("tgemu: user %d is not a member of group %d", user, id)
	}
	u, err := b.userLocked(user)
	return c.group, u, err
}

// SendGroupText is a member typing text into a group. A leading /command gets the bot_command
// entity, as Telegram's clients send it. It returns the message id.
func (b *Bot) SendGroupText(id, user int64, text string) (int, error) {
	return b.SendEntities(id, user, text, commandEntity(text))
}

// SendGroupReply is a member of a group replying to message replyTo of the group (the bot's or a
// member's). It returns the message id.
func (b *Bot) SendGroupReply(id, user int64, replyTo int, text string) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	g, u, err := b.memberLocked(id, user)
	if err != nil {
		return 0, err
	}
	c := b.chats[id]
	orig := c.find(replyTo)
	if orig == nil {
		return 0, fmt.Errorf("tgemu: chat %d has no message %d", id, replyTo)
	}
	tm := &tgbotapi.Message{Text: text, Entities: commandEntity(text), ReplyToMessage: b.repliedLocked(orig)}
	m := &Message{Text: text, ReplyTo: replyTo}
	if err := b.postLocked(u, id, c, g.apiChat(id), m, tm); err != nil {
		return 0, err
	}
	return m.ID, nil
}

// SendEntities is a user's client sending a text with the entities it chose, into the user's
// private chat (chat is the user's id) or a group they are a member of: an unusual or forged
// client, whose entities need not fit the text. It returns the message id.
func (b *Bot) SendEntities(chat, user int64, text string, entities []tgbotapi.MessageEntity) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tm := &tgbotapi.Message{Text: text, Entities: entities}
	m := &Message{Text: text}
	if chat == user {
		u, err := b.userLocked(user)
		if err != nil {
			return 0, err
		}
		if err := b.userMessageLocked(u, m, tm); err != nil {
			return 0, err
		}
		return m.ID, nil
	}
	g, u, err := b.memberLocked(chat, user)
	if err != nil {
		return 0, err
	}
	if err := b.postLocked(u, chat, b.chats[chat], g.apiChat(chat), m, tm); err != nil {
		return 0, err
	}
	return m.ID, nil
}

// QueueUpdate queues an update as given, with only its update_id assigned: for updates no
// simulated user makes, such as a forged my_chat_member.
func (b *Bot) QueueUpdate(u tgbotapi.Update) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queueSavedLocked(u)
}

// PendingUpdates returns how many updates the bot has not acknowledged yet (by asking getUpdates
// for a later offset).
func (b *Bot) PendingUpdates() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.updates)
}

// GroupInfo is a group chat as a viewer lists it: its id, title and members (in id order).
type GroupInfo struct {
	ID      int64   `json:"id"`
	Title   string  `json:"title"`
	Members []int64 `json:"members"`
	// Left: the bot was removed from the group.
	Left bool `json:"left,omitempty"`
}

// Groups returns the bot's group chats, in id order (the newest, most negative, first).
func (b *Bot) Groups() []GroupInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []GroupInfo
	for id, c := range b.chats {
		if c.group == nil {
			continue
		}
		g := GroupInfo{ID: id, Title: c.group.title, Left: c.group.left}
		for m := range c.group.members {
			g.Members = append(g.Members, m)
		}
		slices.Sort(g.Members)
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b GroupInfo) int { return cmp.Compare(a.ID, b.ID) })
	return out
}
