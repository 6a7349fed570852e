package engine

import (
	"errors"
	"image"
	"image/color"
	"io"
	"math"
	"strconv"
	"time"
)

// Charts: a line chart of values over time (a player's ratings), drawn with the board pictures'
// machinery (the canvas, its anti-aliased lines and discs, the 5x7 font, the 256-colour PNG), in
// their colours: a dark frame, a title above the plot, the values on the left with a line across
// the plot at each, dates below, and a legend under them. Each series is a line through its
// points (marked with dots while there are few), over its band: the region between value − band
// and value + band at each point, painted translucent, so a rating's deviation reads as a band
// narrowing as it grows certain.

// The size of a chart, in pixels.
const (
	ChartWidth  = 800
	chartPlotH  = 320 // the plot's height
	chartLeft   = 76  // the margin of the values
	chartRight  = 24
	chartTop    = 56 // the title's bar
	chartBottom = 40 // the dates
	chartLegend = 26 // a row of the legend
	chartDots   = 60 // the most points a series shows as dots
)

// Chart colours: the plot, its grid, and the series' in turn.
var (
	colPlot   = color.RGBA{60, 50, 43, 255}
	colGrid   = color.RGBA{88, 76, 66, 255}
	colSeries = []color.RGBA{
		{240, 196, 60, 255},  // gold
		{116, 192, 88, 255},  // green
		{120, 170, 240, 255}, // blue
		{236, 110, 84, 255},  // red
		{206, 136, 220, 255}, // violet
		{90, 206, 200, 255},  // teal
		{238, 216, 182, 255}, // sand
	}
)

// chartColours are the flat colours of the charts, for the PNG palette.
func chartColours() []color.RGBA {
	cs := []color.RGBA{colPlot, colGrid}
	for _, c := range colSeries {
		cs = append(cs, c, mix(colPlot, c, chartBandAlpha), mix(colGrid, c, chartBandAlpha))
	}
	return cs
}

// chartBandAlpha is the opacity of a band.
const chartBandAlpha = 0.28

// Chart is a line chart of series over time.
type Chart struct {
	// Title is written above the plot; Series are drawn in order, each in the next colour.
	Title  string
	Series []Series
}

// Series is one line of a chart: Name (in the legend) and its points in time order.
type Series struct {
	Name   string
	Points []ChartPoint
}

// ChartPoint is a value at a time, with the half-width of its band (0: none).
type ChartPoint struct {
	At    time.Time
	Value float64
	Band  float64
}

// ErrEmptyChart: a chart without a point to draw.
var ErrEmptyChart = errors.New("engine: a chart without points")

// ChartFrame is where a chart draws: the plot's rectangle in the picture, and the times and
// values at its edges (From at the left, To at the right; Low at the bottom, High at the top).
type ChartFrame struct {
	Width, Height int
	Plot          image.Rectangle
	From, To      time.Time
	Low, High     float64
	// Step is the distance between the values written on the left.
	Step float64
}

// X returns the horizontal position of time t.
func (f ChartFrame) X(t time.Time) float64 {
	span := f.To.Sub(f.From).Seconds()
	return float64(f.Plot.Min.X) + t.Sub(f.From).Seconds()/span*float64(f.Plot.Dx())
}

// Y returns the vertical position of value v.
func (f ChartFrame) Y(v float64) float64 {
	return float64(f.Plot.Max.Y) - (v-f.Low)/(f.High-f.Low)*float64(f.Plot.Dy())
}

// Frame lays the chart out: the plot spans the series' times (a day around a single moment) and
// their values with their bands, widened to whole steps of the values written on the left.
func (c Chart) Frame() (ChartFrame, error) {
	var from, to time.Time
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, p := range s.Points {
			if from.IsZero() || p.At.Before(from) {
				from = p.At
			}
			if to.IsZero() || p.At.After(to) {
				to = p.At
			}
			lo, hi = math.Min(lo, p.Value-p.Band), math.Max(hi, p.Value+p.Band)
		}
	}
	if math.IsInf(lo, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return ChartFrame{}, ErrEmptyChart
	}
	if !to.After(from) {
		from, to = from.Add(-12*time.Hour), to.Add(12*time.Hour)
	}
	if hi-lo < 20 {
		mid := (hi + lo) / 2
		lo, hi = mid-10, mid+10
	}
	step := niceStep((hi - lo) / 5)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	h := chartTop + chartPlotH + chartBottom + chartLegend*len(c.Series) + 10
	plot := image.Rect(chartLeft, chartTop, ChartWidth-chartRight, chartTop+chartPlotH)
	return ChartFrame{Width: ChartWidth, Height: h, Plot: plot, From: from, To: to, Low: lo, High: hi, Step: step}, nil
}

// niceStep rounds a step up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// WriteChartPNG draws the chart and encodes it as a PNG (see encodePNG). Returns ErrEmptyChart
// for a chart without points.
func WriteChartPNG(w io.Writer, c Chart) error {
	f, err := c.Frame()
	if err != nil {
		return err
	}
	img := image.NewRGBA(image.Rect(0, 0, f.Width, f.Height))
	c.draw(&canvas{img: img}, f)
	return encodePNG(w, img)
}

// draw paints the chart in frame f.
func (c Chart) draw(cv *canvas, f ChartFrame) {
	cv.rect(0, 0, f.Width, f.Height, colFrame)
	cv.rect(f.Plot.Min.X, f.Plot.Min.Y, f.Plot.Dx(), f.Plot.Dy(), colPlot)
	cv.textAt(chartLeft, 18, 3, fit(c.Title, (ChartWidth-chartLeft)/18), colLabel)
	// The values, and a line across the plot at each.
	for v := f.Low; v <= f.High+f.Step/2; v += f.Step {
		y := int(math.Round(f.Y(v)))
		cv.rect(f.Plot.Min.X, y, f.Plot.Dx(), 1, colGrid)
		label := strconv.FormatFloat(v, 'f', -1, 64)
		cv.textAt(chartLeft-10-12*len(label), y-7, 2, label, colLabel)
	}
	// The dates: at most five, evenly spread.
	span := f.To.Sub(f.From)
	layout := "2006-01-02"
	if span < 3*24*time.Hour {
		layout = "01-02 15:04"
	}
	n := min(4, max(1, int(span/(24*time.Hour))))
	for i := 0; i <= n; i++ {
		t := f.From.Add(span * time.Duration(i) / time.Duration(n))
		x := int(math.Round(f.X(t)))
		cv.rect(x, f.Plot.Max.Y, 1, 6, colLabel)
		label := t.UTC().Format(layout)
		lx := min(max(x-6*len(label), 4), ChartWidth-4-12*len(label))
		cv.textAt(lx, f.Plot.Max.Y+12, 2, label, colLabel)
	}
	// The bands first, then the lines and dots over them, then the legend.
	for i, s := range c.Series {
		drawBand(cv, f, s.Points, colSeries[i%len(colSeries)])
	}
	for i, s := range c.Series {
		col := colSeries[i%len(colSeries)]
		pts := make([]pt, len(s.Points))
		for j, p := range s.Points {
			pts[j] = pt{f.X(p.At), f.Y(p.Value)}
		}
		for j := 0; j+1 < len(pts); j++ {
			cv.line(pts[j:j+2], 3, col, 1)
		}
		if len(pts) <= chartDots {
			for _, p := range pts {
				cv.disc(p.x, p.y, 4.5, col, 1)
			}
		}
	}
	for i, s := range c.Series {
		y := f.Plot.Max.Y + chartBottom + 6 + i*chartLegend
		cv.rect(chartLeft, y, 28, 14, colSeries[i%len(colSeries)])
		cv.textAt(chartLeft+40, y, 2, fit(s.Name, (ChartWidth-chartLeft-40)/12), colLabel)
	}
}

// drawBand paints the band of a series: column by column, between the band's edges
// interpolated between the points on either side.
func drawBand(cv *canvas, f ChartFrame, points []ChartPoint, col color.RGBA) {
	if len(points) == 0 {
		return
	}
	type edge struct{ x, top, bottom float64 }
	es := make([]edge, len(points))
	for i, p := range points {
		es[i] = edge{f.X(p.At), f.Y(p.Value + p.Band), f.Y(p.Value - p.Band)}
	}
	if len(es) == 1 {
		// A single point: a short bar of its band.
		e := es[0]
		es = []edge{{e.x - 4, e.top, e.bottom}, {e.x + 4, e.top, e.bottom}}
	}
	clip := cv.img.Rect
	for i := 0; i+1 < len(es); i++ {
		a, b := es[i], es[i+1]
		x0, x1 := int(math.Ceil(a.x-0.5)), int(math.Ceil(b.x-0.5))
		if i+1 == len(es)-1 {
			x1++ // the last column too
		}
		for x := max(x0, clip.Min.X); x < min(x1, clip.Max.X); x++ {
			t := 0.0
			if b.x > a.x {
				t = (float64(x) + 0.5 - a.x) / (b.x - a.x)
			}
			top := a.top + (b.top-a.top)*t
			bottom := a.bottom + (b.bottom-a.bottom)*t
			for y := max(int(math.Round(top)), clip.Min.Y); y < min(int(math.Round(bottom)), clip.Max.Y); y++ {
				cv.blend(x, y, col, chartBandAlpha)
			}
		}
	}
}

// fit cuts s to at most n characters, marking the cut.
func fit(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(n-2, 0)]) + ".."
}
