package apps

import (
	"testing"

	"nocsim/des"
)

// benchApp runs run b.N times and reports the simulated cycles of one run
// and simulated cycles per CPU second (the process's CPU time, which a
// shared machine does not inflate as it does wall time).
func benchApp(b *testing.B, run func() (Result, error)) {
	start, ok := des.ProcessCPUTime()
	if !ok {
		b.Skip("no process CPU time on this platform")
	}
	var cycles float64
	for b.Loop() {
		res, err := run()
		if err != nil {
			b.Fatal(err)
		}
		if !res.Correct {
			b.Fatalf("wrong answer: %s", res.Detail)
		}
		cycles += float64(res.Cycles)
	}
	end, _ := des.ProcessCPUTime()
	sec := max((end - start).Seconds(), 1e-9)
	b.ReportMetric(cycles/float64(b.N), "simcycles/op")
	b.ReportMetric(cycles/sec, "simcycles/cpu-s")
	b.ReportMetric(float64(b.N)/sec, "runs/cpu-s")
}

// BenchmarkCG64 is the MPI conjugate gradient (three Allreduces an
// iteration) on 64 ranks of an 8x8 mesh, 256 unknowns, 5 iterations.
func BenchmarkCG64(b *testing.B) {
	sc := newChip("8x8")
	benchApp(b, func() (Result, error) {
		return RunCG(sc, CGConfig{Procs: 64, N: 256, Tol: 0.9, MaxIter: 100, Iterations: 5, Seed: 1})
	})
}

// BenchmarkQR64 is the MPI QR decomposition (1D column-cyclic, a Bcast a
// column) on 64 ranks of an 8x8 mesh, order 64.
func BenchmarkQR64(b *testing.B) {
	sc := newChip("8x8")
	benchApp(b, func() (Result, error) {
		return RunQR(sc, QRConfig{Procs: 64, N: 64, Seed: 1})
	})
}
