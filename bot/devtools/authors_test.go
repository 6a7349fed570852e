package devtools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/questbot/questbot/quest"
)

// Ensure an uploaded quest takes the language of its texts, not of the one who uploads it, and
// that the checker's warnings come in the uploader's language.
func TestUploadLanguageAndWarnings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev = 55
	e.user(dev, "Дима", "dima", "ru")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)
	m := e.put(t, dev, "probe.qmm", probe(t, "english"), "загружен")
	if !strings.Contains(m.Text, "⚠️ Предупреждения (2):") || !strings.Contains(m.Text, "картинки не найдены (1): map.png (локация 1)") ||
		!strings.Contains(m.Text, "Параметр 1 «Fuel»: его ничто не меняет") {
		t.Errorf("the warnings: %q", m.Text)
	}
	if n := e.QueryInt(t, `SELECT count(*) FROM script WHERE uploaded AND language = 'en'`); n != 1 {
		t.Error("the English quest uploaded by a Russian developer is not listed as English")
	}
}

// Ensure the developers' commands speak Russian to a Russian developer: the phase of /show and
// the failures of /calc are in Russian words.
func TestDeveloperCommandsInRussian(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev = 56
	e.user(dev, "Дима", "dima", "ru")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)
	m := e.put(t, dev, "probe.qmm", probe(t, "ru"), "загружен")
	var id int64
	if _, err := fmt.Sscanf(m.Text[strings.Index(m.Text, "номер ")+len("номер "):], "%d", &id); err != nil {
		t.Fatalf("no quest number in %q", m.Text)
	}
	n := e.LastID(dev)
	e.Send(t, dev, fmt.Sprintf("/load %d", id))
	task := e.screen(t, dev, n)
	n = e.LastID(dev)
	e.Press(t, dev, task, "I agree") // the quest is English
	e.screen(t, dev, n)
	e.ask(t, dev, "/show id", "(фаза локация, шаг 1)")
	for cmd, want := range map[string]string{"/calc [p1] +": "ошибка в позиции 7", "/calc [p9]": "параметра p9 нет"} {
		if m := e.ask(t, dev, cmd, want); strings.Contains(m.Text, "Expected") || strings.Contains(m.Text, "defined") {
			t.Errorf("%s: %q", cmd, m.Text)
		}
	}
}

// Ensure /restart starts the running sandbox game again from its start, and refuses a counted
// game and no game.
func TestRestartSandbox(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const dev = 57
	e.user(dev, "Dev", "dev", "en")
	e.hello(t, dev)
	e.makeDeveloper(t, dev)
	e.ask(t, dev, "/restart", "No quest is running.")
	id := number(t, e.put(t, dev, "probe.qmm", probe(t, "again"), "is uploaded").Text)
	n := e.LastID(dev)
	e.Send(t, dev, fmt.Sprintf("/load %d", id))
	task := e.screen(t, dev, n)
	n = e.LastID(dev)
	e.Press(t, dev, task, "I agree")
	e.screen(t, dev, n)
	if st, sandbox, _ := e.gameRow(t, dev); !sandbox || st.Phase == quest.PhaseStarting {
		t.Fatalf("the sandbox game before /restart: sandbox %v, phase %v", sandbox, st.Phase)
	}
	n = e.LastID(dev)
	e.Send(t, dev, "/restart")
	again := e.screen(t, dev, n)
	if !strings.Contains(again.Text, "Probe task.") {
		t.Errorf("/restart showed %q, want the task", again.Text)
	}
	if st, sandbox, script := e.gameRow(t, dev); !sandbox || st.Phase != quest.PhaseStarting || script != id {
		t.Errorf("after /restart: sandbox %v, phase %v, quest %d", sandbox, st.Phase, script)
	}
	e.Exec(t, `UPDATE game SET sandbox = false`)
	e.ask(t, dev, "/restart", "Only a sandbox game starts again by hand.")
}
