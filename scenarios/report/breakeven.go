package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"nocsim/plots"
)

// BreakEven is where, for one vector length and one pairing of versions,
// the global sum's hypercube starts to beat its serial method as P grows
// (Radke, section 7: "for global operations there exists a break-even
// point, where a serial implementation is still faster than a parallel
// one").
type BreakEven struct {
	Size int `json:"size"`
	// SerialVersion and HypercubeVersion name the pairing. Radke's is
	// serial = native (remote writes into rank 0's memory and flag words,
	// the chip's shared address space) against hypercube = mpi (true
	// message passing).
	SerialVersion    string `json:"serial_version"`
	HypercubeVersion string `json:"hypercube_version"`
	// Status is "between" (serial faster at SerialFasterUpTo, the
	// hypercube at HypercubeFasterFrom), "below" (the hypercube is faster
	// already at the smallest P) or "above" (serial is faster at every P
	// of the sweep).
	Status              string `json:"status"`
	SerialFasterUpTo    int    `json:"serial_faster_up_to_procs,omitempty"`
	HypercubeFasterFrom int    `json:"hypercube_faster_from_procs,omitempty"`
	// Procs is the break-even P, interpolated linearly in log2 P on the
	// time ratio serial/hypercube between the two bracketing points; 0
	// unless Status is "between".
	Procs float64 `json:"break_even_procs,omitempty"`
	// Ratios is serial time / hypercube time at each P of the sweep.
	Ratios []ProcsRatio `json:"serial_over_hypercube"`
}

// BreakEvenResult is a breakeven sweep's runs and what they show, as the
// CLI's --json and the main job write it.
type BreakEvenResult struct {
	Runs      []AppRow    `json:"runs"`
	BreakEven []BreakEven `json:"break_even"`
}

// ProcsRatio is one P's serial/hypercube time ratio.
type ProcsRatio struct {
	Procs int     `json:"procs"`
	Ratio float64 `json:"ratio"`
}

// breakEvenPairings are reported in this order, Radke's first.
var breakEvenPairings = [][2]string{{"native", "mpi"}, {"mpi", "mpi"}, {"native", "native"}}

// GlobalSumBreakEven finds the break-even of every size and every
// pairing whose versions the rows hold (rows from a globalsum sweep with
// variant breakeven). The first P at which the hypercube is faster ends
// the search: P beyond it is reported in Ratios only.
func GlobalSumBreakEven(rows []AppRow) []BreakEven {
	type run struct {
		method, version string
		size, procs     int
	}
	cycles := map[run]int64{}
	var sizes, procs []int
	for _, r := range rows {
		cycles[run{r.Variant, r.Version, r.Size, r.Procs}] = r.Cycles
		if !slices.Contains(sizes, r.Size) {
			sizes = append(sizes, r.Size)
		}
		if !slices.Contains(procs, r.Procs) {
			procs = append(procs, r.Procs)
		}
	}
	slices.Sort(sizes)
	slices.Sort(procs)
	var out []BreakEven
	for _, n := range sizes {
		for _, pair := range breakEvenPairings {
			b := BreakEven{Size: n, SerialVersion: pair[0], HypercubeVersion: pair[1]}
			for _, p := range procs {
				s, okS := cycles[run{"serial", pair[0], n, p}]
				h, okH := cycles[run{"hypercube", pair[1], n, p}]
				if okS && okH && h > 0 {
					b.Ratios = append(b.Ratios, ProcsRatio{p, float64(s) / float64(h)})
				}
			}
			if len(b.Ratios) == 0 {
				continue // the sweep did not run this pairing
			}
			b.locate()
			out = append(out, b)
		}
	}
	return out
}

// locate sets Status, the bracketing P and the interpolated break-even
// from Ratios.
func (b *BreakEven) locate() {
	b.Status = "above"
	for i, pr := range b.Ratios {
		if pr.Ratio <= 1 {
			b.SerialFasterUpTo = pr.Procs
			continue
		}
		b.HypercubeFasterFrom = pr.Procs
		if i == 0 {
			b.Status = "below"
			return
		}
		b.Status = "between"
		lo := b.Ratios[i-1]
		xa, xb := math.Log2(float64(lo.Procs)), math.Log2(float64(pr.Procs))
		b.Procs = math.Exp2(xa + (1-lo.Ratio)/(pr.Ratio-lo.Ratio)*(xb-xa))
		return
	}
}

// Describe says the break-even in words.
func (b BreakEven) Describe() string {
	switch b.Status {
	case "below":
		return fmt.Sprintf("hypercube faster from the smallest P (%d): break-even below it", b.HypercubeFasterFrom)
	case "above":
		return fmt.Sprintf("serial faster at every P up to %d: break-even above it", b.Ratios[len(b.Ratios)-1].Procs)
	}
	return fmt.Sprintf("P ~ %.1f (serial faster at P=%d, hypercube at P=%d)", b.Procs, b.SerialFasterUpTo, b.HypercubeFasterFrom)
}

// WriteBreakEvenTable prints one line per size and pairing, with the
// serial/hypercube time ratio at each P.
func WriteBreakEvenTable(out io.Writer, bs []BreakEven) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "size\tserial\thypercube\tserial/hypercube time at P\tbreak-even")
	for _, b := range bs {
		ratios := ""
		for i, pr := range b.Ratios {
			if i > 0 {
				ratios += " "
			}
			ratios += fmt.Sprintf("%d:%.2f", pr.Procs, pr.Ratio)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", b.Size, b.SerialVersion, b.HypercubeVersion, ratios, b.Describe())
	}
	return tw.Flush()
}

// BreakEvenChart draws serial time / hypercube time against P, one line
// per pairing in a panel per size (Radke's native-serial against MPI-hypercube solid,
// the same-style pairings dashed), over the ratio-1 line: a line crossing
// it is a break-even. machine names what ran (Scenario.MachineText).
func BreakEvenChart(bs []BreakEven, machine string) plots.Chart {
	c := plots.Chart{Title: fmt.Sprintf("global sum: serial / hypercube time, below 1 serial faster (%s)", machine),
		XLabel: "ranks (P, log scale)", YLabel: "serial time / hypercube time (ratio)", LogX: true}
	one := plots.Series{Name: "break-even (ratio 1)", Reference: true}
	for _, b := range bs {
		// A panel per size: a pairing keeps its colour across them.
		s := plots.Series{Name: fmt.Sprintf("serial %s / hypercube %s", b.SerialVersion, b.HypercubeVersion), Panel: fmt.Sprintf("size %d (elements)", b.Size),
			Dashed: b.SerialVersion == b.HypercubeVersion}
		for _, pr := range b.Ratios {
			s.X = append(s.X, float64(pr.Procs))
			s.Y = append(s.Y, pr.Ratio)
			if !slices.Contains(one.X, float64(pr.Procs)) {
				one.X = append(one.X, float64(pr.Procs))
			}
		}
		c.Series = append(c.Series, s)
	}
	slices.Sort(one.X)
	for range one.X {
		one.Y = append(one.Y, 1)
	}
	c.Series = append(c.Series, one)
	return c
}
