package traffic

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"nocsim/config"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mesh/meshtest"
	"nocsim/router"
)

// onOffCounts runs the on_off process of b alone (no network) for sources
// sources and cycles cycles each, and returns every source's packet count
// per window of win cycles.
func onOffCounts(b Burst, seed uint64, sources int, cycles, win des.Time) []float64 {
	g := &generator{rng: rand.New(rand.NewPCG(seed, 1)), onOff: true, chain: newChain(b),
		onLeft: make([]des.Time, sources), end: cycles - 1}
	var counts []float64
	for src := range sources {
		c := make([]float64, cycles/win)
		t, ok := g.onOffFirst(src)
		for ok && t < cycles {
			c[t/win]++
			t, ok = g.onOffNext(src, t)
		}
		counts = append(counts, c...)
	}
	return counts
}

func meanVar(x []float64) (float64, float64) {
	var m, v float64
	for _, e := range x {
		m += e
	}
	m /= float64(len(x))
	for _, e := range x {
		v += (e - m) * (e - m)
	}
	return m, v / float64(len(x)-1)
}

// An on_off source creates packets at the offered rate (within five
// standard deviations of its count, the variance in closed form), and its
// counts per window are as bursty as the Markov chain says: their
// variance over mean, the index of dispersion, matches the closed form
// within 10% and exceeds a Bernoulli source's, which is below 1.
func TestOnOffRateAndDispersion(t *testing.T) {
	for _, c := range []struct {
		rate, meanFlits, inject, packets float64
	}{
		{0.2, 5, 2, 4},     // peak 0.4 packets/cycle
		{0.5, 5, 2, 8},     // long bursts
		{0.1, 1, 1, 2},     // 1-flit packets at one per cycle
		{0.05, 5, 1, 1.5},  // short, rare bursts
		{0.6, 3.5, 1, 20},  // a size mix's mean, near the bound
		{0.02, 8, 2, 1000}, // bursts longer than a window
	} {
		t.Run(fmt.Sprintf("rate=%v,flits=%v,burst=%v", c.rate, c.meanFlits, c.packets), func(t *testing.T) {
			rs := router.DefaultSpec()
			rs.InjectWidth = int(c.inject)
			peak := MaxRate(rs, c.meanFlits)
			if c.rate > MaxOnOffRate(peak, c.meanFlits, c.packets) {
				t.Fatalf("setup: rate %v above the on_off bound %v", c.rate, MaxOnOffRate(peak, c.meanFlits, c.packets))
			}
			p := c.rate / c.meanFlits
			b := burstFor(p, peak/c.meanFlits, c.packets)
			if math.Abs(b.On*b.OnShare()-p) > 1e-12 || math.Abs(b.On/b.Beta-c.packets) > 1e-9 {
				t.Fatalf("chain %+v: mean %v packets/cycle (want %v), %v packets per burst (want %v)", b, b.On*b.OnShare(), p, b.On/b.Beta, c.packets)
			}
			const sources, cycles, win = 32, 200_000, 500
			counts := onOffCounts(b, 7, sources, cycles, win)
			total := 0.0
			for _, x := range counts {
				total += x
			}
			want := p * sources * cycles
			sd := math.Sqrt(sources * b.CountVariance(cycles))
			if math.Abs(total-want) > 5*sd {
				t.Errorf("created %v packets, want %v +- %v (5 sd)", total, want, 5*sd)
			}
			m, v := meanVar(counts)
			got, wantD := v/m, b.CountVariance(win)/(p*win)
			t.Logf("index of dispersion %.3f, closed form %.3f, Bernoulli %.3f", got, wantD, 1-p)
			if math.Abs(got-wantD) > 0.1*wantD {
				t.Errorf("index of dispersion of %d-cycle counts %.3f, closed form %.3f", win, got, wantD)
			}
			if wantD <= 1 {
				t.Errorf("closed form %.3f: not burstier than Bernoulli (%.3f)", wantD, 1-p)
			}
		})
	}
}

// The closed-form count variance is the brute-force sum of the chain's
// covariances, and a chain with Alpha+Beta = 1 (memoryless: the next
// state ignores this one) is a Bernoulli source.
func TestBurstCountVariance(t *testing.T) {
	for _, b := range []Burst{{0.1, 0.3, 0.5}, {0.02, 0.05, 1}, {0.9, 0.4, 0.2}, {0.3, 0.7, 0.8}} {
		pi := b.OnShare()
		m := b.On * pi
		l := 1 - b.Alpha - b.Beta
		for _, n := range []int{1, 2, 7, 100} {
			want := float64(n) * m * (1 - m)
			for i := range n {
				for j := i + 1; j < n; j++ {
					want += 2 * b.On * b.On * pi * (1 - pi) * math.Pow(l, float64(j-i))
				}
			}
			if got := b.CountVariance(n); math.Abs(got-want) > 1e-9*want {
				t.Errorf("%+v over %d cycles: %v, brute force %v", b, n, got, want)
			}
		}
		if l == 0 && math.Abs(b.CountVariance(50)-50*m*(1-m)) > 1e-12 {
			t.Errorf("%+v: memoryless chain is not Bernoulli", b)
		}
	}
}

// smallPoint is a 4x4 uniform point for the process tests.
func smallPoint(t *testing.T, rate float64) Synthetic {
	t.Helper()
	m, _ := mesh.New(4, 4)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	return Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: rate,
		PacketFlits: 5, Warmup: 500, Measure: 20000, DrainMax: 5000, Watchdog: 2000, Seed: 11}
}

// A size mix's draws come out in the weights' shares (each within five
// binomial standard deviations), the generated rate is the offered one in
// flits (packets of the mix's mean length), and zero-load latency is
// averaged over the sizes per packet.
func TestPacketSizeMix(t *testing.T) {
	for _, c := range []struct {
		sizes   []int
		weights []float64
	}{
		{[]int{1, 5}, []float64{0.5, 0.5}},
		{[]int{1, 5}, nil}, // equal shares
		{[]int{2, 8, 16}, []float64{6, 3, 1}},
		{[]int{4, 1, 9}, []float64{0, 1, 3}}, // a size never drawn
	} {
		t.Run(fmt.Sprint(c.sizes, c.weights), func(t *testing.T) {
			s := smallPoint(t, 0.15)
			s.PacketSizes, s.SizeWeights = c.sizes, c.weights
			r, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			if r.Saturated {
				t.Fatalf("saturated: %s", r.SaturationReason)
			}
			shares := s.SizeShares()
			n := float64(r.Measured)
			flits, mean := 0.0, s.MeanPacketFlits()
			for i, k := range r.SizeCounts {
				sd := math.Sqrt(n * shares[i] * (1 - shares[i]))
				if math.Abs(float64(k)-n*shares[i]) > 5*sd+1e-9 {
					t.Errorf("size %d: %d of %v packets, want share %v (+- %v)", c.sizes[i], k, n, shares[i], 5*sd)
				}
				flits += float64(k * c.sizes[i])
			}
			if got := flits / n; math.Abs(got-mean) > 0.05*mean {
				t.Errorf("mean packet %v flits, want %v", got, mean)
			}
			// Packets per node-cycle are Bernoulli: binomial bound on them.
			cyc := float64(s.Measure) * 16
			pk := s.Rate / mean
			if sd := math.Sqrt(cyc * pk * (1 - pk)); math.Abs(n-cyc*pk) > 5*sd {
				t.Errorf("%v packets created, want %v +- %v", n, cyc*pk, 5*sd)
			}
			if math.Abs(r.GeneratedRate-flits/cyc) > 1e-12 {
				t.Errorf("generated %v flits/node/cycle, counted %v", r.GeneratedRate, flits/cyc)
			}
			want := 0.0
			for i, w := range shares {
				want += w * ZeroLoad(s.Mesh, s.Router, s.Pattern, c.sizes[i])
			}
			if math.Abs(r.ZeroLoadLatency-want) > 1e-9 {
				t.Errorf("zero-load %v, want %v", r.ZeroLoadLatency, want)
			}
		})
	}
}

// An on_off point in the network generates the offered rate: within five
// standard deviations of the chain's closed-form count variance.
func TestOnOffRunGeneratesOfferedRate(t *testing.T) {
	s := smallPoint(t, 0.2)
	s.Injection, s.BurstPackets = InjectOnOff, 6
	r, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Burst()
	cells := float64(s.Measure) * 16
	sd := math.Sqrt(16*b.CountVariance(int(s.Measure))) * 5 / cells // flits/node/cycle
	if math.Abs(r.GeneratedRate-s.Rate) > 5*sd {
		t.Errorf("generated %v flits/node/cycle, offered %v (+- %v)", r.GeneratedRate, s.Rate, 5*sd)
	}
	bern := smallPoint(t, 0.2)
	rb, err := bern.Run()
	if err != nil {
		t.Fatal(err)
	}
	// The same load in bursts waits longer at the source.
	if !(r.AvgPacketLatency > rb.AvgPacketLatency) {
		t.Errorf("on_off latency %v not above Bernoulli's %v at the same load", r.AvgPacketLatency, rb.AvgPacketLatency)
	}
}

// Request-reply: every reply answers exactly one delivered request (back
// to its source), every measured request is delivered with its reply, no
// round trip beats the two ways' zero-load latencies plus the turnaround,
// and at a light load the mean round trip is the analytic one.
func TestRequestReply(t *testing.T) {
	for _, c := range []struct {
		name       string
		topo       string
		rate       float64
		req, reply int
	}{
		{"mesh light", "mesh", 0.01, 1, 5},
		{"mesh loaded", "mesh", 0.12, 2, 4},
		{"ring_uni light", "ring_uni", 0.01, 5, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := smallPoint(t, c.rate)
			if c.topo == "ring_uni" {
				s.Mesh, _ = mesh.New(8, 1)
				s.Topo = meshtest.Ring(t, 8, true)
				s.Pattern, _ = mesh.NewPattern("uniform", s.Mesh, mesh.HotspotSpec{})
			}
			s.PacketFlits, s.ReplyFlits = c.req, c.reply
			topo := s.topo()
			type key struct {
				src, dst int32
				created  des.Time
			}
			requests := map[key]int{}
			answered := map[key]int{}
			var short []string
			s.onDeliver = func(p *endpoint.Packet, reply bool, born des.Time) {
				if !reply {
					requests[key{p.Src, p.Dst, p.Created}]++
					return
				}
				k := key{p.Dst, p.Src, born}
				answered[k]++
				if int(p.Len) != c.reply {
					t.Errorf("reply of %d flits, want %d", p.Len, c.reply)
				}
				min := s.Router.ZeroLoad(topo, topo.Hops(int(p.Dst), int(p.Src)), c.req) + ReplyTurnaround +
					s.Router.ZeroLoad(topo, topo.Hops(int(p.Src), int(p.Dst)), c.reply)
				if rtt := p.Done - born; rtt < min && len(short) < 5 {
					short = append(short, fmt.Sprintf("%d->%d round trip %d < %d", p.Dst, p.Src, rtt, min))
				}
			}
			r, err := s.Run()
			if err != nil {
				t.Fatal(err)
			}
			if r.Saturated {
				t.Fatalf("saturated: %s", r.SaturationReason)
			}
			for _, m := range short {
				t.Error(m)
			}
			for k, n := range answered {
				if n != 1 || requests[k] != 1 {
					t.Errorf("request %+v delivered %d times, answered %d times", k, requests[k], n)
				}
			}
			if r.Measured == 0 || r.Delivered != r.Measured || r.RepliesDelivered != r.Measured {
				t.Errorf("measured %d requests, delivered %d, replies delivered %d", r.Measured, r.Delivered, r.RepliesDelivered)
			}
			zl := s.ZeroLoadRoundTrip()
			if math.Abs(zl-(r.ZeroLoadLatency+ReplyTurnaround+ZeroLoadBack(topo, s.Router, s.Pattern, c.reply))) > 1e-9 {
				t.Errorf("zero-load round trip %v is not the two ways' sum", zl)
			}
			// Each round trip is a request's latency plus its reply's (plus
			// nothing: the reply is created when the request arrives).
			if math.Abs(r.AvgRoundTrip-(r.AvgPacketLatency+r.AvgReplyLatency)) > 1e-9*r.AvgRoundTrip {
				t.Errorf("round trip %v, the request's %v plus the reply's %v", r.AvgRoundTrip, r.AvgPacketLatency, r.AvgReplyLatency)
			}
			// The mean over the pairs drawn differs from the pattern's
			// by sampling alone at a light load (the per-packet bound
			// above is exact); a loaded network only adds to it.
			if c.rate <= 0.01 && math.Abs(r.AvgRoundTrip-zl) > 0.03*zl {
				t.Errorf("light load: round trip %v, zero-load %v: more than 3%% apart", r.AvgRoundTrip, zl)
			}
			if r.AvgRoundTrip < 0.97*zl {
				t.Errorf("round trip %v well below zero-load %v", r.AvgRoundTrip, zl)
			}
			if r.RoundTripP50 > r.RoundTripP99 || r.RoundTripP50 < zl/2 {
				t.Errorf("round-trip quantiles p50 %v p99 %v", r.RoundTripP50, r.RoundTripP99)
			}
		})
	}
}

// ZeroLoadBack's shortcut equals the brute-force mean over every pair's
// way back, on meshes, rings either way and a bus, for every pattern.
func TestZeroLoadBackMatchesBruteForce(t *testing.T) {
	rs := router.DefaultSpec()
	rs.RouteDelay, rs.LinkLatency = 2, 3
	m44, _ := mesh.New(4, 4)
	line, _ := mesh.New(8, 1)
	for _, c := range []struct {
		tiles mesh.Mesh
		topo  mesh.Topology
	}{{m44, m44}, {line, meshtest.Ring(t, 8, false)}, {line, meshtest.Ring(t, 8, true)}, {line, meshtest.Bus(t, 8)}} {
		for _, name := range mesh.PatternNames {
			p, err := mesh.NewPattern(name, c.tiles, mesh.HotspotSpec{Nodes: []int{0, 5}, Fraction: 0.3})
			if err != nil {
				continue
			}
			want := 0.0
			n := c.topo.Nodes()
			for s := range n {
				p.Dist(s, func(d int, w float64) { want += w * float64(rs.ZeroLoad(c.topo, c.topo.Hops(d, s), 3)) })
			}
			want /= float64(n)
			if got := ZeroLoadBack(c.topo, rs, p, 3); math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s %s: ZeroLoadBack %v, brute force %v", c.topo.Name(), name, got, want)
			}
		}
	}
}

// Every process, size mix and reply setting gives the same result, field
// for field, twice with one seed and with shuffled visiting order.
func TestProcessesDeterministic(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Synthetic)
	}{
		{"on_off", func(s *Synthetic) { s.Injection, s.BurstPackets = InjectOnOff, 3 }},
		{"size mix", func(s *Synthetic) { s.PacketSizes, s.SizeWeights = []int{1, 5}, []float64{0.3, 0.7} }},
		{"request-reply", func(s *Synthetic) { s.ReplyFlits = 4 }},
		{"all three", func(s *Synthetic) {
			s.Injection, s.BurstPackets, s.PacketSizes, s.ReplyFlits = InjectOnOff, 2.5, []int{2, 6}, 3
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(shuffle bool) SynthResult {
				s := smallPoint(t, 0.25)
				s.Measure, s.Shuffle = 2000, shuffle
				c.mod(&s)
				r, err := s.Run()
				if err != nil {
					t.Fatal(err)
				}
				r.WallSeconds, r.Ticks = 0, 0 // see TestSyntheticDeterministic
				return r
			}
			a, b, sh := run(false), run(false), run(true)
			if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) {
				t.Fatalf("same seed, different results:\n%+v\n%+v", a, b)
			}
			if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", sh) {
				t.Fatalf("shuffled visiting order changed the result:\n%+v\n%+v", a, sh)
			}
			if a.Delivered == 0 {
				t.Fatal("nothing measured")
			}
		})
	}
}

// Bad traffic settings are refused before simulating, with a one-line
// KeyError naming the key, the value and what is allowed.
func TestProcessValidateErrors(t *testing.T) {
	for _, c := range []struct {
		name, key, allowed string
		mod                func(*Synthetic)
	}{
		{"unknown injection", "injection", "bernoulli, on_off", func(s *Synthetic) { s.Injection = "poisson" }},
		{"on_off without burst", "burst_packets", "1..1e6 packets", func(s *Synthetic) { s.Injection = InjectOnOff }},
		{"burst below a packet", "burst_packets", "1..1e6 packets", func(s *Synthetic) { s.Injection, s.BurstPackets = InjectOnOff, 0.5 }},
		{"burst NaN", "burst_packets", "1..1e6 packets", func(s *Synthetic) { s.Injection, s.BurstPackets = InjectOnOff, math.NaN() }},
		{"burst without on_off", "burst_packets", "unless injection = on_off", func(s *Synthetic) { s.BurstPackets = 4 }},
		// Peak 2 flits/cycle (0.4 packets), bursts of 2 packets: beta 0.2,
		// so the load is at most 2/1.2 flits/node/cycle.
		{"on_off above its bound", "rates", "0..1.667 flits/node/cycle with injection on_off", func(s *Synthetic) {
			s.Injection, s.BurstPackets, s.Rate = InjectOnOff, 2, 1.7
		}},
		{"size 0", "packet_sizes", "1..64", func(s *Synthetic) { s.PacketSizes = []int{1, 0} }},
		{"size above the queue", "packet_sizes", "1..64", func(s *Synthetic) { s.PacketSizes = []int{65} }},
		{"weights without sizes", "packet_size_weights", "none without packet_sizes", func(s *Synthetic) { s.SizeWeights = []float64{1} }},
		{"weights too few", "packet_size_weights", "one weight per packet_sizes entry (2)", func(s *Synthetic) {
			s.PacketSizes, s.SizeWeights = []int{1, 5}, []float64{1}
		}},
		{"negative weight", "packet_size_weights", "finite weights >= 0", func(s *Synthetic) {
			s.PacketSizes, s.SizeWeights = []int{1, 5}, []float64{1, -1}
		}},
		{"zero weights", "packet_size_weights", "at least one above 0", func(s *Synthetic) {
			s.PacketSizes, s.SizeWeights = []int{1, 5}, []float64{0, 0}
		}},
		{"mix above one packet per cycle", "rates", "mix's mean 1.5 flits", func(s *Synthetic) {
			s.PacketSizes, s.Rate = []int{1, 2}, 1.6
		}},
		{"reply too long", "reply_flits", "0 (no replies) or 1..64", func(s *Synthetic) { s.ReplyFlits = 65 }},
		{"reply negative", "reply_flits", "0 (no replies) or 1..64", func(s *Synthetic) { s.ReplyFlits = -1 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := smallPoint(t, 0.1)
			c.mod(&s)
			err := s.Validate()
			var ke *config.KeyError
			if !errors.As(err, &ke) {
				t.Fatalf("got %v, want a KeyError", err)
			}
			if ke.Key != c.key || !strings.Contains(ke.Allowed, c.allowed) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %q, want key %s allowing %q, one line", err, c.key, c.allowed)
			}
		})
	}
	// The bound itself is allowed.
	s := smallPoint(t, MaxOnOffRate(2, 5, 2))
	s.Injection, s.BurstPackets = InjectOnOff, 2
	if err := s.Validate(); err != nil {
		t.Errorf("rate at the on_off bound: %v", err)
	}
}

// On/off bursts, a size mix and replies allocate nothing per event once
// the network is in steady state: per-source state and the reply tables
// are sized once (or grow to the most packets ever live).
func TestProcessesSteadyStateDoNotAllocate(t *testing.T) {
	m, _ := mesh.New(8, 8)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	// Below saturation with the replies' load added (0.12 of requests,
	// about as much again in replies).
	s := Synthetic{Mesh: m, Router: router.DefaultSpec(), Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: 0.12,
		Injection: InjectOnOff, BurstPackets: 3, PacketSizes: []int{2, 6}, ReplyFlits: 3,
		Warmup: 100000, Measure: 1, DrainMax: 5000, Watchdog: 10000, Seed: 5}
	// Bursts reach new high-water marks (a source queue, the most packets
	// live) now and then for longer than Bernoulli traffic does, each an
	// amortized growth, not a per-event allocation: the windows start at
	// cycle 80000, when such growth has become rarer than one per window.
	var mallocs [4]uint64
	var ms runtime.MemStats
	s.onStart = func(eng *des.Engine) {
		for i := range mallocs {
			eng.Schedule(des.Time(80000+5000*i), &phase{"count", func(des.Time) {
				runtime.ReadMemStats(&ms)
				mallocs[i] = ms.Mallocs
			}}, 0)
		}
	}
	if _, err := s.Run(); err != nil {
		t.Fatal(err)
	}
	// As steadyStateAllocs: one of three windows free of the runtime's
	// own allocations is enough; the simulator's would be in all three.
	best := mallocs[1] - mallocs[0]
	for i := 2; i < len(mallocs); i++ {
		best = min(best, mallocs[i]-mallocs[i-1])
	}
	if best != 0 {
		t.Fatalf("%d allocations in the quietest of three 5000-cycle steady-state windows, want 0", best)
	}
}
