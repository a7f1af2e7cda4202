package study

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"nocsim/calibrate"
	"nocsim/logp"
	"nocsim/scenarios"
)

// WriteFiles writes the parameters, the measurements and the chart so
// that they read back as the calibration; parameters that are not
// physical are not written at all.
func TestCalibrationWriteFiles(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "2x2"
	cal, err := Calibrate(&sc, []int{8, 64, 1024}, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, csv := filepath.Join(dir, "p.toml"), filepath.Join(dir, "m.csv")
	if err := cal.WriteFiles(out, csv, filepath.Join(dir, "plots"), "2x2 mesh"); err != nil {
		t.Fatal(err)
	}
	p, err := logp.ReadParams(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Segments, cal.Report.Params.Segments) || p.P != cal.Report.Params.P {
		t.Errorf("%s reads back as %+v, want %+v", out, p, cal.Report.Params)
	}
	f, err := os.Open(csv)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := calibrate.ReadTable(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Measurements) != len(cal.Measurements) {
		t.Errorf("%s holds %d measurements, want %d", csv, len(tab.Measurements), len(cal.Measurements))
	}
	if _, err := os.Stat(filepath.Join(dir, "plots", "oneway.png")); err != nil {
		t.Errorf("chart: %v", err)
	}

	cal.Report.Params.Segments = nil
	bad := filepath.Join(dir, "bad.toml")
	err = cal.WriteFiles(bad, "", "", "")
	if err == nil || !strings.Contains(err.Error(), "not physical") || !strings.Contains(err.Error(), bad) {
		t.Errorf("unphysical parameters: %v, want an error saying so and naming %s", err, bad)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("%s was written (%v)", bad, err)
	}
}
