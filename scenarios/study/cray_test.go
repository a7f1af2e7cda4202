package study

import (
	"math"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/logp"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/scenarios"
)

// nativeParams fits one LogGP segment to SCMP's native primitives on sc's
// chip, as the Cray X1 algorithms use them: o_s is what a processor pays
// to build a short message (native_call_cycles and its send instructions),
// g the same (the processor is the bottleneck), o_r a THREAD handler's
// start (thread_create_cycles + thread_dispatch_cycles); L and G are
// measured, from a one-word store between ranks 0 and 5 (two hops on 4x4,
// near the mesh's mean) and from getBlocks of 4 and 4096 bytes.
func nativeParams(t *testing.T, sc scenarios.Scenario) logp.Params {
	t.Helper()
	sc.MPI.Procs = 6
	w, err := sc.NewJob()
	if err != nil {
		t.Fatal(err)
	}
	defer w.M.Close()
	cpu := w.M.CPU
	os := float64(cpu.NativeCallCycles + cpu.SendCycles(3))
	or := float64(cpu.ThreadCreateCycles + cpu.ThreadDispatchCycles)
	var sent, seen, get4, get4096 des.Time
	var flag datatype.Buffer // rank 5's, allocated before rank 0 stores to it
	w.Launch(func(r *mpi.Rank) {
		th := r.Thread()
		switch r.Rank() {
		case 5:
			flag = r.MustAlloc(4096)
			flag.SetInt32(0, 0)
			th.Poll(flag.Addr, 1)
			seen = th.Now()
			flag.SetInt32(1, 0)
			th.Poll(flag.Addr+1, 1) // waiting, so the getBlock handlers run at once
		case 0:
			th.Compute(1000)
			sent = th.Now()
			if err := th.SendInt(5, flag.Addr, 1); err != nil {
				t.Error(err)
			}
			th.Compute(2000)
			b, done := r.MustAlloc(4096), r.MustAlloc(4)
			for i, n := range []int{4, 4096} {
				done.SetInt32(0, 0)
				at := th.Now()
				if err := th.GetBlock(5, b.Addr, 1, flag.Addr, 1, n/4, done.Addr); err != nil {
					t.Error(err)
				}
				th.Poll(done.Addr, 1)
				if i == 0 {
					get4 = th.Now() - at
				} else {
					get4096 = th.Now() - at
				}
			}
			if err := th.SendInt(5, flag.Addr+1, 1); err != nil {
				t.Error(err)
			}
		}
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	// seen - sent = o_s + L + the poll's wake-up (taken as part of L).
	seg := logp.Segment{L: float64(seen-sent) - os, Os: os, Or: or, Gap: os, G: float64(get4096-get4) / 4092}
	return logp.Params{P: 16, AvgHops: 0, Segments: []logp.Segment{seg}}
}

// TestCrayPredictions: the LogGP forms of the Cray X1 algorithms, with
// parameters fitted to the native primitives they run on (nativeParams),
// against the chip (4x4 mesh, all ranks entering together, P = 4, 8, 16):
// the barrier, the broadcast and the scatter within 15%, the alltoall
// within 25%, except with 1 KiB blocks on 8 ranks or more, where the mesh's
// contention (not modelled) puts the form below the chip, by up to 2.5x.
func TestCrayPredictions(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	p := nativeParams(t, sc)
	if s := p.Segments[0]; !(s.L > 0 && s.G > 0 && s.G < 2) {
		t.Fatalf("implausible native parameters %+v", s)
	}
	t.Logf("native parameters: %+v", p.Segments[0])
	for _, c := range []struct {
		op, alg string
		sizes   []int
	}{
		{"barrier", "tree4_scatter", []int{0}},
		{"bcast", "pull_rma", []int{8, 1024}},
		{"scatter", "pull_rma", []int{8, 1024}},
		{"alltoall", "pull_scan", []int{8, 1024}},
	} {
		sw := &CollSweep{Op: c.op, Algs: []string{c.alg}, Procs: []int{4, 8, 16}, Sizes: c.sizes}
		rows, err := sw.Run(&sc, scenarios.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			x, err := p.Predict(c.op, c.alg, r.Procs, r.SizeBytes)
			if err != nil {
				t.Fatal(err)
			}
			e := (x.Cycles - float64(r.Cycles)) / float64(r.Cycles)
			t.Logf("%s %s P=%d %dB: chip %d, form %.0f (%+.0f%%)", c.op, c.alg, r.Procs, r.SizeBytes, r.Cycles, x.Cycles, 100*e)
			tol := 0.15 // the barrier and the pulls from one root
			if c.op == "alltoall" {
				tol = 0.25
			}
			if c.op == "alltoall" && r.SizeBytes >= 1024 && r.Procs >= 8 {
				// Every rank moving 1 KiB blocks at once contends on the
				// mesh's links, which LogGP leaves out: the form is low.
				if !r.Correct || x.Cycles > float64(r.Cycles) || x.Cycles < float64(r.Cycles)/2.5 {
					t.Errorf("%s %s P=%d %dB: chip %d cycles (correct %v), form %.0f: want below, within 2.5x", c.op, c.alg, r.Procs, r.SizeBytes, r.Cycles, r.Correct, x.Cycles)
				}
				continue
			}
			if !r.Correct || math.Abs(e) > tol {
				t.Errorf("%s %s P=%d %dB: chip %d cycles (correct %v), form %.0f (%+.0f%%)", c.op, c.alg, r.Procs, r.SizeBytes, r.Cycles, r.Correct, x.Cycles, 100*e)
			}
		}
	}
}

// The LogGOPS tier refuses the native algorithms, saying why.
func TestCrayNotOnLogGOPSTier(t *testing.T) {
	s := &TierSweep{Op: "alltoall", Algs: []string{"pull_scan"}, Procs: []int{4}, Sizes: []int{8}}
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), "native primitives") {
		t.Errorf("pull_scan on the LogGOPS tier: %v, want a refusal naming the native primitives", err)
	}
}
