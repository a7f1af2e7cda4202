package logp

// Selection is the model's choice of algorithm for one collective on a
// grid of rank counts and sizes, with the sizes where the choice changes:
// what `nocsim predict --select` prints.
type Selection struct {
	Procs      []int
	Sizes      []int       // bytes
	Choice     [][]string  // [i][j]: the fastest algorithm at Procs[i], Sizes[j]
	Crossovers []Crossover // per P in order, then by size
}

// Crossover is a size where the model's choice changes at P ranks: Below
// up to Last bytes, Above from Last+1 (found by bisection between two
// neighbouring sizes of the grid).
type Crossover struct {
	P            int
	Below, Above string
	Last         int // bytes
}

// Select fills a Selection with pick, the fastest algorithm at P ranks and
// n bytes. The grid is filled whole even when pick fails (a failed cell is
// ""); the first error is returned and then no crossovers are searched.
// The algorithms live in mpi, which logp does not import: the caller's
// pick knows them.
func Select(procs, sizes []int, pick func(P, n int) (string, error)) (Selection, error) {
	s := Selection{Procs: procs, Sizes: sizes}
	var first error
	for _, P := range procs {
		row := make([]string, len(sizes))
		for j, n := range sizes {
			a, err := pick(P, n)
			if err != nil && first == nil {
				first = err
			}
			row[j] = a
		}
		s.Choice = append(s.Choice, row)
	}
	if first != nil {
		return s, first
	}
	choose := func(P, n int) string { a, _ := pick(P, n); return a }
	for _, P := range procs {
		for i := 1; i < len(sizes); i++ {
			lo, hi := sizes[i-1], sizes[i]
			a, b := choose(P, lo), choose(P, hi)
			if a == b || hi <= lo {
				continue
			}
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if choose(P, mid) == a {
					lo = mid
				} else {
					hi = mid
				}
			}
			s.Crossovers = append(s.Crossovers, Crossover{P: P, Below: a, Above: choose(P, hi), Last: lo})
		}
	}
	return s, nil
}
