package traffic

import (
	"testing"

	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

// A light load in a window shorter than the network's latency: fewer flits
// are ejected during the window than created in it (the network is still
// filling), yet every measured packet is delivered at the offered rate, so
// the point is not saturated.
func TestShortWindowAllDeliveredIsNotSaturated(t *testing.T) {
	m, _ := mesh.New(16, 16)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	s := Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: 0.05,
		PacketFlits: 5, Warmup: 0, Measure: 40, DrainMax: 2000, Watchdog: 10000, Seed: 3}
	r, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	// The situation under test: all delivered, acceptance in the window
	// well short of generation.
	if r.Measured == 0 || r.Delivered != r.Measured || !(r.AcceptedRate < 0.95*r.GeneratedRate) {
		t.Fatalf("setup: delivered %d of %d, accepted %v of %v generated", r.Delivered, r.Measured, r.AcceptedRate, r.GeneratedRate)
	}
	if r.Saturated {
		t.Fatalf("saturated: %s", r.SaturationReason)
	}
	if r.OfferedRate != s.Rate {
		t.Fatalf("offered rate %v, configured %v", r.OfferedRate, s.Rate)
	}
}
