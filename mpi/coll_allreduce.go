package mpi

import (
	sched "nocsim/coll"
	"nocsim/mpi/datatype"
)

// allreduceReduceBcast is a binomial reduce to rank 0 and a binomial
// broadcast from it.
func (rd *redColl) allreduceReduceBcast(in, out datatype.Buffer, count int, _ bool) error {
	if err := rd.reduceBinomial(in, out, count, 0); err != nil {
		return err
	}
	return rd.bcastBinomial(out, count*rd.es, 0)
}

// allreduceRD is recursive doubling: log2 P rounds in which partners at
// distance 2^k swap partial results. A non-power-of-two P folds its extra
// ranks in first and hands them the result last. Partials are combined
// lower rank first, so a non-commutative op keeps rank order.
func (rd *redColl) allreduceRD(in, out datatype.Buffer, count int, _ bool) error {
	P, me, n := rd.c.Size(), rd.c.Rank(), count*rd.es
	f := sched.NewFold(P)
	nr := f.NewRank(me)
	if nr < 0 {
		if err := rd.send(in, n, me+1); err != nil {
			return err
		}
		return rd.recv(out, n, me+1)
	}
	if !redSame(in, out) {
		rd.copy(out, in, n)
	}
	acc, tmp := out, datatype.Buffer{}
	if P > 1 {
		b, err := rd.newBuf(n)
		if err != nil {
			return err
		}
		tmp = b
	}
	if me < 2*f.Rem {
		if err := rd.recv(tmp, n, me-1); err != nil {
			return err
		}
		if err := rd.combine(tmp, acc, count); err != nil {
			return err
		}
	}
	for mask := 1; mask < f.Pof2; mask <<= 1 {
		pn := nr ^ mask
		peer := f.Real(pn)
		if err := rd.sendrecv(acc, n, peer, tmp, n, peer); err != nil {
			return err
		}
		if pn < nr || rd.o.Commutative() {
			if err := rd.combine(tmp, acc, count); err != nil {
				return err
			}
		} else {
			if err := rd.combine(acc, tmp, count); err != nil {
				return err
			}
			acc, tmp = tmp, acc
		}
	}
	if !redSame(acc, out) {
		rd.copy(out, acc, n)
	}
	if me < 2*f.Rem {
		return rd.send(out, n, me-1)
	}
	return nil
}

// allreduceRing is a ring reduce-scatter then a ring allgather, 2(P-1)
// steps each moving 1/P of the vector (commutative ops only).
func (rd *redColl) allreduceRing(in, out datatype.Buffer, count int, inPlace bool) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	bo := redSplit(count, P, es)
	blk := func(i int) (datatype.Buffer, error) {
		i = (i%P + P) % P
		return out.Slice(bo[i]*es, (bo[i+1]-bo[i])*es)
	}
	mine, err := blk(me)
	if err != nil {
		return err
	}
	if err := rd.ringRS(in, bo, mine, inPlace); err != nil {
		return err
	}
	right, left := (me+1)%P, (me-1+P)%P
	for s := 0; s < P-1; s++ {
		sb, err := blk(me - s)
		if err != nil {
			return err
		}
		rb, err := blk(me - s - 1)
		if err != nil {
			return err
		}
		if err := rd.sendrecv(sb, sb.Len(), right, rb, rb.Len(), left); err != nil {
			return err
		}
	}
	return nil
}

// ringRS is the ring reduce-scatter (commutative ops only): in holds this
// rank's vector, block i being elements bo[i]..bo[i+1]. In step s a rank
// passes its partial of block me-s-1 to the right and adds its own data to
// the partial of block me-s-2 from the left, so after P-1 steps it holds
// block me reduced over every rank, which goes to dst. inPlace says dst
// lies inside in.
func (rd *redColl) ringRS(in datatype.Buffer, bo []int, dst datatype.Buffer, inPlace bool) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	blk := func(i int) (off, n, count int) {
		i = (i%P + P) % P
		return bo[i] * es, (bo[i+1] - bo[i]) * es, bo[i+1] - bo[i]
	}
	if P == 1 {
		if _, n, _ := blk(0); !redSame(in, dst) {
			rd.copy(dst, in, n)
		}
		return nil
	}
	most := 0
	for i := range P {
		_, n, _ := blk(i)
		most = max(most, n)
	}
	var tmp [2]datatype.Buffer
	for i := range tmp {
		b, err := rd.newBuf(most)
		if err != nil {
			return err
		}
		tmp[i] = b
	}
	var scr datatype.Buffer
	so, sn, _ := blk(me - 1)
	sb, err := rd.msg(in, so, sn, &scr)
	if err != nil {
		return err
	}
	right, left := (me+1)%P, (me-1+P)%P
	for s := 0; s < P-1; s++ {
		ro, rn, rc := blk(me - s - 2)
		rb := tmp[s%2]
		if s == P-2 && !inPlace {
			rb = dst
		}
		if err := rd.sendrecv(sb, sn, right, rb, rn, left); err != nil {
			return err
		}
		if err := rd.combine(redAt(in, ro, rn), rb, rc); err != nil {
			return err
		}
		sb, sn = rb, rn
	}
	if inPlace {
		rd.copy(dst, sb, sn)
	}
	return nil
}
