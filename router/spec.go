package router

import (
	"strconv"
	"strings"

	"nocsim/config"
	"nocsim/des"
	"nocsim/mesh"
)

// Spec is the immutable router and channel configuration. Delays are in
// cycles, widths in flits per cycle, buffers in flits.
//
// LinkWidth (link_flits_per_cycle) is the network's rate relative to the
// processor: SCMP's network carries two flits per processor cycle. It is a
// channel width, not a faster network clock, because nocsim has one time
// base and its cycles are processor cycles. A network clock k times the
// processor's would need either the engine to tick in network cycles, and
// every processor, MPI and model cost outside this package to be scaled by
// k (and reported back in processor cycles), or router stages lasting 1/k
// of a cycle, which integer time cannot hold. A width keeps every time an
// integer processor cycle and every stage delay meaning what it says: a
// link, a switch input and output, and each virtual channel move up to k
// flits per cycle, and a worm streams k flits per cycle. What differs from
// a faster clock is the head's latency per hop, which stays the stage
// delays given (in whole processor cycles) instead of shrinking k-fold.
type Spec struct {
	VCs              int      `toml:"vcs"`
	VCBuf            int      `toml:"vc_buf"`
	RouteDelay       des.Time `toml:"route_delay"`
	VCAllocDelay     des.Time `toml:"vc_alloc_delay"`
	SwitchAllocDelay des.Time `toml:"switch_alloc_delay"`
	SwitchDelay      des.Time `toml:"switch_delay"`
	LinkLatency      des.Time `toml:"link_latency"`
	CreditDelay      des.Time `toml:"credit_delay"`
	LinkWidth        int      `toml:"link_flits_per_cycle"`
	InjectWidth      int      `toml:"inject_flits_per_cycle"`
	EjectWidth       int      `toml:"eject_flits_per_cycle"`
	InjectLatency    des.Time `toml:"inject_latency"`
	EjectLatency     des.Time `toml:"eject_latency"`
	VCAlloc          string   `toml:"vc_alloc"`
	Allocator        string   `toml:"allocator"`
	Routing          string   `toml:"routing"`
}

// VC allocation policies: which free output VC a head is granted.
const (
	// VCAllocRoundRobin rotates a per-output-port pointer over the VCs,
	// past each grant, as BookSim's rotating allocators do, so that
	// packets spread evenly over the VCs.
	VCAllocRoundRobin = "round_robin"
	// VCAllocLowest always grants the lowest-numbered free VC: the
	// simulator's original policy, kept to study the cost of piling
	// traffic onto VC0.
	VCAllocLowest = "lowest"
)

// Allocators: how heads are matched to output VCs and flits to the switch.
const (
	// AllocGreedy is nocsim's own: every waiting head gets a free output
	// VC while one is left (in round-robin order over the heads, the VC
	// chosen by vc_alloc), and the switch is separable input-first over
	// input VCs. Its VC allocation is a maximal matching.
	AllocGreedy = "greedy"
	// AllocISLIP is BookSim2's default vc_allocator and sw_allocator,
	// islip with alloc_iters = 1: a head requests every free output VC
	// it may take, output VCs grant and heads accept round-robin, with
	// iSLIP's pointer rule; the switch is matched the same way between
	// input and output ports, each input's request for an output coming
	// from its first VC in round-robin order that has a flit for it.
	AllocISLIP = "islip"
	// AllocSeparable is BookSim2's separable_input_first for both: each
	// head (input port) picks one output VC (output port) round-robin,
	// then each output grants one of those that picked it.
	AllocSeparable = "separable_input_first"
)

// AllocatorNames lists the allocator values, the default first.
var AllocatorNames = []string{AllocGreedy, AllocISLIP, AllocSeparable}

// The allocator kinds a router decides once (Router.alloc): the low bits
// (allocKindMask) name the allocator, allocAdaptive is set when heads may
// have a choice of port, so that every router of the default spec has
// alloc below allocISLIP and takes Tick's short path.
const (
	allocGreedyLowest uint8 = iota
	allocGreedyRotate
	allocISLIP
	allocSeparable
	allocKindMask       = 3
	allocAdaptive uint8 = 4
	// allocWide marks a router with more than mesh.NumPorts ports (a
	// concentrated mesh's): its extra local ports' flit signals share
	// bits with injSig (see receive), and it takes allocGeneral.
	allocWide uint8 = 8
)

// inVCBits is the input-VC indices a router's masks hold: the round-robin
// pointers over input VCs wrap at it. A pointer past a router's last input
// VC orders the requests as a pointer of 0 does (none lies at or above
// it), so one bound serves every port count.
const inVCBits = 64

func (s *Spec) allocKind() uint8 {
	var k uint8
	switch {
	case s.Allocator == AllocISLIP:
		k = allocISLIP
	case s.Allocator == AllocSeparable:
		k = allocSeparable
	case s.VCAlloc == VCAllocLowest:
		k = allocGreedyLowest
	default:
		k = allocGreedyRotate
	}
	if s.Routing == mesh.RoutingWestFirst || s.Routing == mesh.RoutingAdaptive {
		k |= allocAdaptive
	}
	return k
}

// DefaultSpec is SCMP-like: two VCs of eight flits, one cycle per pipeline
// stage and per link, and an NIU that injects two flits per cycle.
func DefaultSpec() Spec {
	return Spec{
		VCs: 2, VCBuf: 8,
		RouteDelay: 1, VCAllocDelay: 1, SwitchAllocDelay: 1, SwitchDelay: 1,
		LinkLatency: 1, CreditDelay: 1, LinkWidth: 1,
		InjectWidth: 2, EjectWidth: 2, InjectLatency: 1, EjectLatency: 1,
		VCAlloc: VCAllocRoundRobin, Allocator: AllocGreedy, Routing: mesh.RoutingXY,
	}
}

// Keys lists every router key with unit, default and allowed range; the
// ranges are the ones Validate checks.
var Keys = []config.Key{
	config.Range("vcs", "VCs per port", "2", 1, MaxVCs, "virtual channels per input port (5 ports x 12 VCs fit the router's 64-bit state masks)"),
	config.Range("vc_buf", "flits", "8", 1, 1024, "buffer depth of each virtual channel (also the NIU's ejection buffers)"),
	config.Range("route_delay", "cycles", "1", 0, 1000, "route computation stage"),
	config.Range("vc_alloc_delay", "cycles", "1", 0, 1000, "virtual-channel allocation stage"),
	config.Range("switch_alloc_delay", "cycles", "1", 0, 1000, "switch allocation stage"),
	config.Range("switch_delay", "cycles", "1", 0, 1000, "switch (crossbar) traversal stage"),
	config.Range("link_latency", "cycles", "1", 1, 1000, "router-to-router link traversal"),
	config.Range("credit_delay", "cycles", "1", 1, 1000, "credit return from a buffer to its upstream sender"),
	config.Range("link_flits_per_cycle", "flits/cycle", "1", 1, 16, "network rate: flits a router-to-router link, and each virtual channel through the switch, move per cycle (the thesis's SCMP: 2); the local ports keep their own widths"),
	config.Range("inject_flits_per_cycle", "flits/cycle", "2", 1, 16, "NIU injection bandwidth (width of the local input port)"),
	config.Range("eject_flits_per_cycle", "flits/cycle", "2", 1, 16, "NIU ejection bandwidth (width of the local output port)"),
	config.Range("inject_latency", "cycles", "1", 1, 1000, "NIU-to-router channel"),
	config.Range("eject_latency", "cycles", "1", 1, 1000, "router-to-NIU channel"),
	{Name: "vc_alloc", Unit: "policy", Default: VCAllocRoundRobin, Allowed: VCAllocRoundRobin + ", " + VCAllocLowest, Doc: "which free output VC a head gets under the greedy allocator: rotating per output port, or always the lowest (the original policy, for comparison)"},
	{Name: "routing", Unit: "name", Default: mesh.RoutingXY, Allowed: strings.Join(mesh.RoutingNames, ", "), Doc: "routing on a mesh: xy (dimension order), west_first (Glass and Ni's turn model, any VC), adaptive (minimal fully adaptive, VC 0 the XY escape network after Duato; needs vcs >= 2); ordered packets (MPI's) always go XY"},
	{Name: "allocator", Unit: "name", Default: AllocGreedy, Allowed: strings.Join(AllocatorNames, ", "), Doc: "VC and switch allocators: greedy (nocsim's: every waiting head gets a free output VC while one is left), or BookSim2's one-iteration islip or separable_input_first matchings (need every width 1)"},
}

// Validate checks every field against Keys.
func (s Spec) Validate() error {
	if err := config.CheckStruct(s, Keys); err != nil {
		return err
	}
	if s.VCAlloc != VCAllocRoundRobin && s.VCAlloc != VCAllocLowest {
		return &config.KeyError{Key: "vc_alloc", Value: strconv.Quote(s.VCAlloc), Allowed: VCAllocRoundRobin + ", " + VCAllocLowest}
	}
	switch s.Allocator {
	case AllocGreedy, "":
	case AllocISLIP, AllocSeparable:
		// BookSim's switch moves one flit per input and output port per
		// cycle (speedup 1), so its matchings are of ports, not flits.
		for _, w := range []struct {
			key string
			v   int
		}{{"link_flits_per_cycle", s.LinkWidth}, {"inject_flits_per_cycle", s.InjectWidth}, {"eject_flits_per_cycle", s.EjectWidth}} {
			if w.v != 1 {
				return &config.KeyError{Key: w.key, Value: strconv.Itoa(w.v), Allowed: "1 with allocator = " + s.Allocator + " (its switch matches ports, one flit each per cycle)"}
			}
		}
	default:
		return &config.KeyError{Key: "allocator", Value: strconv.Quote(s.Allocator), Allowed: strings.Join(AllocatorNames, ", ")}
	}
	switch s.Routing {
	case mesh.RoutingXY, "", mesh.RoutingWestFirst:
	case mesh.RoutingAdaptive:
		if s.VCs < 2 {
			return &config.KeyError{Key: "vcs", Value: strconv.Itoa(s.VCs), Allowed: "2 or more with routing = adaptive (VC 0 is the escape network, the others adaptive)"}
		}
	default:
		return &config.KeyError{Key: "routing", Value: strconv.Quote(s.Routing), Allowed: strings.Join(mesh.RoutingNames, ", ")}
	}
	return nil
}

// HopDelay is the time a head flit spends in one router before its link:
// route, VC allocation, switch allocation and switch traversal.
func (s Spec) HopDelay() des.Time {
	return s.RouteDelay + s.VCAllocDelay + s.SwitchAllocDelay + s.SwitchDelay
}

// StreamWidth is the rate, in flits per cycle, at which a lone worm
// streams end to end: link_flits_per_cycle, unless the NIU's injection or
// ejection port is narrower.
func (s Spec) StreamWidth() int {
	return min(s.linkWidth(), s.InjectWidth, s.EjectWidth)
}

// linkWidth is link_flits_per_cycle, where a zero (a Spec written as a
// literal, which Validate would refuse) means the default of one flit per
// cycle, as an empty vc_alloc means the default policy.
func (s Spec) linkWidth() int { return max(s.LinkWidth, 1) }

// ZeroLoadLatency is the latency of a lone packet of length flits over hops
// router-to-router links, from its creation at the source NIU to the
// ejection of its tail at the destination NIU:
//
//	T0 = inject_latency + (hops+1)*(route+vc_alloc+switch_alloc+switch)
//	     + hops*link_latency + eject_latency + ceil(length/w) - 1
//
// with w = StreamWidth(): the head crosses every stage, and the body
// follows w flits per cycle (at w = 1, length-1 cycles behind the head).
// It holds when each VC buffer covers the credit round trip (CreditLoop),
// so a worm streams at w flits per cycle, and when injection is not the
// only bottleneck (inject_flits_per_cycle >= min(link_flits_per_cycle,
// eject_flits_per_cycle)): a narrower injection feeds the body slower than
// the network carries it, the body catches up with the head's routing
// stages at every hop, and the tail arrives earlier than T0.
func (s Spec) ZeroLoadLatency(hops, length int) des.Time {
	h := des.Time(hops)
	w := s.StreamWidth()
	return s.InjectLatency + (h+1)*s.HopDelay() + h*s.LinkLatency + s.EjectLatency + des.Time((length+w-1)/w-1)
}

// CreditLoop is the buffer depth a VC needs so that a streaming worm never
// waits for credits: the time from a flit leaving a buffer's upstream
// sender to that slot's credit being back, for the slowest kind of channel,
// times the flits per cycle a worm streams at (StreamWidth), all of which
// are in that loop at once.
func (s Spec) CreditLoop() int {
	router := s.SwitchAllocDelay + s.SwitchDelay + max(s.LinkLatency, s.EjectLatency) + s.CreditDelay
	return int(max(router, s.InjectLatency+s.CreditDelay)) * s.StreamWidth()
}
