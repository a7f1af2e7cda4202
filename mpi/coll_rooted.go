package mpi

import (
	"slices"
)

// Rooted collectives and the barrier: MPI_Barrier, MPI_Bcast,
// MPI_Scatter(v) and MPI_Gather(v). Unexported names carry an rt prefix so
// they cannot collide with the other collective families of the package.

const (
	rtThesis = "Poole 2004 (SCMP thesis) §4.2.4"
	// rtThesisLike marks the default library's versions of the thesis's
	// patterns, carried over MPI messages (library = "thesis" runs the
	// mechanisms themselves: THREAD-message counters, figure 4.3 as drawn).
	rtThesisLike = "after Poole 2004 §4.2.4, over MPI messages"
	// rtCray marks versions over MPI messages of Cray X1 patterns; the
	// X1's own, on remote memory access, are in coll_cray.go.
	rtCray  = "after Nicholson & Goozen, Cray X1 MPI, over MPI messages"
	rtMPICH = "standard (MPICH)"
)

func init() {
	for _, a := range []Algorithm{
		{Op: "barrier", Name: "central", Source: rtThesisLike, Messages: "2(P-1)"},
		{Op: "barrier", Name: "tree4", Source: rtCray, Messages: "2(P-1)"},
		{Op: "barrier", Name: "dissemination", Source: rtMPICH, Messages: "P ceil(log2 P)"},
		{Op: "bcast", Name: "flat", Source: rtThesis, Messages: "P-1"},
		{Op: "bcast", Name: "binomial", Source: rtMPICH, Messages: "P-1"},
		{Op: "bcast", Name: "pull", Source: rtCray, Messages: "2(P-1)"},
		{Op: "bcast", Name: "scatter_allgather", Source: rtMPICH, Messages: "P-1 + P(P-1)"},
		{Op: "scatter", Name: "flat", Source: rtMPICH, Messages: "P-1"},
		{Op: "scatter", Name: "binomial", Source: rtMPICH, Messages: "P-1 (Scatterv: + a size header per inner node)"},
		{Op: "gather", Name: "flat", Source: rtMPICH, Messages: "P-1"},
		{Op: "gather", Name: "binomial", Source: rtMPICH, Messages: "P-1 (Gatherv: + P-1-ceil(log2 P) size headers)"},
		{Op: "gather", Name: "push", Source: rtCray, Messages: "2(P-1)"},
	} {
		register(a)
	}
}

// Barrier is MPI_Barrier.
func (r *Rank) Barrier(c *Comm) error {
	x, err := r.beginColl("MPI_Barrier", c, collArgs{})
	if err != nil {
		return err
	}
	defer x.end(0)
	switch alg := x.pick("barrier", r.w.Cfg.Barrier, 0, "tree4", "tree4"); alg {
	case "thesis":
		return r.thesisBarrier(c)
	case "central":
		return x.rtBarrierCentral()
	case "tree4":
		return x.rtBarrierTree4()
	case "dissemination":
		return x.rtBarrierDissemination()
	case "tree4_scatter":
		return x.crayBarrier()
	case "mesh":
		return x.meshBarrier()
	default:
		return x.rtUnknown(alg)
	}
}

// Bcast is MPI_Bcast.
func (r *Rank) Bcast(buf Buffer, count int, dt *Datatype, root int, c *Comm) error {
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
	var b Buffer
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
	switch alg := x.pick("bcast", r.w.Cfg.Bcast, n, "binomial", "scatter_allgather"); alg {
	case "flat":
		err = x.rtBcastFlat(b, n, root)
	case "binomial":
		err = x.rtBcastBinomial(b, n, root)
	case "pull":
		err = x.rtBcastPull(b, n, root)
	case "scatter_allgather":
		err = x.rtBcastScatterAllgather(b, n, root)
	case "optimal":
		err = x.rtBcastOptimal(b, n, root)
	case "pull_rma":
		err = x.crayBcastPull(b, n, root)
	case "mesh":
		err = x.meshBcast(b, n, root)
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
func (r *Rank) Scatter(sbuf Buffer, scount int, sdt *Datatype, rbuf Buffer, rcount int, rdt *Datatype, root int, c *Comm) error {
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
func (r *Rank) Scatterv(sbuf Buffer, scounts, displs []int, sdt *Datatype, rbuf Buffer, rcount int, rdt *Datatype, root int, c *Comm) error {
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
func (r *Rank) Gather(sbuf Buffer, scount int, sdt *Datatype, rbuf Buffer, rcount int, rdt *Datatype, root int, c *Comm) error {
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
func (r *Rank) Gatherv(sbuf Buffer, scount int, sdt *Datatype, rbuf Buffer, rcounts, displs []int, rdt *Datatype, root int, c *Comm) error {
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
	return errorf(ErrArg, x.name, "unknown %s algorithm %q", x.name, alg)
}

func (x *coll) rtCheckRoot(root int) error {
	if root < 0 || root >= x.c.Size() {
		return errorf(ErrRank, x.name, "root %d is not in %s (size %d)", root, x.c.name, x.c.Size())
	}
	return nil
}

// Barrier algorithms.

// rtBarrierCentral: every rank reports to rank 0, which releases them all
// once its count of arrivals is complete.
func (x *coll) rtBarrierCentral() error {
	P, me := x.c.Size(), x.c.Rank()
	s := x.rtStep()
	if me != 0 {
		s.recv(Buffer{}, 0, 0, 0)
		s.send(Buffer{}, 0, 0, 0)
		return s.wait()
	}
	for i := 1; i < P; i++ {
		s.recv(Buffer{}, 0, 0, i)
	}
	if err := s.wait(); err != nil {
		return err
	}
	for i := 1; i < P; i++ {
		s.send(Buffer{}, 0, 0, i)
	}
	return s.wait()
}

// rtBarrierTree4: arrivals climb a four-way tree rooted at rank 0; the
// root's last arrival starts a single release down the same tree.
func (x *coll) rtBarrierTree4() error {
	P, me := x.c.Size(), x.c.Rank()
	var kids []int
	for k := 4*me + 1; k <= 4*me+4 && k < P; k++ {
		kids = append(kids, k)
	}
	parent := (me - 1) / 4
	arrive, release := x.rtStep(), x.rtStep()
	for _, k := range kids {
		arrive.recv(Buffer{}, 0, 0, k)
	}
	if me != 0 {
		release.recv(Buffer{}, 0, 0, parent) // posted early: the release finds it waiting
	}
	if err := arrive.wait(); err != nil {
		return err
	}
	if me != 0 {
		release.send(Buffer{}, 0, 0, parent)
		if err := release.wait(); err != nil {
			return err
		}
	}
	for _, k := range kids {
		release.send(Buffer{}, 0, 0, k)
	}
	return release.wait()
}

// rtBarrierDissemination: in round k every rank signals rank+2^k and
// waits for rank-2^k; after ceil(log2 P) rounds everyone has heard,
// indirectly, from everyone.
func (x *coll) rtBarrierDissemination() error {
	P, me := x.c.Size(), x.c.Rank()
	for k := 1; k < P; k <<= 1 {
		if err := x.sendrecv(Buffer{}, 0, (me+k)%P, Buffer{}, 0, (me-k+P)%P); err != nil {
			return err
		}
	}
	return nil
}

// Broadcast algorithms, on n contiguous bytes in b.

func (x *coll) rtBcastFlat(b Buffer, n, root int) error {
	P, me := x.c.Size(), x.c.Rank()
	if me != root {
		return x.recv(b, n, root)
	}
	s := x.rtStep()
	for i := 0; i < P; i++ {
		if i != root {
			s.send(b, 0, n, i)
		}
	}
	return s.wait()
}

func (x *coll) rtBcastBinomial(b Buffer, n, root int) error {
	P := x.c.Size()
	rel := x.rtRel(root)
	if rel != 0 {
		if err := x.recv(b, n, rtAbs(rtParent(rel), root, P)); err != nil {
			return err
		}
	}
	s := x.rtStep()
	for _, k := range rtKids(rel, P) {
		s.send(b, 0, n, rtAbs(k.rel, root, P))
	}
	return s.wait()
}

// rtBcastPull: the receivers drive the transfer. Each posts its receive,
// then asks the root, which answers requests in the order they arrive.
func (x *coll) rtBcastPull(b Buffer, n, root int) error {
	P, me := x.c.Size(), x.c.Rank()
	if me != root {
		s := x.rtStep()
		s.recv(b, 0, n, root)
		s.send(Buffer{}, 0, 0, root)
		return s.wait()
	}
	var asks []*Request
	var who []int
	for i := 0; i < P; i++ {
		if i == root {
			continue
		}
		q, err := x.irecv(Buffer{}, 0, i)
		if err != nil {
			return err
		}
		asks, who = append(asks, q), append(who, i)
	}
	s := x.rtStep()
	for range asks {
		i, _, err := x.r.Waitany(asks)
		if err != nil {
			return err
		}
		s.send(b, 0, n, who[i])
	}
	return s.wait()
}

// rtBcastScatterAllgather (long messages): a binomial scatter leaves chunk
// j (in ranks relative to the root) at relative rank j, then a ring
// allgather passes every chunk round. Chunks are whole words so every piece
// starts word-aligned; with fewer bytes than ranks the last chunks are
// empty, and empty pieces are never sent (both ends know their sizes).
func (x *coll) rtBcastScatterAllgather(b Buffer, n, root int) error {
	P := x.c.Size()
	rel := x.rtRel(root)
	chunk := rtPad((n + P - 1) / P)
	piece := func(lo, cnt int) (int, int) {
		off, end := min(lo*chunk, n), min((lo+cnt)*chunk, n)
		return off, end - off
	}
	if rel != 0 {
		if off, l := piece(rel, rtSubtree(rel, P)); l > 0 {
			s := x.rtStep()
			s.recv(b, off, l, rtAbs(rtParent(rel), root, P))
			if err := s.wait(); err != nil {
				return err
			}
		}
	}
	s := x.rtStep()
	for _, k := range rtKids(rel, P) {
		if off, l := piece(k.rel, k.size); l > 0 {
			s.send(b, off, l, rtAbs(k.rel, root, P))
		}
	}
	if err := s.wait(); err != nil {
		return err
	}
	left, right := rtAbs((rel-1+P)%P, root, P), rtAbs((rel+1)%P, root, P)
	for i := 0; i < P-1; i++ {
		if off, l := piece((rel-i+P)%P, 1); l > 0 {
			s.send(b, off, l, right)
		}
		if off, l := piece((rel-i-1+2*P)%P, 1); l > 0 {
			s.recv(b, off, l, left)
		}
		if err := s.wait(); err != nil {
			return err
		}
	}
	return nil
}

// Scatter and gather.

// rtBlocks is the root's buffer of a scatter or gather: rank i's block is
// cnt[i] elements of dt at byte disp[i] of buf.
type rtBlocks struct {
	buf       Buffer
	dt        *Datatype
	disp, cnt []int
}

func (bl *rtBlocks) size(i int) int { return bl.cnt[i] * bl.dt.Size() }

// rtRegular is the root's buffer of MPI_Scatter or MPI_Gather: P blocks of
// count elements, one after the other.
func (x *coll) rtRegular(what string, buf Buffer, count int, dt *Datatype, root int) (*rtBlocks, error) {
	if err := x.rtCheckRoot(root); err != nil {
		return nil, err
	}
	P := x.c.Size()
	if err := x.check(what, buf, P*count, dt); err != nil {
		return nil, err
	}
	bl := &rtBlocks{buf: buf, dt: dt, disp: make([]int, P), cnt: make([]int, P)}
	for i := range P {
		bl.disp[i], bl.cnt[i] = i*count*dt.Extent(), count
	}
	return bl, nil
}

// rtVector is the root's buffer of MPI_Scatterv or MPI_Gatherv.
func (x *coll) rtVector(what string, buf Buffer, counts, displs []int, dt *Datatype, root int) (*rtBlocks, error) {
	if err := x.rtCheckRoot(root); err != nil {
		return nil, err
	}
	P := x.c.Size()
	if len(counts) < P || len(displs) < P {
		return nil, errorf(ErrArg, x.name, "%s: %d counts and %d displacements for %d ranks", what, len(counts), len(displs), P)
	}
	if err := x.check(what, buf, 0, dt); err != nil {
		return nil, err
	}
	bl := &rtBlocks{buf: buf, dt: dt, disp: make([]int, P), cnt: make([]int, P)}
	for i := range P {
		if counts[i] < 0 {
			return nil, errorf(ErrCount, x.name, "%s: count %d for rank %d must be >= 0", what, counts[i], i)
		}
		d, ok := mul(displs[i], dt.Extent())
		if !ok || d < 0 {
			return nil, errorf(ErrBuffer, x.name, "%s: displacement %d for rank %d reaches before the buffer", what, displs[i], i)
		}
		if counts[i] > 0 {
			if dt.TrueLB() < 0 {
				return nil, errorf(ErrBuffer, x.name, "%s datatype starts %d bytes before the buffer", what, -dt.TrueLB())
			}
			if end, ok := add(d, dt.Span(counts[i])); !ok || end > buf.Len() {
				return nil, errorf(ErrBuffer, x.name, "%s: %d elements at displacement %d for rank %d pass the end of the %d-byte buffer", what, counts[i], displs[i], i, buf.Len())
			}
		}
		bl.disp[i], bl.cnt[i] = d, counts[i]
	}
	return bl, nil
}

// rtScatter runs a scatter: bl is the root's data (nil elsewhere), per the
// bytes every rank gets (MPI_Scatter) and vec marks MPI_Scatterv, whose
// sizes only the root knows.
func (x *coll) rtScatter(bl *rtBlocks, rbuf Buffer, rcount int, rdt *Datatype, root, per int, vec bool) error {
	P, me := x.c.Size(), x.c.Rank()
	moved := 0
	defer func() { x.end(moved) }()
	if err := x.rtCheckRoot(root); err != nil {
		return err
	}
	inPlace := me == root && isInPlace(rbuf)
	if !inPlace {
		if err := x.check("receive buffer", rbuf, rcount, rdt); err != nil {
			return err
		}
	} else {
		rcount, rdt = 0, Byte
	}
	mine := rcount * rdt.Size()
	var late error // an error of this rank alone: the others still get their data
	own := func() error { return nil }
	if me == root {
		for i := range P {
			if i != root {
				moved += bl.size(i)
			}
		}
		if !inPlace {
			if bl.size(root) != mine {
				late = errorf(ErrArg, x.name, "the root's own block is %d bytes, its receive %d", bl.size(root), mine)
			} else {
				own = func() error {
					return x.rtMove(bl.buf.Bytes[bl.disp[root]:], bl.cnt[root], bl.dt, rbuf.Bytes, rcount, rdt)
				}
			}
		}
	} else {
		moved = mine
	}
	rb, finish := Buffer{}, func(bool) error { return nil }
	if me != root {
		var err error
		if rb, finish, err = x.rtRecvArea(rbuf, rcount, rdt); err != nil {
			return err
		}
	}
	var err error
	if vec {
		// Only the root knows a vector call's sizes, and every rank must
		// make the same choice: auto takes the short-message algorithm.
		per = 0
	}
	switch alg := x.pick("scatter", x.r.w.Cfg.Scatter, per, "binomial", "flat"); alg {
	case "flat":
		err = x.rtScatterFlat(bl, rb, mine, root, own)
	case "binomial":
		err = x.rtScatterBinomial(bl, rb, mine, root, vec, own, &late)
	case "pull_rma":
		err = x.crayScatterPull(bl, rb, mine, root, own)
	default:
		err = x.rtUnknown(alg)
	}
	if e := finish(err == nil); err == nil {
		err = e
	}
	if err == nil {
		err = late
	}
	return err
}

// rtGather runs a gather; the arguments mirror rtScatter's.
func (x *coll) rtGather(sbuf Buffer, scount int, sdt *Datatype, bl *rtBlocks, root, per int, vec bool) error {
	P, me := x.c.Size(), x.c.Rank()
	moved := 0
	defer func() { x.end(moved) }()
	if err := x.rtCheckRoot(root); err != nil {
		return err
	}
	inPlace := isInPlace(sbuf)
	if inPlace && me != root {
		return errorf(ErrBuffer, x.name, "only the root may pass MPI_IN_PLACE")
	}
	if !inPlace {
		if err := x.check("send buffer", sbuf, scount, sdt); err != nil {
			return err
		}
	} else {
		scount, sdt = 0, Byte
	}
	mine := scount * sdt.Size()
	var late error
	own := func() error { return nil }
	if me == root {
		for i := range P {
			if i != root {
				moved += bl.size(i)
			}
		}
		if !inPlace {
			if bl.size(root) != mine {
				late = errorf(ErrArg, x.name, "the root sends %d bytes to its own block of %d", mine, bl.size(root))
			} else {
				own = func() error {
					return x.rtMove(sbuf.Bytes, scount, sdt, bl.buf.Bytes[bl.disp[root]:], bl.cnt[root], bl.dt)
				}
			}
		}
	} else {
		moved = mine
	}
	var sb Buffer
	done := func() {}
	if me != root {
		var err error
		if sb, done, err = x.contig(sbuf, scount, sdt); err != nil {
			return err
		}
	}
	defer done()
	if vec {
		per = 0 // as in rtScatter
	}
	var err error
	switch alg := x.pick("gather", x.r.w.Cfg.Gather, per, "binomial", "flat"); alg {
	case "flat":
		err = x.rtGatherFlat(bl, sb, mine, root, own)
	case "binomial":
		err = x.rtGatherBinomial(bl, sb, mine, root, vec, own)
	case "push":
		err = x.rtGatherPush(bl, sb, mine, root, own)
	default:
		err = x.rtUnknown(alg)
	}
	if err == nil {
		err = late
	}
	return err
}

func (x *coll) rtScatterFlat(bl *rtBlocks, rb Buffer, mine, root int, own func() error) error {
	P, me := x.c.Size(), x.c.Rank()
	if me != root {
		return x.recv(rb, mine, root)
	}
	s := x.rtStep()
	for i := 0; i < P; i++ {
		if i != root {
			s.sendBlock(bl, i, i)
		}
	}
	err := own()
	if e := s.wait(); err == nil {
		err = e
	}
	return err
}

func (x *coll) rtGatherFlat(bl *rtBlocks, sb Buffer, mine, root int, own func() error) error {
	P, me := x.c.Size(), x.c.Rank()
	if me != root {
		return x.send(sb, mine, root)
	}
	s := x.rtStep()
	for i := 0; i < P; i++ {
		if i != root {
			s.recvBlock(bl, i, i)
		}
	}
	err := own()
	if e := s.wait(); err == nil {
		err = e
	}
	return err
}

// rtGatherPush: the root posts every receive, then tells each rank it is
// ready; the data then lands straight in place, never queued unexpected.
func (x *coll) rtGatherPush(bl *rtBlocks, sb Buffer, mine, root int, own func() error) error {
	P, me := x.c.Size(), x.c.Rank()
	if me != root {
		if err := x.recv(Buffer{}, 0, root); err != nil {
			return err
		}
		return x.send(sb, mine, root)
	}
	s := x.rtStep()
	for i := 0; i < P; i++ {
		if i != root {
			s.recvBlock(bl, i, i)
		}
	}
	for i := 0; i < P; i++ {
		if i != root {
			s.send(Buffer{}, 0, 0, i)
		}
	}
	err := own()
	if e := s.wait(); err == nil {
		err = e
	}
	return err
}

// The binomial scatter and gather move, between a node and its parent, the
// blocks of the node's whole subtree as one message, laid out in relative
// rank order with each block padded to whole words (rtLayout) so every
// block starts where the DMA engine can address it. Only the root knows a
// vector operation's sizes: it sends them down, ahead of the data, to the
// inner nodes of the scatter tree, and in the gather tree the inner nodes
// learn them from their children's headers.

// rtLayout gives block offsets for sizes sz: off[j] is where block j starts,
// off[len(sz)] the total.
func rtLayout(sz []int) []int {
	off := make([]int, len(sz)+1)
	for j, n := range sz {
		off[j+1] = off[j] + rtPad(n)
	}
	return off
}

// rtSpan is the length of the message carrying blocks lo..lo+cnt-1.
func rtSpan(sz, off []int, lo, cnt int) int {
	return off[lo+cnt-1] + sz[lo+cnt-1] - off[lo]
}

// treeView is the root's buffer seen as the tree layout when it already
// is one (a contiguous type, every block at its tree offset, and no block
// but the last a part word, so no padding lands in the user's buffer).
func (bl *rtBlocks) treeView(root int, sz, off []int) (Buffer, bool) {
	P := len(sz)
	base := bl.disp[root]
	if !bl.dt.Contiguous() || base%4 != 0 {
		return Buffer{}, false
	}
	for j := 0; j < P; j++ {
		i := (root + j) % P
		if sz[j] == 0 {
			continue
		}
		if bl.disp[i]-base != off[j] || j < P-1 && sz[j]%4 != 0 || bl.disp[i]+sz[j] > bl.buf.Len() {
			return Buffer{}, false
		}
	}
	b, err := bl.buf.Slice(base, bl.buf.Len()-base)
	return b, err == nil
}

func (x *coll) rtScatterBinomial(bl *rtBlocks, rb Buffer, mine, root int, vec bool, own func() error, late *error) error {
	P := x.c.Size()
	rel := x.rtRel(root)
	abs := func(j int) int { return rtAbs(j, root, P) }
	s := x.rtStep()
	if rel == 0 {
		sz := make([]int, P)
		for j := range sz {
			sz[j] = bl.size(abs(j))
		}
		off := rtLayout(sz)
		t, direct := bl.treeView(root, sz, off)
		if !direct {
			var err error
			if t, err = x.alloc(off[P]); err != nil {
				return err
			}
			defer x.free(t)
			for j := 1; j < P; j++ {
				if err := x.rtPack(bl, abs(j), t.Bytes[off[j]:]); err != nil {
					return err
				}
			}
		}
		var hdr Buffer
		if vec {
			var err error
			if hdr, err = x.rtSizes(sz); err != nil {
				return err
			}
			defer x.free(hdr)
		}
		for _, k := range rtKids(0, P) {
			if vec && k.size > 1 {
				s.send(hdr, 4*k.rel, 4*k.size, abs(k.rel))
			}
			s.send(t, off[k.rel], rtSpan(sz, off, k.rel, k.size), abs(k.rel))
		}
		err := own()
		if e := s.wait(); err == nil {
			err = e
		}
		return err
	}
	parent, size := abs(rtParent(rel)), rtSubtree(rel, P)
	if size == 1 {
		return x.recv(rb, mine, parent)
	}
	sz := make([]int, size)
	var hdr Buffer
	if vec {
		var err error
		if hdr, err = x.alloc(4 * size); err != nil {
			return err
		}
		defer x.free(hdr)
		if err := x.recv(hdr, 4*size, parent); err != nil {
			return err
		}
		for j := range sz {
			sz[j] = int(hdr.Int32(j))
		}
	} else {
		for j := range sz {
			sz[j] = mine
		}
	}
	off := rtLayout(sz)
	t, err := x.alloc(off[size])
	if err != nil {
		return err
	}
	defer x.free(t)
	if err := x.recv(t, rtSpan(sz, off, 0, size), parent); err != nil {
		return err
	}
	for _, k := range rtKids(rel, P) {
		j := k.rel - rel
		if vec && k.size > 1 {
			s.send(hdr, 4*j, 4*k.size, abs(k.rel))
		}
		s.send(t, off[j], rtSpan(sz, off, j, k.size), abs(k.rel))
	}
	if sz[0] != mine && *late == nil {
		*late = errorf(ErrTruncate, x.name, "rank %d: the root sends %d bytes into a %d-byte receive", x.r.rank, sz[0], mine)
	}
	x.copy(rb, t, min(sz[0], mine))
	return s.wait()
}

func (x *coll) rtGatherBinomial(bl *rtBlocks, sb Buffer, mine, root int, vec bool, own func() error) error {
	P := x.c.Size()
	rel := x.rtRel(root)
	abs := func(j int) int { return rtAbs(j, root, P) }
	s := x.rtStep()
	if rel == 0 {
		sz := make([]int, P)
		for j := range sz {
			sz[j] = bl.size(abs(j))
		}
		off := rtLayout(sz)
		t, direct := bl.treeView(root, sz, off)
		if !direct {
			var err error
			if t, err = x.alloc(off[P]); err != nil {
				return err
			}
			defer x.free(t)
		}
		for _, k := range rtKids(0, P) {
			s.recv(t, off[k.rel], rtSpan(sz, off, k.rel, k.size), abs(k.rel))
		}
		err := own()
		if e := s.wait(); err == nil {
			err = e
		}
		if err != nil || direct {
			return err
		}
		for j := 1; j < P; j++ {
			if err := x.rtUnpack(bl, abs(j), t.Bytes[off[j]:]); err != nil {
				return err
			}
		}
		return nil
	}
	parentRel := rtParent(rel)
	parent, size := abs(parentRel), rtSubtree(rel, P)
	tell := vec && parentRel != 0 // the root knows every size already
	sz := make([]int, size)
	for j := range sz {
		sz[j] = mine
	}
	var hdr Buffer
	if vec {
		var err error
		if hdr, err = x.alloc(4 * size); err != nil {
			return err
		}
		defer x.free(hdr)
		hdr.SetInt32(0, int32(mine))
	}
	kids := rtKids(rel, P)
	if vec && len(kids) > 0 {
		for _, k := range kids {
			s.recv(hdr, 4*(k.rel-rel), 4*k.size, abs(k.rel))
		}
		if err := s.wait(); err != nil {
			return err
		}
		for j := range sz {
			sz[j] = int(hdr.Int32(j))
		}
	}
	if len(kids) == 0 {
		if tell {
			s.send(hdr, 0, 4, parent)
		}
		s.send(sb, 0, mine, parent)
		return s.wait()
	}
	off := rtLayout(sz)
	t, err := x.alloc(off[size])
	if err != nil {
		return err
	}
	defer x.free(t)
	for _, k := range kids {
		j := k.rel - rel
		s.recv(t, off[j], rtSpan(sz, off, j, k.size), abs(k.rel))
	}
	x.copy(t, sb, mine)
	if err := s.wait(); err != nil {
		return err
	}
	if tell {
		s.send(hdr, 0, 4*size, parent)
	}
	s.send(t, 0, rtSpan(sz, off, 0, size), parent)
	return s.wait()
}

// rtSizes puts sizes in a scratch buffer as int32s, to send as headers.
func (x *coll) rtSizes(sz []int) (Buffer, error) {
	b, err := x.alloc(4 * len(sz))
	if err != nil {
		return Buffer{}, err
	}
	for j, n := range sz {
		b.SetInt32(j, int32(n))
	}
	x.r.t.Compute(x.r.w.M.CPU.CopyCyclesPerWord * int64(len(sz)))
	return b, nil
}

// Binomial tree over ranks relative to the root (relative rank 0): a
// node's parent clears its lowest set bit; its children add the lower
// powers of two.

type rtKid struct{ rel, size int } // relative rank and subtree size

func (x *coll) rtRel(root int) int { return (x.c.Rank() - root + x.c.Size()) % x.c.Size() }

func rtAbs(rel, root, P int) int { return (rel + root) % P }

func rtParent(rel int) int { return rel & (rel - 1) }

func rtSubtree(rel, P int) int {
	if rel == 0 {
		return P
	}
	return min(rel&-rel, P-rel)
}

// rtKids lists a node's children, biggest subtree first, so the longest
// branch starts earliest.
func rtKids(rel, P int) []rtKid {
	var out []rtKid
	for m := 1; m < P && (rel == 0 || m < rel&-rel); m <<= 1 {
		if c := rel + m; c < P {
			out = append(out, rtKid{c, min(m, P-c)})
		}
	}
	slices.Reverse(out)
	return out
}

func rtPad(n int) int { return (n + 3) &^ 3 }

// Local data movement, charged to the processor.

// rtPack packs block i of bl into dst.
func (x *coll) rtPack(bl *rtBlocks, i int, dst []byte) error {
	x.charge(bl.size(i))
	pos := 0
	return Pack(bl.buf.Bytes[bl.disp[i]:], bl.cnt[i], bl.dt, dst, &pos)
}

// rtUnpack unpacks block i of bl from src.
func (x *coll) rtUnpack(bl *rtBlocks, i int, src []byte) error {
	x.charge(bl.size(i))
	pos := 0
	return Unpack(src[:bl.size(i)], &pos, bl.buf.Bytes[bl.disp[i]:], bl.cnt[i], bl.dt)
}

// rtMove copies the root's own block between its send and receive
// buffers, through a packed copy when either type is not contiguous.
func (x *coll) rtMove(src []byte, scount int, sdt *Datatype, dst []byte, rcount int, rdt *Datatype) error {
	n := scount * sdt.Size()
	if sdt.Contiguous() && rdt.Contiguous() {
		x.copy(Buffer{Bytes: dst}, Buffer{Bytes: src}, n)
		return nil
	}
	tmp, err := x.alloc(n)
	if err != nil {
		return err
	}
	defer x.free(tmp)
	pos := 0
	x.charge(2 * n)
	if err := Pack(src, scount, sdt, tmp.Bytes, &pos); err != nil {
		return err
	}
	pos = 0
	return Unpack(tmp.Bytes[:n], &pos, dst, rcount, rdt)
}

// rtRecvArea is where count elements of t arrive as contiguous bytes: buf
// itself when t is contiguous, otherwise scratch that finish unpacks
// (when ok) and frees.
func (x *coll) rtRecvArea(buf Buffer, count int, t *Datatype) (Buffer, func(ok bool) error, error) {
	n := count * t.Size()
	if t.Contiguous() {
		b, err := buf.Slice(0, n)
		return b, func(bool) error { return nil }, err
	}
	tmp, err := x.alloc(n)
	if err != nil {
		return Buffer{}, nil, err
	}
	return tmp, func(ok bool) error {
		defer x.free(tmp)
		if !ok {
			return nil
		}
		return x.scatterBack(tmp, buf, count, t)
	}, nil
}

// rtStep is a set of messages in flight, with what to do once they are
// all done.
type rtStep struct {
	x     *coll
	qs    []*Request
	after []func(ok bool) error
	err   error
}

func (x *coll) rtStep() *rtStep { return &rtStep{x: x} }

func (s *rtStep) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

func (s *rtStep) post(q *Request, err error) {
	if err != nil {
		s.fail(err)
		return
	}
	s.qs = append(s.qs, q)
}

func (s *rtStep) later(f func(ok bool) error) { s.after = append(s.after, f) }

// bytesAt is n bytes from byte off of b; off need not be word-aligned.
func (s *rtStep) bytesAt(b Buffer, off, n int) ([]byte, bool) {
	if off < 0 || off+n > b.Len() {
		s.fail(errorf(ErrBuffer, s.x.name, "bytes %d..%d of a %d-byte buffer", off, off+n, b.Len()))
		return nil, false
	}
	return b.Bytes[off : off+n], true
}

// send sends n bytes from byte off of b. The DMA engine reads whole words
// from a word address, so data not starting on a word is staged through
// scratch (a charged copy).
func (s *rtStep) send(b Buffer, off, n, dst int) {
	x := s.x
	switch {
	case s.err != nil:
	case n == 0:
		s.post(x.isend(Buffer{}, 0, dst))
	case off%4 != 0:
		src, ok := s.bytesAt(b, off, n)
		if !ok {
			return
		}
		tmp, err := x.alloc(n)
		if err != nil {
			s.fail(err)
			return
		}
		x.copy(tmp, Buffer{Bytes: src}, n)
		s.later(func(bool) error { x.free(tmp); return nil })
		s.post(x.isend(tmp, n, dst))
	default:
		bb, err := b.Slice(off, n)
		if err != nil {
			s.fail(err)
			return
		}
		s.post(x.isend(bb, n, dst))
	}
}

// recv receives n bytes at byte off of b, staging them through scratch
// when off is not word-aligned.
func (s *rtStep) recv(b Buffer, off, n, src int) {
	x := s.x
	switch {
	case s.err != nil:
	case n == 0:
		s.post(x.irecv(Buffer{}, 0, src))
	case off%4 != 0:
		dst, ok := s.bytesAt(b, off, n)
		if !ok {
			return
		}
		tmp, err := x.alloc(n)
		if err != nil {
			s.fail(err)
			return
		}
		s.later(func(ok bool) error {
			if ok {
				x.copy(Buffer{Bytes: dst}, tmp, n)
			}
			x.free(tmp)
			return nil
		})
		s.post(x.irecv(tmp, n, src))
	default:
		bb, err := b.Slice(off, n)
		if err != nil {
			s.fail(err)
			return
		}
		s.post(x.irecv(bb, n, src))
	}
}

// sendBlock sends the root's block i, packing it first if its type is not
// contiguous.
func (s *rtStep) sendBlock(bl *rtBlocks, i, dst int) {
	n := bl.size(i)
	if bl.dt.Contiguous() || n == 0 {
		s.send(bl.buf, bl.disp[i], n, dst)
		return
	}
	if s.err != nil {
		return
	}
	tmp, err := s.x.alloc(n)
	if err != nil {
		s.fail(err)
		return
	}
	s.later(func(bool) error { s.x.free(tmp); return nil })
	if err := s.x.rtPack(bl, i, tmp.Bytes); err != nil {
		s.fail(err)
		return
	}
	s.send(tmp, 0, n, dst)
}

// recvBlock receives the root's block i, unpacking it afterwards if its
// type is not contiguous.
func (s *rtStep) recvBlock(bl *rtBlocks, i, src int) {
	n := bl.size(i)
	if bl.dt.Contiguous() || n == 0 {
		s.recv(bl.buf, bl.disp[i], n, src)
		return
	}
	if s.err != nil {
		return
	}
	tmp, err := s.x.alloc(n)
	if err != nil {
		s.fail(err)
		return
	}
	s.later(func(ok bool) error {
		defer s.x.free(tmp)
		if !ok {
			return nil
		}
		return s.x.rtUnpack(bl, i, tmp.Bytes)
	})
	s.recv(tmp, 0, n, src)
}

// wait completes every message of the step, then runs its finishing work.
// After a failure to post, what was posted is abandoned: the run is in
// error anyway.
func (s *rtStep) wait() error {
	err := s.err
	if err == nil && len(s.qs) > 0 {
		err = s.x.waitall(s.qs...)
	}
	for _, f := range s.after {
		if e := f(err == nil); err == nil {
			err = e
		}
	}
	s.qs, s.after, s.err = nil, nil, nil
	return err
}
