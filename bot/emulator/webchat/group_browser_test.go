package webchat_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/questbot/questbot/bot/testkit/wait"
)

// Ensure the page holds seven users (more than a browser's six connections to a host, which a
// stream per column would exhaust), makes a group of them in which a member writes and presses
// as themselves, and runs an inline query from the group whose result is posted via the bot.
func TestWebChatSevenUsersGroupAndInline(t *testing.T) {
	url := startStack(t)
	ctx := browser(t)
	steps := []chromedp.Action[chromedp.Void]{chromedp.Navigate(url + "/"), chromedp.WaitVisible("#add-user")}
	for i := 1; i <= 7; i++ {
		steps = append(steps, addUser(fmt.Sprintf("U%d", i), "en", i))
	}
	steps = append(steps, say(7, "/start"), botSays(7, "Hello, U7!"), say(1, "/start"), botSays(1, "Hello, U1!"))
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("seven users: %v", err)
	}
	// The group: the eighth column; U3 writes there and presses the bot's button.
	err := chromedp.Do(ctx,
		chromedp.SendKeys("#new-group", "Club"),
		chromedp.Click("#add-group"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".chat.group").length === 1`),
		chromedp.SetValue(".chat.group .as select", "100000003"),
		chromedp.SendKeys(".chat.group input.text", "/demo"),
		chromedp.Click(".chat.group button.send"),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll(".chat.group .msg.user .author")].some(a => a.textContent === "U3")`,
			chromedp.WithPollingTimeout(wait.Hang)),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll(".chat.group .msg.bot")].some(m => m.textContent.includes("Pick one"))`,
			chromedp.WithPollingTimeout(wait.Hang)),
		chromedp.Click(`.chat.group .keyboard button[data-data="photo"]`),
		chromedp.Poll[chromedp.Void](`document.querySelector(".chat.group .msg.bot img") !== null`,
			chromedp.WithPollingTimeout(wait.Hang)),
	)
	if err != nil {
		t.Fatalf("the group: %v", err)
	}
	// Inline mode from the group: "@questbot chess" lists the bot's result; a click posts it.
	err = chromedp.Do(ctx,
		chromedp.SendKeys(".chat.group input.text", "@questbot chess"),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll(".chat.group .inline-results button")].some(b => b.textContent.includes("Say chess"))`,
			chromedp.WithPollingTimeout(wait.Hang)),
		chromedp.Click(".chat.group .inline-results button"),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll(".chat.group .msg.user")].some(m => m.textContent.includes("Inline: chess") && m.textContent.includes("via @questbot"))`,
			chromedp.WithPollingTimeout(wait.Hang)),
	)
	if err != nil {
		t.Fatalf("inline mode: %v", err)
	}
}
