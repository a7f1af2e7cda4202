package mpi_test

import (
	"fmt"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/router"
)

// A rank program is plain Go: it allocates buffers in its tile's memory,
// calls MPI, and computes. Here every rank passes a token once around a
// ring and then sums its rank number over all ranks.
func Example() {
	topo, _ := mesh.New(4, 4) // 16 tiles, rank i on tile i
	m := endpoint.NewMachine(des.New(), topo, router.DefaultSpec(), endpoint.DefaultSpec(), endpoint.DefaultCPUSpec())
	defer m.Close()
	w, err := mpi.NewWorld(m, mpi.DefaultConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	token := make([]int64, 16) // what each rank received, read after the run
	sums := make([]int64, 16)
	w.Launch(func(r *mpi.Rank) {
		c := r.CommWorld()
		me, p := r.Rank(), r.Size()
		buf := r.MustAlloc(8)
		if me == 0 {
			buf.SetInt64(0, 1)
			if err := r.Send(buf, 1, datatype.Int64, 1, 0, c); err != nil {
				return
			}
			if _, err := r.Recv(buf, 1, datatype.Int64, p-1, 0, c); err != nil {
				return
			}
		} else {
			if _, err := r.Recv(buf, 1, datatype.Int64, me-1, 0, c); err != nil {
				return
			}
			r.Compute(10) // some work on the token: 10 cycles
			buf.SetInt64(0, buf.Int64(0)+1)
			if err := r.Send(buf, 1, datatype.Int64, (me+1)%p, 0, c); err != nil {
				return
			}
		}
		token[me] = buf.Int64(0)

		in, out := r.MustAlloc(8), r.MustAlloc(8)
		in.SetInt64(0, int64(me))
		if err := r.Allreduce(in, out, 1, datatype.Int64, datatype.OpSum, c); err != nil {
			return
		}
		sums[me] = out.Int64(0)
	})
	if err := w.Run(); err != nil { // nil, an MPI error, or *mpi.DeadlockError
		fmt.Println(err)
		return
	}
	fmt.Println("token back at rank 0:", token[0])
	fmt.Println("sum of ranks on rank 0 and rank 15:", sums[0], sums[15])
	fmt.Println("simulated time positive:", m.Eng.Now() > 0)
	// Output:
	// token back at rank 0: 16
	// sum of ranks on rank 0 and rank 15: 120 120
	// simulated time positive: true
}
