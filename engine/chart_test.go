package engine

import (
	"bytes"
	"errors"
	"image/color"
	"image/png"
	"math"
	"testing"
	"time"
)

// Ensure a chart of a known history is laid out around its values and bands, and drawn where
// the frame says: each point is a dot of its series' colour, the band between value ± band is
// the series' colour over the plot, translucent, outside the bands the plot is bare, and the
// title and legend are written.
func TestChart(t *testing.T) {
	day := 24 * time.Hour
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := Chart{Title: "Ratings", Series: []Series{
		{Name: "Chess 1620 +- 80", Points: []ChartPoint{
			{t0, 1662, 290}, {t0.Add(2 * day), 1600, 200}, {t0.Add(5 * day), 1580, 150}, {t0.Add(10 * day), 1620, 80},
		}},
		{Name: "Russian draughts 1400 +- 250", Points: []ChartPoint{
			{t0.Add(4 * day), 1338, 290}, {t0.Add(8 * day), 1400, 250},
		}},
	}}
	f, err := c.Frame()
	if err != nil {
		t.Fatal(err)
	}
	// The values span 1662+290 = 1952 down to 1338−290 = 1048: in steps of 200, 1000 to 2000.
	if f.Low != 1000 || f.High != 2000 || f.Step != 200 || !f.From.Equal(t0) || !f.To.Equal(t0.Add(10*day)) {
		t.Errorf("frame %+v", f)
	}
	var buf bytes.Buffer
	if err := WriteChartPNG(&buf, c); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != ChartWidth || b.Dy() != f.Height || f.Height != chartTop+chartPlotH+chartBottom+2*chartLegend+10 {
		t.Errorf("size %v, frame %dx%d", b, f.Width, f.Height)
	}
	at := func(x, y float64) color.RGBA {
		r, g, b, _ := img.At(int(x), int(y)).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
	}
	for i, s := range c.Series {
		col := colSeries[i]
		for _, p := range s.Points {
			if got := at(f.X(p.At), f.Y(p.Value)); got != col {
				t.Errorf("%s at %v: %v, want the series' %v", s.Name, p.At, got, col)
			}
		}
	}
	// Inside chess's band only (the first point, halfway up its band): the band's colour.
	p := c.Series[0].Points[0]
	x, y := f.X(p.At)+2, f.Y(p.Value+p.Band*0.6)
	if got, want := at(x, y), mix(colPlot, colSeries[0], chartBandAlpha); got != want && got != mix(colGrid, colSeries[0], chartBandAlpha) {
		t.Errorf("inside the band at %.0f,%.0f: %v, want %v", x, y, got, want)
	}
	// Above every band, at the right: the bare plot.
	if got := at(f.X(t0.Add(9*day)), f.Y(1990)); got != colPlot && got != colGrid {
		t.Errorf("above the bands: %v, want the plot's %v", got, colPlot)
	}
	// Outside the plot, left of it: the frame; the title and the legend have ink.
	if got := at(4, float64(f.Plot.Min.Y+30)); got != colFrame {
		t.Errorf("the margin: %v", got)
	}
	if !inked(img, chartLeft, 18, chartLeft+7*18, 18+21) {
		t.Error("no title")
	}
	for i := range c.Series {
		y := f.Plot.Max.Y + chartBottom + 6 + i*chartLegend
		if got := at(chartLeft+10, float64(y+5)); got != colSeries[i] {
			t.Errorf("legend %d: %v", i, got)
		}
		if !inked(img, chartLeft+40, y, chartLeft+40+12*10, y+14) {
			t.Errorf("legend %d has no name", i)
		}
	}
}

// inked reports whether the rectangle holds a pixel of the labels' colour.
func inked(img interface {
	At(x, y int) color.Color
}, x0, y0, x1, y1 int) bool {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}) == colLabel {
				return true
			}
		}
	}
	return false
}

// Ensure a single point makes a chart (a day around it), and no point is an error.
func TestChartEdges(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	one := Chart{Title: "x", Series: []Series{{Name: "a", Points: []ChartPoint{{t0, 1500, 0}}}}}
	f, err := one.Frame()
	if err != nil || !f.From.Before(t0) || !f.To.After(t0) || f.Low >= 1500 || f.High <= 1500 {
		t.Errorf("one point: %+v, %v", f, err)
	}
	var buf bytes.Buffer
	if err := WriteChartPNG(&buf, one); err != nil {
		t.Error(err)
	}
	if err := WriteChartPNG(&buf, Chart{Series: []Series{{Name: "empty"}}}); !errors.Is(err, ErrEmptyChart) {
		t.Errorf("no points: %v", err)
	}
	if s := niceStep(37); s != 50 {
		t.Errorf("niceStep(37) = %v", s)
	}
	if s := niceStep(0.3); math.Abs(s-0.5) > 1e-12 {
		t.Errorf("niceStep(0.3) = %v", s)
	}
}
