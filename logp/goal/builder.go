package goal

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Builder assembles a Schedule for generators: Add* append an operation
// to a rank and return its index there, Require and IRequire link two
// operations of one rank. Ranks may be filled in any interleaving; when
// they are filled in order (rank 0's ops first, then rank 1's, ...) the
// final Schedule reuses the builder's op array instead of copying it.
//
// Misuse (a rank or op index out of range, a bad peer or tag) does not
// panic: the first such error is kept and returned by Schedule, and the
// offending call returns -1.
type Builder struct {
	n      int
	ops    []Packed
	opRank []int32 // rank of ops[k]; nil while ops are in rank order
	count  []int32 // ops per rank so far
	last   int32   // rank of the last op added, for the in-order check
	err    error

	// Dependencies wait in edges until they are laid out into deps, in
	// op order: all at once by Schedule, or (the reader) each rank's at
	// the end of its block, so that ops [0, laid) have their lists.
	edges []edge
	deps  []int32
	laid  int
	cnt   []uint32 // scratch of layout

	labels []labelAt        // SetLabel's calls, in order
	names  []string         // interned label names, names[0] = ""
	ids    map[string]int32 // name -> index in names
	// The reader's labels, final: it checks them as it reads and lays
	// them out in op order (see Schedule.labOp).
	labOp, labID []int32
}

// edge is "op a of rank requires (irequires: b's top bit set) op b".
type edge struct {
	rank, a int32
	b       uint32
}

const irq = 1 << 31

type labelAt struct{ rank, op, id int32 }

// NewBuilder starts a schedule of n ranks. Hint is the expected number of
// operations over all ranks (0 if unknown), to size the op array once.
func NewBuilder(n, hint int) *Builder {
	b := &Builder{n: n, names: []string{""}}
	if n < 1 || n > math.MaxInt32 {
		b.err = fmt.Errorf("goal: num_ranks %d: allowed 1..%d", n, math.MaxInt32)
		b.n = 0
		return b
	}
	b.count = make([]int32, n)
	if hint > 0 {
		b.ops = make([]Packed, 0, hint)
	}
	return b
}

// NumRanks is the n the builder was made with.
func (b *Builder) NumRanks() int { return b.n }

// Len is the number of ops added to rank r so far.
func (b *Builder) Len(r int) int {
	if r < 0 || r >= b.n {
		return 0
	}
	return int(b.count[r])
}

func (b *Builder) fail(format string, args ...any) int32 {
	if b.err == nil {
		b.err = fmt.Errorf("goal: "+format, args...)
	}
	return -1
}

// AddSend appends "send bytes to dst tag tag" to rank r.
func (b *Builder) AddSend(r, dst int, bytes uint64, tag int) int32 {
	return b.Add(r, Op{Kind: Send, Bytes: bytes, Peer: int32(dst), Tag: int32(tag)})
}

// AddRecv appends "recv bytes from src tag tag" to rank r (src may be
// AnySource, tag AnyTag).
func (b *Builder) AddRecv(r, src int, bytes uint64, tag int) int32 {
	return b.Add(r, Op{Kind: Recv, Bytes: bytes, Peer: int32(src), Tag: int32(tag)})
}

// AddCalc appends "calc cycles" to rank r.
func (b *Builder) AddCalc(r int, cycles uint64) int32 {
	return b.Add(r, Op{Kind: Calc, Time: cycles})
}

// Add appends op (its Kind, Bytes or Time, Peer, Tag, CPU and NIC) to rank
// r and returns its index in the rank. The fields an op of its kind does
// not have in GOAL (Time of a message; Bytes, Peer, Tag and NIC of a calc)
// are zeroed.
func (b *Builder) Add(r int, op Op) int32 {
	if r < 0 || r >= b.n {
		return b.fail("rank %d: allowed 0..%d", r, b.n-1)
	}
	switch op.Kind {
	case Send:
		if op.Peer < 0 || int(op.Peer) >= b.n {
			return b.fail("rank %d op %d: send to %d: allowed 0..%d", r, b.count[r], op.Peer, b.n-1)
		}
	case Recv:
		if op.Peer < AnySource || int(op.Peer) >= b.n {
			return b.fail("rank %d op %d: recv from %d: allowed -1 (any) or 0..%d", r, b.count[r], op.Peer, b.n-1)
		}
	case Calc:
		// txt2bin's calc has no peer, tag, size or nic.
		op.Peer, op.Tag, op.Bytes, op.NIC = 0, 0, 0, 0
	default:
		return b.fail("rank %d op %d: kind %d: allowed send, recv, calc", r, b.count[r], op.Kind)
	}
	if op.Kind != Calc {
		op.Time = 0
		if op.Tag < AnyTag {
			return b.fail("rank %d op %d: tag %d: allowed -1 (any) or 0..%d", r, b.count[r], op.Tag, math.MaxInt32)
		}
	}
	return b.add(r, pack(op))
}

// add appends a checked op.
func (b *Builder) add(r int, p Packed) int32 {
	if len(b.ops) == math.MaxInt32 {
		return b.fail("more than %d operations", math.MaxInt32)
	}
	if b.opRank == nil && int32(r) < b.last {
		// Out of rank order from now on: remember every op's rank.
		b.opRank = make([]int32, len(b.ops), cap(b.ops))
		k := 0
		for q, c := range b.count {
			for range c {
				b.opRank[k] = int32(q)
				k++
			}
		}
	}
	b.last = int32(r)
	b.ops = append(b.ops, p)
	if b.opRank != nil {
		b.opRank = append(b.opRank, int32(r))
	}
	i := b.count[r]
	b.count[r]++
	return i
}

// Require records "a requires on" in rank r: op a starts only after op on
// has completed.
func (b *Builder) Require(r int, a, on int32) { b.link(r, a, on, 0) }

// IRequire records "a irequires on" in rank r: op a starts only after op
// on has started.
func (b *Builder) IRequire(r int, a, on int32) { b.link(r, a, on, irq) }

func (b *Builder) link(r int, a, on int32, start uint32) {
	if r < 0 || r >= b.n {
		b.fail("dependency in rank %d: allowed 0..%d", r, b.n-1)
		return
	}
	if a < 0 || a >= b.count[r] || on < 0 || on >= b.count[r] {
		b.fail("rank %d: dependency %d on %d: rank %d has ops 0..%d", r, a, on, r, b.count[r]-1)
		return
	}
	b.edges = append(b.edges, edge{int32(r), a, uint32(on) | start})
}

// SetLabel names op i of rank r. Labels must be identifiers
// ([a-zA-Z][a-zA-Z0-9_]*, not one of the words send, recv, calc, rank,
// num_ranks) and unique within their rank; Schedule checks both.
func (b *Builder) SetLabel(r int, i int32, name string) {
	if r < 0 || r >= b.n || i < 0 || i >= b.count[r] {
		b.fail("label %q on rank %d op %d: no such op", Clip(name), r, i)
		return
	}
	b.labels = append(b.labels, labelAt{int32(r), i, b.intern([]byte(name))})
}

// intern is name's index in names, added if new. Looking a []byte up
// converted to a string does not allocate: only a new name does.
func (b *Builder) intern(name []byte) int32 {
	if id, ok := b.ids[string(name)]; ok {
		return id
	}
	if b.ids == nil {
		b.ids = map[string]int32{}
	}
	id := int32(len(b.names))
	s := string(name)
	b.names = append(b.names, s)
	b.ids[s] = id
	return id
}

// Err is the first error recorded so far, if any.
func (b *Builder) Err() error { return b.err }

// Schedule finishes the build. The builder must not be used afterwards:
// the schedule shares its arrays.
func (b *Builder) Schedule() (*Schedule, error) {
	if b.err != nil {
		return nil, b.err
	}
	start := make([]int32, b.n+1)
	for r, c := range b.count {
		start[r+1] = start[r] + c
	}
	if b.opRank != nil {
		// Stable scatter by rank: each rank keeps its ops in the order added.
		ops := make([]Packed, len(b.ops))
		next := append([]int32(nil), start[:b.n]...)
		for k := range b.ops {
			r := b.opRank[k]
			ops[next[r]] = b.ops[k]
			next[r]++
		}
		b.ops, b.opRank = ops, nil
	}
	if err := b.layout(start); err != nil {
		return nil, err
	}
	s := &Schedule{ops: b.ops, first: start, deps: b.deps, labOp: b.labOp, labID: b.labID}
	if err := b.buildLabels(s); err != nil {
		return nil, err
	}
	s.labels = b.names
	*b = Builder{}
	return s, nil
}

// layout moves the waiting edges into deps: the lists of ops [laid,
// len(ops)), which every edge's op a lies in, each list its requires, then
// its irequires and their split (see pIreq), each part in the order the
// edges were added. Op a of rank r is ops[start[r]+a], or, without start
// (the reader, whose edges are all of the rank starting at laid),
// ops[laid+a].
func (b *Builder) layout(start []int32) error {
	lo, hi := b.laid, len(b.ops)
	b.laid = hi
	if len(b.edges) == 0 {
		for k := lo; k < hi; k++ {
			b.ops[k].dep = uint32(len(b.deps))
		}
		return nil
	}
	n := hi - lo
	// cnt[2k], cnt[2k+1]: op lo+k's requires and irequires, then cursors.
	if cap(b.cnt) < 2*n {
		b.cnt = make([]uint32, 2*n)
	}
	cnt := b.cnt[:2*n]
	clear(cnt)
	for _, e := range b.edges {
		k := int(e.a)
		if start != nil {
			k += int(start[e.rank]) - lo
		}
		cnt[2*k+int(e.b>>31)]++
	}
	pos := uint64(len(b.deps))
	for k := range n {
		op := &b.ops[lo+k]
		op.dep = uint32(pos)
		nr, ni := cnt[2*k], cnt[2*k+1]
		cnt[2*k] = uint32(pos)
		pos += uint64(nr)
		if ni > 0 {
			op.flags |= pIreq
			cnt[2*k+1] = uint32(pos)
			pos += uint64(ni) + 1
		}
		if pos > math.MaxUint32 {
			return fmt.Errorf("goal: more than %d dependencies", uint32(math.MaxUint32))
		}
	}
	b.deps = slices.Grow(b.deps, int(pos)-len(b.deps))[:pos]
	for _, e := range b.edges {
		k := int(e.a)
		if start != nil {
			k += int(start[e.rank]) - lo
		}
		c := &cnt[2*k+int(e.b>>31)]
		b.deps[*c] = int32(e.b &^ irq)
		*c++
	}
	for k := range n {
		if op := &b.ops[lo+k]; op.flags&pIreq != 0 {
			// The requires' cursor ended where the irequires start.
			b.deps[cnt[2*k+1]] = int32(cnt[2*k] - op.dep)
		}
	}
	b.edges = b.edges[:0]
	return nil
}

// buildLabels checks SetLabel's labels (identifiers, no keyword, unique
// per rank) and stores them.
func (b *Builder) buildLabels(s *Schedule) error {
	if len(b.labels) == 0 {
		return nil
	}
	seen := map[[2]int32]int32{} // (rank, name) -> op
	cur := map[int32]int32{}     // global op -> name
	for _, l := range b.labels {
		name := b.names[l.id]
		if !IsLabel(name) {
			return fmt.Errorf("goal: rank %d op %d: label %q: allowed an identifier [a-zA-Z][a-zA-Z0-9_]* other than send, recv, calc, rank, num_ranks", l.rank, l.op, Clip(name))
		}
		key := [2]int32{l.rank, l.id}
		if prev, dup := seen[key]; dup && prev != l.op {
			return fmt.Errorf("goal: rank %d: label %q on ops %d and %d: labels must be unique within a rank", l.rank, Clip(name), prev, l.op)
		}
		k := s.first[l.rank] + l.op
		if old, ok := cur[k]; ok {
			delete(seen, [2]int32{l.rank, old})
		}
		cur[k] = l.id
		seen[key] = l.op
	}
	ks := make([]int32, 0, len(cur))
	for k := range cur {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, cmp.Compare)
	r := 0
	for _, k := range ks {
		for s.first[r+1] <= k {
			r++
		}
		id := cur[k]
		if isCanon([]byte(b.names[id]), k-s.first[r]) {
			s.ops[k].flags |= pCanon
			continue
		}
		s.labOp = append(s.labOp, k)
		s.labID = append(s.labID, id)
	}
	b.labels = nil
	return nil
}

// keywords are the words txt2bin reads as commands where a label could
// start, so they cannot be labels.
var keywords = map[string]bool{"send": true, "recv": true, "calc": true, "rank": true, "num_ranks": true}

// IsLabel reports whether name can label an operation in GOAL text.
func IsLabel(name string) bool {
	if name == "" || keywords[name] {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '_'):
		default:
			return false
		}
	}
	return true
}
