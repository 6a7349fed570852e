package boards

// TestEnvironment reports whether the bots talk to Telegram's test environment
// (Config.TestEnvironment, the built-in emulator), which opens Mini Apps from http loopback
// addresses too: the Telegram view's web_app buttons ask it.
func (b *Boards) TestEnvironment() bool { return b.testEnv }
