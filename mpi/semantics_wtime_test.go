package mpi

// Semantics tests (see semantics_test.go): Wtime and Wtick.

import (
	"fmt"
	"math"
	"testing"

	"nocsim/endpoint"
	"nocsim/mpi/datatype"
)

// ---------------------------------------------------------------------------
// 11. Wtime and Wtick.

func TestSemWtime(t *testing.T) {
	for _, hz := range []float64{1e9, 2.5e8} {
		for _, proto := range Protocols {
			t.Run(fmt.Sprintf("%s/%g", proto, hz), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), func(c *endpoint.CPUSpec) { c.ClockHz = hz })
				near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					tick := r.Wtick()
					if !near(tick, 1/hz) {
						t.Errorf("Wtick = %g, want %g", tick, 1/hz)
					}
					t0, c0 := r.Wtime(), r.Now()
					if !near(t0, float64(c0)/hz) && !(t0 == 0 && c0 == 0) {
						t.Errorf("Wtime %g at cycle %d, want %g", t0, c0, float64(c0)/hz)
					}
					r.Compute(1000)
					t1 := r.Wtime()
					if !near(t1-t0, 1000*tick) {
						t.Errorf("Wtime after Compute(1000) advanced %g, want %g", t1-t0, 1000*tick)
					}
					b := r.MustAlloc(400)
					if r.Rank() == 0 {
						r.Compute(5000)
						if err := r.Send(b, 400, datatype.Byte, 1, 0, c); err != nil {
							t.Error(err)
						}
					} else {
						if _, err := r.Recv(b, 400, datatype.Byte, 0, 0, c); err != nil {
							t.Error(err)
						}
						if t2 := r.Wtime(); !(t2 > t1+5000*tick) {
							t.Errorf("Wtime after a Recv that waited 5000 cycles: %g, not after %g", t2, t1+5000*tick)
						}
					}
				})
				semRun(t, w)
			})
		}
	}
}
