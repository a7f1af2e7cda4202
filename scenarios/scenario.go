package scenarios

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"nocsim/config"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/router"
)

// RouterSpec and NodeSpec name the embedded specs apart; their keys sit
// flat in [network].
type (
	RouterSpec = router.Spec
	NodeSpec   = endpoint.Spec
)

// Network is the [network] section: the mesh, the router and the NIU.
type Network struct {
	Mesh string `toml:"mesh"`
	// Topo is how the tiles are joined (see Network.Topology).
	Topo string `toml:"topology"`
	// Preset names the router configuration the keys start from (see
	// router.Preset); keys written in the file or given as flags win.
	Preset string `toml:"preset"`
	RouterSpec
	NodeSpec
}

// Noc is the [noc] section: a synthetic-traffic sweep.
type Noc struct {
	Traffic     []string  `toml:"traffic"`
	Rates       []float64 `toml:"rates"`
	PacketFlits int       `toml:"packet_flits"`
	// The keys below are left out of a written scenario while unset (zero),
	// so that files and results from before they existed stay as they were.
	Injection         string    `toml:"injection,omitempty"`
	BurstPackets      float64   `toml:"burst_packets,omitzero"`
	PacketSizes       []int     `toml:"packet_sizes,omitempty"`
	PacketSizeWeights []float64 `toml:"packet_size_weights,omitempty"`
	ReplyFlits        int       `toml:"reply_flits,omitzero"`
	HotspotNodes      []int     `toml:"hotspot_nodes"`
	HotspotFraction   float64   `toml:"hotspot_fraction"`
	WarmupCycles      int64     `toml:"warmup_cycles"`
	MeasureCycles     int64     `toml:"measure_cycles"`
	DrainCycles       int64     `toml:"drain_cycles"`
	WatchdogCycles    int64     `toml:"watchdog_cycles"`
	Seed              int64     `toml:"seed"`
	SampleCycles      int64     `toml:"sample_cycles,omitzero"`
}

// Scenario is a whole scenario file.
type Scenario struct {
	Name     string           `toml:"name"`
	Network  Network          `toml:"network"`
	Node     endpoint.CPUSpec `toml:"node"`
	MPI      mpi.Config       `toml:"mpi"`
	Noc      Noc              `toml:"noc"`
	Energy   Energy           `toml:"energy"`
	Workload Workload         `toml:"workload"`
	Output   Output           `toml:"output"`
	Sweep    Sweep            `toml:"sweep"`

	dir string // the scenario file's directory, for relative paths
}

//go:embed default.toml
var defaultTOML string

// DefaultTOML is the embedded default scenario's text.
func DefaultTOML() string { return defaultTOML }

// Defaults is the configuration every scenario starts from; a file or flags
// override it key by key.
func Defaults() Scenario {
	return Scenario{
		Name:    "default",
		Network: Network{Mesh: "8x8", Topo: TopoMesh, Preset: router.PresetSCMP, RouterSpec: router.DefaultSpec(), NodeSpec: endpoint.DefaultSpec()},
		Node:    endpoint.DefaultCPUSpec(),
		MPI:     mpi.DefaultConfig(),
		Noc: Noc{Traffic: []string{"uniform"}, Rates: []float64{0.02, 0.1, 0.2, 0.3},
			PacketFlits: 5, HotspotFraction: 0.1,
			WarmupCycles: 2000, MeasureCycles: 10000, DrainCycles: 10000, WatchdogCycles: 10000, Seed: 1},
		Energy:   defaultEnergy(),
		Workload: defaultWorkload(),
		Output:   Output{Plots: true},
	}
}

// NocKeys documents the [noc] keys.
var NocKeys = []config.Key{
	{Name: "traffic", Unit: "pattern names", Default: "uniform", Allowed: strings.Join(mesh.PatternNames, ", "), Doc: "destination patterns to sweep"},
	{Name: "rates", Unit: "flits/node/cycle", Default: "0.02,0.1,0.2,0.3", Allowed: "above 0, up to min(inject_flits_per_cycle, mean packet length); with on_off also below the burst bound",
		Doc: "offered loads to sweep, in the packets the sources create (requests: replies come on top)"},
	{Name: "packet_flits", Unit: "flits", Default: "5", Allowed: "1..niu_queue_flits", Doc: "packet length (unless packet_sizes is set)"},
	{Name: "injection", Unit: "name", Default: "(unset: bernoulli)", Allowed: "bernoulli, on_off",
		Doc: "injection process: bernoulli (a packet each cycle with probability rate / packet length) or on_off (BookSim's bursty two-state Markov source, see burst_packets)"},
	{Name: "burst_packets", Unit: "packets", Default: "(none)", Allowed: "1..1e6, fractions allowed; only with injection on_off, which requires it",
		Doc: "on_off: mean packets per burst; a burst injects at the injection bandwidth (at most a packet per cycle), and off periods stretch so the mean load is the rate"},
	{Name: "packet_sizes", Unit: "flits", Default: "(none)", Allowed: "1..niu_queue_flits each",
		Doc: "packet lengths to mix, one drawn per packet (BookSim's packet_size); replaces packet_flits"},
	{Name: "packet_size_weights", Unit: "weights", Default: "(none: equal)", Allowed: "one per packet_sizes entry, each >= 0, not all 0",
		Doc: "relative frequency per packet of each packet_sizes entry, normalized (BookSim's packet_size_rate)"},
	{Name: "reply_flits", Unit: "flits", Default: "0", Allowed: "0 (no replies) or 1..niu_queue_flits",
		Doc: "request-reply traffic: each packet is a request whose arrival makes its destination send a reply of this length back; replies of measured requests are measured and waited for"},
	{Name: "hotspot_nodes", Unit: "node ids", Default: "(none)", Allowed: "0..W*H-1", Doc: "hotspot destinations (traffic hotspot)"},
	config.Range("hotspot_fraction", "fraction", "0.1", 0, 1, "share of packets sent to the hotspot nodes; the rest are uniform"),
	config.Range("warmup_cycles", "cycles", "2000", 0, 1e9, "simulated before measurement starts"),
	config.Range("measure_cycles", "cycles", "10000", 1, 1e9, "measurement window; packets created in it are measured"),
	config.Range("drain_cycles", "cycles", "10000", 0, 1e9, "most cycles to wait for measured packets after the window; at least the zero-load latency over the mesh diameter"),
	config.Range("watchdog_cycles", "cycles", "10000", 1, 1e9, "a run with flits in flight and no movement for this long ends with a deadlock report"),
	{Name: "seed", Unit: "integer", Default: "1", Allowed: "0..2^63-1", Lo: 0, Hi: math.MaxInt64, Bounded: true, Doc: "random seed; every point of a sweep uses it on a fresh network"},
	config.Range("sample_cycles", "cycles", "0", 0, 1e9, "sampling window: every this many cycles of each point's run, warm-up and drain included, the network's counts are kept as a time series (noc --samples, --sample-plot); 0 is off; at most 10000 windows a run"),
}

// NetworkKeys documents the [network] keys.
func NetworkKeys() []config.Key {
	keys := []config.Key{
		{Name: "mesh", Unit: "W x H tiles", Default: "8x8", Allowed: fmt.Sprintf("1..%d each", mesh.MaxDim), Doc: "mesh size; node id = y*W + x"},
		{Name: "topology", Unit: "name", Default: TopoMesh, Allowed: strings.Join(TopologyNames, ", "),
			Doc: fmt.Sprintf("how the W*H tiles are joined: a 2D mesh, a 2D torus (X then Y, each the shorter way, ties East and South; W and H up to %d), a concentrated mesh (cmesh: each 2x2 block of tiles shares one router with four local ports, the routers a W/2 x H/2 mesh routed X then Y; W and H even, vcs up to 8), a bidirectional ring (shorter way, ties clockwise), a unidirectional ring, or one shared bus; torus and rings need an even vcs; on a ring or bus node i is the i-th station", mesh.MaxTorusDim)},
		{Name: "preset", Unit: "name", Default: router.PresetSCMP, Allowed: strings.Join(router.PresetNames, ", "),
			Doc: "router settings the other keys start from: scmp (SCMP-like) or booksim (the router BookSim2 builds when its configuration sets nothing); keys set explicitly win"},
	}
	keys = append(keys, router.Keys...)
	for _, k := range endpoint.Keys {
		keys = append(keys, config.Key(k))
	}
	return keys
}

// ParseMesh reads "WxH".
func ParseMesh(s string) (mesh.Mesh, error) {
	w, h, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if !ok {
		return mesh.Mesh{}, &config.KeyError{Key: "mesh", Value: strconv.Quote(s), Allowed: "WxH, e.g. 8x8"}
	}
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil || wi < 1 || hi < 1 || wi > mesh.MaxDim || hi > mesh.MaxDim {
		return mesh.Mesh{}, &config.KeyError{Key: "mesh", Value: strconv.Quote(s), Allowed: fmt.Sprintf("WxH with 1 <= W, H <= %d", mesh.MaxDim)}
	}
	return mesh.New(wi, hi)
}

// Source tells where a key's value came from, so errors name what the user
// wrote: a flag, a file entry, or the built-in default.
type Source func(section, key string) string

// Decode reads a scenario from r over the defaults. Unknown keys are errors.
// The defaults are those of the file's [network] preset, if it names one.
func Decode(r io.Reader, name string) (Scenario, Source, error) {
	return DecodePreset(r, name, "")
}

// DecodePreset is Decode with the [network] preset given by the caller (a
// flag), unless preset is empty: the file's other keys still override the
// preset's values, and its own preset entry is replaced.
func DecodePreset(r io.Reader, name, preset string) (Scenario, Source, error) {
	sc := Defaults()
	data, err := io.ReadAll(r)
	if err != nil {
		return sc, nil, fmt.Errorf("%s: %w", name, err)
	}
	fromFile := preset == ""
	if fromFile {
		preset = router.PresetSCMP
		// A first pass finds the preset, so that the file is read over its
		// values; a file that does not decode fails in the second pass.
		var probe struct {
			Network struct {
				Preset *string `toml:"preset"`
			} `toml:"network"`
		}
		if _, err := toml.Decode(string(data), &probe); err == nil && probe.Network.Preset != nil {
			preset = *probe.Network.Preset
		}
	}
	spec, err := router.Preset(preset)
	if err != nil {
		if fromFile {
			return sc, nil, Explain(err, func(section, key string) string { return fmt.Sprintf("%s: [%s] %s", name, section, key) })
		}
		return sc, nil, err
	}
	sc.Network.Preset, sc.Network.RouterSpec = preset, spec
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&sc)
	if err != nil {
		return sc, nil, fmt.Errorf("%s: %w", name, err)
	}
	sc.Network.Preset = preset
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return sc, nil, fmt.Errorf("%s: unknown key %s (allowed sections: network, node, mpi, noc, energy, workload, output, sweep; see docs/configuration.md for their keys)", name, strings.Join(keys, ", "))
	}
	// The TOML decoder falls back to case-insensitive matching; keys here
	// are exact, as flags are.
	for _, k := range md.Keys() {
		if !exactKey(reflect.TypeOf(sc), k) {
			return sc, nil, fmt.Errorf("%s: unknown key %s (keys are lower case; see docs/configuration.md)", name, k.String())
		}
	}
	src := func(section, key string) string {
		if md.IsDefined(section, key) {
			return fmt.Sprintf("%s: [%s] %s", name, section, key)
		}
		if preset != router.PresetSCMP && section == "network" && slices.Contains(router.PresetKeys, key) {
			return fmt.Sprintf("preset %s [%s] %s", preset, section, key)
		}
		return fmt.Sprintf("default [%s] %s", section, key)
	}
	return sc, src, nil
}

// exactKey reports whether every part of key names a field's toml tag
// exactly, looking through embedded structs.
func exactKey(t reflect.Type, key toml.Key) bool {
	for _, part := range key {
		for t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			t = t.Elem() // arrays of tables, e.g. [[sweep.axis]]
		}
		if t.Kind() == reflect.Interface {
			return true // free-form values, e.g. an axis's values
		}
		f, ok := tagged(t, part)
		if !ok {
			return false
		}
		t = f.Type
	}
	return true
}

func tagged(t reflect.Type, tag string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			if g, ok := tagged(f.Type, tag); ok {
				return g, true
			}
		} else if config.TOMLName(f) == tag {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// Load decodes the embedded default scenario.
func Load() (Scenario, Source, error) {
	return Decode(strings.NewReader(defaultTOML), "embedded default scenario")
}
