package relay

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/questbot/questbot/bot"
	"github.com/questbot/questbot/bot/relay/relaypg"
)

// newsCache is what a process remembers of the news, so that an update costs no statement while
// there are none, and one only now and then while there are: the news that have not ended, read
// every NewsCheck, and the users found to have had (or not to be meant for) every current item.
type newsCache struct {
	items []relaypg.ActiveNews
	at    time.Time
	// next is when the first item not yet started starts: users have to be checked again then.
	next time.Time
	// done holds, by user, the list of items (newsKey) the user was last found to have had all
	// of. Only a check that found nothing to deliver is remembered: a delivery could still be
	// rolled back with its update.
	done map[userKey]string
}

type userKey struct {
	service int
	user    int64
}

// Wrap returns the update handler next with the news delivered first: a user who writes or
// presses a button in their private chat gets, before the answer, every news item of the bot
// that is current, is for them and that they have not had, in the order they were written. The
// receipt is written in the update's transaction together with the message, so each user gets
// each news item once; it records the delivery when Telegram accepts the message.
func (r *Relay) Wrap(next bot.Handler) bot.Handler {
	return func(ctx context.Context, tx bot.Tx, u *bot.Update) error {
		if err := r.deliverNews(ctx, tx, u); err != nil {
			return err
		}
		return next(ctx, tx, u)
	}
}

func (r *Relay) deliverNews(ctx context.Context, tx bot.Tx, u *bot.Update) error {
	if u.User == nil || u.Chat != u.User.ID || (u.Message == nil && u.CallbackQuery == nil) {
		// Only users in their private chats with the bot.
		return nil
	}
	ids, key, err := r.currentNews(ctx, tx, u.Service)
	if err != nil || len(ids) == 0 {
		return err
	}
	who := userKey{service: u.Service, user: u.User.ID}
	r.mu.Lock()
	done := r.news.done[who] == key && time.Now().Before(r.news.next)
	r.mu.Unlock()
	if done {
		return nil
	}
	var joined *time.Time
	if at, ok, err := r.cfg.Users.JoinedAt(ctx, tx.DB(), u.Service, u.User.ID); err != nil {
		return fmt.Errorf("relay: %w", err)
	} else if ok {
		joined = &at
	}
	items, err := r.cfg.Store.TakeNews(ctx, tx.DB(), ids, u.User.ID, u.Service, joined)
	if err != nil {
		return fmt.Errorf("relay: news for user %d: %w", u.User.ID, err)
	}
	if len(items) == 0 {
		r.mu.Lock()
		if r.news.done != nil {
			r.news.done[who] = key
		}
		r.mu.Unlock()
		return nil
	}
	for _, it := range items {
		text := it.En
		if it.Ru != nil && bot.Language(u.User.Language) == "ru" {
			text = *it.Ru
		}
		reqs, err := bot.SendHTML(u.Chat, text, nil)
		if err != nil {
			return fmt.Errorf("relay: news %d: %w", it.ID, err)
		}
		ref := "news:" + strconv.FormatInt(it.ID, 10) + ":" + strconv.FormatInt(u.User.ID, 10)
		if err := tx.Send(ctx, bot.WithRef(ref, reqs...)...); err != nil {
			return err
		}
	}
	return nil
}

// currentNews returns the ids of the news of a bot that have not ended, in order, and a key that
// names that list, from the cache while it is fresh. The cache is read through the update's
// transaction, which holds a connection already: asking the pool for another one while every
// connection is held by an update would wait forever.
func (r *Relay) currentNews(ctx context.Context, tx bot.Tx, service int) ([]int64, string, error) {
	r.mu.Lock()
	fresh := r.cfg.NewsCheck > 0 && time.Since(r.news.at) < r.cfg.NewsCheck
	items := r.news.items
	r.mu.Unlock()
	if !fresh {
		now := time.Now()
		var next *time.Time
		var err error
		items, next, err = r.cfg.Store.CurrentNews(ctx, tx.DB())
		if err != nil {
			return nil, "", fmt.Errorf("relay: current news: %w", err)
		}
		r.mu.Lock()
		if newsKey(r.news.items, -1) != newsKey(items, -1) || r.news.done == nil {
			// Other news: everybody is to be checked again.
			r.news.done = map[userKey]string{}
		}
		r.news.items, r.news.at, r.news.next = items, now, now.Add(100*365*24*time.Hour)
		if next != nil {
			r.news.next = *next
		}
		r.mu.Unlock()
	}
	var ids []int64
	for _, n := range items {
		if n.Service == nil || *n.Service == service {
			ids = append(ids, n.ID)
		}
	}
	return ids, newsKey(items, service), nil
}

// newsKey names the list of the items of a bot (all of them for service -1).
func newsKey(items []relaypg.ActiveNews, service int) string {
	var b strings.Builder
	for _, n := range items {
		if service < 0 || n.Service == nil || *n.Service == service {
			b.WriteString(strconv.FormatInt(n.ID, 10))
			b.WriteByte(',')
		}
	}
	return b.String()
}
