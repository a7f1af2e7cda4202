package scenarios

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"nocsim/config"
	"nocsim/plots"
)

// CheckConfig validates one scenario's configuration as `nocsim run`
// would run it (the [sweep] section and the workload's own keys and limits
// aside, which package study checks): the output names, the workload's
// kind, tier and seed, and the machine.
func (sc *Scenario) CheckConfig(src Source) error {
	w := sc.Workload
	if err := sc.checkOutputNames(src); err != nil {
		return err
	}
	if !slices.Contains(WorkloadKinds, w.Kind) {
		return ExplainWorkload(&config.KeyError{Key: "kind", Value: fmt.Sprintf("%q", w.Kind), Allowed: strings.Join(WorkloadKinds, ", ")}, src)
	}
	if w.Tier != "" && !slices.Contains(Tiers, w.Tier) {
		return ExplainWorkload(&config.KeyError{Key: "tier", Value: fmt.Sprintf("%q", w.Tier), Allowed: strings.Join(Tiers, ", ")}, src)
	}
	// Documented as >= 0 and read as unsigned: a negative seed would
	// silently be another, huge one.
	if w.AppSeed < 0 {
		return ExplainWorkload(&config.KeyError{Key: "app_seed", Value: fmt.Sprint(w.AppSeed), Allowed: ">= 0"}, src)
	}
	// The machine is checked for every workload: a bad value is an error
	// even where the workload does not read it (validate marks such keys
	// unused rather than effective).
	return sc.CheckMachine(src)
}

// checkNocKeys checks the [noc] keys that have a range of their own, for
// every workload: the watchdog guards every run, and the others must not
// hold a value a noc run would refuse.
func (sc *Scenario) checkNocKeys(src Source) error {
	n := sc.Noc
	if err := config.CheckStruct(n, NocKeys); err != nil {
		return Explain(err, src)
	}
	tiles := sc.Machine().Tiles()
	for _, h := range n.HotspotNodes {
		if h < 0 || h >= tiles {
			return Explain(&config.KeyError{Key: "hotspot_nodes", Value: fmt.Sprint(h), Allowed: fmt.Sprintf("node ids 0..%d", tiles-1)}, src)
		}
	}
	for _, r := range n.Rates {
		if !(r > 0) || math.IsInf(r, 0) {
			return Explain(&config.KeyError{Key: "rates", Value: fmt.Sprint(r), Allowed: "offered loads above 0 flits/node/cycle (a zero load measures nothing)"}, src)
		}
	}
	return nil
}

// workloadUses lists the [workload] keys each kind reads.
var workloadUses = map[string][]string{
	"noc":       {"kind"},
	"pingpong":  {"kind", "from", "to", "sizes", "reps"},
	"coll":      {"kind", "op", "algs", "procs", "sizes", "root", "tier"},
	"app":       {"kind", "app", "variant", "procs", "sizes", "versions", "app_seed", "params", "nonzeros", "distribute", "grid"},
	"calibrate": {"kind", "sizes", "reps"},
	"thesis":    {"kind", "table", "procs", "sizes", "distribute"},
	"pairs":     {"kind", "sizes", "reps", "versions", "pairs", "placement"},
}

// UnusedKeys lists the keys ("section.key") the scenario's workload does
// not read, each with the reason: validate and config.toml mark them, so
// that no value is shown as effective where it has no effect.
func (sc *Scenario) UnusedKeys() map[string]string {
	kind := sc.Workload.Kind
	out := map[string]string{}
	notRead := fmt.Sprintf("not read by workload kind %q", kind)
	for _, k := range WorkloadKeys {
		if k.Name == "dir" || k.Name == "plots" || k.Name == "goal" {
			continue
		}
		if !slices.Contains(workloadUses[kind], k.Name) {
			out["workload."+k.Name] = notRead
		}
	}
	if sc.OnTier() {
		// The tier simulates no chip: the machine describes nothing of it.
		for _, s := range Sections() {
			if s.Name == "network" || s.Name == "node" || s.Name == "mpi" || s.Name == "energy" {
				for _, k := range s.Keys {
					out[s.Name+"."+k.Name] = "the LogGOPS tier runs no chip ([workload] params gives its parameters)"
				}
			}
		}
		delete(out, "workload.params")
	} else if kind == "coll" {
		out["workload.params"] = "only the LogGOPS tier reads it (tier = \"loggops\")"
	}
	for _, s := range Sections() {
		for _, k := range s.Keys {
			switch {
			case kind == "noc" && s.Name == "node" && k.Name == "clock_hz" && sc.EnergyOn():
				// Energy turns the run's cycles into seconds with it.
			case kind == "noc" && (s.Name == "node" || s.Name == "mpi"):
				out[s.Name+"."+k.Name] = notRead + " (synthetic traffic has no processors or MPI)"
			case s.Name == "energy" && !slices.Contains(EnergyKinds, kind):
				out[s.Name+"."+k.Name] = notRead + " (the workloads that price energy: " + strings.Join(EnergyKinds, ", ") + ")"
			case kind == "noc" && s.Name == "energy" && k.Name != "energy_model" && !sc.EnergyOn():
				out[s.Name+"."+k.Name] = "no energy model (energy_model = none, or a bus)"
			case kind != "noc" && s.Name == "noc" && k.Name != "watchdog_cycles":
				out[s.Name+"."+k.Name] = notRead
			case kind == "noc" && s.Name == "noc" && strings.HasPrefix(k.Name, "hotspot_") && !slices.Contains(sc.Noc.Traffic, "hotspot"):
				out[s.Name+"."+k.Name] = "no hotspot traffic"
			case kind == "noc" && s.Name == "noc" && k.Name == "packet_flits" && len(sc.Noc.PacketSizes) > 0:
				out["noc.packet_flits"] = "packet_sizes sets the packet lengths"
			case (kind == "coll" || kind == "app") && s.Name == "mpi" && k.Name == "procs":
				out["mpi.procs"] = "[workload] procs sets the rank counts"
			case kind == "coll" && s.Name == "mpi" && k.Name == RegistryOp(sc.Workload.Op):
				out["mpi."+k.Name] = "[workload] algs chooses the algorithm"
			}
		}
	}
	return out
}

// maxSweepPoints bounds a sweep's expansion (points times repetitions), so
// that a typo in a range cannot ask for millions of runs.
const maxSweepPoints = 100000

// checkSweep validates the [sweep] section before its points are
// expanded: repetitions, and for each axis a section.key named once, and
// either values or a finite range from <= to with step > 0.
func (sc *Scenario) checkSweep() error {
	sw := sc.Sweep
	if sw.Reps < 0 || sw.Reps > 1000 {
		return fmt.Errorf("[sweep] reps = %d: allowed 1..1000 (0 means 1)", sw.Reps)
	}
	if (len(sw.Axis) > 0 || sw.Reps > 1) && !slices.Contains([]string{"noc", "pingpong", "coll", "app", "pairs"}, sc.Workload.Kind) {
		return fmt.Errorf("[sweep] with [workload] kind = %q: allowed kinds noc, pingpong, coll, app, pairs (a calibration is not swept)", sc.Workload.Kind)
	}
	seen := map[string]bool{}
	total := max(sw.Reps, 1)
	for i, a := range sw.Axis {
		sec, key, ok := strings.Cut(a.Key, ".")
		if ok && sec == "output" {
			// Every point of a sweep writes into the sweep's one directory
			// (points.jsonl), draws no chart of its own and records no
			// schedule: an [output] key has nothing to vary.
			return fmt.Errorf("[[sweep.axis]] %d key = %q: allowed keys of network, node, mpi, noc, energy or workload ([output] says where the whole sweep writes; set it once, outside the axes)", i+1, a.Key)
		}
		if !ok || !slices.Contains([]string{"network", "node", "mpi", "noc", "energy", "workload"}, sec) {
			return fmt.Errorf("[[sweep.axis]] %d key = %q: allowed section.key with section network, node, mpi, noc, energy or workload, e.g. network.vcs", i+1, a.Key)
		}
		probe := Defaults()
		if err := probe.Set(sec, key, "0"); err != nil && !isKeyError(err) {
			return fmt.Errorf("[[sweep.axis]] %d key = %q: %v", i+1, a.Key, err)
		}
		if seen[a.Key] {
			return fmt.Errorf("[[sweep.axis]] %d key = %q: allowed once per sweep (an earlier axis sets it)", i+1, a.Key)
		}
		seen[a.Key] = true
		ranged := a.From != 0 || a.To != 0 || a.Step != 0
		switch {
		case len(a.Values) > 0 && ranged:
			return fmt.Errorf("[[sweep.axis]] %s: give values or from/to/step, not both", a.Key)
		case len(a.Values) == 0:
			for _, v := range []float64{a.From, a.To, a.Step} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("[[sweep.axis]] %s: from, to and step must be finite numbers (got from %v to %v step %v)", a.Key, a.From, a.To, a.Step)
				}
			}
			if !(a.Step > 0) || a.To < a.From {
				return fmt.Errorf("[[sweep.axis]] %s: give values, or from <= to with step > 0 (got from %v to %v step %v)", a.Key, a.From, a.To, a.Step)
			}
			if (a.To-a.From)/a.Step > maxSweepPoints {
				return fmt.Errorf("[[sweep.axis]] %s: from %v to %v step %v gives more than %d values", a.Key, a.From, a.To, a.Step, maxSweepPoints)
			}
			total *= int((a.To-a.From)/a.Step) + 1
		default:
			total *= len(a.Values)
		}
		if total > maxSweepPoints {
			return fmt.Errorf("[sweep] expands to more than %d points (axes times reps): split it", maxSweepPoints)
		}
	}
	return nil
}

func isKeyError(err error) bool {
	_, ok := err.(*config.KeyError)
	return ok
}

// maxNameBytes is the most any name in a path may hold on common file
// systems (NAME_MAX).
const maxNameBytes = 255

// checkOutputNames checks the names a run writes under, before anything
// runs: the scenario's name is one directory inside results/ (never a way
// out of it, never empty, which would make results/ itself the run's
// directory), and every name on the way to the output directory, the
// staging directory's suffix included, fits the file system.
func (sc *Scenario) checkOutputNames(src Source) error {
	n := sc.Name
	switch {
	case n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\\\x00"):
		return fmt.Errorf("name = %q: allowed a plain name, without / or \\, not empty, . or .. (a run writes into results/NAME beside the scenario file, unless [output] dir says otherwise)", n)
	case len(n) > MaxResultNameBytes:
		return fmt.Errorf("name = %q (%d bytes): allowed at most %d bytes (the run's directory is staged as .NAME.incomplete-HOST.PID-N beside it, and a file name holds at most %d)", short(n), len(n), MaxResultNameBytes, maxNameBytes)
	}
	where := func(key string) string {
		if src == nil {
			return "[output] " + key
		}
		return src("output", key)
	}
	if d := sc.Output.Dir; d != "" {
		for _, part := range strings.Split(filepath.ToSlash(d), "/") {
			if len(part) > maxNameBytes {
				return fmt.Errorf("%s = %q: %q has %d bytes; allowed at most %d in each name of the path", where("dir"), short(d), short(part), len(part), maxNameBytes)
			}
		}
		if base := filepath.Base(sc.OutputDir()); len(base) > MaxResultNameBytes {
			return fmt.Errorf("%s = %q: its last name has %d bytes; allowed at most %d (the directory is staged as .NAME.incomplete-HOST.PID-N beside it)", where("dir"), short(d), len(base), MaxResultNameBytes)
		}
	}
	if g := sc.Output.Goal; len(g) > plots.MaxOutputNameBytes {
		return fmt.Errorf("%s = %q (%d bytes): allowed at most %d bytes (the temporary file beside it needs the rest of a name's %d)", where("goal"), short(g), len(g), plots.MaxOutputNameBytes, maxNameBytes)
	}
	return nil
}

// short cuts a long value for a one-line message.
func short(s string) string {
	if len(s) <= 60 {
		return s
	}
	return s[:57] + "..."
}

// ExplainWorkload names a [workload] key's error by where the key was set.
func ExplainWorkload(err error, src Source) error {
	ke, ok := err.(*config.KeyError)
	if !ok || src == nil {
		return err
	}
	for _, k := range WorkloadKeys {
		if k.Name == ke.Key {
			return fmt.Errorf("%s = %s: allowed %s", src("workload", ke.Key), ke.Value, ke.Allowed)
		}
	}
	return err
}
