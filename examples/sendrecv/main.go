// Command sendrecv is the minimal program of docs/api.md, kept there
// verbatim so a test can run it: rank 0 sends 1024 doubles to rank 1 on a
// 4x4 chip.
package main

import (
	"fmt"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/router"
)

func main() {
	topo, _ := mesh.New(4, 4) // 16 tiles; rank i runs on tile i
	m := endpoint.NewMachine(des.New(), topo, router.DefaultSpec(), endpoint.DefaultSpec(), endpoint.DefaultCPUSpec())
	defer m.Close()
	w, err := mpi.NewWorld(m, mpi.DefaultConfig()) // protocol, algorithms, procs: mpi.Config
	if err != nil {
		panic(err)
	}
	w.Launch(func(r *mpi.Rank) {
		c := r.CommWorld()
		buf := r.MustAlloc(8 * 1024) // 1024 doubles in the tile's memory
		if r.Rank() == 0 {
			for i := 0; i < 1024; i++ {
				buf.SetFloat64(i, float64(i))
			}
			r.Send(buf, 1024, datatype.Float64, 1, 7, c)
		} else if r.Rank() == 1 {
			r.Recv(buf, 1024, datatype.Float64, 0, mpi.AnyTag, c)
			if buf.Float64(1023) != 1023 { // real data moved through the network
				panic("wrong data")
			}
			r.Flops(1024) // computation is charged in cycles
		}
	})
	if err := w.Run(); err != nil { // nil, an MPI error, or *mpi.DeadlockError
		panic(err)
	}
	fmt.Println("simulated cycles:", m.Eng.Now())
}
