package mpi

import (
	"fmt"

	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// ---------------------------------------------------------------- allgather

// Allgather is MPI_Allgather. With sbuf == InPlace each rank's contribution
// is already in its block of rbuf.
func (r *Rank) Allgather(sbuf datatype.Buffer, scount int, sdt *datatype.Datatype, rbuf datatype.Buffer, rcount int, rdt *datatype.Datatype, c *Comm) error {
	n := rcount * rdt.Size()
	x, err := r.beginColl("MPI_Allgather", c, argsI("%d bytes per rank", n))
	if err != nil {
		return err
	}
	P := c.Size()
	defer x.end(P * n)
	if err := x.check("receive", rbuf, P*rcount, rdt); err != nil {
		return err
	}
	counts, displs := make([]int, P), make([]int, P)
	for i := range counts {
		counts[i], displs[i] = rcount, i*rcount
	}
	return x.allgatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt)
}

// Allgatherv is MPI_Allgatherv: rank i's block is rcounts[i] elements of
// rdt at displs[i] extents of rdt in rbuf.
func (r *Rank) Allgatherv(sbuf datatype.Buffer, scount int, sdt *datatype.Datatype, rbuf datatype.Buffer, rcounts, displs []int, rdt *datatype.Datatype, c *Comm) error {
	P := allSize(c)
	x, err := r.beginColl("MPI_Allgatherv", c, argsI("MPI_Allgatherv, %d ranks", P))
	if err != nil {
		return err
	}
	total := 0
	for i := 0; i < min(P, len(rcounts)); i++ {
		total += rcounts[i] * rdt.Size()
	}
	defer x.end(total)
	return x.allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt)
}

// allgatherWork is an allgather's working buffer: block i is n[i] bytes at
// off[i], offsets word-aligned and ascending.
type allgatherWork struct {
	x   *coll
	w   datatype.Buffer
	off []int
	n   []int
}

// span is blocks a..b-1 (a < b) as one message.
func (g *allgatherWork) span(a, b int) (datatype.Buffer, int) {
	n := g.off[b-1] + g.n[b-1] - g.off[a]
	s, _ := g.w.Slice(g.off[a], n)
	return s, n
}

func (x *coll) allgatherv(sbuf datatype.Buffer, scount int, sdt *datatype.Datatype, rbuf datatype.Buffer, rcounts, displs []int, rdt *datatype.Datatype) error {
	P, me := x.c.Size(), x.c.Rank()
	if len(rcounts) < P || len(displs) < P {
		return mpierr.Errorf(mpierr.ErrArg, x.name, "%d receive counts and %d displacements for %d ranks", len(rcounts), len(displs), P)
	}
	blocks := make([]allBlock, P)
	for i := range blocks {
		blocks[i] = allBlock{rbuf, displs[i] * rdt.Extent(), rcounts[i], rdt}
		if err := x.allBlockCheck(fmt.Sprintf("receive block %d", i), blocks[i]); err != nil {
			return err
		}
	}
	inPlace := isInPlace(sbuf)
	mine := blocks[me]
	if !inPlace {
		mine = allBlock{sbuf, 0, scount, sdt}
		if err := x.allBlockCheck("send", mine); err != nil {
			return err
		}
		if mine.bytes() != blocks[me].bytes() {
			return mpierr.Errorf(mpierr.ErrCount, x.name, "rank %d sends %d bytes but its block receives %d", me, mine.bytes(), blocks[me].bytes())
		}
	}

	// The layout every rank shares; the user's buffer serves as it when
	// it already is that layout.
	off, n := make([]int, P), make([]int, P)
	size, total, direct := 0, 0, rdt.Contiguous()
	for i := range blocks {
		n[i], off[i] = blocks[i].bytes(), size
		size += allRound4(n[i])
		total += n[i]
		direct = direct && n[i]%4 == 0 && blocks[i].off == off[i]
	}
	var w datatype.Buffer
	var err error
	if direct {
		w, err = rbuf.Slice(0, size)
	} else {
		w, err = x.alloc(size)
		if err == nil {
			defer x.free(w)
		}
	}
	if err != nil {
		return err
	}
	if !(direct && inPlace) {
		if err := x.allBlockPack(mine, w.Bytes[off[me]:]); err != nil {
			return err
		}
	}
	g := &allgatherWork{x, w, off, n}
	alg := x.pick("allgather", x.r.w.Cfg.Allgather, total, "recursive_doubling", "ring")
	if run, ok := lookupAlg("allgather", alg).run.(allgatherRun); ok {
		err = run(g)
	} else {
		err = mpierr.Errorf(mpierr.ErrArg, x.name, "unknown allgather algorithm %q", alg)
	}
	if err != nil || direct {
		return err
	}
	for i, b := range blocks {
		if i == me && inPlace {
			continue
		}
		if err := x.allBlockUnpack(w.Bytes[off[i]:], b); err != nil {
			return err
		}
	}
	return nil
}

// gatherBcast is the gather_bcast allgather: a binomial gather to rank 0,
// then a broadcast of every block from it.
func (g *allgatherWork) gatherBcast() error {
	if err := g.allgatherGatherPhase(); err != nil {
		return err
	}
	return g.allgatherBcastPhase()
}

// allgatherGatherPhase is a binomial gather to rank 0: rank i collects the
// subtrees of i+1, i+2, i+4, ... below its lowest set bit, then sends its
// run of blocks to its parent. Rooted at 0 every subtree is one run.
func (g *allgatherWork) allgatherGatherPhase() error {
	x := g.x
	P, me := x.c.Size(), x.c.Rank()
	var qs []*Request
	mask := 1
	for ; mask < P && me&mask == 0; mask <<= 1 {
		if child := me + mask; child < P {
			b, n := g.span(child, min(child+mask, P))
			q, err := x.irecv(b, n, child)
			if err != nil {
				return err
			}
			qs = append(qs, q)
		}
	}
	if err := x.waitall(qs...); err != nil {
		return err
	}
	if me == 0 {
		return nil
	}
	b, n := g.span(me, min(me+mask, P))
	return x.send(b, n, me-mask)
}

// allgatherBcastPhase broadcasts every block from rank 0 down the same
// binomial tree as Bcast.
func (g *allgatherWork) allgatherBcastPhase() error {
	b, n := g.span(0, g.x.c.Size())
	return g.x.rtBcastBinomial(b, n, 0)
}

// ring is Puma's bucket algorithm: in step k every rank passes the block
// it received in step k-1 (its own first) to its right neighbour.
func (g *allgatherWork) ring() error {
	x := g.x
	P, me := x.c.Size(), x.c.Rank()
	right, left := (me+1)%P, (me+P-1)%P
	for k := 0; k < P-1; k++ {
		s, r := (me-k+P)%P, (me-k-1+P)%P
		sb, sn := g.span(s, s+1)
		rb, rn := g.span(r, r+1)
		if err := x.sendrecv(sb, sn, right, rb, rn, left); err != nil {
			return err
		}
	}
	return nil
}

// recursiveDoubling exchanges doubling runs of blocks between partners
// 1, 2, 4, ... apart. For P not a power of two, p = 2^floor(log2 P): the
// first 2(P-p) ranks pair up, the even one of each pair hands its block to
// the odd one, sits out the exchanges and gets the whole result at the end.
// Virtual rank v (of p) then holds a run of one or two blocks, and any
// aligned group of virtual ranks holds one run.
func (g *allgatherWork) recursiveDoubling() error {
	x := g.x
	P, me := x.c.Size(), x.c.Rank()
	p := 1
	for p*2 <= P {
		p *= 2
	}
	rem := P - p
	lo := func(v int) int { // first block of virtual rank v
		if v < rem {
			return 2 * v
		}
		return v + rem
	}
	real := func(v int) int {
		if v < rem {
			return 2*v + 1
		}
		return v + rem
	}
	all, alln := g.span(0, P)
	if me < 2*rem && me%2 == 0 {
		b, n := g.span(me, me+1)
		if err := x.send(b, n, me+1); err != nil {
			return err
		}
		return x.recv(all, alln, me+1)
	}
	v := me - rem
	if me < 2*rem {
		v = me / 2
		b, n := g.span(me-1, me)
		if err := x.recv(b, n, me-1); err != nil {
			return err
		}
	}
	for mask := 1; mask < p; mask <<= 1 {
		pv := v ^ mask
		mine, theirs := v&^(mask-1), pv&^(mask-1)
		sb, sn := g.span(lo(mine), lo(mine+mask))
		rb, rn := g.span(lo(theirs), lo(theirs+mask))
		if err := x.sendrecv(sb, sn, real(pv), rb, rn, real(pv)); err != nil {
			return err
		}
	}
	if me < 2*rem {
		return x.send(all, alln, me-1)
	}
	return nil
}
