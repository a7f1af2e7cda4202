package apps

import (
	"fmt"
	"math"
	"math/rand/v2"

	"nocsim/des"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
)

// HaloConfig is a 1-D decomposed Jacobi relaxation: a grid of Procs*haloRows
// rows of N points, each rank owning haloRows consecutive rows and
// exchanging its first and last row with the ranks above and below every
// iteration; then a 5-point average of every interior point. The grid's
// edges stay fixed. It compares the halo exchange two-sided (Sendrecv)
// with one-sided Puts closed by a fence or by post-start-complete-wait.
type HaloConfig struct {
	Procs int
	// N is the row length in points (float64), the halo message size.
	N int
	// Method: "twosided" (two Sendrecvs an iteration), "fence" (two Puts
	// into the neighbours' windows and MPI_Win_fence) or "pscw" (the same
	// Puts between Post/Start and Complete/Wait with the two neighbours).
	Method string
	Seed   uint64
}

// HaloMethods are the halo exchange's methods; "compare" runs them all.
var HaloMethods = []string{"twosided", "fence", "pscw"}

const (
	haloRows  = 4  // rows a rank owns
	haloIters = 10 // Jacobi iterations
	haloMaxN  = 1 << 14
)

// Check validates cfg against m before anything runs.
func (cfg HaloConfig) Check(m Machine) error {
	if err := checkProcs(m, "halo", cfg.Procs); err != nil {
		return err
	}
	switch {
	case cfg.N < 3 || cfg.N > haloMaxN:
		return fmt.Errorf("halo: N = %d: allowed 3..%d points a row", cfg.N, haloMaxN)
	}
	for _, h := range HaloMethods {
		if cfg.Method == h {
			return nil
		}
	}
	return fmt.Errorf("halo: Method = %q: allowed \"twosided\", \"fence\", \"pscw\"", cfg.Method)
}

// haloGrid draws the initial grid (rows x n, row-major) and relaxes it
// serially, exactly as the ranks do, for the check.
func haloGrid(rows, n int, seed uint64) (init, want []float64) {
	rng := rand.New(rand.NewPCG(seed, 0x68616c6f))
	init = make([]float64, rows*n)
	for i := range init {
		init[i] = float64(rng.IntN(1000))
	}
	u := append([]float64(nil), init...)
	v := append([]float64(nil), init...)
	for it := 0; it < haloIters; it++ {
		for i := 1; i < rows-1; i++ {
			for j := 1; j < n-1; j++ {
				v[i*n+j] = 0.25 * (u[(i-1)*n+j] + u[(i+1)*n+j] + u[i*n+j-1] + u[i*n+j+1])
			}
		}
		u, v = v, u
	}
	return init, u
}

// RunHalo runs the relaxation with MPI on Procs ranks and checks every
// rank's rows bit for bit against the serial relaxation. Cycles is when
// the last rank finished; Size is N.
func RunHalo(m Machine, cfg HaloConfig) (Result, error) {
	if err := cfg.Check(m); err != nil {
		return Result{}, err
	}
	P, n := cfg.Procs, cfg.N
	rows := P * haloRows
	init, want := haloGrid(rows, n, cfg.Seed)
	res := Result{App: "halo-" + cfg.Method, Procs: P, Size: n}
	got := make([][]float64, P)
	ends := make([]des.Time, P)
	var created des.Time // the last rank's return from WinCreate (0 for twosided)
	err := runVersion(&res, false, ends, func() error {
		return runAppMPI(m, P, nil, func(r *mpi.Rank, must func(error)) {
			me := r.Rank()
			// Rows 0 and haloRows+1 are the halos; two buffers, the new
			// iterate computed from the old.
			words := (haloRows + 2) * n
			buf := [2]datatype.Buffer{r.MustAlloc(8 * words), r.MustAlloc(8 * words)}
			for i := 0; i < haloRows; i++ {
				for j := 0; j < n; j++ {
					x := init[(me*haloRows+i)*n+j]
					buf[0].SetFloat64((i+1)*n+j, x)
					buf[1].SetFloat64((i+1)*n+j, x)
				}
			}
			end := haloRelax(r, cfg.Method, buf, n, must, &created)
			cur := buf[haloIters%2]
			got[me] = make([]float64, haloRows*n)
			for k := range got[me] {
				got[me][k] = cur.Float64(n + k)
			}
			ends[me] = end
		})
	}, nil)
	if err != nil {
		return res, err
	}
	res.Cycles -= created
	bad, maxErr := 0, 0.0
	for p := range got {
		for k, x := range got[p] {
			if d := math.Abs(x - want[p*haloRows*n+k]); x != want[p*haloRows*n+k] {
				bad++
				maxErr = max(maxErr, d)
			}
		}
	}
	res.Correct = bad == 0
	res.Detail = fmt.Sprintf("%d of %d points differ from the serial relaxation (max error %g)", bad, rows*n, maxErr)
	return res, nil
}

// haloRelax runs the iterations on one rank and returns when they ended
// (before the windows are freed). Window creation is setup an application
// amortises: the timed part starts at the last rank's return from it,
// which haloRelax raises created to.
func haloRelax(r *mpi.Rank, method string, buf [2]datatype.Buffer, n int, must func(error), created *des.Time) des.Time {
	me, P, comm := r.Rank(), r.Size(), r.CommWorld()
	up, down := me-1, me+1 // up == -1, down == P: the grid's edge
	first, last := me == 0, me == P-1
	var nbrs []int
	if !first {
		nbrs = append(nbrs, up)
	}
	if !last {
		nbrs = append(nbrs, down)
	}
	nbrGroup, err := group.NewGroup(nbrs)
	must(err)
	row := func(b datatype.Buffer, i int) datatype.Buffer {
		s, err := b.Slice(8*i*n, 8*n)
		must(err)
		return s
	}
	var win [2]*mpi.Win
	if method != "twosided" {
		for k := range win {
			win[k], err = r.WinCreate(buf[k], buf[k].Len(), 8, comm)
			must(err)
		}
		*created = max(*created, r.Now())
		if method == "fence" {
			// The first fence of each window opens its first epoch.
			must(win[0].Fence())
			must(win[1].Fence())
		}
	}
	for it := 0; it < haloIters; it++ {
		u, v := buf[it%2], buf[(it+1)%2]
		switch method {
		case "twosided":
			// Upwards (own first row to the rank above, the halo below
			// from the rank below), then downwards.
			if !first && !last {
				_, err = r.Sendrecv(row(u, 1), n, datatype.Float64, up, 0, row(u, haloRows+1), n, datatype.Float64, down, 0, comm)
				must(err)
				_, err = r.Sendrecv(row(u, haloRows), n, datatype.Float64, down, 1, row(u, 0), n, datatype.Float64, up, 1, comm)
				must(err)
			} else {
				if !first {
					must(r.Send(row(u, 1), n, datatype.Float64, up, 0, comm))
					_, err = r.Recv(row(u, 0), n, datatype.Float64, up, 1, comm)
					must(err)
				}
				if !last {
					_, err = r.Recv(row(u, haloRows+1), n, datatype.Float64, down, 0, comm)
					must(err)
					must(r.Send(row(u, haloRows), n, datatype.Float64, down, 1, comm))
				}
			}
		case "fence", "pscw":
			w := win[it%2]
			if method == "pscw" {
				must(w.Post(nbrGroup))
				must(w.Start(nbrGroup))
			}
			// Own first row into the upper rank's lower halo, own last row
			// into the lower rank's upper halo.
			if !first {
				must(r.Put(row(u, 1), n, datatype.Float64, up, (haloRows+1)*n, n, datatype.Float64, w))
			}
			if !last {
				must(r.Put(row(u, haloRows), n, datatype.Float64, down, 0, n, datatype.Float64, w))
			}
			if method == "pscw" {
				must(w.Complete())
				must(w.Wait())
			} else {
				must(w.Fence())
			}
		}
		// The 5-point average of the interior points; the grid's first and
		// last rows and every row's end points stay.
		for i := 1; i <= haloRows; i++ {
			g := me*haloRows + i - 1
			if g == 0 || g == P*haloRows-1 {
				continue
			}
			for j := 1; j < n-1; j++ {
				v.SetFloat64(i*n+j, 0.25*(u.Float64((i-1)*n+j)+u.Float64((i+1)*n+j)+u.Float64(i*n+j-1)+u.Float64(i*n+j+1)))
			}
		}
		r.Flops(4 * int64(haloRows) * int64(n-2))
	}
	end := r.Now()
	if method != "twosided" {
		// Every epoch is closed: the loop ends each with a fence or with
		// Complete and Wait.
		for k := range win {
			must(r.WinFree(win[k]))
		}
	}
	return end
}
