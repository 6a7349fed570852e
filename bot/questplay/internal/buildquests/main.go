// Command buildquests encodes the sources of the quests the project ships (uploads/src/*.json)
// as .qmm files (uploads/*.qmm). Run it through go generate in bot/questplay.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/questbot/questbot/bot/questplay"
)

func main() {
	src := flag.String("src", "uploads/src", "folder of the quest sources")
	out := flag.String("out", "uploads", "folder of the .qmm files")
	flag.Parse()
	files, err := filepath.Glob(filepath.Join(*src, "*.json"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no quest sources in %s", *src)
	}
	for _, f := range files {
		if err != nil {
			break
		}
		var data []byte
		if data, err = os.ReadFile(f); err != nil {
			break
		}
		var qmm []byte
		if qmm, err = questplay.BuildQuest(data); err != nil {
			err = fmt.Errorf("%s: %w", f, err)
			break
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json") + ".qmm"
		err = os.WriteFile(filepath.Join(*out, name), qmm, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "buildquests:", err)
		os.Exit(1)
	}
}
