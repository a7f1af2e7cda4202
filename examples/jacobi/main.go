// Command jacobi is a small rank program of your own, run on the simulated
// chip: a 1-D Jacobi relaxation (u_i <- (u_{i-1} + u_{i+1}) / 2 with u = 1 at
// the left wall and 0 at the right) whose points are split over the ranks.
// Each sweep exchanges one halo value with each neighbour (MPI_Sendrecv) and
// sums the squared change over all ranks (MPI_Allreduce). The answer is
// checked against the same relaxation computed serially.
//
//	go run ./examples/jacobi --mesh 4x4 --procs 16 --points 1024 --sweeps 20
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/router"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// params are the program's inputs.
type params struct {
	w, h, procs, points, sweeps int
	protocol                    string
}

// result is what a run measured.
type result struct {
	u      []float64 // the relaxed points, gathered from the ranks
	change float64   // the last sweep's summed squared change, as rank 0 saw it
	cycles des.Time  // simulated time of the whole program
	clock  float64   // processor clock (Hz), to print microseconds
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jacobi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	meshFlag := fs.String("mesh", "4x4", "mesh size WxH")
	procs := fs.Int("procs", 0, "ranks (0: every tile)")
	points := fs.Int("points", 1024, "points in the vector")
	sweeps := fs.Int("sweeps", 20, "Jacobi sweeps")
	protocol := fs.String("protocol", "scmp", "MPI protocol: scmp, eager or niu")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var p params
	if _, err := fmt.Sscanf(*meshFlag, "%dx%d", &p.w, &p.h); err != nil || p.w < 1 || p.h < 1 || p.w > mesh.MaxDim || p.h > mesh.MaxDim {
		fmt.Fprintf(stderr, "jacobi: --mesh %q: allowed WxH with 1 <= W, H <= %d\n", *meshFlag, mesh.MaxDim)
		return 2
	}
	p.procs, p.points, p.sweeps, p.protocol = *procs, *points, *sweeps, *protocol
	if p.procs == 0 {
		p.procs = p.w * p.h
	}
	switch {
	case p.procs < 1 || p.procs > p.w*p.h:
		fmt.Fprintf(stderr, "jacobi: --procs %d: allowed 1..%d (the tiles of the mesh)\n", p.procs, p.w*p.h)
		return 2
	case p.points < p.procs || p.points > 1<<20:
		fmt.Fprintf(stderr, "jacobi: --points %d: allowed %d..%d (at least one point per rank)\n", p.points, p.procs, 1<<20)
		return 2
	case p.sweeps < 1 || p.sweeps > 100000:
		fmt.Fprintf(stderr, "jacobi: --sweeps %d: allowed 1..100000\n", p.sweeps)
		return 2
	case !slices.Contains(mpi.Protocols, p.protocol):
		fmt.Fprintf(stderr, "jacobi: --protocol %q: allowed %s\n", p.protocol, strings.Join(mpi.Protocols, ", "))
		return 2
	}
	res, err := simulate(p)
	if err != nil {
		fmt.Fprintln(stderr, "jacobi:", err)
		return 1
	}
	want, wantChange := serial(p.points, p.sweeps)
	worst := 0.0
	for i := range want {
		worst = max(worst, math.Abs(res.u[i]-want[i]))
	}
	fmt.Fprintf(stdout, "%d points, %d sweeps on %d ranks (%dx%d mesh, %s protocol)\n", p.points, p.sweeps, p.procs, p.w, p.h, p.protocol)
	fmt.Fprintf(stdout, "simulated time: %d cycles (%.1f us at %.0f MHz)\n", res.cycles, float64(res.cycles)/res.clock*1e6, res.clock/1e6)
	fmt.Fprintf(stdout, "last sweep's squared change: %.6g (serial: %.6g)\n", res.change, wantChange)
	fmt.Fprintf(stdout, "largest difference from the serial relaxation: %.3g\n", worst)
	if worst > 1e-12 || math.Abs(res.change-wantChange) > 1e-12*max(1, wantChange) {
		fmt.Fprintln(stderr, "jacobi: the simulated answer differs from the serial one")
		return 1
	}
	return 0
}

// simulate runs the relaxation as an MPI program on the chip.
func simulate(p params) (result, error) {
	topo, err := mesh.New(p.w, p.h)
	if err != nil {
		return result{}, err
	}
	cpu := endpoint.DefaultCPUSpec()
	m := endpoint.NewMachine(des.New(), topo, router.DefaultSpec(), endpoint.DefaultSpec(), cpu)
	defer m.Close()
	cfg := mpi.DefaultConfig()
	cfg.Procs, cfg.Protocol = p.procs, p.protocol
	w, err := mpi.NewWorld(m, cfg)
	if err != nil {
		return result{}, err
	}
	u := make([]float64, p.points)
	var change float64
	w.Launch(func(r *mpi.Rank) {
		c := r.CommWorld()
		me, np := r.Rank(), r.Size()
		lo, hi := me*p.points/np, (me+1)*p.points/np
		n := hi - lo
		// Local points with a halo cell at each end: cur[0] and cur[n+1].
		cur, next := r.MustAlloc(8*(n+2)), r.MustAlloc(8*(n+2))
		if me == 0 {
			cur.SetFloat64(0, 1) // the left wall
			next.SetFloat64(0, 1)
		}
		sq, sum := r.MustAlloc(8), r.MustAlloc(8)
		left, right := me-1, me+1
		for s := 0; s < p.sweeps; s++ {
			if err := halo(r, cur, n, left, right, c); err != nil {
				return
			}
			d := 0.0
			for i := 1; i <= n; i++ {
				v := 0.5 * (cur.Float64(i-1) + cur.Float64(i+1))
				d += (v - cur.Float64(i)) * (v - cur.Float64(i))
				next.SetFloat64(i, v)
			}
			r.Flops(int64(5 * n)) // add, multiply, subtract, multiply, add per point
			cur, next = next, cur
			sq.SetFloat64(0, d)
			if err := r.Allreduce(sq, sum, 1, datatype.Float64, datatype.OpSum, c); err != nil {
				return
			}
		}
		for i := 0; i < n; i++ {
			u[lo+i] = cur.Float64(i + 1)
		}
		if me == 0 {
			change = sum.Float64(0)
		}
	})
	if err := w.Run(); err != nil {
		return result{}, err
	}
	return result{u: u, change: change, cycles: m.Eng.Now(), clock: cpu.ClockHz}, nil
}

// halo swaps boundary values with both neighbours: the last point goes right
// while the left halo arrives, then the first point goes left while the
// right halo arrives. Ranks at the ends skip the missing neighbour.
func halo(r *mpi.Rank, cur datatype.Buffer, n, left, right int, c *mpi.Comm) error {
	last, _ := cur.Slice(8*n, 8)
	first, _ := cur.Slice(8, 8)
	lhalo, _ := cur.Slice(0, 8)
	rhalo, _ := cur.Slice(8*(n+1), 8)
	np := r.Size()
	if err := shift(r, last, right < np, right, lhalo, left >= 0, left, c); err != nil {
		return err
	}
	return shift(r, first, left >= 0, left, rhalo, right < np, right, c)
}

// shift sends one value to dst (if toOK) while receiving one from src (if
// fromOK).
func shift(r *mpi.Rank, out datatype.Buffer, toOK bool, dst int, in datatype.Buffer, fromOK bool, src int, c *mpi.Comm) error {
	switch {
	case toOK && fromOK:
		_, err := r.Sendrecv(out, 1, datatype.Float64, dst, 0, in, 1, datatype.Float64, src, 0, c)
		return err
	case toOK:
		return r.Send(out, 1, datatype.Float64, dst, 0, c)
	case fromOK:
		_, err := r.Recv(in, 1, datatype.Float64, src, 0, c)
		return err
	}
	return nil
}

// serial is the same relaxation on one processor: the points after the
// sweeps and the last sweep's squared change.
func serial(points, sweeps int) ([]float64, float64) {
	cur, next := make([]float64, points+2), make([]float64, points+2)
	cur[0], next[0] = 1, 1
	d := 0.0
	for s := 0; s < sweeps; s++ {
		d = 0
		for i := 1; i <= points; i++ {
			v := 0.5 * (cur[i-1] + cur[i+1])
			d += (v - cur[i]) * (v - cur[i])
			next[i] = v
		}
		cur, next = next, cur
	}
	return cur[1 : points+1], d
}
