package endpoint

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// deliveries runs random traffic and logs every delivery (cycle, packet,
// route), optionally visiting routers in a random order each cycle.
func deliveries(t *testing.T, rs router.Spec, seed uint64, shuffle bool) string {
	m, _ := mesh.New(5, 4)
	eng := des.New()
	if shuffle {
		eng.ShuffleTicks(seed + 1000)
	}
	f := NewFabric(eng, m, rs, DefaultSpec())
	// A watchdog, so that a bug that strands a flit or a credit fails the
	// test with a report instead of spinning: a stuck NIU ticks for ever.
	eng.SetWatchdog(5000, f.Describe)
	var log []string
	f.OnDeliver = func(p *Packet, now des.Time) {
		log = append(log, fmt.Sprintf("%08d: %d->%d len %d created %d sent %d", now, p.Src, p.Dst, p.Len, p.Created, p.Sent))
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < 600; i++ {
		src, dst, length := r.IntN(20), r.IntN(20), 1+r.IntN(12)
		eng.Schedule(des.Time(r.IntN(300)), handlerFunc(func(now des.Time) { f.SendSynthetic(src, dst, length, now) }), 0)
	}
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	if f.Err() != nil {
		t.Fatal(f.Err())
	}
	// Deliveries in one cycle are logged in visiting order; the cycle each
	// happens in is what must not change.
	slices.Sort(log)
	return strings.Join(log, "\n")
}

// The order in which routers and NIUs are visited within a cycle never
// changes a result: every delivery happens at the same cycle either way.
func TestVisitingOrderDoesNotMatter(t *testing.T) {
	specs := []router.Spec{router.DefaultSpec()}
	s := router.DefaultSpec()
	s.VCs, s.VCBuf, s.RouteDelay, s.VCAllocDelay = 1, 2, 0, 0
	specs = append(specs, s)
	s = router.DefaultSpec()
	s.VCs, s.VCBuf, s.LinkLatency, s.CreditDelay, s.InjectWidth = 3, 4, 2, 3, 3
	specs = append(specs, s)
	for i, rs := range specs {
		for seed := uint64(1); seed <= 3; seed++ {
			plain := deliveries(t, rs, seed, false)
			if got := deliveries(t, rs, seed, true); got != plain {
				t.Fatalf("spec %d seed %d: shuffled visiting order changed the deliveries", i, seed)
			}
		}
	}
}
