package texts

import (
	"strings"
	"testing"

	"github.com/questbot/questbot/quest/questfs"
)

// Ensure the warnings of formulas that can fail name the place, which formula of it and what is
// wrong, in each language, and that the Russian words hold no English message of the parser.
func TestFormulaWarnings(t *testing.T) {
	list := []questfs.Warning{
		{Kind: questfs.WarnFormulaSyntax, Place: "J2", Formula: questfs.FormulaPass, Name: "[p1] >", Detail: "Expected value at 6", At: 7},
		{Kind: questfs.WarnNoSuchParam, Place: "L2", Formula: questfs.FormulaSelect, Name: "[p7] + 1", Detail: "p7"},
		{Kind: questfs.WarnDivisionByZero, Place: "L2", Formula: "P2", Name: "[p2] mod [-1..1]", Detail: "[-1..1]"},
		{Kind: questfs.WarnDivisionByZero, Place: "P1", Formula: questfs.FormulaStart, Name: "10 div 0", Detail: "0"},
	}
	for lang, want := range map[string][]string{
		"en": {"Jump 2, the condition «[p1] >»: the formula does not parse (Expected value at 6)",
			"Location 2, the choice of text «[p7] + 1»: reads p7, which the quest does not have",
			"Location 2, the change of parameter 2 «[p2] mod [-1..1]»: divides by [-1..1]",
			"Parameter 1, the starting value «10 div 0»: divides by 0"},
		"ru": {"Переход 2, условие «[p1] >»: формула не разбирается (ошибка в позиции 7)",
			"Локация 2, выбор текста «[p7] + 1»: читает p7, а такого параметра в квесте нет",
			"Локация 2, изменение: параметр 2 «[p2] mod [-1..1]»: делит на [-1..1]",
			"Параметр 1, начальное значение «10 div 0»: делит на 0"},
	} {
		got := For(lang).WarningList(list)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %q in\n%s", lang, w, got)
			}
		}
		if lang == "ru" && strings.Contains(got, "Expected") {
			t.Errorf("ru: the parser's English message in\n%s", got)
		}
	}
}
