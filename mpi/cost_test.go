package mpi

import (
	"errors"
	"testing"

	"nocsim/config"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi/datatype"
)

// oneWay measures half the round trip of a ping-pong of n bytes between
// world ranks 0 and dst (after a warm-up exchange).
func oneWay(t *testing.T, cfg Config, cpu func(*endpoint.CPUSpec), dst, n int) des.Time {
	t.Helper()
	w := job(t, 4, 4, cfg, cpu)
	var rtt des.Time
	w.Launch(func(r *Rank) {
		c := r.CommWorld()
		buf := r.MustAlloc(max(n, 1))
		switch r.Rank() {
		case 0:
			for k := 0; k < 2; k++ {
				s := r.Now()
				r.Send(buf, n, datatype.Byte, dst, 1, c)
				r.Recv(buf, n, datatype.Byte, dst, 2, c)
				rtt = r.Now() - s
			}
		case dst:
			for k := 0; k < 2; k++ {
				r.Recv(buf, n, datatype.Byte, 0, 1, c)
				r.Send(buf, n, datatype.Byte, 0, 2, c)
			}
		}
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	return rtt / 2
}

// Above the handshake, time grows linearly with size: the DMA streams one
// word per cycle, so each added byte costs the same.
func TestOneWayLinearInSize(t *testing.T) {
	for _, proto := range Protocols {
		a, b, c := oneWay(t, cfgFor(proto), nil, 15, 4096), oneWay(t, cfgFor(proto), nil, 15, 16384), oneWay(t, cfgFor(proto), nil, 15, 65536)
		slope1 := float64(b-a) / (16384 - 4096)
		slope2 := float64(c-b) / (65536 - 16384)
		if slope1 <= 0 || slope2/slope1 < 0.95 || slope2/slope1 > 1.05 {
			t.Errorf("%s: one-way %d, %d, %d cycles at 4, 16, 64 KiB: slopes %.3f and %.3f cycles/byte differ", proto, a, b, c, slope1, slope2)
		}
		// One flit carries four bytes and a link moves one flit a cycle.
		// puma_long's puts into a posted receive pass through the
		// receiver's handler, which copies a word a cycle
		// (copy_cycles_per_word 1) and starts once per put message: a
		// little slower than the link, never faster.
		if proto == "puma_long" && (slope2 < 0.25 || slope2 > 0.375) {
			t.Errorf("%s: %.3f cycles/byte, want 1/4 to 3/8 (a word per cycle, plus a handler per put message)", proto, slope2)
		}
		if proto != "puma_long" && (slope2 < 0.24 || slope2 > 0.27) {
			t.Errorf("%s: %.3f cycles/byte, want about 1/4 (a word per cycle)", proto, slope2)
		}
	}
}

// The eager protocol saves the rendezvous for short messages; the NIU
// handshake saves the threads of the scmp rendezvous at every size.
func TestProtocolLatencies(t *testing.T) {
	for _, n := range []int{0, 8, 64, 128} {
		scmp, eager := oneWay(t, cfgFor("scmp"), nil, 15, n), oneWay(t, cfgFor("eager"), nil, 15, n)
		if eager >= scmp {
			t.Errorf("%d bytes: eager %d cycles, scmp %d: eager should be faster", n, eager, scmp)
		}
	}
	for _, n := range []int{0, 64, 1024, 16384} {
		scmp, niu := oneWay(t, cfgFor("scmp"), nil, 15, n), oneWay(t, cfgFor("niu"), nil, 15, n)
		if niu >= scmp {
			t.Errorf("%d bytes: niu %d cycles, scmp %d: the hardware handshake should be faster", n, niu, scmp)
		}
	}
	// Thread overheads are what the NIU handshake avoids: where creating
	// and dispatching a thread costs more than a network crossing, niu
	// beats even the eager protocol's single message.
	slow := func(c *endpoint.CPUSpec) { c.ThreadCreateCycles, c.ThreadDispatchCycles = 100, 100 }
	if eager, niu := oneWay(t, cfgFor("eager"), slow, 15, 8), oneWay(t, cfgFor("niu"), slow, 15, 8); niu >= eager {
		t.Errorf("with 100-cycle thread creation and dispatch: niu %d, eager %d", niu, eager)
	}
}

// A receiver busy computing delays a rendezvous sender under cooperative
// threads (its handler waits for the processor) but not when THREAD
// messages preempt the computation.
func TestBusyReceiverDelaysRendezvous(t *testing.T) {
	const busy = 200000
	done := func(preempt bool) des.Time {
		w := job(t, 4, 4, cfgFor("scmp"), func(c *endpoint.CPUSpec) { c.PreemptThreads = preempt })
		var at des.Time
		w.Launch(func(r *Rank) {
			c := r.CommWorld()
			buf := r.MustAlloc(1024)
			switch r.Rank() {
			case 0:
				r.Compute(1000) // let the receive be posted first
				r.Send(buf, 1024, datatype.Byte, 5, 0, c)
				at = r.Now()
			case 5:
				q, _ := r.Irecv(buf, 1024, datatype.Byte, 0, 0, c)
				r.Compute(busy)
				r.Wait(q)
			}
		})
		if err := w.Run(); err != nil {
			t.Fatal(err)
		}
		return at
	}
	coop, pre := done(false), done(true)
	if coop < busy {
		t.Errorf("cooperative: the send finished at %d, before the receiver's %d-cycle computation ended", coop, busy)
	}
	if pre > busy/10 {
		t.Errorf("preemptive: the send finished at %d, want it long before %d", pre, busy)
	}
}

// With vector_dma a strided vector goes out through the DMA engine's
// source stride: the same words arrive, and the sender skips packing.
func TestVectorDMA(t *testing.T) {
	run := func(vdma bool) (des.Time, []float32) {
		cfg := cfgFor("scmp")
		cfg.VectorDMA = vdma
		w := job(t, 2, 2, cfg, nil)
		var sendTime des.Time
		var got []float32
		w.Launch(func(r *Rank) {
			c := r.CommWorld()
			vec, _ := datatype.TypeVector(1000, 1, 3, datatype.Float32)
			vec.Commit()
			switch r.Rank() {
			case 0:
				buf := r.MustAlloc(4 * 3000)
				for i := 0; i < 3000; i++ {
					buf.SetFloat32(i, float32(i))
				}
				s := r.Now()
				r.Send(buf, 1, vec, 3, 0, c)
				sendTime = r.Now() - s
			case 3:
				buf := r.MustAlloc(4 * 1000)
				r.Recv(buf, 1000, datatype.Float32, 0, 0, c)
				for i := 0; i < 1000; i++ {
					got = append(got, buf.Float32(i))
				}
			}
		})
		if err := w.Run(); err != nil {
			t.Fatal(err)
		}
		return sendTime, got
	}
	packed, a := run(false)
	direct, b := run(true)
	for i := 0; i < 1000; i++ {
		if a[i] != float32(3*i) || b[i] != float32(3*i) {
			t.Fatalf("element %d: packed %v, vector DMA %v, want %d", i, a[i], b[i], 3*i)
		}
	}
	if direct >= packed {
		t.Errorf("vector DMA send took %d cycles, packing %d: it should save the copy", direct, packed)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		mod func(*Config)
		key string
	}{
		{func(c *Config) { c.Procs = 17 }, "procs"},
		{func(c *Config) { c.Procs = -1 }, "procs"},
		{func(c *Config) { c.Protocol = "tcp" }, "protocol"},
		{func(c *Config) { c.EagerBytes = -1 }, "eager_bytes"},
		{func(c *Config) { c.EagerBytes = 1 << 20 }, "eager_bytes"},
		{func(c *Config) { c.MatchCycle = -1 }, "match_cycles"},
	} {
		cfg := DefaultConfig()
		c.mod(&cfg)
		err := cfg.Validate(16, 64)
		var ke *config.KeyError
		if !errors.As(err, &ke) || ke.Key != c.key {
			t.Errorf("%+v: error %v, want one naming %s", cfg, err, c.key)
		}
	}
	if err := DefaultConfig().Validate(16, 64); err != nil {
		t.Fatal(err)
	}
}
