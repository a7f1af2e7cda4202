package plots

import (
	"path/filepath"
	"testing"
)

// firstWideRow is the first row from the top in which more than half the
// pixels are not white: the top grid line of the plot area.
func firstWideRow(t *testing.T, path string) int {
	t.Helper()
	img := readPNG(t, path)
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		dark := 0
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl < 3*0xf000 {
				dark++
			}
		}
		if 2*dark > b.Dx() {
			return y
		}
	}
	t.Fatalf("%s: no row is mostly drawn", path)
	return 0
}

// A y-axis label on a log axis must not push the plot area down: the top
// grid line sits where it does without the label (gonum/plot pads the
// axis for the label as if it were at the arithmetic middle of the range,
// near the top of a log axis; Chart draws the label itself).
func TestLogYLabelKeepsPlotHeight(t *testing.T) {
	dir := t.TempDir()
	s := []Series{{Name: "a", X: []float64{8, 64, 512}, Y: []float64{30, 60, 90}}, {Name: "b", X: []float64{8, 64, 512}, Y: []float64{34, 250, 2000}}}
	plain := Chart{Title: "t", LogX: true, LogY: true, Series: s}
	labelled := plain
	labelled.YLabel = "completion time (cycles, last rank)"
	p1, p2 := filepath.Join(dir, "plain.png"), filepath.Join(dir, "labelled.png")
	if err := plain.Save(p1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := labelled.Save(p2, 0, 0); err != nil {
		t.Fatal(err)
	}
	a, b := firstWideRow(t, p1), firstWideRow(t, p2)
	if d := b - a; d < -2 || d > 2 {
		t.Errorf("top grid line at row %d with the label, %d without: the label moved the plot", b, a)
	}
}
