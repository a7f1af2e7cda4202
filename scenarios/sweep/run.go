package sweep

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
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Point is one point of a sweep: its settings and repetition.
type Point struct {
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

// Failed counts the points that failed.
func Failed(pts []Point) int {
	n := 0
	for _, p := range pts {
		if p.Status == "failed" {
			n++
		}
	}
	return n
}

// PointHash identifies what a point computes: the SHA-256 of its effective
// configuration (every key, as config.toml writes it) without [sweep],
// which describes the set of points, and [output], which says only where
// results go and whether charts are drawn.
func PointHash(sc scenarios.Scenario) string {
	sc.Sweep, sc.Output = scenarios.Sweep{}, scenarios.Output{}
	eff, err := sc.EffectiveTOML(nil)
	if err != nil {
		return "" // matches nothing, so the point is recomputed
	}
	h := sha256.Sum256([]byte(eff))
	return hex.EncodeToString(h[:])
}

// Points expands the sweep file's axes and repetitions into points, each
// with its validated scenario and the hash Run resumes by.
func Points(sc *scenarios.Scenario, src scenarios.Source) ([]Point, []scenarios.Scenario, error) {
	set, scs, err := sc.SweepScenarios(src, nil)
	if err != nil {
		return nil, nil, err
	}
	pts := make([]Point, len(scs))
	for i := range scs {
		pts[i] = Point{Index: i, Settings: set[i].Settings, Rep: set[i].Rep, ConfigHash: PointHash(scs[i])}
	}
	return pts, scs, nil
}

// ResumeCounts says what a resumed sweep did with the points recorded
// before: reused (same configuration hash as a point of the current
// expansion), recomputed (no recorded match), dropped (recorded, but no
// longer a point of the sweep, or unreadable).
type ResumeCounts struct{ Reused, Recomputed, Dropped int }

// Options says how Run runs; results do not depend on Workers.
type Options struct {
	// Run runs one point's workload: its result rows (a slice of structs
	// whose json tags name the columns) and the name of the column the
	// sweep summarises. The caller supplies it so that this package does
	// not depend on the workload runners.
	Run      func(sc *scenarios.Scenario) (rows any, metric string, err error)
	Workers  int  // points in parallel; 0 means GOMAXPROCS
	Resume   bool // reuse the recorded points that are still points of the sweep
	Progress func(done, failed, total int)
	Resumed  func(ResumeCounts) // with Resume, called before any point runs
}

// Run runs the points in parallel, appending each finished point to
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
func Run(pts []Point, scs []scenarios.Scenario, dir string, opt Options) ([]Point, ResumeCounts, error) {
	var counts ResumeCounts
	if opt.Run == nil {
		return nil, counts, fmt.Errorf("sweep.Options.Run is nil: no point runner")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, counts, err
	}
	for _, stale := range []string{"summary.csv", "sweep.png"} {
		if err := os.Remove(filepath.Join(dir, stale)); err != nil && !os.IsNotExist(err) {
			return nil, counts, err
		}
	}
	log, csvLog := filepath.Join(dir, "points.jsonl"), filepath.Join(dir, "points.csv")
	have := map[string]Point{}
	var recorded []string // hashes of the recorded points, "" if unreadable
	if opt.Resume {
		if f, err := os.Open(log); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<28)
			for sc.Scan() {
				var p Point
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
	finished := func(p Point) bool { return p.Status != "" }
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
	parallel(len(todo), opt.Workers, func(j int) {
		i := todo[j]
		p := runPoint(pts[i], &scs[i], opt.Run)
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
	})
	if encErr != nil {
		return pts, counts, encErr
	}
	if err := writePointLogs(log, csvLog, pts, finished); err != nil {
		return pts, counts, err
	}
	return pts, counts, scenarios.WriteFile(filepath.Join(dir, "summary.csv"), func(b *bytes.Buffer) error { return writeSummary(b, pts) })
}

// parallel runs fn(0..n-1) on a pool of workers (0 means GOMAXPROCS),
// handing out indices in order.
func parallel(n, workers int, fn func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// writePointLogs rewrites points.jsonl and points.csv (with its header)
// whole, in point order, holding the points keep selects.
func writePointLogs(log, csvLog string, pts []Point, keep func(Point) bool) error {
	if err := scenarios.WriteFile(log, func(b *bytes.Buffer) error {
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
	return scenarios.WriteFile(csvLog, func(b *bytes.Buffer) error {
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
func pointJSON(p Point) ([]byte, error) {
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
func pointCSV(p Point) []byte {
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
func runPoint(p Point, sc *scenarios.Scenario, run func(*scenarios.Scenario) (any, string, error)) Point {
	p.Status = "ok"
	rows, metric, err := run(sc)
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
