package plots

import (
	"image"
	"image/png"
	"os"
	"testing"
)

// readPNG decodes a chart a test saved, failing the test if it cannot.
func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	return img
}
