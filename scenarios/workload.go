package scenarios

import (
	"bytes"
	"fmt"
	"nocsim/config"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// Workload is the [workload] section: what `nocsim run` does with the
// machine the other sections describe.
type Workload struct {
	Kind     string   `toml:"kind"`
	From     int      `toml:"from"`
	To       int      `toml:"to"`
	Sizes    []int    `toml:"sizes"`
	Reps     int      `toml:"reps"`
	Op       string   `toml:"op"`
	Algs     []string `toml:"algs"`
	Procs    []int    `toml:"procs"`
	Root     int      `toml:"root"`
	App      string   `toml:"app"`
	Variant  string   `toml:"variant"`
	Versions []string `toml:"versions"`
	AppSeed  int64    `toml:"app_seed"`
	// The thesis variants' options (apps/cg_thesis.go, apps/qr_thesis.go).
	Nonzeros   bool     `toml:"nonzeros"`
	Distribute []string `toml:"distribute"`
	Grid       string   `toml:"grid"`
	Params     string   `toml:"params"`
	Tier       string   `toml:"tier"`
	// Table is the thesis table a "thesis" workload reproduces.
	Table string `toml:"table"`
	// Pairs and Placement are the pairs benchmark's (pairs.go).
	Pairs     []int  `toml:"pairs"`
	Placement string `toml:"placement"`
	// Topologies runs the pairs study on each of these networks.
	Topologies []string `toml:"topologies"`
}

// Output is the [output] section.
type Output struct {
	Dir   string `toml:"dir"`
	Plots bool   `toml:"plots"`
	Goal  string `toml:"goal"`
}

// WorkloadKinds lists what a scenario file can run.
var WorkloadKinds = []string{"noc", "pingpong", "coll", "app", "calibrate", "thesis", "pairs"}

// Tiers a collective can run on: the flit-level chip, or the LogGOPS tier
// (a generated schedule simulated under LogGOPS rules), which reaches rank
// counts far past any mesh.
const (
	TierChip    = "chip"
	TierLogGOPS = "loggops"
)

// Tiers lists the tier names.
var Tiers = []string{TierChip, TierLogGOPS}

// WorkloadKeys documents the [workload] and [output] keys.
var WorkloadKeys = []config.Key{
	{Name: "kind", Unit: "name", Default: "noc", Allowed: strings.Join(WorkloadKinds, ", "), Doc: "noc: the [noc] sweep; pingpong, coll, app, thesis, pairs: as the commands of that name; calibrate: fit LogGP"},
	{Name: "from", Unit: "rank", Default: "0", Allowed: "0..P-1", Doc: "pingpong: sending rank"},
	{Name: "to", Unit: "rank", Default: "-1 (the last)", Allowed: "0..P-1, not from", Doc: "pingpong: echoing rank"},
	{Name: "sizes", Unit: "bytes or problem sizes", Default: "per kind", Allowed: "as the command's --sizes", Doc: "pingpong, coll, calibrate, pairs: message sizes; app: problem sizes"},
	{Name: "reps", Unit: "count", Default: "3", Allowed: "1..1000", Doc: "pingpong and calibrate: repetitions; pairs: transfers per pair per size"},
	{Name: "op", Unit: "name", Default: "bcast", Allowed: "as nocsim coll --op", Doc: "coll: the operation"},
	{Name: "algs", Unit: "names", Default: "auto", Allowed: "as nocsim coll --algs", Doc: "coll: algorithms"},
	{Name: "procs", Unit: "ranks", Default: "every tile", Allowed: "1..W*H each", Doc: "coll and app: rank counts"},
	{Name: "root", Unit: "rank", Default: "0", Allowed: "0..P-1", Doc: "coll: root"},
	{Name: "app", Unit: "name", Default: "cg", Allowed: "cg, qr, matmul, globalsum, halo", Doc: "app: the application"},
	{Name: "variant", Unit: "name", Default: "the first", Allowed: "cg: \"\" (3 Allreduces an iteration), thesis; qr: 1d, 2d, thesis; matmul: 1d, 2d; globalsum: serial, hypercube, breakeven, onesided, accumulate, rma; halo: compare, twosided, fence, pscw", Doc: "app: the variant (globalsum breakeven runs both methods and reports where the hypercube starts to win; globalsum rma and halo compare run every method, MPI only)"},
	{Name: "versions", Unit: "names", Default: "mpi, native", Allowed: "mpi, native", Doc: "app and pairs: versions"},
	{Name: "app_seed", Unit: "integer", Default: "1", Allowed: ">= 0", Doc: "app: seed of the generated problem"},
	{Name: "nonzeros", Unit: "bool", Default: "false", Allowed: "true, false (true with app cg only)", Doc: "app cg: sizes are nonzero counts (thesis table 5.1), each run with nonzeros/5 unknowns, as app --nonzeros"},
	{Name: "distribute", Unit: "names", Default: "bcast", Allowed: "bcast, alltoall (alltoall with app cg, variant thesis)", Doc: "app cg thesis, MPI version: DistributeP as a loop of packed Bcasts or one Alltoallw, as app --distribute"},
	{Name: "grid", Unit: "XxY", Default: "from procs", Allowed: "X*Y = every procs (app qr, variant thesis)", Doc: "app qr thesis: the processor grid, as app --grid"},
	{Name: "params", Unit: "file", Default: "(none)", Allowed: "a parameters file (nocsim calibrate --out) of the run's protocol; relative to the scenario file", Doc: "app: predict every MPI run on the LogGOPS tier from its recorded schedule (tier columns, tier.png), and matrix multiply by Hockney, as app --params; coll with tier loggops: the tier's parameters"},
	{Name: "tier", Unit: "name", Default: "chip", Allowed: "chip, loggops", Doc: "coll: chip (the flit-level simulation) or loggops (the algorithm's generated schedule on the LogGOPS tier with [workload] params; procs up to 2^24, past the mesh)"},
	{Name: "table", Unit: "name", Default: "5.1", Allowed: "5.1, 5.2", Doc: "thesis: the table to reproduce (procs and sizes, when given, select its rows), as nocsim thesis --table"},
	{Name: "pairs", Unit: "pairs", Default: "1, 2, 4, ... below P/2, and P/2", Allowed: "1..P/2 each", Doc: "pairs: concurrent sender-receiver pair counts, as pairs --pairs"},
	{Name: "placement", Unit: "name", Default: "neighbor", Allowed: "neighbor, across", Doc: "pairs: neighbor puts pair j on ranks 2j -> 2j+1 (Radke's i -> i+1), across on j -> j+P/2, as pairs --placement"},
	{Name: "topologies", Unit: "names", Default: "(the [network] topology)", Allowed: strings.Join(TopologyNames, ", "), Doc: "pairs: run the study on each of these networks over the same tiles and draw pairs-compare-VERSION.png, one line per network, as pairs --topologies"},
	{Name: "dir", Unit: "path", Default: "results/NAME", Allowed: "a directory, relative to the scenario file", Doc: "[output] where results, the effective configuration and charts go"},
	{Name: "plots", Unit: "bool", Default: "true", Allowed: "true, false", Doc: "[output] draw the charts"},
	{Name: "goal", Unit: "file name", Default: "(none)", Allowed: "a file name without directory; kinds pingpong, coll, app; not with [sweep]", Doc: "[output] record every MPI run as a GOAL schedule in the output directory: one file, or one per point (the point inserted before the extension) when the run has several"},
}

func defaultWorkload() Workload {
	return Workload{Kind: "noc", To: -1, Reps: 3, Op: "bcast", Algs: []string{"auto"}, App: "cg", Versions: []string{"mpi", "native"}, AppSeed: 1, Table: "5.1", Placement: "neighbor"}
}

// LoadFile decodes a scenario file; errors name the file and, for an
// unknown key, its line.
func LoadFile(path string) (Scenario, Source, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, nil, err
	}
	sc, src, err := Decode(bytes.NewReader(data), path)
	if err != nil {
		return sc, nil, withLine(err, data)
	}
	sc.dir = filepath.Dir(path)
	return sc, src, nil
}

var unknownKey = regexp.MustCompile(`unknown key ([A-Za-z0-9_.]+)`)

// withLine adds the line of an unknown key, which the TOML decoder does
// not report.
func withLine(err error, data []byte) error {
	m := unknownKey.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	parts := strings.Split(m[1], ".")
	key := parts[len(parts)-1]
	re := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(key) + `\s*=`)
	if loc := re.FindIndex(data); loc != nil {
		return fmt.Errorf("%w (line %d)", err, bytes.Count(data[:loc[0]], []byte("\n"))+1)
	}
	return err
}

// OutputDir is where a run writes, relative to the scenario file.
func (sc *Scenario) OutputDir() string {
	d := sc.Output.Dir
	if d == "" {
		d = filepath.Join("results", sc.Name)
	}
	if filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(sc.dir, d)
}

// EffectiveTOML is the scenario with every key, those left at their
// default or set by a non-default [network] preset marked with a trailing
// comment, and those the workload does not read marked unused (with the
// reason) instead: their values have no effect on the run.
func (sc *Scenario) EffectiveTOML(src Source) (string, error) {
	return sc.EffectiveTOMLMarking(src, true)
}

// EffectiveTOMLMarking marks unused keys only when asked: the default study runs
// several workloads on one configuration, so every key may be read.
func (sc *Scenario) EffectiveTOMLMarking(src Source, markUnused bool) (string, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(sc); err != nil {
		return "", err
	}
	var unused map[string]string
	if markUnused {
		unused = sc.UnusedKeys()
	}
	var out strings.Builder
	section := ""
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			section = strings.Trim(t, "[]")
		}
		if k, _, ok := strings.Cut(t, " = "); ok && section != "" {
			if why, ok := unused[section+"."+k]; ok {
				line += "  # unused: " + why
			} else if src != nil {
				switch from := src(section, k); {
				case strings.HasPrefix(from, "default"):
					line += "  # default"
				case strings.HasPrefix(from, "preset "):
					line += "  # " + strings.Join(strings.Fields(from)[:2], " ")
				}
			}
		}
		out.WriteString(line + "\n")
	}
	return out.String(), nil
}

// OnTier reports whether the scenario runs a coll workload on the LogGOPS
// tier ([workload] tier = "loggops") rather than on the chip.
func (sc *Scenario) OnTier() bool {
	return sc.Workload.Kind == "coll" && sc.Workload.Tier == TierLogGOPS
}

// RegistryOp maps an operation to the registry's name for its algorithms.
func RegistryOp(op string) string {
	if op == "exscan" {
		return "scan"
	}
	return op
}
