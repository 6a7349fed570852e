package qmm

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ReadJSON reads a quest written in the JSON form of Quest (the field names of the quest editor:
// "params", "locations", "jumps", "paramsChanges", "paramsConditions", …), as the quests the
// project ships are kept in source. Fields left out are zero. Unknown fields are errors, so a
// misspelt field is not silently lost.
func ReadJSON(src []byte) (*Quest, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	var q Quest
	if err := dec.Decode(&q); err != nil {
		return nil, fmt.Errorf("qmm: quest source: %w", err)
	}
	return &q, nil
}
