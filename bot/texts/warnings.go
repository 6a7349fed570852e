package texts

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/questbot/questbot/formula"
	"github.com/questbot/questbot/quest/questfs"
)

// Warnings is what the checker's warnings (questfs.Lint) say to a quest's author, plain.
type Warnings struct {
	// Head heads the list (the number of warnings).
	Head string
	// MissingImages: the images found nowhere (how many, the list "name (place)").
	MissingImages string
	// More ends a cut list (how many more).
	More string
	// NoChoice: the quest has no jump.
	NoChoice string
	// DefaultText: the task or the congratulation (the place) is the editor's default.
	DefaultText string
	// Unreachable, DeadEnd: a location (the place) no path reaches, or where a player is stuck;
	// UnusedParam: a parameter (the place, its name) nothing changes or reads.
	Unreachable, DeadEnd, UnusedParam string
	// FormulaSyntax, NoSuchParam, DivisionByZero: a formula that can fail (the place and which
	// formula of it, the formula, then the parse error as FormulaSyntaxError words it; the
	// parameter; the divisor).
	FormulaSyntax, NoSuchParam, DivisionByZero string
	// StartFormula, SelectFormula, PassFormula and ChangeFormula (the parameter, as Place words
	// it) say which formula of a place it is.
	StartFormula, SelectFormula, PassFormula, ChangeFormula string
}

var warningsEN = Warnings{
	Head:           "⚠️ Warnings (%d):",
	MissingImages:  "images found nowhere (%d): %s. Upload them, or put them beside the quest file.",
	More:           " and %d more",
	NoChoice:       "the quest has no jump: it offers no choice at all, and players never see it in the catalogue.",
	DefaultText:    "%s is the editor's default text; players are shown the quest's name (or that they won) instead.",
	Unreachable:    "%s: no jump leads there from the start.",
	DeadEnd:        "%s: a dead end, no jump leaves it and it ends nothing.",
	UnusedParam:    "%s «%s»: nothing changes it, shows it or reads it.",
	FormulaSyntax:  "%s, %s «%s»: the formula does not parse (%s); it fails whenever the game needs it.",
	NoSuchParam:    "%s, %s «%s»: reads %s, which the quest does not have; it fails whenever the game needs it.",
	DivisionByZero: "%s, %s «%s»: divides by %s, which is or may be zero (the result is then ±2000000000).",
	StartFormula:   "the starting value",
	SelectFormula:  "the choice of text",
	PassFormula:    "the condition",
	ChangeFormula:  "the change of %s",
}

var warningsRU = Warnings{
	Head:           "⚠️ Предупреждения (%d):",
	MissingImages:  "картинки не найдены (%d): %s. Загрузите их или положите рядом с файлом квеста.",
	More:           " и ещё %d",
	NoChoice:       "в квесте нет ни одного перехода: выбора в нём нет, и в каталоге игроки его не увидят.",
	DefaultText:    "%s — текст редактора по умолчанию; игроки увидят вместо него название квеста (или что они победили).",
	Unreachable:    "%s: от начала туда не ведёт ни один переход.",
	DeadEnd:        "%s: тупик, из неё нет переходов, и квест в ней не кончается.",
	UnusedParam:    "%s «%s»: его ничто не меняет, не показывает и не читает.",
	FormulaSyntax:  "%s, %s «%s»: формула не разбирается (%s); игра прервётся, как только она понадобится.",
	NoSuchParam:    "%s, %s «%s»: читает %s, а такого параметра в квесте нет; игра прервётся, как только формула понадобится.",
	DivisionByZero: "%s, %s «%s»: делит на %s, а это ноль или может оказаться нулём (результат тогда ±2000000000).",
	StartFormula:   "начальное значение",
	SelectFormula:  "выбор текста",
	PassFormula:    "условие",
	ChangeFormula:  "изменение: %s",
}

// maxListed bounds the names or lines a warning list shows.
const maxListed = 10

// WarningList words the warnings of a quest for its author, plain, one a line under a head (the
// missing images in one line); "" when there is none.
func (c *Catalog) WarningList(list []questfs.Warning) string {
	if len(list) == 0 {
		return ""
	}
	w := &c.Warnings
	var images []string
	var lines []string
	for _, x := range list {
		if x.Kind == questfs.WarnMissingImage {
			images = append(images, fmt.Sprintf("%s (%s)", x.Name, c.Place(x.Place)))
			continue
		}
		lines = append(lines, c.warning(x))
	}
	var b strings.Builder
	fmt.Fprintf(&b, w.Head, len(list))
	if len(images) > 0 {
		b.WriteString("\n• " + fmt.Sprintf(w.MissingImages, len(images), c.cutList(images)))
	}
	for i, l := range lines {
		if i == maxListed {
			b.WriteString("\n•" + fmt.Sprintf(w.More, len(lines)-i))
			break
		}
		b.WriteString("\n• " + l)
	}
	return b.String()
}

// warning words one warning other than a missing image.
func (c *Catalog) warning(x questfs.Warning) string {
	w := &c.Warnings
	switch x.Kind {
	case questfs.WarnNoChoice:
		return w.NoChoice
	case questfs.WarnDefaultText:
		return fmt.Sprintf(w.DefaultText, upperFirst(c.Place(x.Place)))
	case questfs.WarnUnreachable:
		return fmt.Sprintf(w.Unreachable, upperFirst(c.Place(x.Place)))
	case questfs.WarnDeadEnd:
		return fmt.Sprintf(w.DeadEnd, upperFirst(c.Place(x.Place)))
	case questfs.WarnUnusedParam:
		return fmt.Sprintf(w.UnusedParam, upperFirst(c.Place(x.Place)), x.Name)
	case questfs.WarnFormulaSyntax:
		problem := c.FormulaSyntaxError(&formula.SyntaxError{Msg: x.Detail, Pos: x.At - 1})
		return fmt.Sprintf(w.FormulaSyntax, upperFirst(c.Place(x.Place)), c.whichFormula(x.Formula), x.Name, problem)
	case questfs.WarnNoSuchParam:
		return fmt.Sprintf(w.NoSuchParam, upperFirst(c.Place(x.Place)), c.whichFormula(x.Formula), x.Name, x.Detail)
	case questfs.WarnDivisionByZero:
		return fmt.Sprintf(w.DivisionByZero, upperFirst(c.Place(x.Place)), c.whichFormula(x.Formula), x.Name, x.Detail)
	}
	return fmt.Sprintf("%s: %s %s", x.Kind, c.Place(x.Place), x.Name)
}

// whichFormula words which formula of a place a warning is about (questfs.Warning.Formula).
func (c *Catalog) whichFormula(f string) string {
	w := &c.Warnings
	switch f {
	case questfs.FormulaStart:
		return w.StartFormula
	case questfs.FormulaSelect:
		return w.SelectFormula
	case questfs.FormulaPass:
		return w.PassFormula
	}
	return fmt.Sprintf(w.ChangeFormula, c.Place(f))
}

// upperFirst is s with its first letter in upper case.
func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// cutList joins names with commas, at most maxListed of them.
func (c *Catalog) cutList(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:maxListed], ", ") + fmt.Sprintf(c.Warnings.More, len(names)-maxListed)
}

// Place words a place of a quest as questfs.Warning names it ("L12", "J7", "P3", "task",
// "success"), plain.
func (c *Catalog) Place(p string) string {
	ru := c.Lang == "ru"
	switch {
	case p == "task":
		return map[bool]string{false: "the task", true: "описание задания"}[ru]
	case p == "success":
		return map[bool]string{false: "the congratulation", true: "поздравление"}[ru]
	case strings.HasPrefix(p, "L"):
		return map[bool]string{false: "location ", true: "локация "}[ru] + p[1:]
	case strings.HasPrefix(p, "J"):
		return map[bool]string{false: "jump ", true: "переход "}[ru] + p[1:]
	case strings.HasPrefix(p, "P"):
		return map[bool]string{false: "parameter ", true: "параметр "}[ru] + p[1:]
	}
	return p
}
