package main

import (
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// --energy-plot draws two files, FILE and FILE-per-flit; --power-map one,
// in the format its extension names; --power-map-point picks the point.
func TestNocEnergyPlots(t *testing.T) {
	dir := t.TempDir()
	e, m := filepath.Join(dir, "energy.png"), filepath.Join(dir, "map.svg")
	code, _, stderr := nocsim(t, "noc", "-q", "--mesh", "4x4", "--traffic", "uniform,transpose", "--rates", "0.05,0.2",
		"--warmup-cycles", "100", "--measure-cycles", "300", "--energy-plot", e, "--power-map", m, "--power-map-point", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkPNGs(t, e, filepath.Join(dir, "energy-per-flit.png"))
	if b, err := os.ReadFile(m); err != nil || !strings.HasPrefix(string(b), "<?xml") || !strings.Contains(string(b), "<svg") {
		t.Errorf("%s: not an SVG (%v)", m, err)
	}
}

// checkPNGs fails t unless every path is a PNG image.
func checkPNGs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: not a PNG: %v", p, err)
		}
		f.Close()
	}
}

// Bad energy chart flags are refused before anything runs (nothing on
// standard output), exit 2, in one line naming the flag.
func TestNocEnergyPlotErrors(t *testing.T) {
	dir := t.TempDir()
	png, svg := filepath.Join(dir, "e.png"), filepath.Join(dir, "m.svg")
	// A named pipe takes one stream: no second file can go beside it.
	fifo := filepath.Join(dir, "pipe.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--energy-model", "none", "--energy-plot", png}, "--energy-plot: energy_model = none prices nothing to draw"},
		{[]string{"--energy-model", "none", "--power-map", svg}, "--power-map: energy_model = none prices nothing to draw"},
		{[]string{"--topology", "bus", "--energy-model", "booksim", "--tech", "32nm"}, "--topology = bus: allowed mesh with model booksim"},
		{[]string{"--topology", "bus", "--energy-model", "noxim", "--tile-mm", "0.7"}, "--tile-mm = 0.7: allowed a link length of model noxim's table, 0.5 to 3 mm in steps of 0.5 (a bus's wire"},
		{[]string{"--topology", "bus", "--power-map", svg}, "--power-map: topology bus has no router grid to draw; allowed mesh, torus or cmesh"},
		{[]string{"--topology", "ring", "--power-map", svg}, "--power-map: topology ring has no router grid to draw; allowed mesh, torus or cmesh"},
		{[]string{"--topology", "ring_uni", "--power-map", svg}, "--power-map: topology ring_uni has no router grid"},
		{[]string{"--power-map-point", "2"}, "--map-point = 2 without --power-map"},
		{[]string{"--power-map", svg, "--power-map-point", "3"}, "--map-point = 3: allowed 1 to 2"},
		{[]string{"--power-map", svg, "--power-map-point", "-1"}, "--map-point = -1: allowed 1 to 2"},
		{[]string{"--link-map", svg, "--map-point", "3"}, "--map-point = 3: allowed 1 to 2"},
		{[]string{"--samples", "x.csv"}, `--samples = "x.csv": sample_cycles = 0 samples nothing`},
		{[]string{"--sample-cycles", "1000", "--sample-plot", "-"}, "--sample-plot: plots: "},
		{[]string{"--sample-cycles", "10"}, "--sample-cycles = 10: allowed 0 (off) or at least 102"},
		{[]string{"--sample-cycles", "1000", "--sample-maps", png}, `--sample-maps = "` + png + `": sample_cycles = 1000 cuts a run of up to`},
		{[]string{"--link-map", fifo}, `--link-map = "` + fifo + `": it draws two files`},
		{[]string{"--link-map", svg, "--topology", "bus"}, "--link-map: topology bus has no routers to draw"},
		{[]string{"--power-map", filepath.Join(dir, "m.gif")}, "--power-map: plots: "},
		{[]string{"--energy-plot", filepath.Join(dir, "e.jpg")}, "--energy-plot: plots: "},
		{[]string{"--energy-plot", fifo}, `--energy-plot = "` + fifo + `": it draws two files`},
		{[]string{"--energy-plot", png, "--plot", filepath.Join(dir, "e-per-flit.png")}, `--energy-plot = "` + png + `" draws ` + filepath.Join(dir, "e-per-flit.png") + `, which --plot`},
	} {
		// Long windows: a run that started would take seconds.
		args := append([]string{"noc", "-q", "--mesh", "8x8", "--rates", "0.1,0.2", "--measure-cycles", "1000000"}, c.args...)
		code, stdout, stderr := nocsim(t, args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "nocsim: "+c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// --link-map draws its two maps end to end, priced or not (the maps
// count flits, not energy).
func TestNocLinkMapFiles(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "links.png")
	code, _, stderr := nocsim(t, "noc", "-q", "--mesh", "4x4", "--rates", "0.05,0.2", "--energy-model", "none", "--link-map", m, "--map-point", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkPNGs(t, m, filepath.Join(dir, "links-stalls.png"))
}

// --samples and --sample-plot end to end: a row per point and window,
// the windows of each point tiling its run, and the two strip charts.
func TestNocSamplesFiles(t *testing.T) {
	dir := t.TempDir()
	csvPath, png := filepath.Join(dir, "s.csv"), filepath.Join(dir, "s.png")
	code, _, stderr := nocsim(t, "noc", "-q", "--mesh", "4x4", "--rates", "0.05,0.2", "--warmup-cycles", "300", "--measure-cycles", "1000",
		"--sample-cycles", "250", "--samples", csvPath, "--sample-plot", png, "--sample-maps", filepath.Join(dir, "w.png"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkPNGs(t, png, filepath.Join(dir, "s-latency.png"), filepath.Join(dir, "w-w1.png"))
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ends := map[string]string{} // point -> the last window's end
	for i, r := range recs[1:] {
		point := r[0] + "@" + r[1]
		if prev, ok := ends[point]; ok && r[2] != prev || !ok && r[2] != "0" {
			t.Errorf("row %d: point %s window starts at %s, want %q (0 first, then the last window's end)", i+1, point, r[2], prev)
		}
		ends[point] = r[3]
	}
	if len(ends) != 2 || len(recs) < 1+2*5 {
		t.Errorf("%d points over %d rows, want 2 points of at least 5 windows (1300 cycles and more, in windows of 250)", len(ends), len(recs)-1)
	}
}

// coll --link-map and --comm-matrix draw one run's chip end to end; the
// tier, which runs no chip, and a row past the table are refused.
func TestCollMapFiles(t *testing.T) {
	dir := t.TempDir()
	lm, cm := filepath.Join(dir, "l.png"), filepath.Join(dir, "m.png")
	code, _, stderr := nocsim(t, "coll", "-q", "--mesh", "2x2", "--op", "bcast", "--algs", "binomial", "--sizes", "64,1024",
		"--link-map", lm, "--comm-matrix", cm, "--map-row", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkPNGs(t, lm, filepath.Join(dir, "l-stalls.png"), cm)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--mesh", "2x2", "--comm-matrix", cm, "--map-row", "4"}, "--map-row = 4: allowed 1 to 3"},
		{[]string{"--mesh", "2x2", "--map-row", "1"}, "--map-row = 1 without --link-map or --comm-matrix"},
		{[]string{"--tier", "loggops", "--L", "10", "--o", "5", "--g", "2", "--procs", "4", "--link-map", lm}, `--link-map = "` + lm + `": not with --tier loggops`},
		{[]string{"--mesh", "4x1", "--topology", "bus", "--link-map", lm}, "--link-map: topology bus has no routers"},
	} {
		code, stdout, stderr := nocsim(t, append([]string{"coll", "-q"}, c.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2, one line with %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
