package mpi

import (
	"slices"
	"testing"

	"nocsim/mpi/datatype"
)

// redTime is the cycles from the earliest start to the latest end of one
// call made right after a barrier.
func redTime(t *testing.T, P int, cfg Config, count int, call func(r *Rank, s, b datatype.Buffer, c *Comm) error) int64 {
	t.Helper()
	var start, end []int64
	redJob(t, P, cfg, func(r *Rank) {
		c := r.CommWorld()
		s, b := r.MustAlloc(8*count), r.MustAlloc(8*count)
		for k := range count {
			s.SetFloat64(k, float64(r.Rank()+k))
		}
		if err := r.Barrier(c); err != nil {
			t.Error(err)
		}
		t0 := int64(r.Now())
		if err := call(r, s, b, c); err != nil {
			t.Error(err)
		}
		t1 := int64(r.Now())
		for k := range count {
			want := float64(P*(P-1)/2 + P*k)
			if r.Rank() == P-1 {
				if got := b.Float64(k); got != want {
					t.Errorf("rank %d element %d: %v want %v", r.Rank(), k, got, want)
					break
				}
			}
		}
		start, end = append(start, t0), append(end, t1)
	})
	return slices.Max(end) - slices.Min(start)
}

// TestReduceTiming checks on the simulator the direction the sources give:
// short allreduces favour recursive doubling over reduce+bcast (half the
// rounds), long ones the ring (each rank moves 2n instead of n log P),
// and the binomial reduce beats the root receiving P-1 messages.
func TestReduceTiming(t *testing.T) {
	t.Parallel()
	allreduce := func(r *Rank, s, b datatype.Buffer, c *Comm) error {
		return r.Allreduce(s, b, b.Len()/8, datatype.Float64, datatype.OpSum, c)
	}
	reduce := func(r *Rank, s, b datatype.Buffer, c *Comm) error {
		return r.Reduce(s, b, b.Len()/8, datatype.Float64, datatype.OpSum, c.Size()-1, c)
	}
	with := func(op, alg string) Config {
		cfg := DefaultConfig()
		cfg.SetAlgorithm(op, alg)
		return cfg
	}
	cmp := func(what string, P, count int, fast, slow string, op string, call func(*Rank, datatype.Buffer, datatype.Buffer, *Comm) error, must bool) {
		tf := redTime(t, P, with(op, fast), count, call)
		ts := redTime(t, P, with(op, slow), count, call)
		t.Logf("%s, P=%d, %d bytes: %s %d cycles, %s %d cycles", what, P, 8*count, fast, tf, slow, ts)
		if tf >= ts {
			if must {
				t.Errorf("%s: %s (%d cycles) should beat %s (%d cycles)", what, fast, tf, slow, ts)
			} else {
				t.Logf("%s: %s does not beat %s here", what, fast, slow)
			}
		}
	}
	cmp("allreduce", 64, 1, "recursive_doubling", "reduce_bcast", "allreduce", allreduce, true)
	cmp("allreduce", 16, 8192, "ring", "reduce_bcast", "allreduce", allreduce, true)
	cmp("reduce", 64, 1, "binomial", "flat", "reduce", reduce, true)
}
