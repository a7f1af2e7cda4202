package traffic

import (
	"nocsim/des"
	"nocsim/endpoint"
)

// MaxSampleWindows bounds a run's sampled windows (Synthetic.Sample):
// each keeps a count per link, so the memory a series takes is bounded
// whatever the run's length.
const MaxSampleWindows = 10000

// Sample is the network over one sampling window of a run, warm-up and
// drain included: the flits the NIUs sent into the network and took
// out of it, the packets delivered and their mean latency (creation to
// tail ejection; 0 when none was), the flits held in the routers' buffers
// and links at the window's end (in all, and per router), and each
// router-to-router link's flits (Network.LinkCounts order).
type Sample struct {
	Start, End    des.Time // the window's cycles: [Start, End)
	InjectedFlits uint64
	EjectedFlits  uint64
	Delivered     int
	AvgLatency    float64
	InFlightFlits int
	Links         []uint64
	// Routers is the flits each router held at the window's end (none
	// on a bus).
	Routers []int
}

// sampler takes a Sample every period cycles; its event runs once per
// window, so a run without sampling schedules nothing and pays nothing.
type sampler struct {
	f          *endpoint.Fabric
	period     des.Time
	out        []Sample
	start      des.Time
	inj, ej    uint64
	links      []uint64 // cumulative link flits at the window's start
	delivered  int
	latencySum float64
}

func newSampler(f *endpoint.Fabric, period des.Time) *sampler {
	sp := &sampler{f: f, period: period}
	sp.inj, sp.ej = f.Flits()
	sp.links = f.Net.LinkCounts(nil)
	return sp
}

// deliver counts a packet delivered in the current window.
func (sp *sampler) deliver(p *endpoint.Packet) {
	sp.delivered++
	sp.latencySum += float64(p.Done - p.Created)
}

// Handle closes the window ending now and schedules the next.
func (sp *sampler) Handle(now des.Time, _ int64) {
	sp.take(now)
	if len(sp.out) < MaxSampleWindows {
		sp.f.Eng.Schedule(now+sp.period, sp, 0)
	}
}

// take closes the window ending at now.
func (sp *sampler) take(now des.Time) {
	if now <= sp.start {
		return
	}
	inj, ej := sp.f.Flits()
	s := Sample{Start: sp.start, End: now, InjectedFlits: inj - sp.inj, EjectedFlits: ej - sp.ej,
		Delivered: sp.delivered, InFlightFlits: sp.f.Net.Buffered()}
	if sp.delivered > 0 {
		s.AvgLatency = sp.latencySum / float64(sp.delivered)
	}
	for _, r := range sp.f.Net.Routers {
		s.Routers = append(s.Routers, r.Buffered())
	}
	cur := sp.f.Net.LinkCounts(nil)
	s.Links = make([]uint64, len(cur))
	for i := range cur {
		s.Links[i] = cur[i] - sp.links[i]
	}
	sp.out = append(sp.out, s)
	sp.start, sp.inj, sp.ej, sp.links = now, inj, ej, cur
	sp.delivered, sp.latencySum = 0, 0
}
