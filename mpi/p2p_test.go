package mpi

import (
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi/datatype"
	"nocsim/router"
)

// job builds a machine of w x h tiles and an MPI world on it.
func job(t *testing.T, w, h int, cfg Config, cpu func(*endpoint.CPUSpec)) *World {
	t.Helper()
	m, err := mesh.New(w, h)
	if err != nil {
		t.Fatal(err)
	}
	cs := endpoint.DefaultCPUSpec()
	if cpu != nil {
		cpu(&cs)
	}
	es := endpoint.DefaultSpec()
	es.MemoryWords = 1 << 20
	eng := des.New()
	eng.SetWatchdog(1_000_000, nil)
	mc := endpoint.NewMachine(eng, m, router.DefaultSpec(), es, cs)
	t.Cleanup(mc.Close)
	world, err := NewWorld(mc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	world.LogMessages() // tests look at what every rank received
	return world
}

func cfgFor(proto string) Config {
	c := DefaultConfig()
	c.Protocol = proto
	return c
}

func TestPingPongMovesData(t *testing.T) {
	for _, proto := range Protocols {
		for _, n := range []int{0, 1, 7, 100, 5000} {
			w := job(t, 4, 4, cfgFor(proto), nil)
			var got []float64
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				buf := r.MustAlloc(8 * max(n, 1))
				switch r.Rank() {
				case 0:
					for i := 0; i < n; i++ {
						buf.SetFloat64(i, float64(i)*1.5)
					}
					if err := r.Send(buf, n, datatype.Float64, 15, 3, c); err != nil {
						t.Error(err)
					}
					st, err := r.Recv(buf, n, datatype.Float64, 15, 4, c)
					if err != nil || st.Source != 15 || st.Tag != 4 || st.Bytes != 8*n {
						t.Errorf("%s n=%d: status %+v, %v", proto, n, st, err)
					}
					for i := 0; i < n; i++ {
						got = append(got, buf.Float64(i))
					}
				case 15:
					if _, err := r.Recv(buf, n, datatype.Float64, 0, 3, c); err != nil {
						t.Error(err)
					}
					for i := 0; i < n; i++ {
						buf.SetFloat64(i, buf.Float64(i)+1)
					}
					if err := r.Send(buf, n, datatype.Float64, 0, 4, c); err != nil {
						t.Error(err)
					}
				}
			})
			if err := w.Run(); err != nil {
				t.Fatalf("%s n=%d: %v", proto, n, err)
			}
			for i, v := range got {
				if v != float64(i)*1.5+1 {
					t.Fatalf("%s n=%d: element %d = %v", proto, n, i, v)
				}
			}
			if len(got) != n {
				t.Fatalf("%s n=%d: got %d elements", proto, n, len(got))
			}
		}
	}
}
