package endpoint

import (
	"fmt"
	"math"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// t0 is the zero-load latency model written out independently of
// router.Spec: the head crosses every stage of hops+1 routers and hops
// links; the body follows w flits per cycle, w being the narrowest of the
// links (and each VC through a switch), the NIU's injection and its
// ejection, so the tail is ceil(length/w) - 1 cycles behind the head.
func t0(rs router.Spec, hops, length int) des.Time {
	w := min(rs.LinkWidth, rs.InjectWidth, rs.EjectWidth)
	perRouter := rs.RouteDelay + rs.VCAllocDelay + rs.SwitchAllocDelay + rs.SwitchDelay
	h := des.Time(hops)
	return rs.InjectLatency + (h+1)*perRouter + h*rs.LinkLatency + rs.EjectLatency + des.Time((length+w-1)/w-1)
}

// rateSpecs are router specs at several network rates with buffers that
// cover the credit loop at that rate.
var rateSpecs = map[string]func(*router.Spec){
	"link 2 (SCMP)": func(s *router.Spec) { s.LinkWidth = 2 },
	"link 2, slow stages": func(s *router.Spec) {
		s.LinkWidth = 2
		s.RouteDelay, s.VCAllocDelay, s.SwitchAllocDelay, s.SwitchDelay = 2, 0, 1, 2
		s.LinkLatency, s.CreditDelay, s.VCBuf = 3, 2, 16
	},
	"link 3, ports 3":           func(s *router.Spec) { s.LinkWidth, s.InjectWidth, s.EjectWidth, s.VCBuf = 3, 3, 3, 12 },
	"link 4, eject 2":           func(s *router.Spec) { s.LinkWidth, s.InjectWidth, s.EjectWidth = 4, 4, 2 },
	"link 2, BookSim NIU ports": func(s *router.Spec) { s.LinkWidth, s.InjectWidth, s.EjectWidth, s.InjectLatency = 2, 1, 1, 2 },
	"link 2, one VC":            func(s *router.Spec) { s.LinkWidth, s.VCs = 2, 1 },
}

// A lone packet between any two tiles takes exactly the zero-load model at
// every network rate, and ZeroLoadLatency says the same.
func TestZeroLoadLatencyAtLinkRates(t *testing.T) {
	m, _ := mesh.New(4, 3)
	for name, mod := range rateSpecs {
		rs := router.DefaultSpec()
		mod(&rs)
		if err := rs.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rs.VCBuf < rs.CreditLoop() {
			t.Fatalf("%s: vc_buf %d below the credit loop %d", name, rs.VCBuf, rs.CreditLoop())
		}
		for _, length := range []int{1, 2, 3, 5, 20, 41} {
			for src := 0; src < m.Nodes(); src++ {
				for dst := 0; dst < m.Nodes(); dst++ {
					h := m.Hops(src, dst)
					got, want := loneLatency(t, m, rs, src, dst, length), t0(rs, h, length)
					if got != want {
						t.Fatalf("%s: %d->%d (%d hops) length %d: latency %d, model %d", name, src, dst, h, length, got, want)
					}
					if f := rs.ZeroLoadLatency(h, length); f != want {
						t.Fatalf("%s: %d hops length %d: ZeroLoadLatency %d, model %d", name, h, length, f, want)
					}
				}
			}
		}
	}
}

// When the NIU's injection is the only narrow port, the body, fed slower
// than the links carry it, catches up with the head's routing stages, so a
// long packet arrives before the model's time, as ZeroLoadLatency's doc
// says; never after it.
func TestNarrowInjectionBeatsTheModel(t *testing.T) {
	rs := router.DefaultSpec()
	rs.LinkWidth, rs.InjectWidth, rs.EjectWidth = 2, 1, 2
	m, _ := mesh.New(4, 4)
	early := false
	for _, length := range []int{1, 2, 5, 40} {
		for dst := 0; dst < m.Nodes(); dst++ {
			got, want := loneLatency(t, m, rs, 0, dst, length), t0(rs, m.Hops(0, dst), length)
			if got > want {
				t.Fatalf("0->%d length %d: latency %d above the model %d", dst, length, got, want)
			}
			early = early || got < want
		}
	}
	if !early {
		t.Error("no packet beat the model: the caveat in ZeroLoadLatency's doc is wrong")
	}
}

// At two flits per cycle a worm needs twice the buffering: vc_buf =
// CreditLoop streams at the model's time, one flit less makes a long worm
// (60 flits: a built message must fit the NIU queue) late.
func TestCreditLoopAtLinkRate2(t *testing.T) {
	mods := []func(*router.Spec){
		func(*router.Spec) {},
		func(s *router.Spec) { s.LinkLatency, s.CreditDelay, s.SwitchDelay = 3, 2, 2 },
		func(s *router.Spec) { s.EjectLatency = 6 },
	}
	m, _ := mesh.New(4, 4)
	for i, mod := range mods {
		rs := router.DefaultSpec()
		rs.LinkWidth = 2
		mod(&rs)
		loop := rs.CreditLoop()
		for _, buf := range []int{loop - 1, loop} {
			rs.VCBuf = buf
			got, want := loneLatency(t, m, rs, 0, 15, 60), t0(rs, 6, 60)
			if buf == loop && got != want {
				t.Errorf("spec %d, vc_buf %d = loop: latency %d, model %d", i, buf, got, want)
			}
			if buf < loop && got <= want {
				t.Errorf("spec %d, vc_buf %d < loop %d: latency %d should exceed the model %d", i, buf, loop, got, want)
			}
		}
	}
}

// dmaTime is the cycles from issuing msgs back-to-back DMA messages of
// words words each, from node 0 to the opposite corner of a 4x4 mesh, to
// the last one's delivery.
func dmaTime(t *testing.T, rs router.Spec, msgs, words int) des.Time {
	t.Helper()
	m, _ := mesh.New(4, 4)
	es := DefaultSpec()
	es.MemoryWords = 1 << 17
	eng := des.New()
	f := NewFabric(eng, m, rs, es)
	var last des.Time = -1
	delivered := 0
	f.OnDeliver = func(p *Packet, now des.Time) { last, delivered = now, delivered+1 }
	for range msgs {
		// Every message writes the same destination words: the memory
		// holds one message, and the time does not depend on the words.
		if _, err := f.SendBlock(0, 15, KindData, 0, 1, 0, 1, words, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	if f.Err() != nil || delivered != msgs {
		t.Fatalf("%d of %d delivered: %v", delivered, msgs, f.Err())
	}
	if err := f.CheckQuiescent(); err != nil {
		t.Fatal(err)
	}
	return last
}

// A large transfer's time per byte halves at link_flits_per_cycle = 2: the
// NIU's DMA injects, the links carry and the NIU ejects two 32-bit flits
// per cycle. A single message takes exactly the zero-load model (it is a
// lone packet); 2 MiB, sent as 32 messages of 64 KiB, streams within a few
// percent of the model's rate.
func TestLinkRate2DoublesBandwidth(t *testing.T) {
	const words = 16384 // 64 KiB
	perByte := map[int][]float64{}
	for _, rate := range []int{1, 2} {
		rs := router.DefaultSpec()
		rs.LinkWidth = rate
		one := dmaTime(t, rs, 1, words)
		if want := t0(rs, 6, words+2); one != want {
			t.Errorf("rate %d: one 64 KiB message in %d cycles, model %d", rate, one, want)
		}
		all := dmaTime(t, rs, 32, words)
		// The stream's floor: every flit of every message at rate flits
		// per cycle, plus one message's pipeline latency.
		floor := t0(rs, 6, 32*(words+2))
		if all < floor || float64(all) > 1.02*float64(floor) {
			t.Errorf("rate %d: 2 MiB in %d cycles, want within 2%% above %d", rate, all, floor)
		}
		perByte[rate] = []float64{float64(one) / (4 * words), float64(all) / (4 * 32 * words)}
		t.Logf("rate %d: 64 KiB in %d cycles, 2 MiB in %d cycles (floor %d)", rate, one, all, floor)
	}
	for i, size := range []string{"64 KiB", "2 MiB"} {
		r := perByte[1][i] / perByte[2][i]
		if math.Abs(r-2) > 0.02*2 {
			t.Errorf("%s: %.4f cycles/byte at rate 1, %.4f at rate 2: ratio %.3f, want 2 within 2%%", size, perByte[1][i], perByte[2][i], r)
		}
	}
}

// Random networks conserve every flit at link rates above one too (the
// same random networks as TestConservationRandomNetworks).
func TestConservationRandomNetworksRate2(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { conserveAt(t, seed, 2) })
	}
}
