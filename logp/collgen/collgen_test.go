package collgen

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"nocsim/logp/goal"
	"nocsim/logp/loggops"
)

// LogGOPSim's reference values (L = 6, o = 2, g = 4, 1-byte messages) for
// the algorithms whose patterns are the ones its generator writes.
func TestLogGOPSimReferenceValues(t *testing.T) {
	p := loggops.New(6, 2, 4, 0, 0)
	for _, c := range []struct {
		op, alg string
		P       int
		want    float64
	}{
		{"bcast", "binomial", 8, 30},
		{"barrier", "dissemination", 8, 30},
		{"bcast", "flat", 8, 34},
		{"gather", "flat", 8, 34},
	} {
		s, err := Generate(c.op, c.alg, c.P, 1, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		res, err := loggops.Simulate(s, p, loggops.Options{})
		if err != nil {
			t.Fatalf("%s %s: %v", c.op, c.alg, err)
		}
		if res.Max != c.want {
			t.Errorf("%s %s P=%d: %v, LogGOPSim gives %v", c.op, c.alg, c.P, res.Max, c.want)
		}
	}
}

// Every algorithm at every P from 1 to 33 and at 100 and 127:
// each message sent is received by its destination with the same size
// (per ordered pair of ranks, the same sizes in the same order), the
// schedule runs to completion on the LogGOPS tier, and no rank finishes
// before a message it received could have arrived.
func TestEveryAlgorithmMatchesAndFinishes(t *testing.T) {
	var procs []int
	for P := 1; P <= 33; P++ {
		procs = append(procs, P)
	}
	procs = append(procs, 100, 127)
	p := loggops.New(6, 2, 4, 0.5, 0.25)
	for _, op := range Ops {
		for _, alg := range Algorithms(op) {
			for _, P := range procs {
				for _, n := range []int64{0, 8, 1000} {
					opt := DefaultOptions()
					opt.Root = P / 2
					opt.CopyCyclesPerWord = 1
					s, err := Generate(op, alg, P, n, opt)
					if err != nil {
						t.Fatalf("%s %s P=%d: %v", op, alg, P, err)
					}
					name := fmt.Sprintf("%s %s P=%d %dB", op, alg, P, n)
					checkMatched(t, name, s)
					if _, err := loggops.Simulate(s, p, loggops.Options{}); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				}
			}
		}
	}
}

func checkMatched(t *testing.T, name string, s *goal.Schedule) {
	t.Helper()
	type pair struct{ a, b int32 }
	sent, got := map[pair][]uint64{}, map[pair][]uint64{}
	for r := range s.NumRanks() {
		for _, op := range s.Ops(r) {
			switch op.Kind {
			case goal.Send:
				k := pair{int32(r), op.Peer}
				sent[k] = append(sent[k], op.Bytes)
			case goal.Recv:
				k := pair{op.Peer, int32(r)}
				got[k] = append(got[k], op.Bytes)
			}
		}
	}
	for k, v := range sent {
		if fmt.Sprint(v) != fmt.Sprint(got[k]) {
			t.Fatalf("%s: rank %d sends rank %d %v, which receives %v", name, k.a, k.b, v, got[k])
		}
	}
	for k, v := range got {
		if _, ok := sent[k]; !ok {
			t.Fatalf("%s: rank %d receives %v from rank %d, which sends nothing", name, k.b, v, k.a)
		}
	}
}

// Message counts are those the registry documents (mpi Algorithm.Messages)
// for the algorithms whose count is a closed form at any P.
func TestMessageCounts(t *testing.T) {
	lg := func(P int) int { return int(math.Ceil(math.Log2(float64(P)))) }
	for _, c := range []struct {
		op, alg string
		want    func(P int) int
	}{
		{"barrier", "central", func(P int) int { return 2 * (P - 1) }},
		{"barrier", "tree4", func(P int) int { return 2 * (P - 1) }},
		{"barrier", "dissemination", func(P int) int { return P * lg(P) }},
		{"bcast", "flat", func(P int) int { return P - 1 }},
		{"bcast", "binomial", func(P int) int { return P - 1 }},
		{"bcast", "pull", func(P int) int { return 2 * (P - 1) }},
		{"gather", "push", func(P int) int { return 2 * (P - 1) }},
		{"allgather", "ring", func(P int) int { return P * (P - 1) }},
		{"allgather", "gather_bcast", func(P int) int { return 2 * (P - 1) }},
		{"alltoall", "bruck", func(P int) int { return P * lg(P) }},
		{"allreduce", "ring", func(P int) int { return 2 * P * (P - 1) }},
		{"scan", "chain", func(P int) int { return P - 1 }},
	} {
		for P := 1; P <= 33; P++ {
			s, err := Generate(c.op, c.alg, P, 64, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			sends := 0
			for r := range s.NumRanks() {
				for _, op := range s.Ops(r) {
					if op.Kind == goal.Send {
						sends++
					}
				}
			}
			if sends != c.want(P) {
				t.Errorf("%s %s P=%d: %d messages, the registry says %d", c.op, c.alg, P, sends, c.want(P))
			}
		}
	}
}

// Reductions charge count*FlopCycles per combine: the allreduce by
// recursive doubling at P = 2^k combines k full vectors on every rank.
func TestReductionCalcs(t *testing.T) {
	opt := DefaultOptions()
	opt.FlopCycles = 3
	s, err := Generate("allreduce", "recursive_doubling", 16, 800, opt)
	if err != nil {
		t.Fatal(err)
	}
	for r := range s.NumRanks() {
		var c uint64
		for _, op := range s.Ops(r) {
			c += op.Time
		}
		if want := uint64(4 * 100 * 3); c != want {
			t.Errorf("rank %d: %d cycles of calc, want %d", r, c, want)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, c := range []struct {
		op, alg string
		P       int
		n       int64
		opt     Options
	}{
		{"bogus", "x", 4, 8, DefaultOptions()},
		{"bcast", "ring", 4, 8, DefaultOptions()},
		{"bcast", "flat", 0, 8, DefaultOptions()},
		{"bcast", "flat", 4, -1, DefaultOptions()},
		{"allreduce", "ring", 4, 12, DefaultOptions()},
		{"bcast", "flat", 4, 8, Options{Root: 4}},
		{"alltoall", "pairwise", 1 << 20, 8, DefaultOptions()},
	} {
		if _, err := Generate(c.op, c.alg, c.P, c.n, c.opt); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// BenchmarkGenerate2to20 generates and simulates 2^20-rank collectives on
// the LogGOPS tier (recursive doubling at 2^18, to keep the run short)
// and reports the schedule's operations, the heap still held at the end
// (schedule and result) and all bytes allocated on the way.
//
//	go test ./logp/collgen -run XXX -bench 2to20 -benchtime 1x
func BenchmarkGenerate2to20(b *testing.B) {
	const P = 1 << 20
	p := loggops.New(6, 2, 4, 0.1, 0)
	for _, c := range []struct {
		op, alg string
		P       int
	}{{"bcast", "binomial", P}, {"allreduce", "reduce_bcast", P}, {"allreduce", "recursive_doubling", P / 4}} {
		b.Run(fmt.Sprintf("%s_%s_P%d", c.op, c.alg, c.P), func(b *testing.B) {
			var ops int
			var live, total uint64
			var res *loggops.Result
			for b.Loop() {
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				s, err := Generate(c.op, c.alg, c.P, 8, DefaultOptions())
				if err != nil {
					b.Fatal(err)
				}
				if res, err = loggops.Simulate(s, p, loggops.Options{}); err != nil {
					b.Fatal(err)
				}
				var after runtime.MemStats
				runtime.ReadMemStats(&after)
				ops = s.NumOps()
				live = max(live, after.HeapAlloc-before.HeapAlloc)
				total = max(total, after.TotalAlloc-before.TotalAlloc)
				runtime.KeepAlive(s)
			}
			b.ReportMetric(float64(ops), "ops")
			b.ReportMetric(float64(live)/(1<<20), "live_MB")
			b.ReportMetric(float64(total)/(1<<20), "alloc_MB")
			b.ReportMetric(res.Max, "finish_cycles")
		})
	}
}
