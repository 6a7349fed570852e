package main

import (
	"os"
	"strings"
	"testing"

	"github.com/questbot/questbot/migrations/pgtest"
)

func TestMain(m *testing.M) {
	// A test that needs the whole process (signals, exit codes) runs this binary again as
	// questbot itself.
	if args := os.Getenv(asQuestbotEnv); args != "" {
		os.Exit(runMain(strings.Fields(args), os.Stdout, os.Stderr))
	}
	// The strength and perftcmp commands' tests run this binary as a UCI chess engine.
	if os.Getenv(asUCIEnv) != "" {
		os.Exit(fakeUCI(os.Stdin, os.Stdout))
	}
	os.Exit(pgtest.Main(m))
}

// asQuestbotEnv, set to a command line, makes the test binary run as questbot with it.
const asQuestbotEnv = "QUESTBOT_TEST_RUN_AS_QUESTBOT"
