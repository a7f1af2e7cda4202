package mpi

import (
	sched "nocsim/coll"
	"nocsim/mpi/datatype"
)

// reduceScatterv reduces the whole vector to rank 0 down the binomial
// tree, which then sends every rank its block, as the Cray X1 does.
func (rd *redColl) reduceScatterv(in, out datatype.Buffer, offs []int, inPlace bool) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	total := offs[P]
	acc := in
	if me == 0 && !inPlace {
		b, err := rd.newBuf(total * es)
		if err != nil {
			return err
		}
		acc = b
	}
	if err := rd.reduceBinomial(in, acc, total, 0); err != nil {
		return err
	}
	if me != 0 {
		return rd.recv(out, (offs[me+1]-offs[me])*es, 0)
	}
	// Blocks must start on words to be sent: repack them if they do not.
	start := make([]int, P+1)
	aligned := true
	for i := range P {
		aligned = aligned && offs[i]*es%4 == 0
		start[i+1] = start[i] + ((offs[i+1]-offs[i])*es+3)&^3
	}
	src := acc
	if aligned {
		for i := range start {
			start[i] = offs[i] * es
		}
	} else {
		b, err := rd.newBuf(start[P])
		if err != nil {
			return err
		}
		for i := range P {
			n := (offs[i+1] - offs[i]) * es
			rd.copy(redAt(b, start[i], n), redAt(acc, offs[i]*es, n), n)
		}
		src = b
	}
	var qs []*Request
	for i := 1; i < P; i++ {
		b, err := src.Slice(start[i], (offs[i+1]-offs[i])*es)
		if err != nil {
			return err
		}
		q, err := rd.isend(b, b.Len(), i)
		if err != nil {
			return err
		}
		qs = append(qs, q)
	}
	if !redSame(acc, out) {
		rd.copy(out, acc, offs[1]*es)
	}
	return rd.waitall(qs...)
}

// reduceScatterHalving is the recursive-halving reduce-scatter
// (commutative ops only). With a non-power-of-two P an odd rank of a
// folded pair stands for both: its new block spans both ranks' blocks, and
// it hands its partner's block back at the end.
func (rd *redColl) reduceScatterHalving(in, out datatype.Buffer, offs []int, _ bool) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	total := offs[P]
	n := total * es
	f := sched.NewFold(P)
	nr := f.NewRank(me)
	myOff, myN := offs[me]*es, (offs[me+1]-offs[me])*es
	if nr < 0 {
		if err := rd.send(in, n, me+1); err != nil {
			return err
		}
		return rd.recv(out, myN, me+1)
	}
	acc, err := rd.newBuf(n)
	if err != nil {
		return err
	}
	if me < 2*f.Rem {
		if err := rd.recv(acc, n, me-1); err != nil {
			return err
		}
		if err := rd.combine(in, acc, total); err != nil {
			return err
		}
	} else {
		rd.copy(acc, in, n)
	}
	bo := make([]int, f.Pof2+1)
	for j := range f.Pof2 {
		first := j + f.Rem // the lowest rank new rank j stands for
		if j < f.Rem {
			first = 2 * j
		}
		bo[j] = offs[first]
	}
	bo[f.Pof2] = total
	if err := rd.halve(acc, bo, nr, f); err != nil {
		return err
	}
	if me < 2*f.Rem {
		var scr datatype.Buffer
		po, pn := offs[me-1]*es, (offs[me]-offs[me-1])*es
		b, err := rd.msg(acc, po, pn, &scr)
		if err != nil {
			return err
		}
		if err := rd.send(b, pn, me-1); err != nil {
			return err
		}
	}
	rd.copy(out, redAt(acc, myOff, myN), myN)
	return nil
}
