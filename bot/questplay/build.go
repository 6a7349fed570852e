package questplay

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/questbot/questbot/qmm"
)

//go:generate go run ./internal/buildquests -src ../../uploads/src -out ../../uploads

// BuildQuest encodes the source of a quest the project ships (uploads/src/*.json) as a .qmm
// file. The source is the quest in the JSON form of package qmm's Quest (the field names of the
// quest editor: "params", "locations", "jumps", "paramsChanges", "paramsConditions", …); fields
// left out are zero. Unknown fields are errors, so a misspelt field is not silently lost.
func BuildQuest(src []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	var q qmm.Quest
	if err := dec.Decode(&q); err != nil {
		return nil, fmt.Errorf("quest source: %w", err)
	}
	var out bytes.Buffer
	if err := qmm.Encode(&out, &q); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
