package scenarios

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"nocsim/config"
	"nocsim/scenarios/report"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// SweepKeys documents the [sweep] section and its [[sweep.axis]] tables.
var SweepKeys = []config.Key{
	{Name: "reps", Unit: "repetitions", Default: "1", Allowed: ">= 1", Doc: "[sweep] runs of every point, the noc and app seeds advanced by one each"},
	{Name: "key", Unit: "section.key", Default: "(required)", Allowed: "any key of [network], [node], [mpi], [noc], [workload] (not [output]: one place for the whole sweep)", Doc: "[[sweep.axis]] the swept key"},
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
	Index      int               `json:"index"`
	Settings   map[string]string `json:"settings"`
	Rep        int               `json:"rep"`
	ConfigHash string            `json:"config_hash"` // what --resume matches; see PointHash
	Status     string            `json:"status"`      // ok, saturated (some row), failed
	Error      string            `json:"error,omitempty"`
	Metric     string            `json:"metric"`
	Values     []float64         `json:"values"`     // the metric per result row
	RowStatus  []string          `json:"row_status"` // per result row: ok, saturated, failed
	Rows       json.RawMessage   `json:"rows,omitempty"`
}

// PointHash identifies what a point computes: the SHA-256 of its effective
// configuration (every key, as config.toml writes it) without [sweep],
// which describes the set of points, and [output], which says only where
// results go and whether charts are drawn.
func PointHash(sc Scenario) string {
	sc.Sweep, sc.Output = Sweep{}, Output{}
	eff, err := sc.EffectiveTOML(nil)
	if err != nil {
		return "" // matches nothing, so the point is recomputed
	}
	h := sha256.Sum256([]byte(eff))
	return hex.EncodeToString(h[:])
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
			pts = append(pts, SweepPoint{Index: len(pts), Settings: set, Rep: rep, ConfigHash: PointHash(p)})
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

// ResumeCounts says what a resumed sweep did with the points recorded
// before: reused (same configuration hash as a point of the current
// expansion), recomputed (no recorded match), dropped (recorded, but no
// longer a point of the sweep, or unreadable).
type ResumeCounts struct{ Reused, Recomputed, Dropped int }

// SweepOptions says how RunSweep runs; results do not depend on Workers.
type SweepOptions struct {
	Workers  int  // points in parallel; 0 means GOMAXPROCS
	Resume   bool // reuse the recorded points that are still points of the sweep
	Progress func(done, failed, total int)
	Resumed  func(ResumeCounts) // with Resume, called before any point runs
}

// RunSweep runs the points in parallel, appending each finished point to
// points.jsonl and points.csv in dir as it completes (so a killed sweep
// keeps what it finished). With resume, a recorded point is reused only if
// its configuration hash is that of a point of the current expansion, so
// an edited sweep file never keeps stale results; the logs are first
// rewritten to hold just the reused points. At the end both logs are
// rewritten in point order and summary.csv holds the mean, standard
// deviation and 95% interval of each row's metric over the repetitions;
// summary.csv is removed at the start, so it exists only for a finished
// sweep. A point that fails is recorded with its status and the sweep goes
// on.
func RunSweep(pts []SweepPoint, scs []Scenario, dir string, opt SweepOptions) ([]SweepPoint, ResumeCounts, error) {
	var counts ResumeCounts
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, counts, err
	}
	for _, stale := range []string{"summary.csv", "sweep.png"} {
		if err := os.Remove(filepath.Join(dir, stale)); err != nil && !os.IsNotExist(err) {
			return nil, counts, err
		}
	}
	log, csvLog := filepath.Join(dir, "points.jsonl"), filepath.Join(dir, "points.csv")
	have := map[string]SweepPoint{}
	var recorded []string // hashes of the recorded points, "" if unreadable
	if opt.Resume {
		if f, err := os.Open(log); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<28)
			for sc.Scan() {
				var p SweepPoint
				if json.Unmarshal(sc.Bytes(), &p) != nil || p.ConfigHash == "" || p.Status == "" {
					recorded = append(recorded, "")
					continue
				}
				recorded = append(recorded, p.ConfigHash)
				have[p.ConfigHash] = p
			}
			f.Close()
		}
	}
	current := map[string]bool{}
	done, failed := 0, 0
	var todo []int
	for i := range pts {
		current[pts[i].ConfigHash] = true
		p, ok := have[pts[i].ConfigHash]
		if !ok || pts[i].ConfigHash == "" {
			todo = append(todo, i)
			continue
		}
		// The recorded result, under this expansion's name for the point.
		p.Index, p.Settings, p.Rep = pts[i].Index, pts[i].Settings, pts[i].Rep
		pts[i] = p
		done++
		if p.Status == "failed" {
			failed++
		}
	}
	counts.Reused, counts.Recomputed = done, len(todo)
	for _, h := range recorded {
		if h == "" || !current[h] {
			counts.Dropped++
		}
	}
	if opt.Resume && opt.Resumed != nil {
		opt.Resumed(counts)
	}
	finished := func(p SweepPoint) bool { return p.Status != "" }
	if err := writePointLogs(log, csvLog, pts, finished); err != nil {
		return pts, counts, err
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, counts, err
	}
	defer f.Close()
	fc, err := os.OpenFile(csvLog, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, counts, err
	}
	defer fc.Close()
	var mu sync.Mutex
	var encErr error // the first point that could not be recorded
	forEach(len(todo), RunOptions{Workers: opt.Workers}, func(j int) error {
		i := todo[j]
		p := runPoint(pts[i], &scs[i])
		line, err := pointJSON(p)
		row := pointCSV(p)
		mu.Lock()
		defer mu.Unlock()
		pts[i] = p
		if err != nil {
			// Not recorded at all: neither log gets a partial point.
			encErr = cmp.Or(encErr, err)
		} else {
			f.Write(line)
			fc.Write(row)
		}
		done++
		if p.Status == "failed" {
			failed++
		}
		if opt.Progress != nil {
			opt.Progress(done, failed, len(pts))
		}
		return nil
	})
	if encErr != nil {
		return pts, counts, encErr
	}
	if err := writePointLogs(log, csvLog, pts, finished); err != nil {
		return pts, counts, err
	}
	return pts, counts, WriteFile(filepath.Join(dir, "summary.csv"), func(b *bytes.Buffer) error { return writeSweepSummary(b, pts) })
}

// writePointLogs rewrites points.jsonl and points.csv (with its header)
// whole, in point order, holding the points keep selects.
func writePointLogs(log, csvLog string, pts []SweepPoint, keep func(SweepPoint) bool) error {
	if err := WriteFile(log, func(b *bytes.Buffer) error {
		for _, p := range pts {
			if keep(p) {
				line, err := pointJSON(p)
				if err != nil {
					return err
				}
				b.Write(line)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return WriteFile(csvLog, func(b *bytes.Buffer) error {
		b.WriteString(pointCSVHeader)
		for _, p := range pts {
			if keep(p) {
				b.Write(pointCSV(p))
			}
		}
		return nil
	})
}

// pointJSON is one line of points.jsonl. A point that cannot be encoded
// (a NaN metric) is an error: the line is written whole or not at all.
func pointJSON(p SweepPoint) ([]byte, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("point %d: cannot record it in points.jsonl: %w", p.Index, err)
	}
	return append(b, '\n'), nil
}

// pointCSVHeader names the columns of points.csv.
const pointCSVHeader = "index,settings,rep,config_hash,status,error,metric,values,row_status\n"

// pointCSV is a point as one CSV line: index, settings (key=value;...),
// repetition, configuration hash, status and error, metric, its value per
// result row and each row's status (both semicolon-separated).
func pointCSV(p SweepPoint) []byte {
	vals := make([]string, len(p.Values))
	for i, v := range p.Values {
		vals[i] = fmt.Sprintf("%.6g", v)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{strconv.Itoa(p.Index), settingsKey(p.Settings), strconv.Itoa(p.Rep), p.ConfigHash, p.Status, p.Error,
		p.Metric, strings.Join(vals, ";"), strings.Join(p.RowStatus, ";")})
	w.Flush()
	return b.Bytes()
}

// runPoint runs one point's workload and keeps its rows and metric. Each
// row has its own status: saturated only if that row saturated; the point
// is saturated if any row is, failed if any row is wrong. An error is kept
// as its first line, so logs and CSV stay one line per point.
func runPoint(p SweepPoint, sc *Scenario) SweepPoint {
	p.Status = "ok"
	rows, metric, err := sc.workloadRows()
	if err != nil {
		p.Status, p.Error = "failed", firstLine(err.Error())
		return p
	}
	p.Metric = metric
	p.Rows = withoutWallClock(rows)
	v := reflect.ValueOf(rows)
	for i := 0; i < v.Len(); i++ {
		row := v.Index(i)
		p.Values = append(p.Values, metricOf(row, metric))
		st := "ok"
		if f := row.FieldByName("Saturated"); f.IsValid() && f.Bool() {
			st = "saturated"
		}
		if f := row.FieldByName("Correct"); f.IsValid() && !f.Bool() {
			st = "failed"
		}
		p.RowStatus = append(p.RowStatus, st)
		switch {
		case st == "failed" && p.Status != "failed":
			p.Status, p.Error = "failed", fmt.Sprintf("row %d: wrong result", i)
		case st == "saturated" && p.Status == "ok":
			p.Status = "saturated"
		}
	}
	return p
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
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
		for _, k := range report.WallClockColumns {
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
		return NocRows(pts, res), "avg_packet_latency_cycles", nil
	case "pingpong":
		rows, _, err := sc.pingPong().Run(sc)
		return rows, "one_way_cycles", err
	case "coll":
		if sc.onTier() {
			ts, _, err := sc.tierSweep()
			if err != nil {
				return nil, "", err
			}
			rows, err := ts.Run(opt)
			return rows, "cycles", err
		}
		rows, err := sc.collSweep().Run(sc, opt)
		return rows, "cycles", err
	case "app":
		rows, err := sc.appSweep().Run(sc, opt)
		return rows, "cycles", err
	case "pairs":
		rows, err := sc.pairsBench().Run(sc, opt)
		return rows, "mean_pair_bandwidth_bytes_per_cycle", err
	}
	return nil, "", fmt.Errorf("sweeps run noc, pingpong, coll, app and pairs workloads, not %q", sc.Workload.Kind)
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
