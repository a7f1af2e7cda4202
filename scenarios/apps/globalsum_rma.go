package apps

import (
	"nocsim/des"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// gsRMA is Radke's serial global sum over a shared address space written
// in pure MPI with one-sided communication. "onesided": every rank Puts
// its vector into its own slot of rank 0's window (a DMA block, no work
// for rank 0's processor), a fence, rank 0 adds the slots in rank order
// and Puts the sum into every rank's window, a fence. "accumulate": every
// rank Accumulates its vector onto rank 0's (MPI_SUM, applied by handler
// threads on rank 0's processor), a fence, then the same Puts of the sum
// and fence.
func gsRMA(m Machine, cfg GlobalSumConfig, vs [][]float64) ([][]byte, des.Time, error) {
	P, n := cfg.Procs, cfg.N
	out := make([][]byte, P)
	// Timed from the last rank's return from WinCreate to the last rank's
	// final fence: window creation and free are setup an application
	// amortises, and the two-sided versions have none.
	var created, last des.Time
	err := runAppMPI(m, P, nil, func(r *mpi.Rank, must func(error)) {
		me, comm := r.Rank(), r.CommWorld()
		// The window: the vector's n doubles, overwritten by the sum, and on rank 0 under
		// "onesided" a slot of n for every rank behind it.
		words := n
		if me == 0 && cfg.Method == "onesided" {
			words = n * (P + 1)
		}
		wb := r.MustAlloc(8 * words)
		v, err := wb.Slice(0, 8*n) // its vector, where the sum ends
		must(err)
		for i, x := range vs[me] {
			v.SetFloat64(i, x)
		}
		win, err := r.WinCreate(wb, wb.Len(), 8, comm)
		must(err)
		created = max(created, r.Now())
		must(win.Fence())
		switch {
		case me == 0:
			// Its own share is in place.
		case cfg.Method == "onesided":
			must(r.Put(v, n, datatype.Float64, 0, n*(me+1), n, datatype.Float64, win))
		default:
			must(r.Accumulate(v, n, datatype.Float64, 0, 0, n, datatype.Float64, datatype.OpSum, win))
		}
		must(win.Fence())
		if me == 0 {
			if cfg.Method == "onesided" {
				for src := 1; src < P; src++ {
					slot, err := wb.Slice(8*n*(src+1), 8*n)
					must(err)
					r.Flops(gsAdd(wb.Bytes, slot.Bytes, n))
				}
			}
			for dst := 1; dst < P; dst++ {
				must(r.Put(v, n, datatype.Float64, dst, 0, n, datatype.Float64, win))
			}
		}
		must(win.Fence())
		out[me] = append([]byte(nil), wb.Bytes[:8*n]...)
		last = max(last, r.Now())
		must(r.WinFree(win))
	})
	return out, last - created, err
}
