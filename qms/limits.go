package qms

import (
	"fmt"
)

// Limits bound the work of one compilation, so that no source, however small, makes the
// compiler run long or hold much memory (a few lines of nested #for loops can ask for
// millions of sites). A source that passes one gets an error naming the limit, at the place
// where it was passed, and the compilation stops there.
type Limits struct {
	// Sites bounds the sites a source declares (a site reopened counts once).
	Sites int
	// Jumps bounds the cases, the cases back from sub-routines included.
	Jumps int
	// Params bounds the variables (#var, and the stack of sub-routines): the player checks
	// each jump against every parameter.
	Params int
	// Steps bounds the work: the lines read, the lines handled (every line of a macro or loop
	// each time it expands), the turns of loops and the values of their ranges, and the
	// walks over sites and cases that build the quest.
	Steps int
	// Memory bounds the bytes of text handled (the files read and every line as handled,
	// after its [expr] are put in) and of the quest built, counted at structCost for each
	// location text and parameter change.
	Memory int64
}

// DefaultLimits are the limits of [CompileWithWarnings] and [CompileSource]. They are far
// beyond the largest quests written (the original bot's sources have at most about 350 sites,
// 1,500 cases, 120 variables and 31,000 lines once expanded, and the Space Rangers quests
// fewer), and keep a compilation below about two seconds of one core and a few hundred
// megabytes.
var DefaultLimits = Limits{Sites: 10_000, Jumps: 50_000, Params: 1_000, Steps: 2_000_000, Memory: 64 << 20}

// structCost is what a location text or a parameter change of the quest built counts against
// Limits.Memory, about its size in memory: so that a source cannot ask for millions of empty
// pages, or a change of every parameter at every site, in a few lines.
const structCost = 128

// LimitError is a limit of [Limits] that a source passed. It is wrapped by the last [*Error]
// of the [ErrorList] a compilation returns.
type LimitError struct {
	// Limit names it: "sites", "jumps", "params", "steps" or "memory".
	Limit string
	// Max is its value (bytes for memory).
	Max int64
}

// Error says which limit was passed.
func (e *LimitError) Error() string {
	switch e.Limit {
	case "memory":
		return fmt.Sprintf("the source passes the limit of %d MB of text", e.Max>>20)
	case "steps":
		return fmt.Sprintf("the source passes the limit of %d steps of compilation", e.Max)
	case "params":
		return fmt.Sprintf("the source passes the limit of %d variables", e.Max)
	}
	return fmt.Sprintf("the source passes the limit of %d %s", e.Max, e.Limit)
}

// halt stops a compilation from wherever it is: the compiler panics with it, and run recovers
// it as the compilation's error.
type halt struct{ err error }

// run runs a compilation's work f, and returns its error: the list of errors, or what stopped
// it (a limit, ctx).
func (c *compiler) run(f func()) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		h, ok := r.(halt)
		if !ok {
			panic(r)
		}
		err = h.err
	}()
	f()
	if len(c.errs) > 0 {
		return c.errs
	}
	return nil
}

// setLimits sets the compilation's limits: lim, with the defaults for its zero fields.
func (c *compiler) setLimits(lim Limits) {
	d := DefaultLimits
	if lim.Sites > 0 {
		d.Sites = lim.Sites
	}
	if lim.Jumps > 0 {
		d.Jumps = lim.Jumps
	}
	if lim.Params > 0 {
		d.Params = lim.Params
	}
	if lim.Steps > 0 {
		d.Steps = lim.Steps
	}
	if lim.Memory > 0 {
		d.Memory = lim.Memory
	}
	if n := int(stepLimit.Load()); n > 0 && n < d.Steps {
		d.Steps = n
	}
	c.limits = d
}

// exceed stops the compilation at p: the limit named is passed.
func (c *compiler) exceed(p pos, limit string, max int64, hint string) {
	if p.line < 1 {
		p.line = 1
	}
	if p.col < 1 {
		p.col = 1
	}
	le := &LimitError{Limit: limit, Max: max}
	// The limit's error is listed even when the list is full: it is why the compilation ended.
	c.errs = append(c.errs, &Error{File: p.file, Line: p.line, Col: p.col, Msg: le.Error(), Hint: hint, Err: le})
	panic(halt{c.errs})
}

// ctxEvery is how many steps go between two looks at the compilation's context.
const ctxEvery = 1024

// step counts one step of work at p; it stops the compilation past the limit of steps, or
// when its context is done.
func (c *compiler) step(p pos) {
	c.steps++
	if c.steps > c.limits.Steps {
		c.exceed(p, "steps", int64(c.limits.Steps), "look for a #for or a macro that expands without end")
	}
	if c.steps%ctxEvery == 0 {
		if err := c.ctx.Err(); err != nil {
			panic(halt{fmt.Errorf("qms: compiling %s: %w", c.main, err)})
		}
	}
}

// spend counts n bytes of text at p against the limit of memory.
func (c *compiler) spend(n int64, p pos) {
	c.memory += n
	if c.memory > c.limits.Memory {
		c.exceed(p, "memory", c.limits.Memory, "look for a #for or a macro that expands without end")
	}
}

// countSite counts a new site at p against the limit of sites.
func (c *compiler) countSite(p pos) {
	c.nsites++
	if c.nsites > c.limits.Sites {
		c.exceed(p, "sites", int64(c.limits.Sites), "a quest this large cannot be played; look for a #for that makes too many")
	}
}

// countParam counts a new variable at p against the limit of parameters.
func (c *compiler) countParam(p pos) {
	c.nparams++
	if c.nparams > c.limits.Params {
		c.exceed(p, "params", int64(c.limits.Params), "a quest has a few hundred parameters at most; look for a #for that makes too many")
	}
}

// countJump counts a new case at p against the limit of jumps.
func (c *compiler) countJump(p pos) {
	c.njumps++
	if c.njumps > c.limits.Jumps {
		c.exceed(p, "jumps", int64(c.limits.Jumps), "a quest this large cannot be played; look for a #for that makes too many")
	}
}
