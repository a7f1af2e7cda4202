package collgen

import (
	"bytes"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"nocsim/logp/goal"
	"nocsim/logp/loggops"
)

// BenchmarkTierFromText is `nocsim goal run FILE --L 6 --o 2 --g 4` on
// the issue-35 schedules, file read excepted: each iteration parses the
// GOAL text (generated once, as `goal gen` writes it) and simulates it.
// It reports the tier's events per CPU second (user + system, the
// process's, so the collector's work counts) and, per operation, the
// schedule's bytes and all bytes allocated by parse and simulation (an
// upper bound of what they hold at once).
//
//	go test ./logp/collgen -run XXX -bench TierFromText -benchtime 3x
func BenchmarkTierFromText(b *testing.B) {
	p := loggops.New(6, 2, 4, 0, 0)
	for _, c := range []struct {
		op, alg string
		P       int
		size    int64
	}{
		{"bcast", "binomial", 1 << 20, 1},
		{"allreduce", "recursive_doubling", 1 << 16, 1024},
		{"barrier", "dissemination", 1 << 18, 0},
	} {
		b.Run(fmt.Sprintf("%s_%s_P%d", c.op, c.alg, c.P), func(b *testing.B) {
			s, err := Generate(c.op, c.alg, c.P, c.size, DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			var text bytes.Buffer
			if err := goal.Write(&text, s); err != nil {
				b.Fatal(err)
			}
			s = nil
			runtime.GC()
			var events uint64
			var ops, schedBytes int
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			cpu0 := cpuTime()
			for b.Loop() {
				s, err := goal.Parse(text.Bytes())
				if err != nil {
					b.Fatal(err)
				}
				res, err := loggops.Simulate(s, p, loggops.Options{})
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
				ops, schedBytes = s.NumOps(), s.MemBytes()
			}
			cpu := cpuTime() - cpu0
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(events)/cpu.Seconds(), "events/cpu-s")
			b.ReportMetric(float64(schedBytes)/float64(ops), "sched-B/op")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(ops), "alloc-B/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
