package study

import (
	"fmt"
	"testing"

	"nocsim/calibrate"
	"nocsim/des"
	"nocsim/logp"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/thesis"
)

// chartsWithSeries are every chart nocsim draws but the sweep chart
// (package sweep's), built by its own function from rows that give n
// lines each (n algorithms, patterns, sizes, pair counts, ...; the
// ping-pong chart has one line whatever n).
func chartsWithSeries(n int) map[string]plots.Chart {
	out := map[string]plots.Chart{}
	name := func(s string, i int) string { return fmt.Sprintf("%s%d", s, i) }

	var coll []report.CollRow
	var tier []report.TierRow
	for a := range n {
		for _, p := range []int{4, 16} {
			for _, sz := range []int{8, 1024, 16384} {
				cyc := 100*(a+1) + sz*p/4
				coll = append(coll, report.CollRow{Op: "bcast", Algorithm: name("algorithm_", a), Procs: p, SizeBytes: sz, Cycles: des.Time(cyc), Predicted: float64(cyc) * 0.9})
				tier = append(tier, report.TierRow{Op: "bcast", Algorithm: name("algorithm_", a), Procs: p, SizeBytes: sz, Cycles: float64(cyc)})
			}
		}
	}
	out["coll by size"] = report.CollChart(coll, "size", testMachine, "params.json")
	out["coll by P"] = report.CollChart(coll, "procs", testMachine, "")
	out["coll tier"] = report.CollTierChart(tier[:len(tier)/2], "params.json")

	var noc []report.NocRow
	for t := range n {
		for _, r := range []float64{0.4, 0.05, 0.2} {
			noc = append(noc, report.NocRow{Traffic: name("pattern", t), OfferedRate: r, AvgPacketLatency: 20 + 100*r*float64(t+1), ZeroLoadLatency: 19, DeliveredPackets: 10, Saturated: r == 0.4 && t%2 == 0})
		}
	}
	out["noc"] = report.NocChart(noc, "4x4 mesh, 5-flit packets")

	var pairs []report.PairsRow
	for k := 1; k <= n; k++ {
		for _, sz := range []int{16, 1024, 65536} {
			for _, v := range []string{"mpi", "native"} {
				pairs = append(pairs, report.PairsRow{Topology: name("topology", k), Version: v, Placement: "across", Pairs: k, SizeBytes: sz, MeanPairMBps: float64(sz) / float64(k), AggregateMBps: float64(sz)})
			}
		}
	}
	out["pairs"] = report.PairsChart(pairs, "mpi", testMachine)
	out["pairs aggregate"] = report.PairsAggregateChart(pairs, testMachine)
	var topo []report.PairsRow
	for t := range n {
		for k := 1; k <= 4; k *= 2 {
			topo = append(topo, report.PairsRow{Topology: name("topology", t), Version: "native", Placement: "across", Pairs: k, SizeBytes: 65536, MeanPairMBps: 4000 / float64(k*(t+1))})
		}
	}
	out["pairs by topology"] = report.PairsTopologyChart(topo, "native", testMachine)

	var app []report.AppRow
	for s := range n {
		for _, p := range []int{1, 4, 16} {
			cyc := int64(1000 * (s + 1) / p)
			app = append(app, report.AppRow{App: "cg", Version: "mpi", Procs: p, Size: 64 * (s + 1), Cycles: cyc, BaselineProcs: 1, Speedup: float64(p) / 2, Efficiency: 0.5,
				Hockney: float64(cyc), MPIOverNative: 1.5, TierColumns: &report.TierColumns{TierCycles: float64(cyc) * 1.02}})
		}
	}
	out["app speedup"] = report.SpeedupChart(app, testMachine, "params.json")
	out["app efficiency"] = report.EfficiencyChart(app, testMachine)
	out["app time"] = report.TimeChart(app, 100e6, testMachine)
	out["app ratio"] = report.RatioChart(app, testMachine)
	out["app tier"] = report.AppTierChart(app, testMachine, "params.json")

	var bs []report.BreakEven
	for i := range n {
		bs = append(bs, report.BreakEven{Size: 16, SerialVersion: name("v", i), HypercubeVersion: "mpi", Ratios: []report.ProcsRatio{{Procs: 2, Ratio: 0.5}, {Procs: 4, Ratio: 0.9 + float64(i)/10}, {Procs: 8, Ratio: 1.4}}})
	}
	out["global sum break-even"] = report.BreakEvenChart(bs, testMachine)

	var cal Calibration
	cal.Report.Params = logp.Params{Protocol: "niu", Source: logp.SourceSimulator, Segments: []logp.Segment{{L: 20, Lh: 3, Os: 10, Or: 12, Gap: 15, G: 0.5}}}
	for h := 1; h <= n; h++ {
		for _, m := range []int{8, 1024, 65536} {
			cal.Measurements = append(cal.Measurements, calibrate.Measurement{Kind: calibrate.KindRTT, Bytes: m, Hops: h, Cycles: float64(200*h + 2*m)})
		}
	}
	out["calibration"] = CalibrationChart(cal, testMachine, "params.json")

	out["ping-pong"] = report.PingPongChart([]report.PingRow{{SizeBytes: 8, From: 0, To: 3, Hops: 2, OneWayCycles: 200}, {SizeBytes: 1024, From: 0, To: 3, Hops: 2, OneWayCycles: 500}}, testMachine)

	var th []report.ThesisResult
	for p := 1; p <= n; p++ {
		for _, nz := range []int{2000, 5000} {
			th = append(th, report.ThesisResult{Row: report.ThesisRow{Table: "5.1", Nonzeros: nz, Procs: p, NativeK: 100, MPIK: 150}, Native: des.Time(100000 * nz / p), MPI: des.Time(150000 * nz / p)})
		}
	}
	sc := scenarios.Defaults()
	for _, c := range report.ThesisCharts(th, thesis.MachineText(th, "m.toml", &sc)) {
		out["thesis "+c.File] = c.Chart
	}

	cmp := &report.ScheduleComparison{Mesh: "4x4", Protocol: "scmp"}
	for r := range n {
		cmp.Ranks = append(cmp.Ranks, report.RankComparison{Rank: r, Simulated: 1000, Predicted: 1047})
	}
	gc := cmp.Chart("s.goal", "params.json")
	gc.Diff = &plots.Diff{Of: gc.Series[1].Name, Base: gc.Series[0].Name, Label: "predicted - simulated (% of simulated)"}
	out["goal compare"] = gc
	return out
}

// Every chart kind drawn with 1, 8 and 20 lines, at the default size and
// at the 8 x 4 inches some commands ask for: the legend lies inside the
// image and off every data area, the data areas inside the image and
// apart, no panel holds more than 8 measured lines (plots.Layout.Check on
// the boxes the drawing used).
func TestChartLegendsInsideImageOffData(t *testing.T) {
	for _, n := range []int{1, 8, 20} {
		charts := chartsWithSeries(n)
		// fig. 5.6 needs P = 4: not with one line; the sweep chart is
		// checked in package sweep (TestSweepChartLegendInsideImageOffData).
		if len(charts) < 17 {
			t.Fatalf("%d chart kinds built, want every one", len(charts))
		}
		for kind, c := range charts {
			for _, sz := range [][2]float64{{0, 0}, {8, 4}} {
				lay, err := c.Layout(sz[0], sz[1])
				if err != nil {
					t.Errorf("%s, %d lines: %v", kind, n, err)
					continue
				}
				if err := lay.Check(); err != nil {
					t.Errorf("%s, %d lines, size %v: %v", kind, n, sz, err)
				}
			}
		}
	}
}
