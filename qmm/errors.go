package qmm

import (
	"errors"
	"fmt"
)

// FormatError reports input that is not a valid quest file.
//
// When the input ends before the data it announces (a truncated file, or a count or length
// larger than what is left), Err is io.ErrUnexpectedEOF; when the magic is not one of the six
// known ones, Err is [ErrUnknownMagic]. Both are visible to errors.Is.
type FormatError struct {
	// Offset is the byte offset in the input where the problem was found.
	Offset int64
	// Msg says what is wrong, prefixed with the part of the file being read.
	Msg string
	// Err is the underlying cause, or nil.
	Err error
}

// Error returns a message such as "qmm: invalid format at offset 0x1A2: jump 3: ...".
func (e *FormatError) Error() string {
	return fmt.Sprintf("qmm: invalid format at offset 0x%X: %s", e.Offset, e.Msg)
}

// Unwrap returns the underlying cause, so that errors.Is(err, io.ErrUnexpectedEOF) holds for
// truncated input.
func (e *FormatError) Unwrap() error { return e.Err }

// ErrUnknownMagic is the cause of the [*FormatError] returned for input whose first four bytes
// are not a quest magic: it is not a quest file at all.
var ErrUnknownMagic = errors.New("unknown magic")

// ErrInvalidQuest is wrapped by the errors [Encode] returns for a Quest it cannot write, such
// as a change or condition for a parameter that does not exist.
var ErrInvalidQuest = errors.New("qmm: quest cannot be encoded")
