package mpi

import (
	"runtime"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi/datatype"
	"nocsim/router"
)

// peakLiveHeap runs a job of units units of work on a fresh 4x4 machine
// and returns the largest live heap (runtime HeapAlloc right after a full
// GC: the bytes reachable, garbage excluded) seen at ten points of the
// run, each after a tenth of the work. step does unit i on a rank.
func peakLiveHeap(t *testing.T, proto string, units int, step func(r *Rank, i int)) uint64 {
	t.Helper()
	m, _ := mesh.New(4, 4)
	es := endpoint.DefaultSpec()
	es.MemoryWords = 1 << 20
	mc := endpoint.NewMachine(des.New(), m, router.DefaultSpec(), es, endpoint.DefaultCPUSpec())
	defer mc.Close()
	w, err := NewWorld(mc, cfgFor(proto))
	if err != nil {
		t.Fatal(err)
	}
	var peak uint64
	w.Launch(func(r *Rank) {
		for i := 0; i < units; i++ {
			step(r, i)
			if r.Rank() == 0 && (i+1)%(units/10) == 0 {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if err := w.CheckQuiet(); err != nil {
		t.Fatal(err)
	}
	return peak
}

// A run ten times longer needs no more memory (within 20%): nothing the
// simulator keeps grows with the number of messages or collective calls.
// The measure is the peak live heap after GC, so garbage not yet collected
// does not count, and both runs build the same machine.
func TestMemoryIndependentOfRunLength(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 22000 round trips")
	}
	pingPongStep := func(r *Rank, buf datatype.Buffer, i int) {
		c := r.CommWorld()
		switch r.Rank() {
		case 0:
			r.Send(buf, 8, datatype.Byte, 15, 0, c)
			r.Recv(buf, 8, datatype.Byte, 15, 0, c)
		case 15:
			r.Recv(buf, 8, datatype.Byte, 0, 0, c)
			r.Send(buf, 8, datatype.Byte, 0, 0, c)
		}
	}
	allreduceStep := func(r *Rank, buf datatype.Buffer, i int) {
		if err := r.Allreduce(InPlace, buf, 1, datatype.Float64, datatype.OpSum, r.CommWorld()); err != nil {
			panic(err)
		}
	}
	for _, c := range []struct {
		name  string
		proto string
		n     int
		step  func(r *Rank, buf datatype.Buffer, i int)
	}{
		{"ping-pong scmp", "scmp", 1000, pingPongStep},
		{"ping-pong eager", "eager", 1000, pingPongStep},
		{"ping-pong niu", "niu", 1000, pingPongStep},
		{"allreduce", "scmp", 50, allreduceStep},
	} {
		t.Run(c.name, func(t *testing.T) {
			bufs := map[*Rank]datatype.Buffer{}
			step := func(r *Rank, i int) {
				b, ok := bufs[r]
				if !ok {
					b = r.MustAlloc(8)
					bufs[r] = b
				}
				c.step(r, b, i)
			}
			short := peakLiveHeap(t, c.proto, c.n, step)
			clear(bufs)
			long := peakLiveHeap(t, c.proto, 10*c.n, step)
			t.Logf("peak live heap %d bytes for %d units, %d for %d", short, c.n, long, 10*c.n)
			if float64(long) > 1.2*float64(short) {
				t.Fatalf("peak live heap %d bytes for %d units, %d for %d: grows with the run", short, c.n, long, 10*c.n)
			}
		})
	}
}
