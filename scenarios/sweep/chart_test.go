package sweep

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"nocsim/plots/plotstest"
	"nocsim/scenarios"
)

// The sweep chart's title names only the machine parts no axis varies; a
// rank-count axis is logarithmic, labelled with its unit.
func TestSweepChartMachineAndAxes(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh, sc.MPI.Protocol, sc.MPI.Library = "3x5", "niu", "thesis"
	sc.Workload.Kind = "coll"
	var pts []Point
	for i, p := range []string{"2", "4", "8"} {
		for _, proto := range []string{"scmp", "eager"} {
			pts = append(pts, Point{Index: len(pts), Settings: map[string]string{"workload.procs": p, "mpi.protocol": proto}, Status: "ok",
				Metric: "cycles", Values: []float64{float64(100 * (i + 1))}, RowStatus: []string{"ok"}})
		}
	}
	c, ok := Chart(pts, "s", &sc)
	if !ok {
		t.Fatal("no chart")
	}
	plotstest.CheckChart(t, c, plotstest.ChartWant{Title: []string{"sweep s", "3x5 mesh", "thesis library"}, NotTitle: []string{"niu"}, LogX: true, Ticks: []float64{2, 4, 8}})
	if c.XLabel != "workload.procs (ranks, log scale)" {
		t.Errorf("x label %q", c.XLabel)
	}
	if names := []string{c.Series[0].Name, c.Series[len(c.Series)-1].Name}; len(c.Series) != 2 || !slices.Contains(names, "mpi.protocol=eager") || !slices.Contains(names, "mpi.protocol=scmp") {
		t.Errorf("series %+v: want one per protocol", c.Series)
	}
	// Without the scenario the chart is still drawn, the title without a machine.
	if c, _ := Chart(pts, "s", nil); strings.Contains(c.Title, "mesh") {
		t.Errorf("title %q names a machine it was not given", c.Title)
	}
	// A swept preset varies the whole network.
	if m := sc.FixedMachineText([]string{"network.preset"}); strings.Contains(m, "mesh") || !strings.Contains(m, "niu protocol") {
		t.Errorf("preset swept: %q", m)
	}
	noc := scenarios.Defaults()
	if m := noc.FixedMachineText(nil); m != fmt.Sprintf("%s mesh, %d-flit packets, %d VCs x %d flits", noc.Network.Mesh, noc.Noc.PacketFlits, noc.Network.VCs, noc.Network.VCBuf) {
		t.Errorf("noc machine %q", m)
	}
}

// The sweep chart drawn with 1, 8 and 20 lines, at the default size and
// at 8 x 4 inches: the legend lies inside the image and off every data
// area (plots.Layout.Check, as for every other chart kind).
func TestSweepChartLegendInsideImageOffData(t *testing.T) {
	name := func(s string, i int) string { return fmt.Sprintf("%s%d", s, i) }
	for _, n := range []int{1, 8, 20} {
		var pts []Point
		for i := range n {
			for _, v := range []string{"1", "2", "4"} {
				for rep := range 2 {
					pts = append(pts, Point{Index: len(pts), Rep: rep, Settings: map[string]string{"network.vcs": v, "noc.traffic": name("t", i)}, Status: "ok",
						Metric: "avg_packet_latency_cycles", Values: []float64{20 + float64(i+rep)}, RowStatus: []string{"ok"}})
				}
			}
		}
		sc := scenarios.Defaults()
		c, ok := Chart(pts, "s", &sc)
		if !ok {
			t.Fatalf("%d lines: no chart", n)
		}
		for _, sz := range [][2]float64{{0, 0}, {8, 4}} {
			lay, err := c.Layout(sz[0], sz[1])
			if err != nil {
				t.Errorf("%d lines: %v", n, err)
				continue
			}
			if err := lay.Check(); err != nil {
				t.Errorf("%d lines, size %v: %v", n, sz, err)
			}
		}
	}
}
