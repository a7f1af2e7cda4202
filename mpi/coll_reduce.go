package mpi

import (
	"fmt"

	sched "nocsim/coll"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Reductions: MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter(_block),
// MPI_Scan and MPI_Exscan. Every algorithm works on packed bytes; a
// non-commutative op is always combined in rank order (x_0 op x_1 op ...),
// and the algorithms that cannot keep that order fall back to one that can.

// Reduce is MPI_Reduce: rbuf at root gets the reduction of every rank's
// sbuf. sbuf may be InPlace at the root, which then reduces rbuf.
func (r *Rank) Reduce(sbuf, rbuf datatype.Buffer, count int, dt *datatype.Datatype, op *datatype.Op, root int, c *Comm) error {
	bytes := count * dt.Size()
	x, err := r.beginColl("MPI_Reduce", c, argsIS("root=%d, %d bytes, %s", redOpName(op), root, bytes))
	if err != nil {
		return err
	}
	defer x.end(bytes)
	P, me := c.Size(), c.Rank()
	if root < 0 || root >= P {
		return mpierr.Errorf(mpierr.ErrRank, x.name, "root %d outside 0..%d", root, P-1)
	}
	inPlace := isInPlace(sbuf)
	if inPlace && me != root {
		return mpierr.Errorf(mpierr.ErrArg, x.name, "MPI_IN_PLACE is only allowed at the root")
	}
	rd, err := x.newRed(op, dt)
	if err != nil {
		return err
	}
	defer rd.release()
	if !inPlace {
		if err := x.check("send buffer", sbuf, count, dt); err != nil {
			return err
		}
	}
	var in, out datatype.Buffer
	if me == root {
		if err := x.check("receive buffer", rbuf, count, dt); err != nil {
			return err
		}
		b, done, err := x.contig(rbuf, count, dt)
		if err != nil {
			return err
		}
		defer done()
		out = b
	}
	if inPlace {
		in = out
	} else {
		b, done, err := x.contig(sbuf, count, dt)
		if err != nil {
			return err
		}
		defer done()
		in = b
	}
	alg := x.pick("reduce", r.w.Cfg.Reduce, bytes)
	if run := rd.lookup("reduce", alg); run != nil {
		err = rd.runReduction(run, sched.Args{Root: root, N: bytes}, in, out, inPlace)
	} else {
		err = mpierr.Errorf(mpierr.ErrArg, x.name, "unknown reduce algorithm %q", alg)
	}
	if err != nil || me != root {
		return err
	}
	return x.scatterBack(out, rbuf, count, dt)
}

// Allreduce is MPI_Allreduce: every rank's rbuf gets the reduction of every
// rank's sbuf (InPlace: of every rank's rbuf).
func (r *Rank) Allreduce(sbuf, rbuf datatype.Buffer, count int, dt *datatype.Datatype, op *datatype.Op, c *Comm) error {
	bytes := count * dt.Size()
	x, err := r.beginColl("MPI_Allreduce", c, argsIS("%d bytes, %s", redOpName(op), bytes))
	if err != nil {
		return err
	}
	defer x.end(bytes)
	rd, err := x.newRed(op, dt)
	if err != nil {
		return err
	}
	defer rd.release()
	in, out, inPlace, done, err := rd.buffers(sbuf, rbuf, count, count)
	if err != nil {
		return err
	}
	defer done()
	alg := x.pick("allreduce", r.w.Cfg.Allreduce, bytes)
	if run := rd.lookup("allreduce", alg); run != nil {
		err = rd.runReduction(run, sched.Args{N: bytes}, in, out, inPlace)
	} else {
		err = mpierr.Errorf(mpierr.ErrArg, x.name, "unknown allreduce algorithm %q", alg)
	}
	if err != nil {
		return err
	}
	return x.scatterBack(out, rbuf, count, dt)
}

// ReduceScatter is MPI_Reduce_scatter: the reduction of every rank's
// sbuf (sum(rcounts) elements) is split in blocks of rcounts[i] elements,
// block i going to rank i's rbuf. With InPlace the input is rbuf and the
// result lands at its start.
func (r *Rank) ReduceScatter(sbuf, rbuf datatype.Buffer, rcounts []int, dt *datatype.Datatype, op *datatype.Op, c *Comm) error {
	bytes := make([]int, len(rcounts))
	for i, n := range rcounts {
		bytes[i] = n * dt.Size()
	}
	return r.reduceScatter("MPI_Reduce_scatter", argsIS("%s", fmt.Sprintf("%v bytes, %s", bytes, redOpName(op))), sbuf, rbuf, rcounts, dt, op, c)
}

// ReduceScatterBlock is MPI_Reduce_scatter_block: ReduceScatter with
// rcount elements for every rank.
func (r *Rank) ReduceScatterBlock(sbuf, rbuf datatype.Buffer, rcount int, dt *datatype.Datatype, op *datatype.Op, c *Comm) error {
	if err := r.checkComm("MPI_Reduce_scatter_block", c); err != nil {
		return err
	}
	rcounts := make([]int, c.Size())
	for i := range rcounts {
		rcounts[i] = rcount
	}
	return r.reduceScatter("MPI_Reduce_scatter_block", argsIS("%d bytes each, %s", redOpName(op), rcount*dt.Size()), sbuf, rbuf, rcounts, dt, op, c)
}

func (r *Rank) reduceScatter(name string, key collArgs, sbuf, rbuf datatype.Buffer, rcounts []int, dt *datatype.Datatype, op *datatype.Op, c *Comm) error {
	x, err := r.beginColl(name, c, key)
	if err != nil {
		return err
	}
	P, me := c.Size(), c.Rank()
	if len(rcounts) != P {
		defer x.end(0)
		return mpierr.Errorf(mpierr.ErrArg, name, "%d receive counts for %d ranks", len(rcounts), P)
	}
	offs := make([]int, P+1)
	for i, n := range rcounts {
		if n < 0 {
			defer x.end(0)
			return mpierr.Errorf(mpierr.ErrCount, name, "receive count %d of rank %d must be >= 0", n, i)
		}
		offs[i+1] = offs[i] + n
	}
	total := offs[P]
	defer x.end(total * dt.Size())
	rd, err := x.newRed(op, dt)
	if err != nil {
		return err
	}
	defer rd.release()
	in, out, inPlace, done, err := rd.buffers(sbuf, rbuf, total, rcounts[me])
	if err != nil {
		return err
	}
	defer done()
	alg := x.pick("reduce_scatter", r.w.Cfg.ReduceScatter, total*dt.Size())
	if run := rd.lookup("reduce_scatter", alg); run != nil {
		blocks := make([]int, P)
		for i, n := range rcounts {
			blocks[i] = n * rd.es
		}
		err = rd.runReduction(run, sched.Args{N: total * rd.es, Blocks: blocks}, in, out, inPlace)
	} else {
		err = mpierr.Errorf(mpierr.ErrArg, name, "unknown reduce_scatter algorithm %q", alg)
	}
	if err != nil {
		return err
	}
	return x.scatterBack(out, rbuf, rcounts[me], dt)
}

// Scan is MPI_Scan: rank i's rbuf gets x_0 op ... op x_i.
func (r *Rank) Scan(sbuf, rbuf datatype.Buffer, count int, dt *datatype.Datatype, op *datatype.Op, c *Comm) error {
	return r.scan("MPI_Scan", false, sbuf, rbuf, count, dt, op, c)
}

// Exscan is MPI_Exscan: rank i > 0 gets x_0 op ... op x_{i-1}; rank 0's
// rbuf is left unchanged (MPI leaves it undefined).
func (r *Rank) Exscan(sbuf, rbuf datatype.Buffer, count int, dt *datatype.Datatype, op *datatype.Op, c *Comm) error {
	return r.scan("MPI_Exscan", true, sbuf, rbuf, count, dt, op, c)
}

func (r *Rank) scan(name string, ex bool, sbuf, rbuf datatype.Buffer, count int, dt *datatype.Datatype, op *datatype.Op, c *Comm) error {
	bytes := count * dt.Size()
	x, err := r.beginColl(name, c, argsIS("%d bytes, %s", redOpName(op), bytes))
	if err != nil {
		return err
	}
	defer x.end(bytes)
	rd, err := x.newRed(op, dt)
	if err != nil {
		return err
	}
	defer rd.release()
	in, out, inPlace, done, err := rd.buffers(sbuf, rbuf, count, count)
	if err != nil {
		return err
	}
	defer done()
	alg := x.pick("scan", r.w.Cfg.Scan, bytes)
	if run := rd.lookup("scan", alg); run != nil {
		err = rd.runReduction(run, sched.Args{N: bytes, Ex: ex}, in, out, inPlace)
	} else {
		err = mpierr.Errorf(mpierr.ErrArg, name, "unknown scan algorithm %q", alg)
	}
	if err != nil || ex && c.Rank() == 0 {
		return err
	}
	return x.scatterBack(out, rbuf, count, dt)
}

func redOpName(o *datatype.Op) string {
	if o == nil {
		return "<nil op>"
	}
	return o.Name()
}
