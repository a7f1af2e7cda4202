package router

import (
	"fmt"
	"testing"
)

// Every channel a router consumes gets its buffer once, at the size attach
// reserves for it, and under traffic that fills the network it never grows
// past it: the bound (sender's width times latency+1, at most the credits)
// holds. Long delays (at or beyond dueSlots) take the other tracking path
// (the in-flight mask, sig[dueSlots]); every flit must still arrive and every credit come
// home (b.run checks quiescence). One-flit links with short delays go
// through rings, not channels (ring links, outPort.back), and links 16
// flits wide need a switch request list beyond the router's own (saBuf).
func TestChannelsStayWithinReserve(t *testing.T) {
	for _, c := range []struct{ width, link, credit int }{
		{1, 1, 1}, {2, 1, 2}, {1, dueSlots - 1, dueSlots}, {2, dueSlots + 4, 1}, {3, 2, dueSlots + 1}, {16, 1, 1},
	} {
		t.Run(fmt.Sprintf("width=%d/link=%d/credit=%d", c.width, c.link, c.credit), func(t *testing.T) {
			spec := DefaultSpec()
			spec.VCBuf, spec.LinkWidth = 4, c.width
			spec.LinkLatency, spec.CreditDelay = int64(c.link), int64(c.credit)
			b := newBench(t, 3, 3, spec)
			total := randomTraffic(b, 3, 60, 7)
			b.run(t)
			got := 0
			for _, ni := range b.nis {
				got += len(ni.got)
			}
			if got != total {
				t.Fatalf("%d flits delivered of %d", got, total)
			}
			used := 0
			for _, r := range b.net.Routers {
				for p := range r.in {
					var sizes [][2]int
					if c := r.in[p].flits; c != nil {
						sizes = append(sizes, [2]int{len(c.buf), int(c.reserve)})
					}
					if c := r.out[p].credits; c != nil {
						sizes = append(sizes, [2]int{len(c.buf), int(c.reserve)})
					}
					for _, sz := range sizes {
						n, reserve := sz[0], sz[1]
						if reserve == 0 || n > reserve {
							t.Errorf("%s port %d: channel buffer %d, reserved %d", r.Name, p, n, reserve)
						}
						if n > 0 {
							used++
						}
					}
				}
			}
			if used == 0 {
				t.Fatal("no channel was used; the test exercises nothing")
			}
		})
	}
}
