package bottest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browserRequiredEnv, or CI, set to anything, makes a missing Chromium fail the browser tests
// instead of skipping them (the Makefile's chromium target reads the same two).
const browserRequiredEnv = "QUESTBOT_BROWSER_REQUIRED"

// Browser starts a headless Chromium for a test, with a fresh profile, and returns its context;
// the browser is closed when the test ends, and every action fails after timeout. Chromium's
// own traffic (updates, sync, QUIC) is turned off, so it talks only to the pages under test.
// `make test` installs Debian's chromium when it runs as root. Without Chromium the test is
// skipped, saying why, or fails where the browser tests are required (CI or
// QUESTBOT_BROWSER_REQUIRED set).
func Browser(t testing.TB, timeout time.Duration, width, height int) context.Context {
	t.Helper()
	path := chromiumIn(t, os.Getenv, exec.LookPath)
	dir, err := os.MkdirTemp("", "chromium")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.UserDataDir(dir),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	if width > 0 && height > 0 {
		opts = append(opts, chromedp.WindowSize(width, height))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// chromiumIn returns the path of Chromium as lookPath finds it; when it is missing the test is
// skipped with the reason, or failed when getenv says the browser tests are required.
func chromiumIn(t testing.TB, getenv func(string) string, lookPath func(string) (string, error)) string {
	t.Helper()
	path, err := lookPath("chromium")
	if err == nil {
		return path
	}
	if getenv(browserRequiredEnv) != "" || getenv("CI") != "" {
		t.Fatalf("the browser tests need Chromium, which is missing (%v), and they are required here "+
			"(%s or CI is set): apt-get install -y chromium, or make test as root", err, browserRequiredEnv)
	}
	t.Skipf("Chromium is missing (%v): the browser tests are skipped; apt-get install -y chromium "+
		"(make test as root installs it) runs them", err)
	return ""
}
