package report

import (
	"fmt"
	"slices"

	"nocsim/plots"
)

// ThesisChart is one of the thesis's figures redrawn with nocsim's
// results beside the thesis's (dashed, same colour), and the file name
// it is saved under.
type ThesisChart struct {
	File  string
	Chart plots.Chart
}

// ThesisCharts are the figures of res's table: for 5.1, Figure 5.2 (MPI/
// native ratio against nonzeros, per P) and Figure 5.6 (time against
// nonzeros at P = 4); for 5.2, the ratio against matrix order per P and
// Figures 5.4 and 5.5 (speedup for 256x256 and 512x512). Each title names
// what its rows ran on, as ran says for the rows keep selects: the
// scenario or machine file, the chip each P ran on (a row runs on its own
// P's grid, not on the scenario's mesh) and the protocol and library. A
// figure whose rows were not run is left out.
func ThesisCharts(res []ThesisResult, ran func(keep func(ThesisRow) bool) string) []ThesisChart {
	if len(res) == 0 {
		return nil
	}
	all := func(ThesisRow) bool { return true }
	var out []ThesisChart
	if res[0].Row.Table == "5.1" {
		if c, ok := thesisRatioChart(res, "nonzero elements of A (log scale)", fmt.Sprintf("Fig. 5.2: CG MPI/native ratio against nonzeros (%s)", ran(all))); ok {
			out = append(out, ThesisChart{"fig5.2-cg-ratio.png", c})
		}
		at4 := func(r ThesisRow) bool { return r.Procs == 4 }
		if c, ok := thesisTimeChart(res, 4, fmt.Sprintf("Fig. 5.6: CG time at P = 4 against nonzeros (%s)", ran(at4))); ok {
			out = append(out, ThesisChart{"fig5.6-cg-time-p4.png", c})
		}
		return out
	}
	if c, ok := thesisRatioChart(res, "matrix order N (N x N, log scale)", fmt.Sprintf("QR MPI/native ratio against matrix order (%s)", ran(all))); ok {
		out = append(out, ThesisChart{"qr-ratio.png", c})
	}
	for _, f := range []struct {
		n    int
		file string
		fig  string
	}{{256, "fig5.4-qr-speedup-256.png", "5.4"}, {512, "fig5.5-qr-speedup-512.png", "5.5"}} {
		of := func(r ThesisRow) bool { return r.Matrix == f.n }
		if c, ok := thesisSpeedupChart(res, f.n, fmt.Sprintf("Fig. %s: QR %dx%d speedup (%s)", f.fig, f.n, f.n, ran(of))); ok {
			out = append(out, ThesisChart{f.file, c})
		}
	}
	return out
}

// thesisPair appends nocsim's series and, right after, the thesis's as
// its dashed companion.
func thesisPair(out []plots.Series, name string, x, ours, theirs []float64) []plots.Series {
	return append(out, plots.Series{Name: name + " nocsim", X: x, Y: ours},
		plots.Series{Name: name + " thesis", X: x, Y: theirs, Dashed: true, Companion: true})
}

// ProcsOf lists the processor counts in res, ascending.
func ProcsOf(res []ThesisResult) []int {
	var ps []int
	for _, r := range res {
		if !slices.Contains(ps, r.Row.Procs) {
			ps = append(ps, r.Row.Procs)
		}
	}
	slices.Sort(ps)
	return ps
}

func sizeTicks(res []ThesisResult) []float64 {
	var xs []float64
	for _, r := range res {
		if x := float64(r.Row.Size()); !slices.Contains(xs, x) {
			xs = append(xs, x)
		}
	}
	slices.Sort(xs)
	return xs
}

func thesisRatioChart(res []ThesisResult, xlabel, title string) (plots.Chart, bool) {
	c := plots.Chart{Title: title, XLabel: xlabel, YLabel: "MPI time / native time (ratio)", LogX: true, XTicks: sizeTicks(res)}
	for _, p := range ProcsOf(res) {
		var x, ours, theirs []float64
		for _, r := range res {
			if r.Row.Procs == p {
				x = append(x, float64(r.Row.Size()))
				ours = append(ours, r.Ratio())
				theirs = append(theirs, r.Row.Ratio())
			}
		}
		if len(x) > 1 {
			c.Series = thesisPair(c.Series, fmt.Sprintf("P=%d", p), x, ours, theirs)
		}
	}
	return c, len(c.Series) > 0
}

func thesisTimeChart(res []ThesisResult, procs int, title string) (plots.Chart, bool) {
	var x, nat, tnat, mp, tmp []float64
	for _, r := range res {
		if r.Row.Procs == procs {
			x = append(x, float64(r.Row.Size()))
			nat, tnat = append(nat, r.NativeK()), append(tnat, r.Row.NativeK)
			mp, tmp = append(mp, r.MPIK()), append(tmp, r.Row.MPIK)
		}
	}
	c := plots.Chart{Title: title, XLabel: "nonzero elements of A (log scale)", YLabel: "time (thousands of cycles, log scale)",
		LogX: true, LogY: true, XTicks: x}
	if len(x) < 2 {
		return c, false
	}
	c.Series = thesisPair(c.Series, "native", x, nat, tnat)
	c.Series = thesisPair(c.Series, "MPI", x, mp, tmp)
	return c, true
}

// thesisSpeedupChart is speedup against P for the n x n rows, relative to
// the smallest P run, counted as that many processors' worth (the
// thesis's figures start at P = 4).
func thesisSpeedupChart(res []ThesisResult, n int, title string) (plots.Chart, bool) {
	var rows []ThesisResult
	for _, r := range res {
		if r.Row.Matrix == n {
			rows = append(rows, r)
		}
	}
	if len(rows) < 2 {
		return plots.Chart{}, false
	}
	slices.SortFunc(rows, func(a, b ThesisResult) int { return a.Row.Procs - b.Row.Procs })
	b := rows[0]
	bp := float64(b.Row.Procs)
	var x, nat, tnat, mp, tmp, ideal []float64
	for _, r := range rows {
		p := float64(r.Row.Procs)
		x, ideal = append(x, p), append(ideal, p)
		nat, tnat = append(nat, bp*b.NativeK()/r.NativeK()), append(tnat, bp*b.Row.NativeK/r.Row.NativeK)
		mp, tmp = append(mp, bp*b.MPIK()/r.MPIK()), append(tmp, bp*b.Row.MPIK/r.Row.MPIK)
	}
	c := plots.Chart{Title: title, XLabel: "processors (P, log scale)",
		YLabel: fmt.Sprintf("speedup (%d x T(P=%d) / T(P))", b.Row.Procs, b.Row.Procs), LogX: true, XTicks: x}
	c.Series = thesisPair(c.Series, "native", x, nat, tnat)
	c.Series = thesisPair(c.Series, "MPI", x, mp, tmp)
	c.Series = append(c.Series, plots.Series{Name: "ideal", X: x, Y: ideal, Reference: true})
	return c, true
}
