package mpi

import (
	"strconv"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

func benchWorld(b *testing.B, w, h int, proto string) *World {
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

// BenchmarkPingPong is 1000 round trips of 8 bytes between opposite
// corners of a 4x4 mesh; it reports messages per wall-clock second.
func BenchmarkPingPong(b *testing.B) {
	for _, proto := range Protocols {
		b.Run(proto, func(b *testing.B) {
			const trips = 1000
			var cycles float64
			for b.Loop() {
				w := benchWorld(b, 4, 4, proto)
				w.Launch(func(r *Rank) {
					if r.Rank() != 0 && r.Rank() != 15 {
						return
					}
					c := r.CommWorld()
					buf := r.MustAlloc(8)
					peer := 15 - r.Rank()
					for i := 0; i < trips; i++ {
						if r.Rank() == 0 {
							r.Send(buf, 8, Byte, peer, 0, c)
							r.Recv(buf, 8, Byte, peer, 0, c)
						} else {
							r.Recv(buf, 8, Byte, peer, 0, c)
							r.Send(buf, 8, Byte, peer, 0, c)
						}
					}
				})
				if err := w.Run(); err != nil {
					b.Fatal(err)
				}
				cycles += float64(w.M.Eng.Now())
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(2*trips*b.N)/sec, "msgs/s")
			b.ReportMetric(cycles/sec, "simcycles/s")
		})
	}
}

// BenchmarkRingExchange64 has 64 ranks on an 8x8 mesh each Sendrecv 1 KiB
// to the next rank and from the previous one, 20 times.
func BenchmarkRingExchange64(b *testing.B) {
	const rounds, size = 20, 1024
	var cycles float64
	for b.Loop() {
		w := benchWorld(b, 8, 8, "scmp")
		w.Launch(func(r *Rank) {
			c := r.CommWorld()
			out, in := r.MustAlloc(size), r.MustAlloc(size)
			next, prev := (r.Rank()+1)%64, (r.Rank()+63)%64
			for i := 0; i < rounds; i++ {
				if _, err := r.Sendrecv(out, size, Byte, next, i, in, size, Byte, prev, i, c); err != nil {
					panic(err)
				}
			}
		})
		if err := w.Run(); err != nil {
			b.Fatal(err)
		}
		cycles += float64(w.M.Eng.Now())
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(64*rounds*b.N)/sec, "msgs/s")
	b.ReportMetric(cycles/float64(b.N), "simcycles/op")
	b.ReportMetric(cycles/sec, "simcycles/s")
}

// BenchmarkAllreduce64 is one MPI_Allreduce (sum of float64) over 64 ranks
// on an 8x8 mesh, of 8 bytes and of 64 KiB, with the default algorithm.
func BenchmarkAllreduce64(b *testing.B) {
	for _, size := range []int{8, 64 << 10} {
		b.Run(strconv.Itoa(size)+"B", func(b *testing.B) {
			var cycles float64
			for b.Loop() {
				w := benchWorld(b, 8, 8, "scmp")
				n := size / 8
				w.Launch(func(r *Rank) {
					in, out := r.MustAlloc(size), r.MustAlloc(size)
					for i := 0; i < n; i++ {
						in.SetFloat64(i, float64(r.Rank()+i))
					}
					if err := r.Allreduce(in, out, n, Float64, OpSum, r.CommWorld()); err != nil {
						panic(err)
					}
				})
				if err := w.Run(); err != nil {
					b.Fatal(err)
				}
				cycles += float64(w.M.Eng.Now())
			}
			b.ReportMetric(cycles/float64(b.N), "simcycles/op")
		})
	}
}
