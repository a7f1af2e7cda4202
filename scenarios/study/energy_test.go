package study

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"nocsim/scenarios"
)

// The energy model fitted from the chip's own ping-pongs predicts what the
// chip spends: an uncontended ping-pong message's energy (the fitted
// per-message terms and the static power over LogGP's one-way time)
// within 5% at every size and both distances of a 4x4 mesh, and a 16-rank
// binomial broadcast's (every message of its schedule, static power over
// LogGP's time) within 5% from 1 KiB up. At 8 bytes the broadcast is
// processor-bound and each rank's call of the collective, which is no
// message, is outside the model: there it is 10-15% low (docs/energy.md).
// And choosing by the model's energy picks an algorithm the simulation
// finds cheaper than the fastest, where they differ.
func TestFittedEnergyPredicts(t *testing.T) {
	if testing.Short() {
		t.Skip("a calibration and runs on a 4x4 chip")
	}
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	cal, err := Calibrate(&sc, []int{8, 64, 128, 512, 1024, 4096}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := cal.Report.Params
	e := p.Energy
	if e == nil || e.MaxResidual > 0.05 {
		t.Fatalf("energy fit %+v", e)
	}
	for _, to := range []int{1, 15} {
		pp := PingPong{From: 0, To: to, Sizes: []int{8, 100, 2048, 32768}, Reps: 2}
		rows, w, err := pp.Run(&sc)
		if err != nil {
			t.Fatal(err)
		}
		w.M.Close()
		for _, r := range rows {
			h := float64(r.Hops)
			pred := e.MessageEnergy(r.SizeBytes, h) + e.StaticEnergy(p.OneWay(r.SizeBytes, h).Cycles, sc.Node.ClockHz)
			if d := (pred - r.EnergyPerMessagePJ) / r.EnergyPerMessagePJ; math.Abs(d) > 0.05 {
				t.Errorf("ping-pong %d B over %d hops: predicted %.0f pJ a message, simulated %.0f (%+.1f%%)", r.SizeBytes, r.Hops, pred, r.EnergyPerMessagePJ, 100*d)
			}
		}
	}
	sw := &CollSweep{Op: "bcast", Algs: []string{"binomial"}, Procs: []int{16}, Sizes: []int{8, 1024, 16384}}
	rows, err := sw.Run(&sc, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := PredictRows(p, rows); err != nil {
		t.Fatal(err)
	}
	if err := PredictEnergyRows(&sc, p, rows); err != nil {
		t.Fatal(err)
	}
	// Choosing by energy: at 64 KiB on 16 ranks the model's fastest
	// broadcast and its least-energy one differ, and the simulation
	// agrees with both choices (the first faster, the second cheaper).
	fast, _, err := ChooseAlgorithmFor(p, "bcast", 16, 65536, "time")
	if err != nil {
		t.Fatal(err)
	}
	frugal, _, err := ChooseAlgorithmFor(p, "bcast", 16, 65536, "energy")
	if err != nil {
		t.Fatal(err)
	}
	both := &CollSweep{Op: "bcast", Algs: []string{fast, frugal}, Procs: []int{16}, Sizes: []int{65536}}
	got, err := both.Run(&sc, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fast == frugal || got[0].Cycles >= got[1].Cycles || got[0].Energy.TotalPJ <= got[1].Energy.TotalPJ {
		t.Errorf("by time %s (%d cycles, %.0f pJ), by energy %s (%d cycles, %.0f pJ): want the first faster and the second cheaper",
			fast, got[0].Cycles, got[0].Energy.TotalPJ, frugal, got[1].Cycles, got[1].Energy.TotalPJ)
	}
	for _, r := range rows {
		lo, hi := -0.05, 0.05
		if r.SizeBytes < 1024 {
			lo, hi = -0.15, -0.05
		}
		if d := r.EnergyRelError; d < lo || d > hi || r.PredictedEnergyPJ <= 0 {
			t.Errorf("binomial bcast of %d B on 16 ranks: predicted %.0f pJ, simulated %.0f (%+.1f%%), want %+.0f%%..%+.0f%%", r.SizeBytes, r.PredictedEnergyPJ, r.Energy.TotalPJ, 100*d, 100*lo, 100*hi)
		}
	}
}

// calibrate prints each measured size and distance's energy beside its
// time: the ping-pong's dynamic energy per one-way message, which a
// ping-pong run on its own gives alike, and the fit's per-message energy,
// whose worst error is the fit's own.
func TestCalibrateReportsEnergyPerSize(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "2x2"
	sizes := []int{8, 64, 512, 4096}
	cal, err := Calibrate(&sc, sizes, 1)
	if err != nil {
		t.Fatal(err)
	}
	e := cal.Report.Params.Energy
	if e == nil {
		t.Fatal("no energy fit")
	}
	measured := map[[2]int]float64{}
	for _, to := range []int{1, 3} {
		rows, w, err := (&PingPong{From: 0, To: to, Sizes: sizes, Reps: 1}).Run(&sc)
		if err != nil {
			t.Fatal(err)
		}
		w.M.Close()
		for _, r := range rows {
			measured[[2]int{r.SizeBytes, r.Hops}] = r.Energy.DynamicPJ / 2
		}
	}
	n, worst := 0, 0.0
	for _, s := range cal.Report.Segments {
		for _, r := range s.Residuals {
			n++
			want, ok := measured[[2]int{r.Bytes, r.Hops}]
			if !ok || r.MeasuredEnergyPJ != want {
				t.Errorf("%d B over %d hops: measured %v pJ a message, the ping-pong's %v", r.Bytes, r.Hops, r.MeasuredEnergyPJ, want)
			}
			if p := e.MessageEnergy(r.Bytes, float64(r.Hops)); r.PredictedEnergyPJ != p || r.EnergyRelErr != (p-want)/want {
				t.Errorf("%d B over %d hops: model %v (error %v), want %v", r.Bytes, r.Hops, r.PredictedEnergyPJ, r.EnergyRelErr, p)
			}
			worst = math.Max(worst, math.Abs(r.EnergyRelErr))
		}
	}
	if n != 2*len(sizes) || math.Abs(worst-e.MaxResidual) > 1e-12 {
		t.Errorf("%d residuals, worst energy error %v; the fit's %v", n, worst, e.MaxResidual)
	}
	var b strings.Builder
	if err := cal.Report.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(b.String(), "energy per message")
	for _, s := range cal.Report.Segments {
		for _, r := range s.Residuals {
			if row := fmt.Sprintf("%d  %4d  %14.1f  %14.1f", r.Bytes, r.Hops, r.MeasuredEnergyPJ, r.PredictedEnergyPJ); !strings.Contains(table, row) {
				t.Errorf("the text has no row %q:\n%s", row, b.String())
			}
		}
	}
}
