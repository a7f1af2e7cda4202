package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// rowIDColumns are the result columns that say which row is which (the
// rest are measurements).
var rowIDColumns = []string{"traffic", "offered_flits_per_node_cycle", "op", "algorithm", "variant", "version", "procs", "pairs", "size", "size_bytes"}

// rowStat is one (settings, result row) aggregated over repetitions.
type rowStat struct {
	settings        map[string]string
	row             int
	label           string // the row's identifying columns that vary across the sweep
	status          string
	n               int
	mean, std, ci95 float64
}

// summarise groups points by settings (in point order) and each row's
// metric over the repetitions: mean, standard deviation and the 95%
// Student's t interval half-width.
func summarise(pts []Point) []rowStat {
	type group struct {
		settings map[string]string
		values   [][]float64 // per row, per repetition
		labels   []map[string]string
		status   []string // per row, over the repetitions
		failed   bool     // a repetition failed as a whole: no rows
		reps     int
	}
	var keys []string
	groups := map[string]*group{}
	for _, p := range pts {
		k := settingsKey(p.Settings)
		g := groups[k]
		if g == nil {
			g = &group{settings: p.Settings}
			groups[k] = g
			keys = append(keys, k)
		}
		g.reps++
		if p.Status == "failed" && len(p.Values) == 0 {
			g.failed = true
		}
		ids := rowIDs(p.Rows)
		for i, v := range p.Values {
			for len(g.values) <= i {
				g.values = append(g.values, nil)
				g.labels = append(g.labels, nil)
				g.status = append(g.status, "ok")
			}
			g.values[i] = append(g.values[i], v)
			if i < len(p.RowStatus) {
				g.status[i] = worseStatus(g.status[i], p.RowStatus[i])
			}
			if i < len(ids) && g.labels[i] == nil {
				g.labels[i] = ids[i]
			}
		}
	}
	// A column names a row only if it takes more than one value somewhere
	// in the sweep.
	seen := map[string]map[string]bool{}
	for _, k := range keys {
		for _, ids := range groups[k].labels {
			for c, v := range ids {
				if seen[c] == nil {
					seen[c] = map[string]bool{}
				}
				seen[c][v] = true
			}
		}
	}
	label := func(ids map[string]string) string {
		var parts []string
		for _, c := range rowIDColumns {
			if v, ok := ids[c]; ok && len(seen[c]) > 1 {
				parts = append(parts, c+"="+v)
			}
		}
		return strings.Join(parts, " ")
	}
	var out []rowStat
	for _, k := range keys {
		g := groups[k]
		if len(g.values) == 0 {
			out = append(out, rowStat{settings: g.settings, row: -1, status: "failed", n: g.reps})
		}
		for i, vs := range g.values {
			// A row is saturated only if it saturated itself; a
			// repetition that failed outright leaves every row short.
			status := g.status[i]
			if g.failed {
				status = "failed"
			}
			st := rowStat{settings: g.settings, row: i, label: label(g.labels[i]), status: status, n: len(vs)}
			st.mean, st.std = stat.MeanStdDev(vs, nil)
			if len(vs) > 1 {
				st.ci95 = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(vs) - 1)}.Quantile(0.975) * st.std / math.Sqrt(float64(len(vs)))
			} else {
				st.std = 0
			}
			out = append(out, st)
		}
	}
	return out
}

// worseStatus orders statuses ok < saturated < failed.
func worseStatus(a, b string) string {
	rank := map[string]int{"ok": 0, "saturated": 1, "failed": 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// rowIDs reads the identifying columns of each result row.
func rowIDs(raw json.RawMessage) []map[string]string {
	var rows []map[string]any
	if json.Unmarshal(raw, &rows) != nil {
		return nil
	}
	out := make([]map[string]string, len(rows))
	for i, r := range rows {
		out[i] = map[string]string{}
		for _, c := range rowIDColumns {
			if v, ok := r[c]; ok {
				out[i][c] = fmt.Sprint(v)
			}
		}
	}
	return out
}

func sweepAxes(pts []Point) []string {
	var axes []string
	if len(pts) > 0 {
		for k := range pts[0].Settings {
			axes = append(axes, k)
		}
		slices.Sort(axes)
	}
	return axes
}

func sweepMetric(pts []Point) string {
	for _, p := range pts {
		if p.Metric != "" {
			return p.Metric
		}
	}
	return "metric"
}

// writeSummary writes summary.csv: the axes' settings, the row index
// and label, status, repetitions, and the metric's mean, standard
// deviation and 95% interval half-width.
func writeSummary(b *bytes.Buffer, pts []Point) error {
	axes, metric := sweepAxes(pts), sweepMetric(pts)
	fmt.Fprintf(b, "%s,row,row_label,status,reps,%s_mean,%s_std,%s_ci95\n", strings.Join(axes, ","), metric, metric, metric)
	for _, st := range summarise(pts) {
		var set []string
		for _, a := range axes {
			set = append(set, csvField(st.settings[a]))
		}
		if st.row < 0 {
			fmt.Fprintf(b, "%s,,,%s,%d,,,\n", strings.Join(set, ","), st.status, st.n)
			continue
		}
		fmt.Fprintf(b, "%s,%d,%s,%s,%d,%.6g,%.6g,%.6g\n", strings.Join(set, ","), st.row, csvField(st.label), st.status, st.n, st.mean, st.std, st.ci95)
	}
	return nil
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return strconv.Quote(s)
	}
	return s
}
