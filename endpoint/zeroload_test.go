package endpoint

import (
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// A lone packet between any two tiles takes exactly Spec.ZeroLoadLatency,
// for every distance, length and stage-delay setting tried.
func TestZeroLoadLatencyEveryPair(t *testing.T) {
	specs := map[string]func(*router.Spec){
		"defaults": func(*router.Spec) {},
		"slow stages": func(s *router.Spec) {
			s.RouteDelay, s.VCAllocDelay, s.SwitchAllocDelay, s.SwitchDelay = 2, 3, 1, 2
			s.LinkLatency, s.CreditDelay, s.VCBuf = 3, 2, 16
		},
		"zero-cycle route and VA": func(s *router.Spec) { s.RouteDelay, s.VCAllocDelay = 0, 0 },
		"one VC":                  func(s *router.Spec) { s.VCs = 1 },
	}
	for name, mod := range specs {
		rs := router.DefaultSpec()
		mod(&rs)
		m, _ := mesh.New(4, 3)
		for _, length := range []int{1, 2, 5, 20} {
			for src := 0; src < m.Nodes(); src++ {
				for dst := 0; dst < m.Nodes(); dst++ {
					got := loneLatency(t, m, rs, src, dst, length)
					want := rs.ZeroLoadLatency(m.Hops(src, dst), length)
					if got != want {
						t.Fatalf("%s: %d->%d (%d hops) length %d: latency %d, formula %d", name, src, dst, m.Hops(src, dst), length, got, want)
					}
				}
			}
		}
	}
}

// vc_buf >= CreditLoop is enough for the zero-load formula. Where the loop
// between routers sets the bound, one flit less makes a long worm stall;
// a slow injection channel is partly hidden by the head's routing slack, so
// there only sufficiency is checked.
func TestCreditLoopIsTheStreamingBound(t *testing.T) {
	mods := []func(*router.Spec){
		func(*router.Spec) {},
		func(s *router.Spec) { s.LinkLatency, s.CreditDelay, s.SwitchDelay = 3, 2, 2 },
		func(s *router.Spec) { s.EjectLatency = 6 },
		func(s *router.Spec) { s.InjectLatency, s.CreditDelay = 9, 3 },
	}
	m, _ := mesh.New(4, 4)
	for i, mod := range mods {
		tight := i < 3
		rs := router.DefaultSpec()
		mod(&rs)
		loop := rs.CreditLoop()
		for _, buf := range []int{loop - 1, loop} {
			rs.VCBuf = buf
			eng := des.New()
			f := NewFabric(eng, m, rs, DefaultSpec())
			var got des.Time
			f.OnDeliver = func(p *Packet, now des.Time) { got = now - p.Created }
			f.SendSynthetic(0, 15, 40, 0)
			if err := eng.Run(-1); err != nil {
				t.Fatal(err)
			}
			want := rs.ZeroLoadLatency(6, 40)
			if buf >= loop && got != want {
				t.Errorf("spec %d, vc_buf %d = loop: latency %d, formula %d", i, buf, got, want)
			}
			if tight && buf < loop && got <= want {
				t.Errorf("spec %d, vc_buf %d < loop %d: latency %d should exceed the formula %d", i, buf, loop, got, want)
			}
		}
	}
}

// loneLatency is the latency of a single packet of length flits from src
// to dst on an otherwise idle network: creation at the source NIU to the
// tail's consumption at the destination.
func loneLatency(t *testing.T, m mesh.Topology, rs router.Spec, src, dst, length int) des.Time {
	t.Helper()
	eng := des.New()
	f := NewFabric(eng, m, rs, DefaultSpec())
	var got des.Time = -1
	f.OnDeliver = func(p *Packet, now des.Time) { got = now - p.Created }
	f.SendSynthetic(src, dst, length, 0)
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	if f.Err() != nil {
		t.Fatal(f.Err())
	}
	return got
}
