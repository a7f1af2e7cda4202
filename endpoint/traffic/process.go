package traffic

import (
	"fmt"
	"math"
	"strings"

	"nocsim/config"
	"nocsim/des"
	"nocsim/router"
)

// The injection processes a source can follow ([noc] injection).
const (
	// InjectBernoulli creates a packet in each cycle with the same
	// probability, independently: BookSim's injection_process = bernoulli.
	InjectBernoulli = "bernoulli"
	// InjectOnOff is BookSim's on_off process: a two-state Markov chain
	// per source, packets only in the on state.
	InjectOnOff = "on_off"
)

// InjectionNames lists the injection processes, the default first.
var InjectionNames = []string{InjectBernoulli, InjectOnOff}

// MaxBurstPackets bounds burst_packets: a mean burst longer than this is a
// Bernoulli source at the injection bandwidth for any window simulated.
const MaxBurstPackets = 1e6

// Burst is an on_off source's Markov chain in BookSim's terms: each cycle
// an off source turns on with probability Alpha (burst_alpha) and an on
// source turns off with probability Beta (burst_beta); then an on source
// creates a packet with probability On (BookSim's r1). Its stationary
// share of on cycles is Alpha/(Alpha+Beta), so its mean load is
// On*Alpha/(Alpha+Beta) packets per cycle.
type Burst struct {
	Alpha, Beta float64 // per cycle
	On          float64 // packets per cycle while on
}

// OnShare is the stationary probability that a source is on.
func (b Burst) OnShare() float64 { return b.Alpha / (b.Alpha + b.Beta) }

// OnCycles and OffCycles are the mean lengths of an on and an off period.
func (b Burst) OnCycles() float64  { return 1 / b.Beta }
func (b Burst) OffCycles() float64 { return 1 / b.Alpha }

// CountVariance is the variance of the number of packets one stationary
// source creates in t consecutive cycles, in closed form: a cycle's packet
// indicator has mean m = On*pi and variance m(1-m), and two cycles k apart
// covary by On^2 pi(1-pi) lambda^k, lambda = 1-Alpha-Beta being the chain's
// second eigenvalue. A Bernoulli source of the same mean has t*m(1-m); the
// excess is the burstiness.
func (b Burst) CountVariance(t int) float64 {
	pi := b.OnShare()
	m := b.On * pi
	l := 1 - b.Alpha - b.Beta
	T := float64(t)
	// sum over k = 1..t-1 of (t-k) l^k, summed in closed form.
	var s float64
	if l != 1 {
		s = l * (T*(1-l) - (1 - math.Pow(l, T))) / ((1 - l) * (1 - l))
	}
	return T*m*(1-m) + 2*b.On*b.On*pi*(1-pi)*s
}

// burstFor derives the chain from a mean load of p packets per cycle and a
// mean of packets per burst. A burst injects at the peak rate peak packets
// per cycle (the injection bandwidth, at most one packet per cycle), so
// that it is as dense as the NIU can send: a burst of that many packets
// lasts packets/peak cycles on average (Beta = peak/packets), and the off
// periods are as long as it takes the mean to come out at p. The chain
// exists while the mean off period is at least one cycle (Alpha <= 1).
func burstFor(p, peak, packets float64) Burst {
	b := Burst{Beta: peak / packets, On: peak}
	pi := p / peak
	b.Alpha = b.Beta * pi / (1 - pi)
	return b
}

// MaxOnOffRate is the highest load, in flits/node/cycle, an on_off source
// of mean packets per burst can offer: the peak rate maxRate (MaxRate)
// diluted by off periods of at least one cycle between bursts.
func MaxOnOffRate(maxRate, meanFlits, packets float64) float64 {
	return maxRate / (1 + maxRate/meanFlits/packets)
}

// Burst is the point's on_off chain; false for a Bernoulli point.
func (s *Synthetic) Burst() (Burst, bool) {
	if s.Injection != InjectOnOff {
		return Burst{}, false
	}
	mean := s.MeanPacketFlits()
	return burstFor(s.Rate/mean, MaxRate(s.Router, mean)/mean, s.BurstPackets), true
}

// MeanPacketFlits is the mean packet length, over the size mix if any.
func (s *Synthetic) MeanPacketFlits() float64 {
	if len(s.PacketSizes) == 0 {
		return float64(s.PacketFlits)
	}
	w := s.SizeShares()
	var m float64
	for i, n := range s.PacketSizes {
		m += w[i] * float64(n)
	}
	return m
}

// SizeShares is each packet size's probability: the weights normalized,
// equal when none are given (as BookSim's packet_size_rate).
func (s *Synthetic) SizeShares() []float64 {
	w := make([]float64, len(s.PacketSizes))
	var sum float64
	for i := range w {
		w[i] = 1
		if len(s.SizeWeights) > 0 {
			w[i] = s.SizeWeights[i]
		}
		sum += w[i]
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// maxPacketFlits is the longest packet a source can create.
func (s *Synthetic) maxPacketFlits() int {
	if len(s.PacketSizes) == 0 {
		return s.PacketFlits
	}
	return slicesMax(s.PacketSizes)
}

func slicesMax(v []int) int {
	m := v[0]
	for _, x := range v[1:] {
		m = max(m, x)
	}
	return m
}

// validateTraffic checks the injection process, the packet sizes and the
// replies; Validate checks the rest.
func (s *Synthetic) validateTraffic() error {
	bad := func(key string, v any, allowed string) error {
		return &config.KeyError{Key: key, Value: fmt.Sprint(v), Allowed: allowed}
	}
	q := s.Endpoint.QueueFlits
	fit := fmt.Sprintf("1..%d (a packet must fit the NIU queue, niu_queue_flits)", q)
	switch s.Injection {
	case "", InjectBernoulli:
		// A burst length set without on_off is refused rather than
		// ignored: the user meant bursts.
		if s.BurstPackets != 0 {
			return bad("burst_packets", s.BurstPackets, "0 (unset) unless injection = on_off")
		}
	case InjectOnOff:
		if !(s.BurstPackets >= 1 && s.BurstPackets <= MaxBurstPackets) {
			return bad("burst_packets", s.BurstPackets, fmt.Sprintf("1..%s packets, fractions allowed, with injection = on_off", config.Number(MaxBurstPackets)))
		}
	default:
		return bad("injection", fmt.Sprintf("%q", s.Injection), strings.Join(InjectionNames, ", "))
	}
	if len(s.PacketSizes) == 0 {
		if len(s.SizeWeights) > 0 {
			return bad("packet_size_weights", s.SizeWeights, "none without packet_sizes")
		}
		if s.PacketFlits < 1 || s.PacketFlits > q {
			return bad("packet_flits", s.PacketFlits, fit)
		}
	}
	for _, n := range s.PacketSizes {
		if n < 1 || n > q {
			return bad("packet_sizes", n, fit+" flits each")
		}
	}
	if len(s.SizeWeights) > 0 {
		if len(s.SizeWeights) != len(s.PacketSizes) {
			return bad("packet_size_weights", s.SizeWeights, fmt.Sprintf("one weight per packet_sizes entry (%d), or none for equal shares", len(s.PacketSizes)))
		}
		var sum float64
		for _, w := range s.SizeWeights {
			if !(w >= 0) || math.IsInf(w, 0) {
				return bad("packet_size_weights", w, "finite weights >= 0, at least one above 0")
			}
			sum += w
		}
		if !(sum > 0) {
			return bad("packet_size_weights", s.SizeWeights, "finite weights >= 0, at least one above 0")
		}
	}
	if s.ReplyFlits < 0 || s.ReplyFlits > q {
		return bad("reply_flits", s.ReplyFlits, fmt.Sprintf("0 (no replies) or 1..%d (a reply must fit the NIU queue, niu_queue_flits)", q))
	}
	return nil
}

// validateRate checks the offered load against what the process can
// create: the injection bandwidth and one packet per cycle, and for on_off
// also off periods of at least a cycle.
func (s *Synthetic) validateRate() error {
	mean := s.MeanPacketFlits()
	mx := MaxRate(s.Router, mean)
	what := "the injection bandwidth, and at most one packet per cycle"
	if len(s.PacketSizes) > 0 {
		what = fmt.Sprintf("the injection bandwidth, and at most one packet of the mix's mean %.4g flits per cycle", mean)
	}
	if !(s.Rate >= 0) || s.Rate > mx {
		return &config.KeyError{Key: "rates", Value: fmt.Sprint(s.Rate), Allowed: fmt.Sprintf("0..%v flits/node/cycle (%s)", mx, what)}
	}
	if s.Injection == InjectOnOff {
		if hi := MaxOnOffRate(mx, mean, s.BurstPackets); s.Rate > hi {
			return &config.KeyError{Key: "rates", Value: fmt.Sprint(s.Rate),
				Allowed: fmt.Sprintf("0..%.4g flits/node/cycle with injection on_off and burst_packets %v (bursts at %v flits/cycle need off periods of at least one cycle between them)", hi, s.BurstPackets, mx)}
		}
	}
	return nil
}

// MaxRate is the highest offered load a source can produce: the NIU's
// injection bandwidth, and one packet (of meanFlits on average) per cycle.
func MaxRate(rs router.Spec, meanFlits float64) float64 {
	return math.Min(float64(rs.InjectWidth), meanFlits)
}

// geometric draws the number of cycles up to and including the first
// success of a per-cycle probability p, given logq = ln(1-p); +Inf when
// it is too long for any clock. Drawing gaps rather than testing every
// cycle lets an idle source cost nothing.
func geometric(u, p, logq float64) float64 {
	if p >= 1 {
		return 1
	}
	return 1 + math.Floor(math.Log(u)/logq)
}

// chain is the on_off process's per-cycle probabilities with their
// ln(1-p), for geometric draws.
type chain struct {
	alpha, beta, on       float64
	logAlpha, logBeta, lq float64
}

func newChain(b Burst) chain {
	return chain{alpha: b.Alpha, beta: b.Beta, on: b.On,
		logAlpha: math.Log1p(-b.Alpha), logBeta: math.Log1p(-b.Beta), lq: math.Log1p(-b.On)}
}

// onOffNext is the cycle of source src's next packet after cycle t, at
// which the source was on with onLeft[src] more on cycles to come. It
// draws whole periods at a time, so idle cycles cost nothing: within the
// on cycles left, the next packet comes after a geometric gap (the chain
// is memoryless); when the gap overruns them, an off period and a fresh on
// period follow. False when no packet comes before the run's end.
func (g *generator) onOffNext(src int, t des.Time) (des.Time, bool) {
	c := &g.chain
	left := float64(g.onLeft[src])
	now := float64(t)
	for now <= float64(g.end) {
		d := geometric(1-g.rng.Float64(), c.on, c.lq)
		if d <= left {
			g.onLeft[src] = des.Time(left - d)
			return des.Time(now + d), true
		}
		now += left + geometric(1-g.rng.Float64(), c.alpha, c.logAlpha)
		left = geometric(1-g.rng.Float64(), c.beta, c.logBeta)
	}
	return 0, false
}

// onOffFirst is source src's first packet: the chain starts in its
// stationary state, on with probability pi, so that the warm-up has no
// transient of its own to outlast. An on source's remaining on period and
// an off source's remaining off period are geometric like whole ones.
func (g *generator) onOffFirst(src int) (des.Time, bool) {
	c := &g.chain
	t := -1.0 // the cycle before the first
	if g.rng.Float64() >= c.alpha/(c.alpha+c.beta) {
		t += geometric(1-g.rng.Float64(), c.alpha, c.logAlpha)
	}
	if t > float64(g.end) {
		return 0, false
	}
	left := geometric(1-g.rng.Float64(), c.beta, c.logBeta)
	g.onLeft[src] = des.Time(min(left, float64(g.end)+1))
	return g.onOffNext(src, des.Time(t))
}
