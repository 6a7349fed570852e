package qms

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/questbot/questbot/formula"
	"github.com/questbot/questbot/qmm"
)

// Bounds of the language that keep a compilation bounded whatever its input (the budget of the
// work is Limits).
const (
	// maxDepth bounds the nesting of includes and of macro calls.
	maxDepth = 32
	// maxLoop bounds the values of one #for.
	maxLoop = 100_000
)

// stepLimit, when not 0, lowers the steps of every compilation: only the fuzz tests set it, as
// they must not spend seconds on one input that expands a loop a million times.
var stepLimit atomic.Int64

// srcLine is one line of a source, comments removed, with where it comes from.
type srcLine struct {
	text string
	p    pos
}

// macro is a #macro, or the body of a #for or #if being expanded.
type macro struct {
	name   string
	params []string
	lines  []srcLine
	alt    []srcLine // the #else part
	p      pos
}

// global is a #global constant (or a counter named by #end:NAME).
type global struct {
	name  string
	value string
	incr  bool
}

// binding is a macro argument's value during an expansion.
type binding struct{ name, value string }

// blockKind is the kind of block whose body is being collected.
type blockKind int

const (
	blockMacro blockKind = iota
	blockFor
	blockIf
)

// block is a #macro, #for or #if whose body is being collected, up to its #end.
type block struct {
	kind   blockKind
	m      *macro
	vars   []string // #for variables
	ranges []string // #for ranges
	cond   string   // #if condition
	depth  int      // nesting of inner blocks in the body
	inAlt  bool
	p      pos
}

// compiler holds the state of one compilation.
type compiler struct {
	fsys    fs.FS
	main    string // the file compiled
	errs    ErrorList
	warns   ErrorList
	ctx     context.Context
	limits  Limits
	steps   int   // the work done, counted against limits.Steps
	memory  int64 // the bytes of text handled, counted against limits.Memory
	nsites  int   // sites declared (a site reopened counts once)
	njumps  int   // cases, with the cases back from sub-routines
	nparams int   // variables
	macros  map[string]*macro
	globals []*global
	// the indexes that keep every lookup of a name constant in time (index.go)
	globalsByName map[string]*global
	sitesByName   map[string]*site
	sitesByID     map[int32]*site
	varNames      map[string]*variable
	varNamesLen   int // how many of vars varNames holds
	varIDs        map[int]*variable
	bindings      []binding
	calls         []string // macro call chain, for the depth error
	block         *block

	// the quest being built
	vars    []*variable
	sites   []*site // closed sites, in the order closed (a site reopened is listed again)
	cur     *site   // the open site
	curCase *kase   // the open case of cur
	curVar  *variable
	text    textTarget // where text lines go
	intro   body
	congrat body
	compat  int
	vid     int
	jid     int32
	exact   bool
	// exact form: variables declared so far, and the #seq of the last case
	declared int
	lastSeq  int
	crlf     bool // #newline:crlf
	// #exact:qms: the defaults are those of a compiled source, not the editor's
	qmsDefaults bool
	endBreak    bool // #newline:…:end
	header      []headerSet
	rrr         *variable
	// the numbered variables by name, made when the quest's changes are built
	idsByName map[string][]int
}

// textTarget tells where the text lines of the source go.
type textTarget int

const (
	toNothing textTarget = iota
	toIntro
	toCongrat
	toSite
	toCase
	toVar
)

// Compatibility modes of #compatible.
const (
	compatOff = iota
	compatOn
	compatDebug
)

// compile compiles the source file name of fsys into a quest. #include:x names the file x, or
// x.qms, of the same fsys, relative to the folder of name. The error, when not nil, is an
// [ErrorList] of every error found.
func compile(fsys fs.FS, name string) (*qmm.Quest, error) {
	q, _, err := CompileWithWarnings(fsys, name)
	return q, err
}

// CompileSource compiles one source text, within [DefaultLimits]; name is the file name its
// errors give. An #include in it is an error, since there is nothing to include from.
func CompileSource(name string, src []byte) (*qmm.Quest, error) {
	c := newCompiler(nil)
	c.main = name
	var q *qmm.Quest
	err := c.run(func() {
		lines := c.split(name, src, nil)
		q = c.finish(lines)
	})
	return q, err
}

func newCompiler(fsys fs.FS) *compiler {
	c := &compiler{fsys: fsys, macros: make(map[string]*macro), compat: compatOn, lastSeq: -1,
		ctx: context.Background(), limits: DefaultLimits}
	c.setLimits(DefaultLimits)
	return c
}

// finish parses the lines of the source and builds the quest (nil when there are errors).
func (c *compiler) finish(lines []srcLine) *qmm.Quest {
	for _, l := range lines {
		c.parseLine(l)
	}
	if c.block != nil {
		c.errorf(c.block.p, "close it with #end", "#%s is not closed", c.block.kindName())
		c.block = nil
	}
	q := c.build()
	if len(c.errs) > 0 {
		return nil
	}
	return q
}

func (b *block) kindName() string {
	switch b.kind {
	case blockFor:
		return "for"
	case blockIf:
		return "if"
	}
	return "macro"
}

var includeRE = regexp.MustCompile(`^\s*#include:([^:\s]+)`)

// load reads the named file and the files it includes, as one list of lines. chain holds the
// files being included, for the cycle and depth errors; at is the #include line.
func (c *compiler) load(name string, chain []string, at pos) []srcLine {
	if c.fsys == nil {
		c.errorf(at, "a single source cannot include files; compile it from a folder", "cannot include %q", name)
		return nil
	}
	file := path.Clean(name)
	data, err := fs.ReadFile(c.fsys, file)
	if err != nil && !strings.HasSuffix(file, ".qms") {
		if d, err2 := fs.ReadFile(c.fsys, file+".qms"); err2 == nil {
			file, data, err = file+".qms", d, nil
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			c.errorf(at, "the file must be in the same folder", "file %q not found", name)
		} else {
			c.errorf(at, "", "cannot read %q: %v", name, err)
		}
		return nil
	}
	for _, f := range chain {
		if f == file {
			c.errorf(at, "a file must not include itself, directly or not", "include cycle: %s",
				strings.Join(append(append([]string(nil), chain...), file), " → "))
			return nil
		}
	}
	if len(chain) >= maxDepth {
		c.errorf(at, "", "includes nested deeper than %d: %s", maxDepth,
			strings.Join(append(append([]string(nil), chain...), file), " → "))
		return nil
	}
	return c.split(file, data, append(chain, file))
}

// split cuts a source into lines, drops comments and expands includes.
func (c *compiler) split(file string, data []byte, chain []string) []srcLine {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []srcLine
	c.spend(int64(len(data)), pos{file: file, line: 1, col: 1})
	for i, text := range strings.Split(string(data), "\n") {
		c.step(pos{file: file, line: i + 1, col: 1})
		text = strings.TrimSuffix(text, "\r")
		text = stripComment(text)
		p := pos{file: file, line: i + 1, col: 1}
		if m := includeRE.FindStringSubmatchIndex(text); m != nil {
			name := text[m[2]:m[3]]
			p.col = strings.Index(text, "#") + 1
			if chain == nil {
				c.load(name, nil, p) // reports that a single source cannot include
				continue
			}
			dir := path.Dir(chain[len(chain)-1])
			out = append(out, c.load(path.Join(dir, name), chain, p)...)
			continue
		}
		out = append(out, srcLine{text: text, p: p})
	}
	return out
}

// stripComment removes "//" and what follows, with the spaces before it.
func stripComment(s string) string {
	i := strings.Index(s, "//")
	if i < 0 {
		return s
	}
	return strings.TrimRight(s[:i], " \t")
}

// directiveName returns the name of the directive a line starts with, and its column, or "".
func directiveName(s string) (string, int) {
	t := strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(t, "#") {
		return "", 0
	}
	j := 1
	for j < len(t) && t[j] != ':' && t[j] != ' ' && t[j] != '\t' {
		j++
	}
	return t[1:j], len(s) - len(t) + 1
}

// parseLine handles one line: it collects it into the open block or acts on it.
func (c *compiler) parseLine(l srcLine) {
	c.step(l.p)
	c.spend(int64(len(l.text)), l.p)
	name, col := directiveName(l.text)
	if b := c.block; b != nil {
		switch name {
		case "macro", "for", "if":
			b.depth++
		case "else":
			if b.depth == 0 {
				if b.inAlt {
					c.errorf(at(l, col), "", "a second #else in one #%s", b.kindName())
				}
				b.inAlt = true
				return
			}
		case "end":
			if b.depth == 0 {
				c.block = nil
				c.endBlock(b, l, col)
				return
			}
			b.depth--
		}
		if b.inAlt {
			b.m.alt = append(b.m.alt, l)
		} else {
			b.m.lines = append(b.m.lines, l)
		}
		return
	}
	if name != "" {
		c.directive(name, l, col)
		return
	}
	t := strings.TrimLeft(l.text, " \t")
	if strings.HasPrefix(t, "$") && strings.Contains(t, "=") {
		c.statement(l, len(l.text)-len(t)+1)
		return
	}
	c.textLine(l, false)
}

func at(l srcLine, col int) pos { p := l.p; p.col = col; return p }

// directive acts on a line that starts with a directive.
func (c *compiler) directive(name string, l srcLine, col int) {
	toks, ecol, emsg := tokenize(l.text[col-1:])
	if emsg != "" {
		if len(toks) == 0 {
			c.errorf(at(l, col+ecol-1), "", "%s", strings.TrimSuffix(emsg, ": the rest of the line is ignored"))
			return
		}
		c.warnf(at(l, col+ecol-1), "", "%s", emsg)
	}
	head := toks[0]
	opts := toks[1:]
	p := at(l, col)
	switch name {
	case "macro":
		c.openMacro(head, opts, p)
	case "for":
		c.openFor(head, opts, p)
	case "if":
		c.openIf(head, opts, p)
	case "end", "else":
		c.errorf(p, "", "#%s without an open #macro, #for or #if", name)
	case "var":
		c.openVar(head, opts, p)
	case "site":
		c.openSite(head, opts, p)
	case "case":
		c.openCase(head, opts, p)
	case "intro":
		c.text = toIntro
		c.intro.begin(p)
	case "congratulation":
		c.text = toCongrat
		c.congrat.begin(p)
	case "position":
		c.position(head, p)
	case "text":
		c.varText(head, opts, p)
	case "message":
		c.message(head, opts, p)
	case "return":
		c.returnSite(opts, p)
	case "global":
		c.setGlobal(head, p)
	case "page":
		c.page(head, opts, p)
	case "compatible":
		switch head.arg {
		case "on":
			c.compat = compatOn
		case "off":
			c.compat = compatOff
		case "debug":
			c.compat = compatDebug
		default:
			c.errorf(p, "on, off or debug", "bad #compatible mode %q", head.arg)
		}
	case "raw":
		c.rawLine(head, l, p)
	case "exact":
		c.exact = true
		switch head.arg {
		case "":
		case "qms":
			c.qmsDefaults, c.endBreak = true, true
		default:
			c.errorf(p, "#exact, or #exact:qms for the defaults of compiled sources", "bad #exact %q", head.arg)
		}
	case "newline":
		mode, end, _ := strings.Cut(head.arg, ":")
		switch {
		case mode != "crlf" && mode != "lf" || end != "" && end != "end":
			c.errorf(p, "write #newline:lf or #newline:crlf, with :end for a break after the last line", "bad #newline %q", head.arg)
		default:
			c.crlf, c.endBreak = mode == "crlf", end == "end"
		}
	case "quest":
		c.questField(head, opts, p)
	case "cond":
		c.condition(head, opts, p)
	case "crit":
		c.changeCrit(head, opts, p)
	case "include":
		c.errorf(p, "write #include:name", "bad #include")
	default:
		c.call(name, head, l, p)
	}
}

// call expands the macro name, as the directive #name:arg1:arg2….
func (c *compiler) call(name string, head token, l srcLine, p pos) {
	m := c.macros[name]
	if m == nil {
		c.warnf(p, "define it with #macro before its use; the line is ignored", "unknown directive or macro #%s", name)
		return
	}
	var args []string
	if head.hasArg && head.arg != "" {
		args = strings.Split(head.arg, ":")
	}
	if len(args) > len(m.params) {
		c.warnf(p, fmt.Sprintf("#%s takes %d", name, len(m.params)), "too many arguments: %d", len(args))
	}
	c.expand(m, args, m.lines, p)
	for _, prm := range m.params {
		if g := c.global(prm); g != nil && g.incr {
			n, err := strconv.Atoi(g.value)
			if err != nil {
				c.errorf(p, "", "counter %s holds %q, not a number", g.name, g.value)
				continue
			}
			g.value = strconv.Itoa(n + 1)
		}
	}
}

// expand parses the lines of m with its parameters bound to args.
func (c *compiler) expand(m *macro, args []string, lines []srcLine, p pos) {
	if len(c.calls) >= maxDepth {
		c.errorf(p, "a macro must not call itself without end", "macro calls nested deeper than %d: %s", maxDepth,
			strings.Join(append(append([]string(nil), c.calls...), m.name), " → "))
		return
	}
	n := len(c.bindings)
	for i, a := range args {
		if i < len(m.params) {
			c.bindings = append(c.bindings, binding{m.params[i], a})
		}
	}
	consts := c.constants()
	c.calls = append(c.calls, m.name)
	for _, l := range lines {
		if len(c.errs) > maxErrors {
			break
		}
		l.text = c.expandLine(l.text, consts, l.p)
		c.parseLine(l)
	}
	c.calls = c.calls[:len(c.calls)-1]
	c.bindings = c.bindings[:n]
}

// scope is the values [expr] may use: the values set in it first, then the innermost
// arguments, then the globals. It is read when a line is expanded, never copied, so that an
// expansion costs nothing for the globals it does not name.
type scope struct {
	c        *compiler
	bindings []binding // the arguments in force, innermost last
	set      map[string]string
}

// constants returns the values [expr] may use at this point of the expansion.
func (c *compiler) constants() *scope {
	return &scope{c: c, bindings: c.bindings[:len(c.bindings):len(c.bindings)]}
}

// get returns the value of the constant name.
func (s *scope) get(name string) (string, bool) {
	if v, ok := s.set[name]; ok {
		return v, true
	}
	for i := len(s.bindings) - 1; i >= 0; i-- {
		if s.bindings[i].name == name {
			return s.bindings[i].value, true
		}
	}
	if g := s.c.global(name); g != nil {
		return g.value, true
	}
	return "", false
}

// put sets the constant name in this scope only.
func (s *scope) put(name, value string) {
	if s.set == nil {
		s.set = map[string]string{}
	}
	s.set[name] = value
}

var constRE = regexp.MustCompile(`\$([a-zA-Z0-9_]+)`)

// expandLine replaces each [expr] of a macro line: the constants it names ($name) are put in,
// and when it then holds an operator or a space it is computed. An [expr] naming an unknown
// constant is left as it is, for an inner macro or loop to complete.
func (c *compiler) expandLine(s string, consts *scope, p pos) string {
	if !strings.Contains(s, "[") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '[')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], ']')
		if j < 0 {
			break
		}
		j += i + 1
		inner := s[i+1 : j]
		b.WriteString(s[:i])
		s = s[j+1:]
		if inner == "" {
			b.WriteString("[]")
			continue
		}
		complete := true
		// The line grows by the values put in: what it would hold beyond the memory left is
		// refused before it is made.
		c.spend(int64(len(s)+len(inner)), p)
		v := constRE.ReplaceAllStringFunc(inner, func(m string) string {
			if val, ok := consts.get(m[1:]); ok && val != "" {
				c.spend(int64(len(val)), p)
				return val
			}
			complete = false
			return m
		})
		if !complete {
			b.WriteString("[" + v + "]")
			continue
		}
		if strings.ContainsAny(v, " \t+-*/<>=") {
			n, err := formula.Calculate(v, nil, zeroRandom{})
			if err != nil {
				c.warnf(p, "the expression between [ and ] is computed when the macro expands; it is left as written", "cannot compute [%s]: %v", inner, err)
				b.WriteString("[" + v + "]")
				continue
			}
			v = strconv.Itoa(n)
		}
		b.WriteString(v)
	}
	b.WriteString(s)
	return b.String()
}

// zeroRandom makes compile-time computations deterministic: a random pick gives the first value.
type zeroRandom struct{}

func (zeroRandom) Random(int) int { return 0 }

func (c *compiler) global(name string) *global { return c.globalsByName[name] }

// addGlobal declares a global constant (or counter).
func (c *compiler) addGlobal(g *global) {
	c.globals = append(c.globals, g)
	if c.globalsByName == nil {
		c.globalsByName = map[string]*global{}
	}
	c.globalsByName[g.name] = g
}

func (c *compiler) setGlobal(head token, p pos) {
	name, value, ok := strings.Cut(head.arg, ":")
	if !ok || name == "" || value == "" {
		c.errorf(p, "write #global:NAME:VALUE", "bad #global")
		return
	}
	if g := c.global(name); g != nil {
		g.value = value
		return
	}
	c.addGlobal(&global{name: name, value: value})
}

func (c *compiler) openMacro(head token, opts []token, p pos) {
	parts := strings.Split(head.arg, ":")
	if !head.hasArg || parts[0] == "" {
		c.errorf(p, "write #macro:NAME:PARAM…", "macro without a name")
	}
	c.block = &block{kind: blockMacro, m: &macro{name: parts[0], params: parts[1:], p: p}, p: p}
}

func (c *compiler) openFor(head token, opts []token, p pos) {
	vars, ranges, ok := strings.Cut(head.arg, ":")
	if !ok || vars == "" || ranges == "" {
		c.errorf(p, "write #for:VAR:FROM..TO", "bad #for")
	}
	c.block = &block{kind: blockFor, m: &macro{name: "#for", params: strings.Split(vars, ";"), p: p},
		vars: strings.Split(vars, ";"), ranges: strings.Split(ranges, ":"), p: p}
}

func (c *compiler) openIf(head token, opts []token, p pos) {
	if !head.hasArg || head.arg == "" {
		c.errorf(p, "write #if:CONDITION", "#if without a condition")
	}
	c.block = &block{kind: blockIf, m: &macro{name: "#if", p: p}, cond: head.arg, p: p}
}

// endBlock closes a block at its #end: it defines the macro or expands the loop.
func (c *compiler) endBlock(b *block, l srcLine, col int) {
	toks, _, _ := tokenize(l.text[col-1:])
	var counters []string
	if len(toks) > 0 && toks[0].hasArg && toks[0].arg != "" {
		counters = strings.Split(toks[0].arg, ":")
	}
	for _, name := range counters {
		g := c.global(name)
		if g == nil {
			g = &global{name: name, value: "0"}
			c.addGlobal(g)
		}
		g.incr = true
		b.m.params = append(b.m.params, name)
	}
	switch b.kind {
	case blockMacro:
		if b.m.name != "" {
			c.macros[b.m.name] = b.m
		}
	case blockFor:
		c.runFor(b, b.p)
	case blockIf:
		c.runIf(b, b.p)
	}
}

// runFor expands a #for body once per value. With one variable the value list is the ';'-list
// of ranges after it; with several variables, each takes its own list (the ranges after the
// variables, ':'-separated, or the ';'-parts of a single list), in step with the first.
func (c *compiler) runFor(b *block, p pos) {
	lists := make([][]string, len(b.vars))
	switch {
	case len(b.vars) == 1 || len(b.ranges) > 1:
		for i := range b.vars {
			if i < len(b.ranges) {
				lists[i] = c.rangeValues(strings.Split(b.ranges[i], ";"), p)
			}
		}
	default:
		parts := strings.Split(b.ranges[0], ";")
		for i := range b.vars {
			if i < len(parts) {
				lists[i] = c.rangeValues(parts[i:i+1], p)
			}
		}
	}
	if len(lists[0]) == 0 {
		c.expand(b.m, nil, b.m.alt, p)
		return
	}
	for k := range lists[0] {
		c.step(p) // a turn counts, so that loops of empty bodies stay bounded too
		var args []string
		for i := range b.vars {
			if k >= len(lists[i]) {
				break
			}
			args = append(args, lists[i][k])
		}
		c.expand(b.m, args, b.m.lines, p)
		if len(c.errs) > maxErrors {
			return
		}
	}
}

// runIf expands the body of #if when its condition is not 0, else the #else part.
func (c *compiler) runIf(b *block, p pos) {
	v, err := formula.Calculate(undefinedToZero(b.cond), nil, zeroRandom{})
	if err != nil {
		c.errorf(p, "the condition is computed when the source is compiled", "cannot compute #if condition %q: %v", b.cond, err)
		return
	}
	if v != 0 {
		c.expand(b.m, nil, b.m.lines, p)
	} else {
		c.expand(b.m, nil, b.m.alt, p)
	}
}

var undefinedRE = regexp.MustCompile(`\[[^\]]*\$[^\]]*\]`)

// undefinedToZero turns an [expr] left incomplete (it names an undefined constant) into 0, so
// that "#for:i:1..[$debug]" runs no time when no #global:debug is given.
func undefinedToZero(s string) string { return undefinedRE.ReplaceAllString(s, "0") }

// rangeValues lists the values of #for ranges: "a..b" of numbers or of single characters, or a
// value as it is.
func (c *compiler) rangeValues(parts []string, p pos) []string {
	var out []string
	for _, r := range parts {
		from, to, ok := strings.Cut(r, "..")
		if !ok {
			out = append(out, r)
			continue
		}
		from, to = c.bound(undefinedToZero(from)), c.bound(undefinedToZero(to))
		a, err1 := strconv.Atoi(from)
		z, err2 := strconv.Atoi(to)
		switch {
		case err1 == nil && err2 == nil:
			if z-a >= maxLoop {
				c.errorf(p, "", "range %s has more than %d values", r, maxLoop)
				return nil
			}
			for i := a; i <= z; i++ {
				c.step(p)
				out = append(out, strconv.Itoa(i))
			}
		case len([]rune(from)) == 1 && len([]rune(to)) == 1:
			a, z := []rune(from)[0], []rune(to)[0]
			if z < a || z-a >= maxLoop {
				c.errorf(p, "the first character must not come after the last", "bad character range %s", r)
				return nil
			}
			for ch := a; ch <= z; ch++ {
				c.step(p)
				out = append(out, string(ch))
			}
		default:
			c.errorf(p, "a range is FROM..TO of numbers or of single characters", "bad range %q", r)
			return nil
		}
	}
	return out
}

// bound resolves a range bound: a number, a global's name, or a computation.
func (c *compiler) bound(s string) string {
	s = strings.TrimSpace(s)
	if g := c.global(s); g != nil {
		return g.value
	}
	if _, err := strconv.Atoi(s); err == nil {
		return s
	}
	if strings.ContainsAny(s, "+-*/ ") {
		if n, err := formula.Calculate(s, nil, zeroRandom{}); err == nil {
			return strconv.Itoa(n)
		}
	}
	return s
}

// CompileWithWarnings is compile that also returns the warnings: what the compiler tolerated
// and ignored, as the original compiler did (an unknown directive, a case to a missing site, a
// change of an undeclared variable…), each with its place and a hint. It compiles within
// [DefaultLimits].
func CompileWithWarnings(fsys fs.FS, name string) (*qmm.Quest, ErrorList, error) {
	return CompileContext(context.Background(), fsys, name, DefaultLimits)
}

// CompileContext is [CompileWithWarnings] within the limits lim (a zero field is the default's)
// and until ctx is done. A source that passes a limit stops the compilation at once: the error
// is then an [ErrorList] whose last error, at the place where the limit was passed, wraps a
// [*LimitError] naming it (errors.As finds it). When ctx is done first, the compilation stops
// within a few thousand steps (far less than a millisecond) and the error wraps ctx.Err().
func CompileContext(ctx context.Context, fsys fs.FS, name string, lim Limits) (*qmm.Quest, ErrorList, error) {
	c := newCompiler(fsys)
	c.main = name
	c.ctx = ctx
	c.setLimits(lim)
	var q *qmm.Quest
	err := c.run(func() {
		lines := c.load(name, nil, pos{file: name, line: 1, col: 1})
		q = c.finish(lines)
	})
	return q, c.warns, err
}
