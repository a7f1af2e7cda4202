package mpi

import (
	"fmt"

	sched "nocsim/coll"
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
	n := make([]int, P)
	total := 0
	for i := range blocks {
		n[i] = blocks[i].bytes()
		total += n[i]
	}
	l := sched.NewLayout(n)
	off, size := l.Off, l.Size()
	direct := rdt.Contiguous()
	for i := range blocks {
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
	alg := x.pick("allgather", x.r.w.Cfg.Allgather, total)
	switch run := lookupAlg("allgather", alg).run.(type) {
	case allgatherRun:
		err = run(x, w, n)
	case *sched.Algorithm:
		err = x.runProgram(run.Program, sched.Args{Blocks: n}, callBufs{sched.Data: w}, nil)
	default:
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
