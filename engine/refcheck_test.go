package engine

import (
	"fmt"
	"slices"
)

// setDiff describes how two sorted lists of moves differ: the entries
// only the engine has and those only the reference generator has.
func setDiff(engine, reference []string) string {
	var onlyE, onlyR []string
	for _, e := range engine {
		if !slices.Contains(reference, e) {
			onlyE = append(onlyE, e)
		}
	}
	for _, r := range reference {
		if !slices.Contains(engine, r) {
			onlyR = append(onlyR, r)
		}
	}
	return fmt.Sprintf("%d moves against %d\n engine only    %q\n reference only %q", len(engine), len(reference), onlyE, onlyR)
}
