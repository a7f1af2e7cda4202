package mpi

import (
	sched "nocsim/coll"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Rooted collectives and the barrier: MPI_Barrier, MPI_Bcast,
// MPI_Scatter(v) and MPI_Gather(v). Unexported names carry an rt prefix so
// they cannot collide with the other collective families of the package.

// Barrier is MPI_Barrier.
func (r *Rank) Barrier(c *Comm) error {
	x, err := r.beginColl("MPI_Barrier", c, collArgs{})
	if err != nil {
		return err
	}
	defer x.end(0)
	alg := x.pick("barrier", r.w.Cfg.Barrier, 0)
	switch run := lookupAlg("barrier", alg).run.(type) {
	case barrierRun:
		return run(x)
	case *sched.Algorithm:
		var a sched.Args
		x.prepare(run, &a)
		return x.runProgram(run.Program, a, callBufs{}, nil)
	}
	return x.rtUnknown(alg)
}

// Bcast is MPI_Bcast.
func (r *Rank) Bcast(buf datatype.Buffer, count int, dt *datatype.Datatype, root int, c *Comm) error {
	n := count * dt.Size()
	x, err := r.beginColl("MPI_Bcast", c, argsI("root=%d, %d bytes", root, n))
	if err != nil {
		return err
	}
	defer x.end(n)
	if err := x.rtCheckRoot(root); err != nil {
		return err
	}
	if err := x.check("buffer", buf, count, dt); err != nil {
		return err
	}
	var b datatype.Buffer
	var finish func(ok bool) error
	if c.Rank() == root {
		var done func()
		if b, done, err = x.contig(buf, count, dt); err != nil {
			return err
		}
		finish = func(bool) error { done(); return nil }
	} else if b, finish, err = x.rtRecvArea(buf, count, dt); err != nil {
		return err
	}
	alg := x.pick("bcast", r.w.Cfg.Bcast, n)
	switch run := lookupAlg("bcast", alg).run.(type) {
	case bcastRun:
		err = run(x, b, n, root)
	case *sched.Algorithm:
		a := sched.Args{Root: root, N: n}
		x.prepare(run, &a)
		err = x.runProgram(run.Program, a, callBufs{sched.Data: b}, nil)
	default:
		err = x.rtUnknown(alg)
	}
	if e := finish(err == nil); err == nil {
		err = e
	}
	return err
}

// Scatter is MPI_Scatter; the root may pass InPlace as rbuf to keep its
// own block where it is in sbuf.
func (r *Rank) Scatter(sbuf datatype.Buffer, scount int, sdt *datatype.Datatype, rbuf datatype.Buffer, rcount int, rdt *datatype.Datatype, root int, c *Comm) error {
	isRoot := c != nil && c.rank == root
	per := rcount * rdt.Size()
	if isRoot {
		per = scount * sdt.Size()
	}
	x, err := r.beginColl("MPI_Scatter", c, argsI("root=%d, %d bytes per rank", root, per))
	if err != nil {
		return err
	}
	var bl *rtBlocks
	if isRoot {
		if bl, err = x.rtRegular("send buffer", sbuf, scount, sdt, root); err != nil {
			x.end(0)
			return err
		}
	}
	return x.rtScatter(bl, rbuf, rcount, rdt, root, per, false)
}

// Scatterv is MPI_Scatterv: rank i gets scounts[i] elements of sdt from
// element displs[i] of the root's sbuf.
func (r *Rank) Scatterv(sbuf datatype.Buffer, scounts, displs []int, sdt *datatype.Datatype, rbuf datatype.Buffer, rcount int, rdt *datatype.Datatype, root int, c *Comm) error {
	x, err := r.beginColl("MPI_Scatterv", c, argsI("root=%d", root))
	if err != nil {
		return err
	}
	var bl *rtBlocks
	if c.Rank() == root {
		if bl, err = x.rtVector("send buffer", sbuf, scounts, displs, sdt, root); err != nil {
			x.end(0)
			return err
		}
	}
	return x.rtScatter(bl, rbuf, rcount, rdt, root, 0, true)
}

// Gather is MPI_Gather; the root may pass InPlace as sbuf when its own
// block is already in place in rbuf.
func (r *Rank) Gather(sbuf datatype.Buffer, scount int, sdt *datatype.Datatype, rbuf datatype.Buffer, rcount int, rdt *datatype.Datatype, root int, c *Comm) error {
	isRoot := c != nil && c.rank == root
	per := scount * sdt.Size()
	if isRoot {
		per = rcount * rdt.Size()
	}
	x, err := r.beginColl("MPI_Gather", c, argsI("root=%d, %d bytes per rank", root, per))
	if err != nil {
		return err
	}
	var bl *rtBlocks
	if isRoot {
		if bl, err = x.rtRegular("receive buffer", rbuf, rcount, rdt, root); err != nil {
			x.end(0)
			return err
		}
	}
	return x.rtGather(sbuf, scount, sdt, bl, root, per, false)
}

// Gatherv is MPI_Gatherv: rank i's block lands as rcounts[i] elements of
// rdt at element displs[i] of the root's rbuf.
func (r *Rank) Gatherv(sbuf datatype.Buffer, scount int, sdt *datatype.Datatype, rbuf datatype.Buffer, rcounts, displs []int, rdt *datatype.Datatype, root int, c *Comm) error {
	x, err := r.beginColl("MPI_Gatherv", c, argsI("root=%d", root))
	if err != nil {
		return err
	}
	var bl *rtBlocks
	if c.Rank() == root {
		if bl, err = x.rtVector("receive buffer", rbuf, rcounts, displs, rdt, root); err != nil {
			x.end(0)
			return err
		}
	}
	return x.rtGather(sbuf, scount, sdt, bl, root, 0, true)
}

func (x *coll) rtUnknown(alg string) error {
	return mpierr.Errorf(mpierr.ErrArg, x.name, "unknown %s algorithm %q", x.name, alg)
}

func (x *coll) rtCheckRoot(root int) error {
	if root < 0 || root >= x.c.Size() {
		return mpierr.Errorf(mpierr.ErrRank, x.name, "root %d is not in %s (size %d)", root, x.c.name, x.c.Size())
	}
	return nil
}
