package logp

import "nocsim/coll"

// allreduceReduceScatterAllgather is Rabenseifner's allreduce (mpi's
// coll_allreduce_rabenseifner.go): on p = 2^floor(log2 P) ranks, a reduce-scatter by
// recursive halving (exchanges of about m/2, m/4, ... m/p) then an
// allgather by recursive doubling along the same pairs in reverse, the
// blocks whole elements (redSplit). With P not a power of two, half of the
// first 2(P-p) ranks hand their vector in first (fold-in) and get the
// result back last (fold-out).
//
// Every rank is replayed under LogGOPS's rules (xprogs.finish): a folded
// rank is late in every round and the partners that wait for it pass the
// delay on to theirs, which rounds in lockstep would not see, and the
// blocks differ by an element from rank to rank.
func allreduceReduceScatterAllgather(e *env) {
	es := elemBytes(e.m)
	f, x := coll.NewFold(e.P), newXprogs(e.P)
	bo := redSplit(e.m/es, f.Pof2, es)
	for r := range e.P {
		nr := x.foldIn(f, r, e.m)
		if nr < 0 {
			x.recv(r, r+1, e.m)
			continue
		}
		x.halving(f, r, nr, bo, es)
		for mask := 1; mask < f.Pof2; mask <<= 1 {
			pn := nr ^ mask
			lo, plo := nr&^(mask-1), pn&^(mask-1)
			x.exch(r, f.Real(pn), (bo[lo+mask]-bo[lo])*es, (bo[plo+mask]-bo[plo])*es)
		}
		if r < 2*f.Rem {
			x.send(r, r-1, e.m)
		}
	}
	e.xterms("fold-in, log2 p halving and doubling steps, fold-out (exact recurrence)", x.finish(e))
}
