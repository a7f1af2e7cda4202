package study

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"nocsim/des"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/scenarios"
	"nocsim/scenarios/apps"
)

// The scale tests simulate chips of thousands of tiles and take minutes;
// they run only when asked for.
var scaleFlag = flag.Bool("scale", false, "run the long scale tests (as does NOCSIM_SCALE=1)")

func needScale(t *testing.T) {
	t.Helper()
	if !*scaleFlag && os.Getenv("NOCSIM_SCALE") != "1" {
		t.Skip("long scale test: run it with  go test ./scenarios -run Scale -scale -v -timeout 2h  (or NOCSIM_SCALE=1)")
	}
}

// usage is what a test used: the process's CPU time, and memory: the live
// heap at the end, the heap obtained from the system (it does not shrink,
// so it bounds the run's peak heap) and the process's peak resident set.
type usage struct {
	cpu              time.Duration
	wall             time.Duration
	liveMB, heapSyMB float64
	maxRSSMB         float64
}

func (u usage) String() string {
	return fmt.Sprintf("CPU %.1f s (wall %.1f s), live heap %.0f MiB, heap from the OS %.0f MiB, peak RSS %.0f MiB",
		u.cpu.Seconds(), u.wall.Seconds(), u.liveMB, u.heapSyMB, u.maxRSSMB)
}

// measure runs f and reports what it used. The live heap is measured
// while keep, what f returns, is still reachable.
func measure(t *testing.T, f func() any) usage {
	t.Helper()
	c0, ok := des.ProcessCPUTime()
	if !ok {
		t.Log("no process CPU time on this system; CPU figures are 0")
	}
	w0 := time.Now()
	keep := f()
	var u usage
	c1, _ := des.ProcessCPUTime()
	u.cpu, u.wall = c1-c0, time.Since(w0)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(keep)
	u.liveMB, u.heapSyMB = float64(ms.HeapAlloc)/(1<<20), float64(ms.HeapSys)/(1<<20)
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		u.maxRSSMB = float64(ru.Maxrss) / 1024 // kilobytes on Linux
	}
	return u
}

// allreduceAt runs one MPI_Allreduce of count doubles over every tile of a
// mesh at flit level and checks that every rank gets the exact sum: rank
// k contributes k+1+j as element j, so element j sums to P(P+1)/2 + P*j,
// exact in a float64.
func allreduceAt(t *testing.T, meshSpec string, count int) (cycles des.Time, w *mpi.World) {
	t.Helper()
	sc := scenarios.Defaults()
	sc.Network.Mesh = meshSpec
	w, err := sc.NewJob()
	if err != nil {
		t.Fatal(err)
	}
	P := len(w.Ranks)
	bad := 0
	var end des.Time
	w.Launch(func(r *mpi.Rank) {
		send, recv := r.MustAlloc(8*count), r.MustAlloc(8*count)
		for j := range count {
			send.SetFloat64(j, float64(r.Rank()+1+j))
		}
		if err := r.Allreduce(send, recv, count, datatype.Float64, datatype.OpSum, r.CommWorld()); err != nil {
			panic(err)
		}
		for j := range count {
			if recv.Float64(j) != float64(P*(P+1)/2+P*j) {
				bad++
			}
		}
		end = max(end, r.Now())
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Fatalf("%d of %d result elements wrong over %d ranks", bad, P*count, P)
	}
	if err := w.CheckQuiet(); err != nil {
		t.Fatal(err)
	}
	w.M.Close()
	return end, w
}

// A 4096-rank MPI_Allreduce at flit level on a 64x64 mesh, of one double
// and of 32 (256 bytes): both short enough for recursive doubling, 12
// rounds. (Past coll_long_bytes the ring takes over, 2 x 4095 steps, some
// 33 M messages at 4096 ranks: hours.)
//
//	go test ./scenarios -run ScaleAllreduce -scale -v
func TestScaleAllreduce4096(t *testing.T) {
	needScale(t)
	for _, count := range []int{1, 32} {
		var cycles des.Time
		u := measure(t, func() any {
			var w *mpi.World
			cycles, w = allreduceAt(t, "64x64", count)
			return w
		})
		t.Logf("64x64, 4096 ranks, Allreduce of %d doubles: %d cycles; %v", count, cycles, u)
	}
}

// The small version of the above, in the normal suite: 256 ranks on 16x16.
func TestAllreduce256Ranks(t *testing.T) {
	var cycles des.Time
	u := measure(t, func() any {
		var w *mpi.World
		cycles, w = allreduceAt(t, "16x16", 16)
		return w
	})
	t.Logf("16x16, 256 ranks, Allreduce of 16 doubles: %d cycles; %v", cycles, u)
}

// CG (the default MPI variant: P broadcasts and three allreduces an
// iteration) on every tile of a 64x64 mesh. Its traffic grows as P^2 per
// iteration (16.8 M messages an iteration at P = 4096), so the tile count
// is set by NOCSIM_SCALE_CG_PROCS (default 256) and the run does two
// iterations; each rank holds a full copy of p and x (2 x 8 x N bytes).
//
//	NOCSIM_SCALE_CG_PROCS=4096 go test ./scenarios -run ScaleCG -scale -v -timeout 10h
func TestScaleCG(t *testing.T) {
	needScale(t)
	P := 256
	if v := os.Getenv("NOCSIM_SCALE_CG_PROCS"); v != "" {
		if _, err := fmt.Sscan(v, &P); err != nil || P < 1 || P > 4096 {
			t.Fatalf("NOCSIM_SCALE_CG_PROCS = %q: allowed 1..4096", v)
		}
	}
	sc := scenarios.Defaults()
	sc.Network.Mesh = "64x64"
	var res apps.Result
	u := measure(t, func() any {
		var err error
		res, err = apps.RunCG(&sc, apps.CGConfig{Procs: P, N: 2 * P, Tol: 0.9, MaxIter: 2, Iterations: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return nil
	})
	if !res.Correct {
		t.Fatalf("P=%d: wrong answer: %s", P, res.Detail)
	}
	t.Logf("64x64 mesh, CG P=%d N=%d, 2 iterations: %d cycles, %s; %v", P, 2*P, res.Cycles, res.Detail, u)
}
