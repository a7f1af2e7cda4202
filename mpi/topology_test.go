package mpi

import (
	"fmt"
	sched "nocsim/coll"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mesh/meshtest"
	"nocsim/mpi/datatype"
	"nocsim/router"
)

// topoJob is a job on topo, one rank per tile.
func topoJob(t *testing.T, topo mesh.Topology, cfg Config) *World {
	t.Helper()
	es := endpoint.DefaultSpec()
	es.MemoryWords = 1 << 20
	eng := des.New()
	eng.SetWatchdog(1_000_000, nil)
	mc := endpoint.NewMachine(eng, topo, router.DefaultSpec(), es, endpoint.DefaultCPUSpec())
	t.Cleanup(mc.Close)
	w, err := NewWorld(mc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func topologies(t *testing.T, n int) []mesh.Topology {
	t.Helper()
	r, err1 := mesh.NewRing(n, false)
	u, err2 := mesh.NewRing(n, true)
	b, err3 := mesh.NewBus(n)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return []mesh.Topology{r, u, b}
}

// Every allreduce algorithm, the mesh family included (one row in station
// order on a ring or bus, the torus's rows and columns on a torus), gives
// the exact sum on every rank on a ring, a unidirectional ring and a bus
// of 7 and a 3x3 torus, and leaves nothing behind.
func TestAllreduceOnRingTorusAndBus(t *testing.T) {
	const count = 40
	val := func(rank, k int) int64 { return int64(rank*1000003 + k*7919 - 5000) }
	for _, topo := range append(topologies(t, 7), meshtest.Torus(t, 3, 3)) {
		P := topo.Nodes()
		for _, alg := range append(sched.Names("allreduce"), "auto") {
			t.Run(fmt.Sprintf("%s/%s", topo.Name(), alg), func(t *testing.T) {
				w := topoJob(t, topo, libCfg(DefaultConfig(), "allreduce", alg))
				checked := 0
				w.Launch(func(r *Rank) {
					in, err := r.Alloc(8 * count)
					if err != nil {
						t.Error(err)
						return
					}
					out, err := r.Alloc(8 * count)
					if err != nil {
						t.Error(err)
						return
					}
					for k := range count {
						in.SetInt64(k, val(r.Rank(), k))
					}
					if err := r.Allreduce(in, out, count, datatype.Int64, datatype.OpSum, r.CommWorld()); err != nil {
						t.Errorf("rank %d: %v", r.Rank(), err)
						return
					}
					for k := range count {
						var want int64
						for i := range P {
							want += val(i, k)
						}
						if got := out.Int64(k); got != want {
							t.Errorf("rank %d element %d: %d, want %d", r.Rank(), k, got, want)
						}
					}
					checked++
				})
				if err := w.Run(); err != nil {
					t.Fatal(err)
				}
				if checked != P {
					t.Fatalf("%d of %d ranks checked their sums", checked, P)
				}
				redQuiet(t, w)
			})
		}
	}
}

// A ping-pong of growing messages (eager and rendezvous) delivers every
// byte on each topology, between the two ends of the ring (the longest
// way on a unidirectional one back), and between the corners (0,0) and
// (2,1) of a 3x2 torus, whose rows and columns wrap.
func TestPingPongOnRingTorusAndBus(t *testing.T) {
	const P = 6
	for _, topo := range append(topologies(t, P), meshtest.Torus(t, 3, 2)) {
		t.Run(topo.Name(), func(t *testing.T) {
			w := topoJob(t, topo, DefaultConfig())
			trips := 0
			w.Launch(func(r *Rank) {
				me := r.Rank()
				if me != 0 && me != P-1 {
					return
				}
				peer := P - 1 - me
				for _, n := range []int{1, 8, 100, 4096} {
					buf, err := r.Alloc(n)
					if err != nil {
						t.Error(err)
						return
					}
					want := make([]byte, n)
					for i := range want {
						want[i] = byte(i*31 + n)
					}
					for trip := range 3 {
						if me == 0 {
							copy(buf.Bytes, want)
							if err := r.Send(buf, n, datatype.Byte, peer, trip, r.CommWorld()); err != nil {
								t.Error(err)
								return
							}
							clear(buf.Bytes)
							if _, err := r.Recv(buf, n, datatype.Byte, peer, trip, r.CommWorld()); err != nil {
								t.Error(err)
								return
							}
						} else {
							if _, err := r.Recv(buf, n, datatype.Byte, peer, trip, r.CommWorld()); err != nil {
								t.Error(err)
								return
							}
							if err := r.Send(buf, n, datatype.Byte, peer, trip, r.CommWorld()); err != nil {
								t.Error(err)
								return
							}
						}
						if string(buf.Bytes) != string(want) {
							t.Errorf("rank %d, %d bytes, trip %d: payload differs", me, n, trip)
						}
						trips++
					}
				}
			})
			if err := w.Run(); err != nil {
				t.Fatal(err)
			}
			if trips != 2*4*3 {
				t.Fatalf("%d of %d trips checked", trips, 2*4*3)
			}
			redQuiet(t, w)
		})
	}
}
