package questfs

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/questbot/questbot/qmm"
	"github.com/questbot/questbot/quest"
)

// Why a file is not a quest that plays: the Reason of a *CheckError.
var (
	// ErrNotQuest: the file is not a .qm or .qmm file at all (an unknown header).
	ErrNotQuest = errors.New("not a .qm or .qmm file")
	// ErrEndsEarly: the file ends before the quest does (a partial download, say).
	ErrEndsEarly = errors.New("the file ends too early")
	// ErrDamaged: the file is a quest file, but its content does not decode.
	ErrDamaged = errors.New("the file is damaged")
	// ErrNoCompile: the quest decodes but cannot be compiled for play.
	ErrNoCompile = errors.New("the quest cannot be compiled")
	// ErrNoStart: the quest compiles but does not start: no starting location, or a formula of
	// its first screens fails.
	ErrNoStart = errors.New("the quest does not start")
)

// CheckError says why the bytes of a file are not a quest that plays (see Check).
type CheckError struct {
	// Reason is one of ErrNotQuest, ErrEndsEarly, ErrDamaged, ErrNoCompile and ErrNoStart.
	Reason error
	// Detail is what the decoder or the player said, for the quest's developer; "" for none.
	Detail string
}

func (e *CheckError) Error() string {
	if e.Detail == "" {
		return "questfs: " + e.Reason.Error()
	}
	return fmt.Sprintf("questfs: %v: %s", e.Reason, e.Detail)
}

// Unwrap returns the Reason.
func (e *CheckError) Unwrap() error { return e.Reason }

// checkClock is the date a quest is shown at when it is checked.
var checkClock = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Check checks the bytes of a quest file the way an upload is checked before anything is
// stored, and returns the compiled quest (without Path nor Dir): it must decode, compile, start,
// and show the screen of its first location. Its errors are *CheckError.
func Check(data []byte) (*Quest, error) {
	d, err := qmm.DecodeBytes(data)
	var fe *qmm.FormatError
	switch {
	case errors.Is(err, qmm.ErrUnknownMagic):
		return nil, &CheckError{Reason: ErrNotQuest}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &CheckError{Reason: ErrEndsEarly}
	case errors.As(err, &fe):
		return nil, &CheckError{Reason: ErrDamaged, Detail: fe.Msg}
	case err != nil:
		return nil, &CheckError{Reason: ErrDamaged, Detail: err.Error()}
	}
	q, err := quest.Compile(d)
	if err != nil {
		return nil, &CheckError{Reason: ErrNoCompile, Detail: err.Error()}
	}
	st, err := q.Start("upload")
	if err == nil {
		st, err = q.Perform(st, quest.JumpIAgree)
	}
	if err == nil {
		_, err = q.View(st, quest.DefaultPlayer(quest.English, checkClock))
	}
	if err != nil {
		return nil, &CheckError{Reason: ErrNoStart, Detail: err.Error()}
	}
	return newQuest(q, d, data), nil
}
