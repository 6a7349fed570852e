package questfs

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
)

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
	for _, ref := range imageRefs(q) {
		if !found(ref.name) {
			add(Warning{Kind: WarnMissingImage, Place: ref.place, Name: ref.name})
		}
	}
	return out
}
