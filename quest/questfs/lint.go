package questfs

import "strings"

// # Warnings for a quest's author
//
// Lint finds what plays but is likely a mistake of the quest's author, and names the place of
// each: the upload (bot/devtools), /compile and the import (questbot quests add) show the
// warnings with the answer, and the quest is stored all the same.

// WarningKind is what a Warning is about.
type WarningKind string

// The kinds of warnings.
const (
	// WarnMissingImage: the quest names an image (Name) that is found nowhere; Place says where.
	WarnMissingImage WarningKind = "missing image"
	// WarnNoChoice: the quest has no jump at all, so it never offers a choice (a stub).
	WarnNoChoice WarningKind = "no choice"
	// WarnDefaultText: the task or the congratulation (Place) is the editor's default text,
	// which players are not shown.
	WarnDefaultText WarningKind = "default text"
)

// IsStub reports whether warnings of Lint tell a stub: a quest that offers no choice at all.
func IsStub(warnings []Warning) bool {
	for _, w := range warnings {
		if w.Kind == WarnNoChoice {
			return true
		}
	}
	return false
}

// Warning is one thing Lint found.
type Warning struct {
	Kind WarningKind
	// Place is where the quest has it: "L12" for location 12, "J7" for jump 7, "P3" for
	// parameter 3 (1-based, as the editor numbers them), "task" or "success"; "" for the quest as
	// a whole.
	Place string
	// Name is what the warning is about (an image's name), "" when the kind says it all.
	Name string
}

// maxWarnings bounds the warnings Lint returns: a quest with a hundred warnings of a kind does
// not need them all told.
const maxWarnings = 50

// Lint returns the warnings of a checked quest, at most maxWarnings, in order of kind and place.
// found tells whether an image name is found (nil: looked for in the folders Quest.Image looks in).
func Lint(q *Quest, found func(name string) bool) []Warning {
	if found == nil {
		dirs := q.imageDirs()
		found = func(name string) bool { return LookupImage(name, dirs...) != "" }
	}
	var out []Warning
	add := func(w Warning) {
		if len(out) < maxWarnings {
			out = append(out, w)
		}
	}
	if len(q.Doc.Jumps) == 0 {
		add(Warning{Kind: WarnNoChoice})
	}
	if IsEditorDefault(q.Doc.TaskText) {
		add(Warning{Kind: WarnDefaultText, Place: "task"})
	}
	if IsEditorDefault(q.Doc.SuccessText) {
		add(Warning{Kind: WarnDefaultText, Place: "success"})
	}
	for _, ref := range imageRefs(q) {
		if !found(ref.name) {
			add(Warning{Kind: WarnMissingImage, Place: ref.place, Name: ref.name})
		}
	}
	return out
}

// editorDefaults are the texts the quest editor puts into a new quest's task and congratulation,
// which an author who wrote none leaves in the file.
var editorDefaults = []string{"Описание задания", "Описание поздравления"}

// IsEditorDefault reports whether a task or congratulation text is the editor's default (spaces
// and case aside).
func IsEditorDefault(s string) bool {
	s = strings.Join(strings.Fields(s), " ")
	for _, d := range editorDefaults {
		if strings.EqualFold(s, d) {
			return true
		}
	}
	return false
}
