package study

import (
	"fmt"
	"math"
	"testing"

	"nocsim/logp"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/scenarios"
)

// recordProgram runs prog on procs ranks of the scenario's machine,
// recording it, and returns what the tier needs.
func recordProgram(t *testing.T, sc scenarios.Scenario, procs int, prog func(r *mpi.Rank)) *Recorded {
	t.Helper()
	sc.MPI.Procs = procs
	rc, err := RecordRun(&sc, func(r *mpi.Rank) { prog(r) })
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// The cross-fidelity check: the LogGOPS tier, with parameters
// calibrated on the same machine (as `nocsim calibrate` does) and mapped by
// logp.Params.Tier, predicts the recorded schedule of an uncontended ping-pong
// (8 B to 64 KiB, 1 and 6 hops) and of a binomial broadcast on an idle mesh
// (P = 4, 8, 16; 8 B to 16 KiB) within 5% of the flit level.
//
// Both machines are checked. With preempt_threads the protocol's threads
// run at once and the tier's rendezvous is LogGOPSim's (calibrate fits no
// handshake there): it lacks no cost the chip has there, so it is never
// slower than the chip. On the default cooperative processor a rank
// answers its children's clear-to-sends (the rendezvous's second leg,
// run on its CPU) only once it has posted all its sends: calibrate fits
// that handshake's legs (L_post, L_cts, L_data, o_cts, g_data) and the
// tier runs them (loggops Segment.Handshake, Params.Cooperative); the
// errors measured are in docs/workloads.md.
func TestCrossFidelity(t *testing.T) {
	for _, preempt := range []bool{false, true} {
		sc := scenarios.Defaults()
		sc.Network.Mesh = "4x4"
		sc.Node.PreemptThreads = preempt
		sc.MPI.SetAlgorithm("bcast", "binomial")
		cal, err := Calibrate(&sc, DefaultCalibrationSizes, 1)
		if err != nil {
			t.Fatal(err)
		}
		p := cal.Report.Params
		check := func(what string, rc *Recorded) {
			t.Helper()
			res, err := PredictTrace(&sc, rc.Trace, p)
			if err != nil {
				t.Fatal(err)
			}
			pr := rc.Compare(res)
			t.Logf("preempt=%v %s: flit %.0f, tier %.1f cycles, error %+.2f%%", preempt, what, rc.Cycles, pr.Cycles, pr.ErrPct)
			if math.Abs(pr.ErrPct) > 5 {
				t.Errorf("preempt=%v %s: tier %.1f against flit %.0f cycles: %+.2f%%, allowed within 5%%", preempt, what, pr.Cycles, rc.Cycles, pr.ErrPct)
			}
			if handshake := p.Segments[0].Handshake; handshake == preempt {
				t.Fatalf("preempt=%v: calibrate fitted the handshake: %v, want it exactly on the cooperative machine", preempt, handshake)
			}
			if preempt && pr.Cycles > rc.Cycles {
				t.Errorf("preempt=%v %s: tier %.1f above flit %.0f cycles: the model adds a cost the chip does not have", preempt, what, pr.Cycles, rc.Cycles)
			}
		}
		// Rank 0 against rank 1 (1 hop) and rank 15 (6 hops) of the 4x4 mesh.
		for _, peer := range []int{1, 15} {
			for _, m := range []int{8, 64, 100, 1024, 4096, 65536} {
				rc := recordProgram(t, sc, 16, func(r *mpi.Rank) {
					b := r.MustAlloc(m)
					c := r.CommWorld()
					switch r.Rank() {
					case 0:
						r.Send(b, m, datatype.Byte, peer, 0, c)
						r.Recv(b, m, datatype.Byte, peer, 0, c)
					case peer:
						r.Recv(b, m, datatype.Byte, 0, 0, c)
						r.Send(b, m, datatype.Byte, 0, 0, c)
					}
				})
				check(pingName(peer, m), rc)
			}
		}
		for _, P := range []int{4, 8, 16} {
			for _, m := range []int{8, 128, 1024, 16384} {
				rc := recordProgram(t, sc, P, func(r *mpi.Rank) {
					b := r.MustAlloc(m)
					r.Bcast(b, m, datatype.Byte, 0, r.CommWorld())
				})
				check(bcastName(P, m), rc)
			}
		}
	}
}

func pingName(peer, m int) string {
	return fmt.Sprintf("ping-pong %d B, %d hops", m, map[int]int{1: 1, 15: 6}[peer])
}

func bcastName(P, m int) string { return fmt.Sprintf("binomial bcast P=%d, %d B", P, m) }

// With parameters, every MPI run carries the tier's prediction of its own
// recorded schedule; recording does not change the simulated time; a
// single rank has no message, so the tier's time is exactly its recorded
// computation.
func TestAppTierColumns(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	p := logp.Params{P: 16, Protocol: "scmp", Source: logp.SourceSimulator, Mesh: "4x4",
		Segments: []logp.Segment{{L: 125, Lh: 15, Os: 44, Or: 20, Gap: 177, G: 0.25}}}
	plain := &AppSweep{App: "cg", Variant: "", Procs: []int{1, 4}, Sizes: []int{64}, Versions: []string{"mpi", "native"}, Seed: 1}
	withP := *plain
	withP.Params = &p
	a, err := plain.Run(&sc, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := withP.Run(&sc, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		ra, rb := a[i], b[i]
		if ra.Cycles != rb.Cycles {
			t.Errorf("%s P=%d: %d cycles without parameters, %d with (recording must not change the run)", ra.Version, ra.Procs, ra.Cycles, rb.Cycles)
		}
		if ra.TierColumns != nil || (rb.Version == "native") != (rb.TierColumns == nil) {
			t.Fatalf("%s P=%d: tier columns %v / %v: want them exactly on MPI runs with parameters", ra.Version, ra.Procs, ra.TierColumns, rb.TierColumns)
		}
		tc := rb.TierColumns
		if tc == nil {
			continue
		}
		if want := 100 * (tc.TierCycles - float64(rb.Cycles)) / float64(rb.Cycles); math.Abs(tc.TierErrPct-want) > 1e-9 {
			t.Errorf("P=%d: error %v, want %v", rb.Procs, tc.TierErrPct, want)
		}
		if rb.Procs == 1 && (tc.Messages != 0 || tc.TierCycles != float64(tc.CalcCycles)) {
			t.Errorf("P=1: %d messages, tier %v cycles, computation %d: want none, and the tier's time its computation", tc.Messages, tc.TierCycles, tc.CalcCycles)
		}
		if rb.Procs == 4 && (tc.Messages == 0 || tc.Rendezvous != tc.Messages) {
			t.Errorf("P=4 (scmp): %d messages, %d rendezvous: want some, every one a rendezvous", tc.Messages, tc.Rendezvous)
		}
	}
}
