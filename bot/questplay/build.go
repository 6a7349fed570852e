package questplay

import (
	"bytes"

	"github.com/questbot/questbot/qmm"
)

//go:generate go run ./internal/buildquests -src ../../uploads/src -out ../../uploads

// BuildQuest encodes the source of a quest the project ships (uploads/src/*.json, see
// qmm.ReadJSON) as a .qmm file.
func BuildQuest(src []byte) ([]byte, error) {
	q, err := qmm.ReadJSON(src)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := qmm.Encode(&out, q); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
