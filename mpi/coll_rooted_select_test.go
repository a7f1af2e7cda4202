package mpi

import (
	sched "nocsim/coll"
	"slices"
	"testing"

	"nocsim/des"
	"nocsim/mpi/datatype"
)

// Which rooted algorithm runs and what it costs: what "auto" picks, and how
// the algorithms' times grow with P.

// TestRootedAutoSelection checks what "auto" picks, from the messages one
// call sends or receives at the root (P = 8, root 0).
func TestRootedAutoSelection(t *testing.T) {
	const P = 8
	type probe struct {
		name  string
		call  func(r *Rank, c *Comm, n int) error
		n     int
		sends bool // count the root's sends, else its receives
		want  int
	}
	bc := func(r *Rank, c *Comm, n int) error {
		b := rtBuf(r, n)
		defer r.Free(b)
		return r.Bcast(b, n, datatype.Byte, 0, c)
	}
	sc := func(r *Rank, c *Comm, n int) error {
		s, b := rtBuf(r, P*n), rtBuf(r, n)
		defer r.Free(s)
		defer r.Free(b)
		return r.Scatter(s, n, datatype.Byte, b, n, datatype.Byte, 0, c)
	}
	scv := func(r *Rank, c *Comm, n int) error {
		s, b := rtBuf(r, P*n), rtBuf(r, n)
		defer r.Free(s)
		defer r.Free(b)
		counts, displs := make([]int, P), make([]int, P)
		for i := range P {
			counts[i], displs[i] = n, i*n
		}
		return r.Scatterv(s, counts, displs, datatype.Byte, b, n, datatype.Byte, 0, c)
	}
	ga := func(r *Rank, c *Comm, n int) error {
		s, b := rtBuf(r, n), rtBuf(r, P*n)
		defer r.Free(s)
		defer r.Free(b)
		return r.Gather(s, n, datatype.Byte, b, n, datatype.Byte, 0, c)
	}
	gav := func(r *Rank, c *Comm, n int) error {
		s, b := rtBuf(r, n), rtBuf(r, P*n)
		defer r.Free(s)
		defer r.Free(b)
		counts, displs := make([]int, P), make([]int, P)
		for i := range P {
			counts[i], displs[i] = n, i*n
		}
		return r.Gatherv(s, n, datatype.Byte, b, counts, displs, datatype.Byte, 0, c)
	}
	ba := func(r *Rank, c *Comm, n int) error { return r.Barrier(c) }
	probes := []probe{
		{"barrier: tree4", ba, 0, true, 4},
		{"short bcast: binomial", bc, 8, true, 3},
		{"long bcast: scatter_allgather", bc, 5000, true, 3 + (P - 1)},
		{"short scatter: binomial", sc, 8, true, 3},
		{"long scatter: flat", sc, 4100, true, P - 1},
		{"scatterv: binomial, with headers to the 2 inner children", scv, 4100, true, 3 + 2},
		{"short gather: binomial", ga, 8, false, 3},
		{"long gather: flat", ga, 4100, false, P - 1},
		{"gatherv: binomial", gav, 4100, false, 3},
	}
	for _, p := range probes {
		got := 0
		rtRun(t, P, DefaultConfig(), func(r *Rank, c *Comm) {
			s, m := r.sent, r.received
			if err := p.call(r, c, p.n); err != nil {
				t.Errorf("%s: %v", p.name, err)
			}
			if r.Rank() == 0 {
				got = r.received - m
				if p.sends {
					got = r.sent - s
				}
			}
		})
		if got != p.want {
			t.Errorf("%s: %d messages at the root, want %d", p.name, got, p.want)
		}
	}
}

// rtTime measures one call of op (P ranks on an 8x8 mesh): all ranks
// first pass a barrier, then start together at a common cycle; the time
// is the last rank's completion. The minimum over a few repetitions.
func rtTime(t *testing.T, op, alg string, P int, call func(r *Rank, c *Comm) error) des.Time {
	t.Helper()
	const reps, gap = 3, 200_000
	ends := make([]des.Time, reps)
	cfg := rtCfg(op, alg)
	cfg.Procs = P
	w := job(t, 8, 8, cfg, nil)
	w.Launch(func(r *Rank) {
		c := r.CommWorld()
		for i := range reps {
			if err := r.Barrier(c); err != nil {
				t.Error(err)
			}
			start := des.Time((i + 1) * gap)
			if r.Now() > start {
				t.Errorf("rank %d at cycle %d after the barrier, past the common start %d", r.Rank(), r.Now(), start)
			}
			r.Compute(int64(start - r.Now()))
			if err := call(r, c); err != nil {
				t.Error(err)
			}
			ends[i] = max(ends[i], r.Now()-start)
		}
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	return slices.Min(ends)
}

// TestRootedTiming: at small sizes the flat broadcast's time grows about
// linearly in P and the binomial one's with log P; the tree and
// dissemination barriers beat the central one at 64 ranks.
func TestRootedTiming(t *testing.T) {
	bcast := func(r *Rank, c *Comm) error {
		b := r.MustAlloc(8)
		defer r.Free(b)
		return r.Bcast(b, 1, datatype.Float64, 0, c)
	}
	times := map[string]map[int]des.Time{"flat": {}, "binomial": {}}
	for alg := range times {
		for _, P := range []int{2, 4, 8, 16, 64} {
			times[alg][P] = rtTime(t, "bcast", alg, P, bcast)
		}
		t.Logf("8-byte bcast %s: %v cycles by P", alg, times[alg])
	}
	flat, bin := times["flat"], times["binomial"]
	if ratio := float64(flat[64]) / float64(flat[8]); ratio <= 3 {
		t.Errorf("flat bcast: P=64 / P=8 time ratio %.2f, want > 3 (linear in P)", ratio)
	}
	if ratio := float64(bin[64]) / float64(bin[8]); ratio >= 3 {
		t.Errorf("binomial bcast: P=64 / P=8 time ratio %.2f, want < 3 (log P)", ratio)
	}
	if bin[64] >= flat[64] {
		t.Errorf("P=64: binomial bcast %d cycles, flat %d: want binomial faster", bin[64], flat[64])
	}
	barrier := func(r *Rank, c *Comm) error { return r.Barrier(c) }
	bt := map[string]des.Time{}
	for _, alg := range sched.Names("barrier") {
		bt[alg] = rtTime(t, "barrier", alg, 64, barrier)
	}
	t.Logf("P=64 barrier: %v cycles", bt)
	for _, alg := range []string{"tree4", "dissemination"} {
		if bt[alg] >= bt["central"] {
			t.Errorf("P=64: %s barrier %d cycles, central %d: want %s faster", alg, bt[alg], bt["central"], alg)
		}
	}
}
