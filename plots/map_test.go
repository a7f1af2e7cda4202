package plots

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sampleMap is a 4x3 grid with an arrow each way between neighbours in a
// row.
func sampleMap() Map {
	m := Map{Title: "sample map", XLabel: "x (column)", YLabel: "y (row, 0 at the top)", Cols: 4, Rows: 3,
		CellLabel: "cell power (mW)", SegmentLabel: "segment power (mW)"}
	for r := range 3 {
		for c := range 4 {
			m.Cells = append(m.Cells, MapCell{Col: c, Row: r, Value: float64(r*4+c) * 1.7})
			if c < 3 {
				y := float64(r)
				m.Segments = append(m.Segments, MapSegment{X0: float64(c) + 0.3, Y0: y - 0.1, X1: float64(c) + 0.7, Y1: y - 0.1, Value: float64(c)},
					MapSegment{X0: float64(c) + 0.7, Y0: y + 0.1, X1: float64(c) + 0.3, Y1: y + 0.1, Value: float64(c) / 2})
			}
		}
	}
	return m
}

func TestMapSaveDeterministicAndLaidOut(t *testing.T) {
	dir := t.TempDir()
	if p := os.Getenv("NOCSIM_MAP_SAMPLE"); p != "" {
		dir = p
	}
	var saved [][]byte
	for _, name := range []string{"a.png", "b.png"} {
		path := filepath.Join(dir, name)
		if err := sampleMap().Save(path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, b)
	}
	if !bytes.Equal(saved[0], saved[1]) {
		t.Error("two saves of the same map differ")
	}
	lay, err := sampleMap().Layout()
	if err != nil {
		t.Fatal(err)
	}
	if err := lay.Check(); err != nil {
		t.Error(err)
	}
	if len(lay.Bars) != 2 {
		t.Errorf("%d colour bars, want 2 (cells and segments)", len(lay.Bars))
	}
	// The grid's cells are square: the data area's sides are in the
	// grid's proportion.
	s := lay.Data.Size()
	if r := float64(s.X/s.Y) / ((4 + 2*edgePad) / (3 + 2*edgePad)); math.Abs(r-1) > 0.01 {
		t.Errorf("data area %v x %v: not 4:3", s.X, s.Y)
	}
	if err := sampleMap().CheckLabels(); err != nil {
		t.Error(err)
	}
}

func TestMapValidate(t *testing.T) {
	for _, c := range []struct {
		mod  func(*Map)
		want string
	}{
		{func(m *Map) { m.Cols = 0 }, "map of 0x3 cells"},
		{func(m *Map) { m.Cells = nil }, "no cells"},
		{func(m *Map) { m.Cells[0].Col = 4 }, "off the 4x3 grid"},
		{func(m *Map) { m.Cells[1].Col = 0 }, "a second cell there"},
		{func(m *Map) { m.Cells[2].Value = math.NaN() }, "value NaN is not a finite non-negative number"},
		{func(m *Map) { m.Cells[2].Value = -1 }, "value -1 is not"},
		{func(m *Map) { m.Segments[0].X1 = 9 }, "off the 4x3 grid"},
		{func(m *Map) { m.Segments[0].X1, m.Segments[0].Y1 = m.Segments[0].X0, m.Segments[0].Y0 }, "has no length"},
		{func(m *Map) { m.Segments[3].Value = math.Inf(1) }, "segment 3: value +Inf"},
	} {
		m := sampleMap()
		c.mod(&m)
		err := m.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate() = %v, want an error containing %q", err, c.want)
		}
		if err := m.Save(filepath.Join(t.TempDir(), "m.png")); err == nil {
			t.Errorf("Save of an invalid map (%s) succeeded", c.want)
		}
	}
	m := sampleMap()
	m.CellLabel = "power"
	if err := m.CheckLabels(); err == nil || !strings.Contains(err.Error(), "cells' colour bar") {
		t.Errorf("CheckLabels() = %v, want the cells' bar named", err)
	}
	if err := sampleMap().Save(filepath.Join(t.TempDir(), "m.gif")); err == nil || !strings.Contains(err.Error(), "allowed: .png, .svg, .pdf") {
		t.Errorf("Save(.gif) = %v", err)
	}
}

// A map of zeros (a point that carried nothing) still draws: its scales
// run from 0 to 1.
func TestMapAllZero(t *testing.T) {
	m := sampleMap()
	for i := range m.Cells {
		m.Cells[i].Value = 0
	}
	for i := range m.Segments {
		m.Segments[i].Value = 0
	}
	for _, ext := range []string{".png", ".svg", ".pdf"} {
		if err := m.Save(filepath.Join(t.TempDir(), "m"+ext)); err != nil {
			t.Errorf("%s: %v", ext, err)
		}
	}
}
