package scenarios

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"nocsim/config"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/traffic"
	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/mpi/chrome"
	"nocsim/mpi/trace"
)

// sectionOf maps a key to its section, for error messages.
func sectionOf(key string) string {
	for _, s := range Sections() {
		for _, k := range s.Keys {
			if k.Name == key {
				return s.Name
			}
		}
	}
	return "network"
}

// Section is one section of a scenario file and its keys.
type Section struct {
	Name string
	Keys []config.Key
}

// Sections lists every section with its keys, in file order.
func Sections() []Section {
	return []Section{{"network", NetworkKeys()}, {"node", endpoint.CPUKeys}, {"mpi", mpi.Keys}, {"noc", NocKeys}}
}

func where(src Source, key string) string {
	if src == nil {
		return key
	}
	return src(sectionOf(key), key)
}

// explain rewrites a KeyError to name where the value came from.
func explain(err error, src Source) error {
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
		return nil, explain(err, src)
	}
	topo, err := sc.Network.Topology()
	if err != nil {
		return nil, explain(err, src)
	}
	if err := sc.Network.checkPreset(); err != nil {
		return nil, explain(err, src)
	}
	n := sc.Noc
	if len(n.Traffic) == 0 {
		return nil, explain(&config.KeyError{Key: "traffic", Value: "[]", Allowed: "one or more of " + strings.Join(mesh.PatternNames, ", ")}, src)
	}
	if len(n.Rates) == 0 {
		return nil, explain(&config.KeyError{Key: "rates", Value: "[]", Allowed: "one or more offered loads in flits/node/cycle"}, src)
	}
	if slices.Contains(n.Traffic, "hotspot") {
		if len(n.HotspotNodes) == 0 {
			return nil, explain(&config.KeyError{Key: "hotspot_nodes", Value: "[]", Allowed: fmt.Sprintf("one or more node ids in 0..%d", m.Nodes()-1)}, src)
		}
		for _, h := range n.HotspotNodes {
			if h < 0 || h >= m.Nodes() {
				return nil, explain(&config.KeyError{Key: "hotspot_nodes", Value: fmt.Sprint(h), Allowed: fmt.Sprintf("node ids 0..%d", m.Nodes()-1)}, src)
			}
		}
		if f := n.HotspotFraction; !(f >= 0 && f <= 1) {
			return nil, explain(&config.KeyError{Key: "hotspot_fraction", Value: fmt.Sprint(f), Allowed: "0..1"}, src)
		}
	}
	if n.Seed < 0 {
		return nil, explain(&config.KeyError{Key: "seed", Value: fmt.Sprint(n.Seed), Allowed: "0..2^63-1"}, src)
	}
	// A packet created at the end of the window needs at least the longest
	// zero-load latency to arrive; a shorter drain would report it lost
	// and the point saturated whatever the load.
	if diam := diameter(topo); n.PacketFlits >= 1 {
		if need := sc.Network.RouterSpec.ZeroLoad(topo, diam, n.PacketFlits); n.DrainCycles >= 0 && n.DrainCycles < need {
			return nil, explain(&config.KeyError{Key: "drain_cycles", Value: fmt.Sprint(n.DrainCycles),
				Allowed: fmt.Sprintf("at least %d on a %s (the zero-load latency of a %d-flit packet over its %d-hop diameter), so that measured packets can arrive", need, describeTopo(topo), n.PacketFlits, diam)}, src)
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
				Warmup: des.Time(n.WarmupCycles), Measure: des.Time(n.MeasureCycles),
				DrainMax: des.Time(n.DrainCycles), Watchdog: des.Time(n.WatchdogCycles),
				Seed: uint64(n.Seed),
			}
			if err := p.Validate(); err != nil {
				return nil, explain(err, src)
			}
			pts = append(pts, p)
		}
	}
	return pts, nil
}

// RunOptions controls how a sweep is run. Results never depend on them.
type RunOptions struct {
	Workers  int                   // parallel points; 0 means GOMAXPROCS
	Progress func(done, total int) // called after each point, serialised
	// Record, when set, makes every flit-level MPI run record its
	// communication and hands the trace over with the point's name once
	// the point has run; it may be called from parallel workers.
	Record func(point string, t *trace.Trace)
	// Speed, when set, makes Scenario.Run measure its speed from the
	// meter's start and write it into meta.json and Summary.Speed.
	Speed *SpeedMeter
	// Trace, when set, gets a Chrome trace of every flit-level MPI run,
	// one process per point in point order (coll, app, pingpong).
	Trace *chrome.TraceSet
}

// RunNoc simulates every point, in parallel across points (never inside
// one), and returns the results in point order. If any point fails, the
// error of the first failing point in order is returned.
func RunNoc(pts []traffic.Synthetic, opt RunOptions) ([]traffic.SynthResult, error) {
	res := make([]traffic.SynthResult, len(pts))
	errs := make([]error, len(pts))
	err := forEach(len(pts), opt, func(i int) error {
		res[i], errs[i] = pts[i].Run()
		if errs[i] != nil {
			errs[i] = fmt.Errorf("point %d (%s at %v flits/node/cycle): %w", i+1, pts[i].Pattern.Name(), pts[i].Rate, errs[i])
		}
		return errs[i]
	})
	if err != nil {
		for _, e := range errs {
			if e != nil {
				return nil, e
			}
		}
	}
	return res, nil
}

// forEach runs fn(0..n-1) on a pool of workers.
func forEach(n int, opt RunOptions, fn func(i int) error) error {
	w := opt.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = min(w, n)
	next := make(chan int)
	var mu sync.Mutex
	var errs []error
	done := 0
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				err := fn(i)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				done++
				if opt.Progress != nil {
					opt.Progress(done, n)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(slices.Clip(errs)...)
}
