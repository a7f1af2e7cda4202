package scenarios

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"nocsim/router"
)

// SweepKeys documents the [sweep] section and its [[sweep.axis]] tables.
var SweepKeys = []router.Key{
	{Name: "reps", Unit: "repetitions", Default: "1", Allowed: ">= 1", Doc: "[sweep] runs of every point, the noc and app seeds advanced by one each"},
	{Name: "key", Unit: "section.key", Default: "(required)", Allowed: "any key of [network], [node], [mpi], [noc], [workload], [output]", Doc: "[[sweep.axis]] the swept key"},
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

// SweepPoint is one point of a sweep: its settings and repetition.
type SweepPoint struct {
	Index    int               `json:"index"`
	Settings map[string]string `json:"settings"`
	Rep      int               `json:"rep"`
	Status   string            `json:"status"` // ok, saturated, failed
	Error    string            `json:"error,omitempty"`
	Metric   string            `json:"metric"`
	Values   []float64         `json:"values"` // the metric per result row
	Rows     json.RawMessage   `json:"rows,omitempty"`
}

// SweepPoints expands the axes (in order, the last varying fastest) and
// repetitions into points, each a validated scenario.
func (sc *Scenario) SweepPoints(src Source) ([]SweepPoint, []Scenario, error) {
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
	var pts []SweepPoint
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
			if err := p.checkPoint(src); err != nil {
				return nil, nil, fmt.Errorf("sweep point %v: %w", set, err)
			}
			pts = append(pts, SweepPoint{Index: len(pts), Settings: set, Rep: rep})
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

// RunSweep runs the points in parallel, appending each finished point to
// points.jsonl in dir as it completes (so a killed sweep keeps what it
// finished); with resume, points already there are skipped. At the end
// points.jsonl is rewritten in point order and summary.csv holds the mean,
// standard deviation and 95% interval of each row's metric over the
// repetitions. A point that fails is recorded with its status and the
// sweep goes on.
func RunSweep(pts []SweepPoint, scs []Scenario, dir string, resume bool, opt RunOptions, progress func(done, failed, total int)) ([]SweepPoint, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	log := filepath.Join(dir, "points.jsonl")
	have := map[int]SweepPoint{}
	if resume {
		if f, err := os.Open(log); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<28)
			for sc.Scan() {
				var p SweepPoint
				if json.Unmarshal(sc.Bytes(), &p) == nil {
					have[p.Index] = p
				}
			}
			f.Close()
		}
	}
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	csvLog := filepath.Join(dir, "points.csv")
	fc, err := os.OpenFile(csvLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer fc.Close()
	if !resume {
		f.Truncate(0)
		fc.Truncate(0)
	}
	var mu sync.Mutex
	done, failed := len(have), 0
	var todo []int
	for i := range pts {
		if p, ok := have[i]; ok {
			pts[i] = p
			if p.Status == "failed" {
				failed++
			}
		} else {
			todo = append(todo, i)
		}
	}
	forEach(len(todo), RunOptions{Workers: opt.Workers}, func(j int) error {
		i := todo[j]
		p := runPoint(pts[i], &scs[i])
		b, _ := json.Marshal(p)
		mu.Lock()
		defer mu.Unlock()
		pts[i] = p
		f.Write(append(b, '\n'))
		fc.WriteString(pointCSV(p))
		done++
		if p.Status == "failed" {
			failed++
		}
		if progress != nil {
			progress(done, failed, len(pts))
		}
		return nil
	})
	if err := WriteFile(log, func(b *bytes.Buffer) error {
		for _, p := range pts {
			line, _ := json.Marshal(p)
			b.Write(append(line, '\n'))
		}
		return nil
	}); err != nil {
		return pts, err
	}
	if err := WriteFile(csvLog, func(b *bytes.Buffer) error {
		for _, p := range pts {
			b.WriteString(pointCSV(p))
		}
		return nil
	}); err != nil {
		return pts, err
	}
	return pts, WriteFile(filepath.Join(dir, "summary.csv"), func(b *bytes.Buffer) error { return writeSweepSummary(b, pts) })
}

// pointCSV is a point as one CSV line: index, settings (key=value;...),
// repetition, status, metric and its value per result row.
func pointCSV(p SweepPoint) string {
	vals := make([]string, len(p.Values))
	for i, v := range p.Values {
		vals[i] = fmt.Sprintf("%.6g", v)
	}
	return fmt.Sprintf("%d,%q,%d,%s,%s,%q\n", p.Index, settingsKey(p.Settings), p.Rep, p.Status, p.Metric, strings.Join(vals, ";"))
}

// runPoint runs one point's workload and keeps its rows and metric.
func runPoint(p SweepPoint, sc *Scenario) SweepPoint {
	p.Status = "ok"
	rows, metric, err := sc.workloadRows()
	if err != nil {
		p.Status, p.Error = "failed", err.Error()
		return p
	}
	p.Metric = metric
	p.Rows = withoutWallClock(rows)
	v := reflect.ValueOf(rows)
	for i := 0; i < v.Len(); i++ {
		row := v.Index(i)
		p.Values = append(p.Values, metricOf(row, metric))
		if f := row.FieldByName("Saturated"); f.IsValid() && f.Bool() {
			p.Status = "saturated"
		}
		if f := row.FieldByName("Correct"); f.IsValid() && !f.Bool() {
			p.Status, p.Error = "failed", "wrong result"
		}
	}
	return p
}

// withoutWallClock encodes rows without the columns that depend on the
// machine running the sweep, so that records are reproducible.
func withoutWallClock(rows any) json.RawMessage {
	raw, _ := json.Marshal(rows)
	var maps []map[string]any
	if json.Unmarshal(raw, &maps) != nil {
		return raw
	}
	for _, m := range maps {
		for _, k := range WallClockColumns {
			delete(m, k)
		}
	}
	out, _ := json.Marshal(maps)
	return out
}

func metricOf(row reflect.Value, metric string) float64 {
	for i := 0; i < row.NumField(); i++ {
		if strings.Split(row.Type().Field(i).Tag.Get("json"), ",")[0] == metric {
			f := row.Field(i)
			switch f.Kind() {
			case reflect.Float64:
				return f.Float()
			case reflect.Int, reflect.Int64:
				return float64(f.Int())
			}
		}
	}
	return math.NaN()
}

// workloadRows runs the workload and returns its rows and the name of the
// metric a sweep summarises.
func (sc *Scenario) workloadRows() (any, string, error) {
	opt := RunOptions{Workers: 1}
	switch sc.Workload.Kind {
	case "noc":
		pts, err := sc.NocPoints(nil)
		if err != nil {
			return nil, "", err
		}
		res, err := RunNoc(pts, opt)
		if err != nil {
			return nil, "", err
		}
		return NocRows(pts, res), "avg_packet_latency", nil
	case "pingpong":
		rows, _, err := sc.pingPong().Run(sc)
		return rows, "one_way_cycles", err
	case "coll":
		rows, err := sc.collSweep().Run(sc, opt)
		return rows, "cycles", err
	case "app":
		rows, err := sc.appSweep().Run(sc, opt)
		return rows, "cycles", err
	}
	return nil, "", fmt.Errorf("sweeps run noc, pingpong, coll and app workloads, not %q", sc.Workload.Kind)
}

func settingsKey(s map[string]string) string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + s[k] + ";")
	}
	return b.String()
}
