package mpi

import (
	"fmt"
	sched "nocsim/coll"

	"nocsim/des"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Collectives run as schedules of point-to-point messages on the
// communicator's internal context, so they never match user messages; each
// call on a communicator gets its own tag, so back-to-back collectives never
// mix their messages (the overlap hazard of the Puma paper, section 3.3).
// Their costs are those of the messages and of the local work (copies,
// reductions) that the algorithms charge.

// collTagBase keeps collective tags clear of the tags the communicator
// constructors use on the same internal context.
const collTagBase = 1 << 20

// coll is one collective call in progress on one rank.
type coll struct {
	r     *Rank
	c     *Comm // the user's communicator
	in    *Comm // its internal context
	tag   int
	name  string
	start des.Time
	alg   string
}

// beginColl starts a collective: checks the communicator, charges the
// call, picks this call's tag and records its arguments for the mismatch
// check. key describes the arguments every rank must agree on.
func (r *Rank) beginColl(name string, c *Comm, key collArgs) (*coll, error) {
	if err := r.checkComm(name, c); err != nil {
		return nil, err
	}
	start := r.t.Now()
	r.call = callDesc{kind: callColl, name: name, comm: c, key: key}
	r.t.Compute(r.w.M.CPU.CallCycles)
	c.collSeq++
	x := &coll{r: r, c: c, in: c.internal(), tag: collTagBase + int(c.collSeq&(1<<30-1)), name: name, start: start}
	if err := r.w.checkCollective(c, c.collSeq, r.rank, collSig{name, key}); err != nil {
		return nil, err
	}
	r.internal++
	return x, nil
}

// end records the call's statistics.
func (x *coll) end(bytes int) {
	r := x.r
	r.internal--
	r.lastAlg = x.alg
	r.collStats(x.name).add(r.t.Now()-x.start, bytes, 0)
	r.w.traceCall(r, x.name, x.start, r.t.Now())
	r.call = textCall("running (outside MPI)")
}

// checkCollective compares the arguments every rank gives the same
// collective call. It is the simulator checking the program, as MPI
// correctness tools do, and costs no simulated time.
func (w *World) checkCollective(c *Comm, seq uint32, rank int, args collSig) error {
	key := collKey{c.ctx, seq}
	first, ok := w.collArgs[key]
	if !ok {
		w.collArgs[key] = collCall{rank, args, 1}
		return nil
	}
	if first.args != args {
		err := fmt.Errorf("collective call #%d on %s does not match across ranks: rank %d called %s, rank %d called %s",
			seq, c.name, first.rank, first.args, rank, args)
		w.fail(err)
		return mpierr.Errorf(mpierr.ErrArg, "collective", "%v", err)
	}
	first.seen++
	if first.seen == c.Size() {
		delete(w.collArgs, key)
	} else {
		w.collArgs[key] = first
	}
	return nil
}

// collKey names one collective call: its communicator's context and the
// call's number on it.
type collKey struct{ ctx, seq uint32 }

type collCall struct {
	rank int
	args collSig
	seen int
}

// collSig is a collective call as the mismatch check compares it.
type collSig struct {
	name string
	args collArgs
}

func (s collSig) String() string { return s.name + "(" + s.args.String() + ")" }

// pick resolves an algorithm name from the configuration: "auto" takes
// the short-message default below coll_long_bytes and the long one above.
func (x *coll) pick(op, configured string, bytes int) string {
	if x.r.w.Cfg.thesisLib() {
		// The thesis profile has one algorithm per operation (thesis.go);
		// Validate refuses algorithm keys other than auto with it.
		x.alg = "thesis"
		return ThesisAlgorithm(op)
	}
	name := configured
	if name == "" || name == "auto" {
		if a := sched.AutoPick(op, bytes >= x.r.w.Cfg.CollLongBytes); a != nil {
			name = a.Name
		}
	}
	x.alg = name
	return name
}

// Point-to-point helpers on the internal context, in bytes.

func (x *coll) isend(b datatype.Buffer, n, dst int) (*Request, error) {
	bb, err := b.Slice(0, n)
	if err != nil {
		return nil, err
	}
	return x.r.isend(opIsend, modeStandard, bb, n, datatype.Byte, dst, x.tag, x.in)
}

func (x *coll) irecv(b datatype.Buffer, n, src int) (*Request, error) {
	return x.r.irecv(opIrecv, b, n, datatype.Byte, src, x.tag, x.in)
}

func (x *coll) send(b datatype.Buffer, n, dst int) error {
	q, err := x.isend(b, n, dst)
	err = x.r.blocking(opSend, q, err)
	x.r.retire(q)
	return err
}

func (x *coll) recv(b datatype.Buffer, n, src int) error {
	q, err := x.irecv(b, n, src)
	err = x.r.blocking(opRecv, q, err)
	x.r.retire(q)
	return err
}

// waitall completes internal requests, which are then recycled.
func (x *coll) waitall(qs ...*Request) error {
	r := x.r
	// Inside a collective the call is not a user call: no description.
	err := r.waitall(r.enterCall(textCall("MPI_Waitall")), qs, nil)
	r.retireAll(qs)
	return err
}

// sendrecv exchanges with two peers at once.
func (x *coll) sendrecv(sb datatype.Buffer, sn, dst int, rb datatype.Buffer, rn, src int) error {
	rq, err := x.irecv(rb, rn, src)
	if err != nil {
		return err
	}
	sq, err := x.isend(sb, sn, dst)
	if err != nil {
		return err
	}
	return x.waitall(rq, sq)
}

// alloc gets scratch memory for an algorithm; running out is an error of
// the run.
func (x *coll) alloc(n int) (datatype.Buffer, error) { return x.r.Alloc(max(n, 1)) }

func (x *coll) free(b datatype.Buffer) { x.r.Free(b) }

// copy moves n bytes within the rank's memory, charging the processor.
func (x *coll) copy(dst, src datatype.Buffer, n int) {
	copy(dst.Bytes[:n], src.Bytes[:n])
	x.charge(n)
}

// charge bills the processor for copying (or packing) n bytes.
func (x *coll) charge(n int) {
	x.r.t.Compute(x.r.w.M.CPU.CopyCyclesPerWord * int64((n+3)/4))
}

// reduce computes inout = in op inout over count elements, charging a
// flop per element.
func (x *coll) reduce(o *datatype.Op, in, inout datatype.Buffer, count int, t *datatype.Datatype) error {
	x.r.t.Flops(int64(count))
	return o.Apply(in, inout, count, t)
}

func (r *Rank) collStats(name string) *OpStats {
	if r.coll == nil {
		r.coll = map[string]*OpStats{}
	}
	s := r.coll[name]
	if s == nil {
		s = &OpStats{}
		r.coll[name] = s
	}
	return s
}

// InPlace is MPI_IN_PLACE: pass it as the send buffer (or receive buffer,
// where MPI says so) of a collective.
var InPlace = datatype.Buffer{Addr: ^uint32(0)}

func isInPlace(b datatype.Buffer) bool { return b.Addr == ^uint32(0) && b.Bytes == nil }

// contig gives count elements of t from buf as contiguous bytes: buf
// itself when t is contiguous, otherwise a packed copy (charged), as the
// thesis packs non-contiguous data before sending. done frees the copy.
func (x *coll) contig(buf datatype.Buffer, count int, t *datatype.Datatype) (datatype.Buffer, func(), error) {
	n := count * t.Size()
	if t.Contiguous() {
		b, err := buf.Slice(0, min(n, buf.Len()))
		return b, func() {}, err
	}
	tmp, err := x.alloc(n)
	if err != nil {
		return datatype.Buffer{}, nil, err
	}
	pos := 0
	if err := datatype.Pack(buf.Bytes, count, t, tmp.Bytes, &pos); err != nil {
		x.free(tmp)
		return datatype.Buffer{}, nil, err
	}
	x.charge(n)
	return tmp, func() { x.free(tmp) }, nil
}

// scatterBack unpacks contiguous bytes into count elements of t in buf
// when t is not contiguous (contig's inverse for results), charging it.
func (x *coll) scatterBack(tmp, buf datatype.Buffer, count int, t *datatype.Datatype) error {
	if t.Contiguous() {
		return nil
	}
	pos := 0
	x.charge(count * t.Size())
	return datatype.Unpack(tmp.Bytes, &pos, buf.Bytes, count, t)
}

// check validates a buffer argument of a collective.
func (x *coll) check(what string, buf datatype.Buffer, count int, t *datatype.Datatype) error {
	switch {
	case count < 0:
		return mpierr.Errorf(mpierr.ErrCount, x.name, "%s count %d must be >= 0", what, count)
	case t == nil || !t.Committed():
		return mpierr.Errorf(mpierr.ErrType, x.name, "%s datatype not committed", what)
	case count > 0 && t.TrueLB() < 0:
		return mpierr.Errorf(mpierr.ErrBuffer, x.name, "%s datatype starts %d bytes before the buffer", what, -t.TrueLB())
	case t.Span(count) > buf.Len():
		return mpierr.Errorf(mpierr.ErrBuffer, x.name, "%s: %d elements need %d bytes, the buffer has %d", what, count, t.Span(count), buf.Len())
	}
	return nil
}
