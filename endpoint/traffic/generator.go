package traffic

import (
	"math"
	"math/rand/v2"
	"slices"

	"nocsim/des"
	"nocsim/endpoint"
)

// generator creates packets at every tile as independent processes
// (Bernoulli or on/off), drawing gaps so that an idle cycle costs nothing,
// and, for request-reply traffic, answers every request.
type generator struct {
	s    *Synthetic
	f    *endpoint.Fabric
	eng  *des.Engine
	rng  *rand.Rand
	logq float64 // ln(1-p), p the per-cycle packet probability
	p    float64
	on   bool
	// onOff is set for an on_off point: chain is its Markov chain and
	// onLeft, per source, the on cycles left after its last packet.
	onOff  bool
	chain  chain
	onLeft []des.Time
	// cum is the size mix's cumulative probabilities (nil: every packet
	// is PacketFlits long); sizeCounts counts the measured packets of each.
	cum        []float64
	sizeCounts []int
	// replyFlits > 0 makes every packet a request answered by a reply;
	// reply and born, indexed by packet id (ids are recycled, so these
	// grow to the most packets ever live, not with the run), tell a reply
	// from a request and when a reply's request was created.
	replyFlits int
	reply      []bool
	born       []des.Time
	delivered  endpoint.Packet // the copy answer hands back, reused

	mStart  des.Time
	mEnd    des.Time
	end     des.Time // last cycle the run can reach
	created int      // packets (requests) created in the window
	flits   int64    // their flits
	pending int      // measured packets and replies not yet delivered
	watch   *watcher // nil unless packets are watched
}

// gap draws the cycles to a Bernoulli tile's next packet; false means
// none before the run ends (tiny rates make gaps too long for any clock).
func (g *generator) gap() (des.Time, bool) {
	if g.p >= 1 {
		return 1, true
	}
	u := 1 - g.rng.Float64() // (0,1]
	d := 1 + math.Floor(math.Log(u)/g.logq)
	if !(d <= float64(g.end)) {
		return 0, false
	}
	return des.Time(d), true
}

// next is the cycle of tile src's packet after the one at now.
func (g *generator) next(src int, now des.Time) (des.Time, bool) {
	if g.onOff {
		return g.onOffNext(src, now)
	}
	d, ok := g.gap()
	return now + d, ok
}

// size draws a packet's length from the mix, and its index.
func (g *generator) size() (int, int) {
	// Size i takes u in [cum[i-1], cum[i]); the last takes whatever
	// rounding leaves below 1. A mix has few sizes: a scan is enough.
	u := g.rng.Float64()
	i := 0
	for i < len(g.cum)-1 && u >= g.cum[i] {
		i++
	}
	return g.s.PacketSizes[i], i
}

// Handle creates one packet at tile arg and schedules the tile's next one.
func (g *generator) Handle(now des.Time, arg int64) {
	if !g.on {
		return
	}
	src := int(arg)
	dst := g.s.Pattern.Dest(src, g.rng)
	flits, which := g.s.PacketFlits, -1
	if g.cum != nil {
		flits, which = g.size()
	}
	pk := g.f.SendSynthetic(src, dst, flits, now)
	if g.watch != nil {
		g.watch.created(pk, now)
	}
	if now >= g.mStart && now < g.mEnd {
		pk.Measured = true
		g.created++
		g.flits += int64(flits)
		g.pending++
		if which >= 0 {
			g.sizeCounts[which]++
		}
	}
	if g.replyFlits > 0 {
		g.mark(pk.ID, false, 0)
	}
	if t, ok := g.next(src, now); ok {
		g.eng.Schedule(t, g, arg)
	}
}

// mark records whether packet id is a reply, and its request's creation.
func (g *generator) mark(id int32, reply bool, born des.Time) {
	if int(id) >= len(g.reply) {
		n := int(id) + 1
		g.reply = slices.Grow(g.reply, n-len(g.reply))[:n]
		g.born = slices.Grow(g.born, n-len(g.born))[:n]
	}
	g.reply[id], g.born[id] = reply, born
}

// answer handles the delivery of p at now for request-reply traffic: a
// request makes its destination send the reply back, measured when the
// request was (as BookSim waits for the replies of measured requests), at
// the delivering NIU's own tick, so the visiting order cannot change when
// it leaves. It returns a copy of p (sending may move the packet table p
// points into; kept in the generator, so no delivery allocates), whether p is a reply, and a reply's request's creation.
func (g *generator) answer(p *endpoint.Packet, now des.Time) (*endpoint.Packet, bool, des.Time) {
	g.delivered = *p
	pk := &g.delivered
	if g.reply[pk.ID] {
		return pk, true, g.born[pk.ID]
	}
	rp := g.f.SendSynthetic(int(pk.Dst), int(pk.Src), g.replyFlits, now)
	if g.watch != nil {
		g.watch.created(rp, now)
	}
	g.mark(rp.ID, true, pk.Created)
	if pk.Measured {
		rp.Measured = true
		g.pending++
	}
	return pk, false, 0
}

// startSources makes the packet generator of the run and schedules each of
// the n tiles' first packet, in tile order (the order draws the seed's
// random numbers in).
func (s *Synthetic) startSources(f *endpoint.Fabric, eng *des.Engine, n int) *generator {
	g := &generator{s: s, f: f, eng: eng, rng: rand.New(rand.NewPCG(s.Seed, 0xda7a)),
		p: s.Rate / s.MeanPacketFlits(), on: s.Rate > 0, replyFlits: s.ReplyFlits,
		mStart: s.Warmup, mEnd: s.Warmup + s.Measure, end: s.Warmup + s.Measure + s.DrainMax}
	g.logq = math.Log1p(-g.p)
	if len(s.PacketSizes) > 0 {
		g.sizeCounts = make([]int, len(s.PacketSizes))
		acc := 0.0
		for _, w := range s.SizeShares() {
			acc += w
			g.cum = append(g.cum, acc)
		}
	}
	if b, ok := s.Burst(); ok {
		g.onOff, g.chain, g.onLeft = true, newChain(b), make([]des.Time, n)
	}
	if !g.on {
		return g
	}
	for i := 0; i < n; i++ {
		if g.onOff {
			if t, ok := g.onOffFirst(i); ok {
				eng.Schedule(t, g, int64(i))
			}
		} else if d, ok := g.gap(); ok {
			eng.Schedule(d-1, g, int64(i))
		}
	}
	return g
}
