package devtools_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/qms"
)

// The sources of the tests: a library of macros, a quest that includes it, and a broken one.
const (
	libSource = `#macro:home:WHERE
#site:home #win
You are home [$WHERE] with $gold gold.
#end
`
	mainSource = `#include:lib
#intro
Hello, <Ranger>!
#congratulation
Well done.

#var:gold #range:0..100 #default:[10] #show
  #text:0..100 'Gold: $'

#site:start #default
You stand at a crossroads.
#case:home 'Go home'
$gold = $gold + 5

#home:again
`
	sloppySource = `#var:gold #range:0..100 #default:[10]
#site:start #default
Here.
#case:nowhere 'Go'
#frobnicate
`
	brokenSource = `#text:0..1 'orphan'
#case:start 'Go'
#site:start #default
Here.
#if:[1=1]
`
)

// Ensure a developer's .qms source is stored as a source (not taken for a save), compiles with
// /compile into a quest of theirs that runs at once as a sandbox, its #include found among their
// sources; a source that does not compile gets its errors with file, line and column and stores
// nothing; the caption /compile compiles on upload; /decompile sends the running quest as a
// source that compiles again into the same quest.
func TestCompileAndDecompile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev, player = 30, 31
	e.user(dev, "Dana", "dana", "en")
	e.user(player, "Pat", "pat", "en")
	e.hello(t, dev)
	e.hello(t, player)
	e.makeDeveloper(t, dev)

	// Without sources, /compile says how to upload one.
	e.ask(t, dev, "/compile", "You have not uploaded a source yet")

	// A player's source is refused; a save of the original bot from them would still be restored
	// (TestSandboxTools).
	e.put(t, player, "adventure.qms", []byte(mainSource), "Only quest developers")
	if got := e.QueryInt(t, `SELECT count(*) FROM dev_upload`); got != 0 {
		t.Fatalf("%d uploads after the refused source, want 0", got)
	}

	e.put(t, dev, "lib.qms", []byte(libSource), "Source «lib.qms» is uploaded (version 1)")
	e.put(t, dev, "Adventure.qms", []byte(mainSource), "Source «Adventure.qms» is uploaded (version 1)")
	e.put(t, dev, "Adventure.qms", []byte(mainSource), "is the same file as version 1")
	e.ask(t, dev, "/compile nothing", "You have no source «nothing»")
	e.ask(t, dev, "/compile nothing", "Your sources: adventure, lib")

	n := e.LastID(dev)
	e.Send(t, dev, "/compile adventure")
	done := e.WaitTextAfter(t, dev, n, "«adventure» is compiled: 2 locations, 1 jumps")
	script := number(t, done.Text)
	screen := e.screen(t, dev, n)
	if !strings.Contains(screen.Text, "Hello, <b>Dana</b>!") {
		t.Errorf("the sandbox's first screen: %q, want the quest's intro", screen.Text)
	}
	n = e.LastID(dev)
	e.Press(t, dev, screen, screen.Keyboard[0][0].Text)
	screen = e.WaitTextAfter(t, dev, n, "You stand at a crossroads.")
	if _, sandbox, _ := e.gameRow(t, dev); !sandbox {
		t.Error("the compiled quest runs as a counted game, want a sandbox")
	}
	if got := e.QueryInt(t, `SELECT count(*) FROM script WHERE id = $1 AND owner_id = $2 AND uploaded AND NOT listed
		AND file LIKE 'dev/quests/%.qmm'`, script, dev); got != 1 {
		t.Errorf("the compiled quest %d is not stored as the developer's private .qmm", script)
	}
	n = e.LastID(dev)
	e.Press(t, dev, screen, "Go home")
	e.WaitTextAfter(t, dev, n, "You are home again with <b>15</b> gold.")

	// The same source compiles into the same quest: nothing new is stored.
	e.ask(t, dev, "/compile Adventure.qms", "compiles into the same quest as version 1")

	// Errors: every one, with its file, line and column; nothing stored.
	before := e.stored(t)
	e.put(t, dev, "broken.qms", []byte(brokenSource), "Source «broken.qms» is uploaded")
	bad := e.ask(t, dev, "/compile broken", "«broken» does not compile")
	if !strings.Contains(bad.Text, "3 error(s)") || !strings.Contains(bad.Text, "broken.qms:1:1: #text outside a #var") ||
		!strings.Contains(bad.Text, "broken.qms:2:1: #case outside a #site") || !strings.Contains(bad.Text, "broken.qms:5:") {
		t.Errorf("the errors do not say where they are: %q", bad.Text)
	}
	if got := e.QueryInt(t, `SELECT count(*) FROM script WHERE uploaded`); got != before.scripts {
		t.Errorf("%d quests after the failed compilation, want %d", got, before.scripts)
	}

	// What the compiler tolerates comes as warnings with the compiled quest.
	e.put(t, dev, "sloppy.qms", []byte(sloppySource), "Source «sloppy.qms» is uploaded")
	n = e.LastID(dev)
	e.Send(t, dev, "/compile sloppy")
	warned := e.WaitTextAfter(t, dev, n, "«sloppy» is compiled")
	if !strings.Contains(warned.Text, "Warnings (what the compiler ignored)") || !strings.Contains(warned.Text, "sloppy.qms:4:") {
		t.Errorf("the warnings of a sloppy source: %q", warned.Text)
	}
	e.screen(t, dev, n)

	// The caption /compile compiles at once; a new version of the source is a new quest version.
	changed := strings.Replace(mainSource, "$gold = $gold + 5", "$gold = $gold + 7", 1)
	n = e.LastID(dev)
	if _, err := e.Bot.SendDocumentCaption(dev, "adventure.qms", "text/plain", []byte(changed), "/compile"); err != nil {
		t.Fatal(err)
	}
	e.WaitTextAfter(t, dev, n, "Source «adventure.qms» is uploaded (version 2)")
	e.WaitTextAfter(t, dev, n, "version 2. It runs as a sandbox")
	e.screen(t, dev, n)

	// /decompile: the running quest as a source, which compiles into a quest of the same shape.
	n = e.LastID(dev)
	e.Send(t, dev, "/decompile")
	_, src := e.document(t, dev, n, ".qms")
	back, err := qms.CompileSource("back.qms", src)
	if err != nil {
		t.Fatalf("the decompiled source does not compile: %v\n%s", err, src)
	}
	if len(back.Locations) != 2 || len(back.Jumps) != 1 || back.Jumps[0].Changes[0].Formula != "[p1] + 7" {
		t.Errorf("decompiled and compiled again: %d locations, %d jumps, %+v", len(back.Locations), len(back.Jumps), back.Jumps)
	}
	var b bytes.Buffer
	if err := qmm.Encode(&b, back); err != nil {
		t.Fatal(err)
	}
	e.WaitIdle(t)
}
