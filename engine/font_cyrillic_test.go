package engine

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"
)

// russian is the Russian alphabet, capitals then small letters.
const russian = "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя"

// Ensure every letter of the Russian alphabet has a glyph of the font, well formed and inked,
// and that no two capitals (nor two small letters) share a glyph, so a Russian word reads.
func TestCyrillicGlyphs(t *testing.T) {
	seen := map[string]rune{}
	for _, c := range russian {
		g := glyph5x7(c)
		if len(g) != 35 || strings.Trim(g, "#.") != "" || !strings.Contains(g, "#") {
			t.Errorf("%c: glyph %q", c, g)
			continue
		}
		key := g
		if c >= 'а' || c == 'ё' {
			key = "small " + g
		} else {
			key = "capital " + g
		}
		if o, ok := seen[key]; ok {
			t.Errorf("%c draws as %c", c, o)
		}
		seen[key] = c
	}
	for c, rows := range cyrillic5x7 {
		for _, r := range rows {
			if len(r) != 5 || strings.Trim(r, "#.") != "" {
				t.Errorf("%c: row %q", c, r)
			}
		}
	}
}

// Ensure a Russian label renders: each letter of a chart's title written in Russian leaves its
// own glyph's pixels in its cell, and the cells of different letters differ.
func TestCyrillicText(t *testing.T) {
	const label = "Рейтинги шашки Ёж"
	img := image.NewRGBA(image.Rect(0, 0, 6*len([]rune(label))+2, 9))
	cv := &canvas{img: img}
	cv.rect(0, 0, img.Rect.Dx(), img.Rect.Dy(), colFrame)
	cv.textAt(1, 1, 1, label, colLabel)
	cells := map[rune]string{}
	for i, c := range []rune(label) {
		var cell strings.Builder
		for row := 0; row < 7; row++ {
			for col := 0; col < 5; col++ {
				if img.RGBAAt(1+6*i+col, 1+row) == colLabel {
					cell.WriteByte('#')
				} else {
					cell.WriteByte('.')
				}
			}
		}
		got := cell.String()
		if c == ' ' {
			if strings.Contains(got, "#") {
				t.Errorf("the space is inked: %q", got)
			}
			continue
		}
		if got != glyph5x7(c) || !strings.Contains(got, "#") {
			t.Errorf("%c at %d: %q, want its glyph %q", c, i, got, glyph5x7(c))
		}
		for o, other := range cells {
			if o != c && other == got {
				t.Errorf("%c and %c are drawn alike", c, o)
			}
		}
		cells[c] = got
	}
	// A chart titled in Russian has ink in its title.
	var buf bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := Chart{Title: "Рейтинги (Глико-2)", Series: []Series{{Name: "Русские шашки", Points: []ChartPoint{{t0, 1500, 100}}}}}
	if err := WriteChartPNG(&buf, c); err != nil {
		t.Fatal(err)
	}
	pic, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !inked(pic, chartLeft, 18, chartLeft+18, 18+21) {
		t.Error("the chart's Russian title has no ink in its first letter")
	}
}
