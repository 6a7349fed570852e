package qms

import (
	"fmt"
	"strings"
)

// maxErrors caps the number of errors one compilation reports; the list then ends with an
// error saying that more were left out.
const maxErrors = 50

// Error is one problem in a source: where it is, what is wrong and, when there is one, a hint
// on how to fix it. Line and Col are 1-based; Col counts characters (runes) of the line.
type Error struct {
	File string
	Line int
	Col  int
	Msg  string
	Hint string
	// Err is the cause when there is one to tell apart: a [*LimitError].
	Err error
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Error returns "file:line:col: msg (hint)", without the parenthesis when there is no hint.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// ErrorList is every error a compilation found, in the order found. Compile returns it as its
// error when it is not empty.
type ErrorList []*Error

// Unwrap returns the errors of the list, so that errors.As finds a cause among them.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Error lists the errors, one a line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// pos is a place in a source file.
type pos struct {
	file string
	line int
	col  int
}

// errorf records an error at p unless the list is full.
func (c *compiler) errorf(p pos, hint, format string, args ...any) {
	if len(c.errs) > maxErrors {
		return
	}
	if len(c.errs) == maxErrors {
		c.errs = append(c.errs, &Error{File: p.file, Line: p.line, Col: p.col,
			Msg: fmt.Sprintf("too many errors; only the first %d are listed", maxErrors)})
		return
	}
	if p.line < 1 {
		p.line = 1
	}
	if p.col < 1 {
		p.col = 1
	}
	c.errs = append(c.errs, &Error{File: p.file, Line: p.line, Col: p.col,
		Msg: fmt.Sprintf(format, args...), Hint: hint})
}

// warnf records something the compiler tolerates, as the original compiler did, but that is
// probably a slip of the author: the construct is ignored (see [CompileWithWarnings]).
func (c *compiler) warnf(p pos, hint, format string, args ...any) {
	if len(c.warns) >= maxErrors {
		return
	}
	if p.line < 1 {
		p.line = 1
	}
	if p.col < 1 {
		p.col = 1
	}
	c.warns = append(c.warns, &Error{File: p.file, Line: p.line, Col: p.col,
		Msg: fmt.Sprintf(format, args...), Hint: hint})
}
