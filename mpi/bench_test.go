package mpi

import (
	"strconv"
	"testing"
	"time"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi/datatype"
	"nocsim/router"
)

func benchWorld(b testing.TB, w, h int, proto string) *World {
	m, _ := mesh.New(w, h)
	es := endpoint.DefaultSpec()
	es.MemoryWords = 1 << 20
	mc := endpoint.NewMachine(des.New(), m, router.DefaultSpec(), es, endpoint.DefaultCPUSpec())
	b.Cleanup(mc.Close)
	world, err := NewWorld(mc, cfgFor(proto))
	if err != nil {
		b.Fatal(err)
	}
	return world
}

// cpuClock measures the process's CPU time across a benchmark's timed
// loop: on a shared machine wall time counts other processes' work, CPU
// time only this one's (the garbage collector's included, honestly).
type cpuClock struct{ start time.Duration }

func startCPU(b *testing.B) cpuClock {
	t, ok := des.ProcessCPUTime()
	if !ok {
		b.Skip("no process CPU time on this platform")
	}
	return cpuClock{t}
}

// seconds is the CPU time since start.
func (c cpuClock) seconds() float64 {
	t, _ := des.ProcessCPUTime()
	return max((t - c.start).Seconds(), 1e-9)
}

// pingPong runs trips round trips of 8 bytes between opposite corners of a
// 4x4 mesh on w.
func pingPong(w *World, trips int) {
	w.Launch(func(r *Rank) {
		if r.Rank() != 0 && r.Rank() != 15 {
			return
		}
		c := r.CommWorld()
		buf := r.MustAlloc(8)
		peer := 15 - r.Rank()
		for i := 0; i < trips; i++ {
			if r.Rank() == 0 {
				r.Send(buf, 8, datatype.Byte, peer, 0, c)
				r.Recv(buf, 8, datatype.Byte, peer, 0, c)
			} else {
				r.Recv(buf, 8, datatype.Byte, peer, 0, c)
				r.Send(buf, 8, datatype.Byte, peer, 0, c)
			}
		}
	})
}

// BenchmarkPingPong is 1000 round trips of 8 bytes between opposite
// corners of a 4x4 mesh; it reports simulated messages per CPU second.
func BenchmarkPingPong(b *testing.B) {
	for _, proto := range Protocols {
		b.Run(proto, func(b *testing.B) {
			const trips = 1000
			var cycles float64
			cpu := startCPU(b)
			for b.Loop() {
				w := benchWorld(b, 4, 4, proto)
				pingPong(w, trips)
				if err := w.Run(); err != nil {
					b.Fatal(err)
				}
				cycles += float64(w.M.Eng.Now())
			}
			sec := cpu.seconds()
			b.ReportMetric(float64(2*trips*b.N)/sec, "msgs/cpu-s")
			b.ReportMetric(cycles/sec, "simcycles/cpu-s")
		})
	}
}

// BenchmarkRingExchange64 has 64 ranks on an 8x8 mesh each Sendrecv 1 KiB
// to the next rank and from the previous one, 20 times.
func BenchmarkRingExchange64(b *testing.B) {
	const rounds, size = 20, 1024
	var cycles float64
	cpu := startCPU(b)
	for b.Loop() {
		w := benchWorld(b, 8, 8, "scmp")
		w.Launch(func(r *Rank) {
			c := r.CommWorld()
			out, in := r.MustAlloc(size), r.MustAlloc(size)
			next, prev := (r.Rank()+1)%64, (r.Rank()+63)%64
			for i := 0; i < rounds; i++ {
				if _, err := r.Sendrecv(out, size, datatype.Byte, next, i, in, size, datatype.Byte, prev, i, c); err != nil {
					panic(err)
				}
			}
		})
		if err := w.Run(); err != nil {
			b.Fatal(err)
		}
		cycles += float64(w.M.Eng.Now())
	}
	sec := cpu.seconds()
	b.ReportMetric(float64(64*rounds*b.N)/sec, "msgs/cpu-s")
	b.ReportMetric(cycles/float64(b.N), "simcycles/op")
	b.ReportMetric(cycles/sec, "simcycles/cpu-s")
}

// BenchmarkAllreduce64 is one MPI_Allreduce (sum of float64) over 64 ranks
// on an 8x8 mesh, of 8 bytes and of 64 KiB, with the default algorithm.
// Its messages are every point-to-point message the algorithm sent (each
// rank's received messages, counted after the run).
func BenchmarkAllreduce64(b *testing.B) {
	for _, size := range []int{8, 64 << 10} {
		b.Run(strconv.Itoa(size)+"B", func(b *testing.B) {
			var cycles, msgs float64
			cpu := startCPU(b)
			for b.Loop() {
				w := benchWorld(b, 8, 8, "scmp")
				n := size / 8
				w.Launch(func(r *Rank) {
					in, out := r.MustAlloc(size), r.MustAlloc(size)
					for i := 0; i < n; i++ {
						in.SetFloat64(i, float64(r.Rank()+i))
					}
					if err := r.Allreduce(in, out, n, datatype.Float64, datatype.OpSum, r.CommWorld()); err != nil {
						panic(err)
					}
				})
				if err := w.Run(); err != nil {
					b.Fatal(err)
				}
				cycles += float64(w.M.Eng.Now())
				for _, r := range w.Ranks {
					msgs += float64(r.Received())
				}
			}
			sec := cpu.seconds()
			b.ReportMetric(msgs/sec, "msgs/cpu-s")
			// The count itself, for scripts/bench/against-filing.sh:
			// code older than Rank.Received is given it.
			b.ReportMetric(msgs/float64(b.N), "msgs/op")
			b.ReportMetric(cycles/float64(b.N), "simcycles/op")
		})
	}
}
