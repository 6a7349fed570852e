package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Ensure every way of asking for help answers with the usage on stdout and exit status 0, and a
// stray argument to serve is refused in one line on stderr, as by every command.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "commands:"},
		{[]string{"-h"}, "commands:"},
		{[]string{"-help"}, "commands:"},
		{[]string{"--help"}, "commands:"},
		{[]string{"serve", "-h"}, "DATABASE_URL"},
		{[]string{"serve", "--help"}, "DATABASE_URL"},
		{[]string{"help", "serve"}, "DATABASE_URL"},
		{[]string{"help", "calc"}, "usage: questbot calc"},
		{[]string{"help", "quests"}, "usage: questbot quests add"},
		{[]string{"quests", "-h"}, "usage: questbot quests add"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch(context.Background(), c.args, &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit status %d, want 0; stderr:\n%s", code, &stderr)
			}
			if out := stdout.String() + stderr.String(); !strings.Contains(out, c.want) {
				t.Fatalf("output lacks %q:\n%s", c.want, out)
			}
			if strings.Contains(stderr.String(), "takes no arguments") {
				t.Fatalf("help refused as an argument:\n%s", &stderr)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch(context.Background(), []string{"serve", "now"}, &stdout, &stderr); code != 2 {
		t.Fatalf("serve now: exit status %d, want 2", code)
	}
	if stderr.String() != "questbot serve: unexpected argument \"now\" (see questbot help serve)\n" {
		t.Fatalf("serve now: stderr\n%s", &stderr)
	}
	// The variables listed are the ones the configuration reads.
	serveUsage(&stdout)
	for _, e := range envDefaults {
		if e.help == "" || !strings.Contains(stdout.String(), e.name) {
			t.Errorf("%s is not described", e.name)
		}
	}
}
