package mpi

import (
	sched "nocsim/coll"
	"nocsim/mpi/datatype"
)

// Rabenseifner's allreduce (R. Rabenseifner, "Optimization of collective
// reduction operations", ICCS 2004; Thakur, Rabenseifner & Gropp, "Optimization
// of collective communication operations in MPICH", IJHPCA 2005): a
// reduce-scatter by recursive halving leaves every rank one block of the
// result, then an allgather by recursive doubling, along the same pairs in
// the reverse order, brings every block to every rank. Each rank sends about
// 2m bytes in 2 log2 P messages, against recursive doubling's m log2 P
// bytes, so it is the long-vector algorithm for a power-of-two P.
//
// A non-power-of-two P folds as the papers do: of the first 2r ranks
// (r = P - 2^floor(log2 P)) each even rank hands its vector to the odd one
// above it, the remaining 2^floor(log2 P) ranks run the algorithm, and each
// odd rank of a pair sends the whole result back to its partner at the end.
// The halving reorders operands, so a non-commutative op falls back to
// recursive_doubling.

func init() {
	register(algEntry{Algorithm: Algorithm{Op: "allreduce", Name: "reduce_scatter_allgather",
		Source:   "Rabenseifner 2004; Thakur, Rabenseifner & Gropp 2005 (MPICH): recursive-halving reduce-scatter + recursive-doubling allgather",
		Messages: "2p log2 p + 2(P-p), p = 2^floor(log2 P)"}, run: allreduceRun((*redColl).allreduceRSAG), reorders: true})
}

// allreduceRSAG runs Rabenseifner's allreduce of count elements from in
// into out (which may be in).
func (rd *redColl) allreduceRSAG(in, out datatype.Buffer, count int, _ bool) error {
	me, es := rd.c.Rank(), rd.es
	n := count * es
	f := sched.NewFold(rd.c.Size())
	nr := f.NewRank(me)
	if nr < 0 { // the even rank of a folded pair: its partner stands for it
		if err := rd.send(in, n, me+1); err != nil {
			return err
		}
		return rd.recv(out, n, me+1)
	}
	if !redSame(in, out) {
		rd.copy(out, in, n)
	}
	if err := rd.absorbFolded(out, n, count, me, f); err != nil {
		return err
	}
	// Blocks start on words, so every range below can be sent in place.
	bo := redSplit(count, f.Pof2, es)
	if err := rd.halve(out, bo, nr, f); err != nil {
		return err
	}
	if err := rd.allgatherRD(out, bo, nr, f); err != nil {
		return err
	}
	if me < 2*f.Rem {
		return rd.send(out, n, me-1)
	}
	return nil
}
