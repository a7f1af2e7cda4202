package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"nocsim/config"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/traffic"
	"nocsim/mesh"
	"nocsim/mpi"
)

// sectionOf maps a key to its section, for error messages.
func sectionOf(key string) string {
	if s, ok := KeySection(key); ok {
		return s
	}
	return "network"
}

// KeySection is the section that holds a configuration key; false when
// no section does (a command's own flag, a [workload] key).
func KeySection(key string) (string, bool) {
	for _, s := range Sections() {
		for _, k := range s.Keys {
			if k.Name == key {
				return s.Name, true
			}
		}
	}
	return "", false
}

// Section is one section of a scenario file and its keys.
type Section struct {
	Name string
	Keys []config.Key
}

// Sections lists every section with its keys, in file order.
func Sections() []Section {
	return []Section{{"network", NetworkKeys()}, {"node", endpoint.CPUKeys}, {"mpi", mpi.Keys}, {"noc", NocKeys}, {"energy", EnergyKeys}}
}

func where(src Source, key string) string {
	if src == nil {
		return key
	}
	return src(sectionOf(key), key)
}

// Explain rewrites a KeyError to name where the value came from.
func Explain(err error, src Source) error {
	var ke *config.KeyError
	if src == nil || !errors.As(err, &ke) {
		return err
	}
	return fmt.Errorf("%s = %s: allowed %s", where(src, ke.Key), ke.Value, ke.Allowed)
}

// NocPoints validates the scenario's [network] and [noc] sections and
// returns one point per (traffic, rate), in that order. Nothing is
// simulated.
func (sc *Scenario) NocPoints(src Source) ([]traffic.Synthetic, error) {
	m, err := ParseMesh(sc.Network.Mesh)
	if err != nil {
		return nil, Explain(err, src)
	}
	topo, err := sc.Network.Topology()
	if err != nil {
		return nil, Explain(err, src)
	}
	if err := sc.Network.checkPreset(); err != nil {
		return nil, Explain(err, src)
	}
	if err := sc.checkEnergy(src); err != nil {
		return nil, err
	}
	n := sc.Noc
	if len(n.Traffic) == 0 {
		return nil, Explain(&config.KeyError{Key: "traffic", Value: "[]", Allowed: "one or more of " + strings.Join(mesh.PatternNames, ", ")}, src)
	}
	if len(n.Rates) == 0 {
		return nil, Explain(&config.KeyError{Key: "rates", Value: "[]", Allowed: "one or more offered loads in flits/node/cycle"}, src)
	}
	if slices.Contains(n.Traffic, "hotspot") {
		if len(n.HotspotNodes) == 0 {
			return nil, Explain(&config.KeyError{Key: "hotspot_nodes", Value: "[]", Allowed: fmt.Sprintf("one or more node ids in 0..%d", m.Nodes()-1)}, src)
		}
		for _, h := range n.HotspotNodes {
			if h < 0 || h >= m.Nodes() {
				return nil, Explain(&config.KeyError{Key: "hotspot_nodes", Value: fmt.Sprint(h), Allowed: fmt.Sprintf("node ids 0..%d", m.Nodes()-1)}, src)
			}
		}
		if f := n.HotspotFraction; !(f >= 0 && f <= 1) {
			return nil, Explain(&config.KeyError{Key: "hotspot_fraction", Value: fmt.Sprint(f), Allowed: "0..1"}, src)
		}
	}
	if n.Seed < 0 {
		return nil, Explain(&config.KeyError{Key: "seed", Value: fmt.Sprint(n.Seed), Allowed: "0..2^63-1"}, src)
	}
	// A packet created at the end of the window needs at least the longest
	// zero-load latency to arrive; a shorter drain would report it lost
	// and the point saturated whatever the load.
	longest := n.PacketFlits
	if len(n.PacketSizes) > 0 {
		longest = slices.Max(n.PacketSizes)
	}
	if diam := Diameter(topo); longest >= 1 {
		rs := sc.Network.RouterSpec
		need := rs.ZeroLoad(topo, diam, longest)
		what := fmt.Sprintf("the zero-load latency of a %d-flit packet over its %d-hop diameter", longest, diam)
		if n.ReplyFlits > 0 && n.ReplyFlits <= sc.Network.QueueFlits {
			// A request measured last must arrive and its reply return
			// (a reply too long for the NIU is Validate's to refuse).
			need += traffic.ReplyTurnaround + rs.ZeroLoad(topo, diam, n.ReplyFlits)
			what = fmt.Sprintf("the zero-load round trip of a %d-flit request and its %d-flit reply over its %d-hop diameter", longest, n.ReplyFlits, diam)
		}
		if n.DrainCycles >= 0 && n.DrainCycles < need {
			return nil, Explain(&config.KeyError{Key: "drain_cycles", Value: fmt.Sprint(n.DrainCycles),
				Allowed: fmt.Sprintf("at least %d on a %s (%s), so that measured packets can arrive", need, describeTopo(topo), what)}, src)
		}
	}
	var pts []traffic.Synthetic
	for _, name := range n.Traffic {
		pat, err := mesh.NewPattern(name, m, mesh.HotspotSpec{Nodes: n.HotspotNodes, Fraction: n.HotspotFraction})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where(src, "traffic"), err)
		}
		for _, r := range n.Rates {
			p := traffic.Synthetic{
				Mesh: m, Topo: topo, Router: sc.Network.RouterSpec, Endpoint: sc.Network.NodeSpec,
				Pattern: pat, Rate: r, PacketFlits: n.PacketFlits,
				Injection: n.Injection, BurstPackets: n.BurstPackets,
				PacketSizes: n.PacketSizes, SizeWeights: n.PacketSizeWeights, ReplyFlits: n.ReplyFlits,
				Warmup: des.Time(n.WarmupCycles), Measure: des.Time(n.MeasureCycles),
				DrainMax: des.Time(n.DrainCycles), Watchdog: des.Time(n.WatchdogCycles),
				Seed: uint64(n.Seed), Sample: des.Time(n.SampleCycles),
			}
			if sc.EnergyOn() {
				p.Energy = sc.EnergyParams()
			}
			if err := p.Validate(); err != nil {
				return nil, Explain(err, src)
			}
			pts = append(pts, p)
		}
	}
	return pts, nil
}
