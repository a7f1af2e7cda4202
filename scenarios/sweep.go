package scenarios

import (
	"bytes"
	"fmt"
	"math"
	"nocsim/config"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SweepKeys documents the [sweep] section and its [[sweep.axis]] tables.
var SweepKeys = []config.Key{
	{Name: "reps", Unit: "repetitions", Default: "1", Allowed: ">= 1", Doc: "[sweep] runs of every point, the noc and app seeds advanced by one each"},
	{Name: "key", Unit: "section.key", Default: "(required)", Allowed: "any key of [network], [node], [mpi], [noc], [energy], [workload] (not [output]: one place for the whole sweep)", Doc: "[[sweep.axis]] the swept key"},
	{Name: "values", Unit: "list", Default: "(none)", Allowed: "values of the key's type; a list value sets a list key", Doc: "[[sweep.axis]] the settings, in order"},
	{Name: "from", Unit: "number", Default: "0", Allowed: "<= to", Doc: "[[sweep.axis]] with to and step: a range instead of values"},
	{Name: "to", Unit: "number", Default: "0", Allowed: ">= from", Doc: "[[sweep.axis]] range end (inclusive)"},
	{Name: "step", Unit: "number", Default: "0", Allowed: "> 0", Doc: "[[sweep.axis]] range step"},
}

// Sweep is the [sweep] section: axes over any key, and repetitions.
type Sweep struct {
	Axis []Axis `toml:"axis"`
	Reps int    `toml:"reps"`
}

// Axis is one swept key ("section.key") and its values: a list, or a
// range from..to by step (numbers).
type Axis struct {
	Key    string  `toml:"key"`
	Values []any   `toml:"values"`
	From   float64 `toml:"from"`
	To     float64 `toml:"to"`
	Step   float64 `toml:"step"`
}

// values lists the axis's settings as the text Set parses.
func (a Axis) values() ([]string, error) {
	if len(a.Values) > 0 {
		out := make([]string, len(a.Values))
		for i, v := range a.Values {
			out[i] = axisText(v)
		}
		return out, nil
	}
	if a.Step <= 0 || a.To < a.From {
		return nil, fmt.Errorf("sweep axis %s: give values, or from <= to with step > 0 (got from %v to %v step %v)", a.Key, a.From, a.To, a.Step)
	}
	var out []string
	for x := a.From; x <= a.To+1e-9*math.Abs(a.To); x += a.Step {
		out = append(out, axisText(x))
		if len(out) > 10000 {
			return nil, fmt.Errorf("sweep axis %s: more than 10000 values", a.Key)
		}
	}
	return out, nil
}

func axisText(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = axisText(e)
		}
		return strings.Join(parts, ",")
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return fmt.Sprint(int64(x))
		}
	}
	return fmt.Sprint(v)
}

// SweepSetting names one point of a [sweep] expansion: the text each
// axis ("section.key") was set to, and the repetition.
type SweepSetting struct {
	Settings map[string]string
	Rep      int
}

// SweepScenarios expands the axes (in order, the last varying fastest)
// and repetitions into points, each a validated scenario: CheckConfig,
// then check (the workload's own checks, package study's) when not nil. It
// is pure configuration (Set on copies), so study.Check can validate every
// point of a sweep; running them is package sweep's.
func (sc *Scenario) SweepScenarios(src Source, check func(*Scenario, Source) error) ([]SweepSetting, []Scenario, error) {
	if err := sc.checkSweep(); err != nil {
		return nil, nil, err
	}
	axes := sc.Sweep.Axis
	vals := make([][]string, len(axes))
	for i, a := range axes {
		sec, key, ok := strings.Cut(a.Key, ".")
		if !ok {
			return nil, nil, fmt.Errorf("sweep axis %q: keys are section.key, e.g. network.vcs", a.Key)
		}
		probe := *sc
		v, err := a.values()
		if err != nil {
			return nil, nil, err
		}
		if err := probe.Set(sec, key, v[0]); err != nil {
			return nil, nil, fmt.Errorf("sweep axis %s: %w", a.Key, err)
		}
		vals[i] = v
	}
	reps := max(sc.Sweep.Reps, 1)
	var pts []SweepSetting
	var scs []Scenario
	idx := make([]int, len(axes))
	for {
		for rep := 0; rep < reps; rep++ {
			p := *sc
			set := map[string]string{}
			for i, a := range axes {
				sec, key, _ := strings.Cut(a.Key, ".")
				if err := p.Set(sec, key, vals[i][idx[i]]); err != nil {
					return nil, nil, fmt.Errorf("sweep axis %s = %s: %w", a.Key, vals[i][idx[i]], err)
				}
				set[a.Key] = vals[i][idx[i]]
			}
			// Repetitions differ only in their seeds, derived from the base.
			p.Noc.Seed += int64(rep)
			p.Workload.AppSeed += int64(rep)
			err := p.CheckConfig(src)
			if err == nil && check != nil {
				err = check(&p, src)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("sweep point %v: %w", set, err)
			}
			pts = append(pts, SweepSetting{Settings: set, Rep: rep})
			scs = append(scs, p)
		}
		k := len(axes) - 1
		for k >= 0 {
			idx[k]++
			if idx[k] < len(vals[k]) {
				break
			}
			idx[k] = 0
			k--
		}
		if k < 0 {
			break
		}
	}
	return pts, scs, nil
}

// FixedMachineText names the parts of the machine a sweep's points share
// (for the sweep chart's title):
// those of sc's Scenario.MachineText (or, for a noc workload, NocTitle)
// that no axis varies. "" when sc is nil or every part varies.
func (sc *Scenario) FixedMachineText(axes []string) string {
	if sc == nil {
		return ""
	}
	varies := func(keys ...string) bool {
		for _, k := range keys {
			// A preset sets the whole network, so it varies every part of it.
			if slices.Contains(axes, k) || strings.HasPrefix(k, "network.") && slices.Contains(axes, "network.preset") {
				return true
			}
		}
		return false
	}
	var parts []string
	if !varies("network.mesh", "network.topology") {
		parts = append(parts, sc.Network.Text())
	}
	if sc.Workload.Kind == "noc" || sc.Workload.Kind == "" {
		if !varies("noc.packet_flits") {
			parts = append(parts, fmt.Sprintf("%d-flit packets", sc.Noc.PacketFlits))
		}
		if !varies("network.vcs", "network.vc_buf") {
			parts = append(parts, fmt.Sprintf("%d VCs x %d flits", sc.Network.VCs, sc.Network.VCBuf))
		}
		return strings.Join(parts, ", ")
	}
	if !varies("mpi.protocol") {
		parts = append(parts, sc.MPI.Protocol+" protocol")
	}
	if !varies("mpi.library") {
		lib := sc.MPI.Library
		if lib == "" {
			lib = "nocsim"
		}
		parts = append(parts, lib+" library")
	}
	return strings.Join(parts, ", ")
}

// WriteRecordIn writes config.toml and meta.json into dir (a shard's
// directory) exactly as WriteRecord writes them into the output directory.
func (sc *Scenario) WriteRecordIn(dir string, src Source, prov Provenance) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return sc.RecordTo(src, prov, func(name string, fill func(*bytes.Buffer) error) error {
		return WriteFile(filepath.Join(dir, name), fill)
	})
}
