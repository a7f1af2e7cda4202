package traffic

import (
	"reflect"
	"testing"

	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

// A sampled run: the windows tile the run from cycle 0 to its end, their
// counts add up to the run's (every flit ejected, every link's flits, the
// packets delivered and their latencies against the measured window's
// own), and sampling changes no result.
func TestSamplesConserve(t *testing.T) {
	m, _ := mesh.New(4, 4)
	pat, err := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	if err != nil {
		t.Fatal(err)
	}
	base := Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(), Pattern: pat, Rate: 0.3,
		PacketFlits: 4, Warmup: 300, Measure: 2000, DrainMax: 2000, Watchdog: 1000, Seed: 9}
	plain, err := base.Run()
	if err != nil {
		t.Fatal(err)
	}
	s := base
	s.Sample = 97 // not a divisor of the phases: windows straddle them
	got, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	samples := got.Samples
	// The sampler's own events are the engine's too: one a window but
	// the last, which the run's end closes.
	if n := got.Events - plain.Events; n != uint64(len(samples)-1) {
		t.Errorf("sampling added %d events for %d windows, want one a window but the last", n, len(samples))
	}
	got.Samples, got.WallSeconds, plain.WallSeconds, got.Events, plain.Events = nil, 0, 0, 0, 0
	if !reflect.DeepEqual(got, plain) {
		t.Fatalf("sampling changed the result:\n%+v\nwant\n%+v", got, plain)
	}
	if len(samples) == 0 || samples[0].Start != 0 || samples[len(samples)-1].End != plain.Cycles {
		t.Fatalf("%d windows from %v to %v, want windows from 0 to the run's end %d", len(samples), samples[0].Start, samples[len(samples)-1].End, plain.Cycles)
	}
	var ejected uint64
	var delivered int
	links := make([]uint64, len(samples[0].Links))
	for i, w := range samples {
		if i > 0 && w.Start != samples[i-1].End {
			t.Fatalf("window %d starts at %d, the last ended at %d", i, w.Start, samples[i-1].End)
		}
		if w.End-w.Start > s.Sample {
			t.Errorf("window %d spans %d cycles, more than %d", i, w.End-w.Start, s.Sample)
		}
		ejected += w.EjectedFlits
		delivered += w.Delivered
		for k, n := range w.Links {
			links[k] += n
		}
	}
	// Every flit through a switch leaves by a link or toward its NIU:
	// the windows' link flits and ejections are the run's traversals
	// but for the flits switched toward an NIU and not yet taken, which
	// the network still holds at the end.
	var carried uint64
	for _, n := range links {
		carried += n
	}
	last := samples[len(samples)-1]
	if d := int64(plain.FlitHops) - int64(carried+ejected); d < 0 || d > int64(last.InFlightFlits) {
		t.Errorf("windows: %d link flits + %d ejected, the run's switch traversals %d, %d flits held at the end", carried, ejected, plain.FlitHops, last.InFlightFlits)
	}
	var want uint64
	for _, l := range plain.Links {
		for _, n := range l.VCFlits {
			want += n
		}
	}
	if delivered < plain.Delivered {
		t.Errorf("windows deliver %d packets, fewer than the %d measured", delivered, plain.Delivered)
	}
	var sum uint64
	for _, n := range links {
		sum += n
	}
	if sum < want {
		t.Errorf("windows carry %d link flits, fewer than the measured window's %d", sum, want)
	}
}
