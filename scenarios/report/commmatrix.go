package report

import (
	"fmt"

	"nocsim/plots"
)

// CommMatrix draws the bytes each rank sent each, m[src][dst], as a
// heatmap: a row per source rank (rank 0 at the top), a column per
// destination. title says what ran.
func CommMatrix(m [][]int64, title string) (plots.Map, error) {
	p := len(m)
	if p == 0 {
		return plots.Map{}, fmt.Errorf("traffic matrix: no ranks")
	}
	out := plots.Map{Title: "bytes sent, source x destination: " + title,
		XLabel: "destination rank (index)", YLabel: "source rank (index)", Cols: p, Rows: p,
		CellLabel: "bytes sent (bytes, MPI payload over the run)"}
	for src, row := range m {
		if len(row) != p {
			return plots.Map{}, fmt.Errorf("traffic matrix: rank %d has %d destinations, want %d", src, len(row), p)
		}
		for dst, b := range row {
			out.Cells = append(out.Cells, plots.MapCell{Col: dst, Row: src, Value: float64(b)})
		}
	}
	return out, nil
}
