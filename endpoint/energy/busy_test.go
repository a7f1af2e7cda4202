package energy_test

import (
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/energy"
	"nocsim/mesh"
	"nocsim/router"
)

// xyPath is the routers an XY-routed packet visits on a w-wide mesh,
// source and destination included: along the row, then the column.
func xyPath(w, src, dst int) map[int]bool {
	x, y, x1, y1 := src%w, src/w, dst%w, dst/w
	on := map[int]bool{src: true}
	for x != x1 {
		x += sign(x1 - x)
		on[y*w+x] = true
	}
	for y != y1 {
		y += sign(y1 - y)
		on[y*w+x] = true
	}
	return on
}

func sign(d int) int {
	if d < 0 {
		return -1
	}
	return 1
}

// A lone worm of L flits, counted by hand: each router on its route ticks
// from the cycle the head arrives to the cycle the tail leaves. The head
// spends route_delay + vc_alloc_delay + switch_alloc_delay cycles there
// (it is sent in the last; the switch and the link delay it after it has
// left, on the wire), and the body streams one flit a cycle behind it
// (1-flit links; 8-flit buffers cover the credit loop, so no flit waits
// for a credit): R + VA + SA - 1 + L cycles. Credits come back one cycle
// after each send and are taken early, in the tick before (creditEarly),
// so they cost no tick of their own. A router off the route never ticks.
// Busy plus idle is the routers times the cycles.
func TestRouterBusyCyclesOfALonePacket(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*router.Spec)
	}{
		{"default", func(*router.Spec) {}},
		{"route_delay 2, vc_alloc_delay 3", func(s *router.Spec) { s.RouteDelay, s.VCAllocDelay = 2, 3 }},
		{"switch_delay 3, link_latency 4", func(s *router.Spec) { s.SwitchDelay, s.LinkLatency = 3, 4 }},
	} {
		for _, L := range []int{1, 5, 8} {
			rs := router.DefaultSpec()
			c.mod(&rs)
			topo := mesh.Mesh{W: 5, H: 4}
			const src, dst = 16, 3 // (1,3) to (3,0): 2 + 3 hops
			eng := des.New()
			f := endpoint.NewFabric(eng, topo, rs, endpoint.DefaultSpec())
			f.SendSynthetic(src, dst, L, 0)
			if err := eng.Run(-1); err != nil {
				t.Fatal(err)
			}
			a, err := energy.Snapshot(f)
			if err != nil {
				t.Fatal(err)
			}
			on := xyPath(topo.W, src, dst)
			if len(on) != topo.Hops(src, dst)+1 {
				t.Fatalf("path %v for %d hops", on, topo.Hops(src, dst))
			}
			want := uint64(rs.RouteDelay + rs.VCAllocDelay + rs.SwitchAllocDelay - 1 + des.Time(L))
			var sum uint64
			for i, r := range a.Routers {
				w := uint64(0)
				if on[i] {
					w = want
				}
				if r.BusyCycles != w {
					t.Errorf("%s, L=%d: router %d busy %d cycles, want %d (on the route: %v)", c.name, L, i, r.BusyCycles, w, on[i])
				}
				sum += w
			}
			o := a.Occupancy()
			if o.RouterBusy != sum || o.RouterBusy+o.RouterIdle != uint64(len(a.Routers))*uint64(a.Cycles) {
				t.Errorf("%s, L=%d: %d busy + %d idle router-cycles, want %d busy of %d routers x %d cycles", c.name, L, o.RouterBusy, o.RouterIdle, sum, len(a.Routers), a.Cycles)
			}
			if o.TileBusy != 0 || o.TileIdle != 0 {
				t.Errorf("%s: synthetic traffic has no tiles, got %+v", c.name, o)
			}
		}
	}
}

// A window's busy cycles are those of the packets in it: a first packet
// done before the window opens leaves its routers idle in the window, a
// second one sent in it makes its own routers busy by the hand count
// above.
func TestRouterBusyCyclesInAWindow(t *testing.T) {
	topo := mesh.Mesh{W: 4, H: 4}
	rs := router.DefaultSpec()
	eng := des.New()
	f := endpoint.NewFabric(eng, topo, rs, endpoint.DefaultSpec())
	const L = 6
	f.SendSynthetic(0, 3, L, 0) // the top row
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	begin, _ := energy.Snapshot(f)
	f.SendSynthetic(12, 15, L, eng.Now()) // the bottom row
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	end, _ := energy.Snapshot(f)
	w, err := end.Sub(begin)
	if err != nil {
		t.Fatal(err)
	}
	per := uint64(rs.RouteDelay+rs.VCAllocDelay+rs.SwitchAllocDelay-1) + L
	for i, r := range w.Routers {
		var before, in uint64
		switch {
		case i < 4:
			before = per
		case i >= 12:
			in = per
		}
		if r.BusyCycles != in || begin.Routers[i].BusyCycles != before {
			t.Errorf("router %d: %d busy cycles in the window (%d before it), want %d (%d)", i, r.BusyCycles, begin.Routers[i].BusyCycles, in, before)
		}
	}
	if o := w.Occupancy(); o.RouterBusy+o.RouterIdle != 16*uint64(w.Cycles) || o.RouterBusy != 4*per {
		t.Errorf("window of %d cycles: %+v", w.Cycles, o)
	}
}
