package mpi

import (
	"cmp"
	"fmt"
	"slices"

	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
	"nocsim/mpi/mpierr"
)

// Context ids: MPI_COMM_WORLD has 0; the highest-numbered tile hands out
// the others (thesis section 4.2.3). A communicator's point-to-point
// traffic uses context 2*id and its collective and internal traffic 2*id+1,
// so the two can never match each other.
const (
	worldContext     = 0
	firstFreeContext = 1
)

// Comm is a communicator as one rank sees it.
type Comm struct {
	r     *Rank
	ctx   uint32 // point-to-point context; ctx+1 is the internal one
	group *group.Group
	rank  int
	name  string
	freed bool

	collSeq uint32 // collective calls made on this communicator
	in      *Comm  // the internal twin, made on first use
}

// Size is MPI_Comm_size.
func (c *Comm) Size() int { return c.group.Size() }

// Rank is MPI_Comm_rank.
func (c *Comm) Rank() int { return c.rank }

// Group is MPI_Comm_group.
func (c *Comm) Group() *group.Group { return c.group }

// Name is the communicator's name, for reports.
func (c *Comm) Name() string { return c.name }

// internal is the communicator's hidden twin for library traffic.
func (c *Comm) internal() *Comm {
	if c.in == nil {
		c.in = &Comm{r: c.r, ctx: c.ctx + 1, group: c.group, rank: c.rank, name: c.name + " (internal)"}
	}
	return c.in
}

// Internal tags used while building communicators.
const (
	tagCtx = iota + 1
	tagSplit
)

// CommDup is MPI_Comm_dup: same group, new context.
func (r *Rank) CommDup(c *Comm) (*Comm, error) {
	start := r.enter(opCommDup, "MPI_Comm_dup(%s)", commName(c))
	if err := r.checkComm("MPI_Comm_dup", c); err != nil {
		return nil, err
	}
	id, err := r.agreeContext(c, c.rank == 0)
	r.leave(opCommDup, start, 0, 0)
	if err != nil {
		return nil, err
	}
	return &Comm{r: r, ctx: 2 * id, group: c.group, rank: c.rank, name: fmt.Sprintf("%s dup %d", c.name, id)}, nil
}

// CommCreate is MPI_Comm_create: every rank of c calls it with the same
// group; members get the new communicator, the others nil (MPI_COMM_NULL).
func (r *Rank) CommCreate(c *Comm, g *group.Group) (*Comm, error) {
	start := r.enter(opCommCreate, "MPI_Comm_create(%s)", commName(c))
	if err := r.checkComm("MPI_Comm_create", c); err != nil {
		return nil, err
	}
	if g == nil || len(group.GroupDifference(g, c.group).Members()) > 0 {
		return nil, mpierr.Errorf(mpierr.ErrGroup, "MPI_Comm_create", "rank %d: the group is not a subgroup of %s", r.rank, c.name)
	}
	id, err := r.agreeContext(c, c.rank == 0)
	r.leave(opCommCreate, start, 0, 0)
	if err != nil {
		return nil, err
	}
	me := g.Rank(r.rank)
	if me == group.Undefined {
		return nil, nil
	}
	return &Comm{r: r, ctx: 2 * id, group: g, rank: me, name: fmt.Sprintf("%s create %d", c.name, id)}, nil
}

// CommSplit is MPI_Comm_split: ranks with the same color form a new
// communicator, ordered by key then by rank in c; color Undefined gets nil.
// As in the thesis, rank 0 collects every (color, key), works out the
// groups, asks for their contexts and tells every rank its own.
func (r *Rank) CommSplit(c *Comm, color, key int) (*Comm, error) {
	start := r.enter(opCommSplit, "MPI_Comm_split(%s, color=%d, key=%d)", commName(c), color, key)
	if err := r.checkComm("MPI_Comm_split", c); err != nil {
		return nil, err
	}
	if color < 0 && color != group.Undefined {
		return nil, mpierr.Errorf(mpierr.ErrArg, "MPI_Comm_split", "color %d must be >= 0 or MPI_UNDEFINED", color)
	}
	in := c.internal()
	buf := r.MustAlloc(8)
	defer r.Free(buf)
	buf.SetInt32(0, int32(color))
	buf.SetInt32(1, int32(key))
	var mine []int32
	if c.rank == 0 {
		type entry struct{ color, key, rank int }
		all := []entry{{color, key, 0}}
		for src := 1; src < c.Size(); src++ {
			if _, err := r.Recv(buf, 2, datatype.Int32, src, tagSplit, in); err != nil {
				return nil, err
			}
			all = append(all, entry{int(buf.Int32(0)), int(buf.Int32(1)), src})
		}
		slices.SortStableFunc(all, func(a, b entry) int {
			return cmp.Or(cmp.Compare(a.color, b.color), cmp.Compare(a.key, b.key), cmp.Compare(a.rank, b.rank))
		})
		// Per rank of c: [context id, members' world ranks...].
		info := make([][]int32, c.Size())
		for i := 0; i < len(all); {
			j := i
			for j < len(all) && all[j].color == all[i].color {
				j++
			}
			if all[i].color != group.Undefined {
				id := r.requestContext()
				members := []int32{int32(id)}
				for _, e := range all[i:j] {
					members = append(members, int32(c.group.WorldRank(e.rank)))
				}
				for _, e := range all[i:j] {
					info[e.rank] = members
				}
			}
			i = j
		}
		for dst := 1; dst < c.Size(); dst++ {
			if err := r.sendInts(info[dst], dst, in); err != nil {
				return nil, err
			}
		}
		mine = info[0]
	} else {
		if err := r.Send(buf, 2, datatype.Int32, 0, tagSplit, in); err != nil {
			return nil, err
		}
		var err error
		if mine, err = r.recvInts(0, in); err != nil {
			return nil, err
		}
	}
	if r.w.Cfg.thesisLib() {
		// Thesis §4.2.3: "a final barrier prevents any process from going
		// forward and using the new communicators until all processes
		// have the full information".
		r.thesisCall()
		if err := r.thesisBarrier(c); err != nil {
			return nil, err
		}
	}
	r.leave(opCommSplit, start, 0, 0)
	if len(mine) == 0 {
		return nil, nil
	}
	members := make([]int, len(mine)-1)
	for i, m := range mine[1:] {
		members[i] = int(m)
	}
	g, err := group.NewGroup(members)
	if err != nil {
		return nil, err
	}
	return &Comm{r: r, ctx: 2 * uint32(mine[0]), group: g, rank: g.Rank(r.rank), name: fmt.Sprintf("%s split %d", c.name, mine[0])}, nil
}

// CommFree is MPI_Comm_free.
func (r *Rank) CommFree(c *Comm) error {
	if err := r.checkComm("MPI_Comm_free", c); err != nil {
		return err
	}
	if c == r.world {
		return mpierr.Errorf(mpierr.ErrArg, "MPI_Comm_free", "MPI_COMM_WORLD cannot be freed")
	}
	c.freed = true
	return nil
}

// CommCompare is MPI_Comm_compare.
func CommCompare(a, b *Comm) group.Comparison {
	switch {
	case a == b || a.ctx == b.ctx && a.r == b.r:
		return group.Ident
	case group.GroupCompare(a.group, b.group) == group.Ident:
		return group.Congruent
	case group.GroupCompare(a.group, b.group) == group.Similar:
		return group.Similar
	}
	return group.Unequal
}

func (r *Rank) checkComm(op string, c *Comm) error {
	if c == nil || c.r != r || c.freed {
		return mpierr.Errorf(mpierr.ErrArg, op, "rank %d: invalid or freed communicator", r.rank)
	}
	return nil
}

// agreeContext gets a new context id at the root and passes it to the
// other ranks of c: the thesis's steps under the thesis profile, else the
// shortened version (the root sends the id to each rank; no barrier).
func (r *Rank) agreeContext(c *Comm, root bool) (uint32, error) {
	if r.w.Cfg.thesisLib() {
		return r.thesisContext(c) // the steps of thesis §4.2.3
	}
	in := c.internal()
	if root {
		id := r.requestContext()
		for dst := 1; dst < c.Size(); dst++ {
			if err := r.sendInts([]int32{int32(id)}, dst, in); err != nil {
				return 0, err
			}
		}
		return id, nil
	}
	v, err := r.recvInts(0, in)
	if err != nil {
		return 0, err
	}
	return uint32(v[0]), nil
}

// requestContext asks the highest-numbered tile for a free context id with
// a THREAD message; the answer comes back as a DATA message.
func (r *Rank) requestContext() uint32 {
	w := r.w
	flag := r.MustAlloc(4)
	defer r.Free(flag)
	server := len(w.M.Nodes) - 1
	if err := r.t.CreateThread(server, w.h.ctxRequest, uint32(r.node.ID), flag.Addr); err != nil {
		w.fail(err)
		return 0
	}
	prev := r.call
	r.call = textCall(prev.String() + " (waiting for a context id from " + w.M.Nodes[server].Name + ")")
	r.wait(func() bool { return flag.Uint32(0) != 0 })
	r.call = prev
	return flag.Uint32(0)
}

func (w *World) threadContextRequest(t *endpoint.Thread, a []uint32) {
	id := w.nextCtx
	w.nextCtx++
	if err := t.SendInt(int(a[0]), a[1], id); err != nil {
		w.fail(err)
	}
}

// sendInts and recvInts move small int32 vectors for the library itself,
// length first.
func (r *Rank) sendInts(v []int32, dst int, c *Comm) error {
	b := r.MustAlloc(4 * (len(v) + 1))
	defer r.Free(b)
	b.SetInt32(0, int32(len(v)))
	for i, x := range v {
		b.SetInt32(i+1, x)
	}
	return r.Send(b, len(v)+1, datatype.Int32, dst, tagCtx, c)
}

func (r *Rank) recvInts(src int, c *Comm) ([]int32, error) {
	st, err := r.Probe(src, tagCtx, c)
	if err != nil {
		return nil, err
	}
	n := st.Bytes / 4
	b := r.MustAlloc(4 * max(n, 1))
	defer r.Free(b)
	if _, err := r.Recv(b, n, datatype.Int32, src, tagCtx, c); err != nil {
		return nil, err
	}
	out := make([]int32, b.Int32(0))
	for i := range out {
		out[i] = b.Int32(i + 1)
	}
	return out, nil
}

// Probe is MPI_Probe: it waits until a matching message is announced and
// describes it without receiving it.
func (r *Rank) Probe(source, tag int, c *Comm) (Status, error) {
	start := r.enter(opProbe, "MPI_Probe(source=%d, tag=%d, comm %s)", source, tag, commName(c))
	var st Status
	var found bool
	if err := r.checkArgs("MPI_Probe", datatype.Buffer{}, 0, datatype.Byte, source, tag, c, true); err != nil {
		return st, err
	}
	blocked := r.wait(func() bool { st, found = r.probe(source, tag, c); return found })
	r.leave(opProbe, start, 0, blocked)
	return st, nil
}

// Iprobe is MPI_Iprobe: ok reports whether a matching message is waiting.
func (r *Rank) Iprobe(source, tag int, c *Comm) (Status, bool) {
	start := r.enter(opIprobe, "MPI_Iprobe(source=%d, tag=%d, comm %s)", source, tag, commName(c))
	if err := r.checkArgs("MPI_Iprobe", datatype.Buffer{}, 0, datatype.Byte, source, tag, c, true); err != nil {
		return Status{Err: err}, false
	}
	r.progress()
	st, ok := r.probe(source, tag, c)
	r.leave(opIprobe, start, 0, 0)
	return st, ok
}

func (r *Rank) probe(source, tag int, c *Comm) (Status, bool) {
	peer := AnySource
	if source != AnySource {
		peer = c.group.WorldRank(source)
	}
	q := &Request{peer: peer, tag: tag, comm: c}
	for _, e := range r.unexpected {
		if matches(q, e.src, e.tag, e.ctx) {
			return Status{Source: c.group.Rank(e.src), Tag: e.tag, Bytes: e.bytes}, true
		}
	}
	return Status{}, false
}
