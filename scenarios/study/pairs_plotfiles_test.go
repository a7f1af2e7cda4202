package study

import (
	"slices"
	"testing"

	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// PlotFiles names one file per topology and version where there are
// several (the name inserted before the extension), the path itself where
// there is one, and nothing for an empty path.
func TestPairsPlotFiles(t *testing.T) {
	sc := scenarios.Defaults()
	files := func(cs []Chart) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.File)
		}
		return out
	}
	var rows []report.PairsRow
	one := &Pairs{Versions: []string{"mpi"}}
	pv, ag, cmp := one.PlotFiles(&sc, &rows, "d/p.png", "a.svg", "")
	if !slices.Equal(files(pv), []string{"d/p.png"}) || !slices.Equal(files(ag), []string{"a.svg"}) || cmp != nil {
		t.Errorf("one topology and version: %v, %v, %v", files(pv), files(ag), files(cmp))
	}
	two := &Pairs{Versions: []string{"mpi", "native"}, Topologies: []string{"mesh", "ring"}}
	pv, ag, cmp = two.PlotFiles(&sc, &rows, "p.png", "", "c.png")
	if want := []string{"p-mesh-mpi.png", "p-mesh-native.png", "p-ring-mpi.png", "p-ring-native.png"}; !slices.Equal(files(pv), want) {
		t.Errorf("plot files %v, want %v", files(pv), want)
	}
	if ag != nil || !slices.Equal(files(cmp), []string{"c-mpi.png", "c-native.png"}) {
		t.Errorf("aggregate %v (want none), compare %v (want c-mpi.png, c-native.png)", files(ag), files(cmp))
	}
}
