package plots

import (
	"image/color"
	"path/filepath"
	"testing"
)

// A model line that coincides with its measurement must stay in sight: it
// is drawn under the measured line, wide and in a paler shade of the same
// colour, so pixels of both colours show. Drawn the old way (on top, same
// colour, thin) the model's pixels would all be the measurement's colour.
func TestCompanionVisibleUnderItsMeasurement(t *testing.T) {
	x := []float64{1, 2, 4, 8, 16}
	c := Chart{Title: "t", XLabel: "x (bytes)", YLabel: "y (cycles)", Series: []Series{
		{Name: "measured", X: x, Y: x},
		{Name: "model", X: x, Y: x, Dashed: true, Companion: true},
	}}
	path := filepath.Join(t.TempDir(), "c.png")
	if err := c.Save(path, 0, 0); err != nil {
		t.Fatal(err)
	}
	img := readPNG(t, path)
	full, model := palette[0], color.RGBAModel.Convert(pale(palette[0])).(color.RGBA)
	near := func(a, b color.RGBA) bool {
		d := func(p, q uint8) int { return max(int(p)-int(q), int(q)-int(p)) }
		return d(a.R, b.R) < 12 && d(a.G, b.G) < 12 && d(a.B, b.B) < 12
	}
	var nFull, nModel int
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			p := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			switch {
			case near(p, full):
				nFull++
			case near(p, model):
				nModel++
			}
		}
	}
	// The legend alone draws a few dozen pixels of each; the lines hundreds.
	if nFull < 200 || nModel < 200 {
		t.Errorf("pixels in the measurement's colour %d, in the model's shade %d: both lines must show", nFull, nModel)
	}
}
