package goal

import (
	"errors"
	"fmt"
	"math"
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
	ops    []Op
	opRank []int32 // rank of ops[k]; nil while ops are in rank order
	count  []int32 // ops per rank so far
	last   int32   // rank of the last op added, for the in-order check
	edges  []edge
	labels []labelAt
	err    error

	// trusted labels were checked by the reader (identifiers, unique per
	// rank): buildLabels skips its checks, which need a map of them all.
	trusted bool
}

type edge struct {
	rank, a, b int32
	start      bool // irequires
}

type labelAt struct {
	rank, op int32
	name     string
}

// NewBuilder starts a schedule of n ranks. Hint is the expected number of
// operations over all ranks (0 if unknown), to size the arrays once.
func NewBuilder(n, hint int) *Builder {
	b := &Builder{n: n}
	if n < 1 || n > math.MaxInt32 {
		b.err = fmt.Errorf("goal: num_ranks %d: allowed 1..%d", n, math.MaxInt32)
		b.n = 0
		return b
	}
	b.count = make([]int32, n)
	if hint > 0 {
		// Ops depend on the one or two ops before them, mostly: room for
		// two dependencies each spares growing the largest slice.
		b.ops = make([]Op, 0, hint)
		b.edges = make([]edge, 0, 2*hint)
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
	if len(b.ops) == math.MaxInt32 {
		return b.fail("more than %d operations", math.MaxInt32)
	}
	op.label, op.dep, op.nreq, op.nireq = 0, 0, 0, 0
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
	b.ops = append(b.ops, op)
	if b.opRank != nil {
		b.opRank = append(b.opRank, int32(r))
	}
	i := b.count[r]
	b.count[r]++
	return i
}

// Require records "a requires on" in rank r: op a starts only after op on
// has completed.
func (b *Builder) Require(r int, a, on int32) { b.link(r, a, on, false) }

// IRequire records "a irequires on" in rank r: op a starts only after op
// on has started.
func (b *Builder) IRequire(r int, a, on int32) { b.link(r, a, on, true) }

func (b *Builder) link(r int, a, on int32, start bool) {
	if r < 0 || r >= b.n {
		b.fail("dependency in rank %d: allowed 0..%d", r, b.n-1)
		return
	}
	if a < 0 || a >= b.count[r] || on < 0 || on >= b.count[r] {
		b.fail("rank %d: dependency %d on %d: rank %d has ops 0..%d", r, a, on, r, b.count[r]-1)
		return
	}
	b.edges = append(b.edges, edge{int32(r), a, on, start})
}

// SetLabel names op i of rank r. Labels must be identifiers
// ([a-zA-Z][a-zA-Z0-9_]*, not one of the words send, recv, calc, rank,
// num_ranks) and unique within their rank; Schedule checks both.
func (b *Builder) SetLabel(r int, i int32, name string) {
	if r < 0 || r >= b.n || i < 0 || i >= b.count[r] {
		b.fail("label %q on rank %d op %d: no such op", Clip(name), r, i)
		return
	}
	b.labels = append(b.labels, labelAt{int32(r), i, name})
}

// Err is the first error recorded so far, if any.
func (b *Builder) Err() error { return b.err }

// Schedule finishes the build. The builder must not be used afterwards:
// the schedule may share its arrays.
func (b *Builder) Schedule() (*Schedule, error) {
	if b.err != nil {
		return nil, b.err
	}
	start := make([]int32, b.n+1)
	for r, c := range b.count {
		start[r+1] = start[r] + c
	}
	ops := b.ops
	if b.opRank != nil {
		// Stable scatter by rank: each rank keeps its ops in the order added.
		ops = make([]Op, len(b.ops))
		next := start[:b.n:b.n]
		next = append([]int32(nil), next...)
		for k := range b.ops {
			r := b.opRank[k]
			ops[next[r]] = b.ops[k]
			next[r]++
		}
		b.opRank = nil
	}
	b.ops = nil
	s := &Schedule{Ranks: make([]Rank, b.n), labels: []string{""}, all: ops, first: start}
	for r := range s.Ranks {
		s.Ranks[r].Ops = ops[start[r]:start[r+1]:start[r+1]]
	}
	if err := b.buildDeps(s, ops, start); err != nil {
		return nil, err
	}
	if err := b.buildLabels(s, ops, start); err != nil {
		return nil, err
	}
	return s, nil
}

// buildDeps lays the edges out per op (requires, then irequires), each
// list in the order the edges were added.
func (b *Builder) buildDeps(s *Schedule, ops []Op, start []int32) error {
	if len(b.edges) > math.MaxUint32 {
		return errors.New("goal: more than 2^32 dependencies")
	}
	for _, e := range b.edges {
		op := &ops[start[e.rank]+e.a]
		if e.start {
			op.nireq++
		} else {
			op.nreq++
		}
	}
	var n uint32
	for k := range ops {
		ops[k].dep = n
		n += ops[k].nreq + ops[k].nireq
	}
	s.deps = make([]int32, n)
	// Refill the counts as cursors: requires first, so that every nreq is
	// final before the irequires are placed after them.
	for k := range ops {
		ops[k].nreq, ops[k].nireq = 0, 0
	}
	for _, e := range b.edges {
		if !e.start {
			op := &ops[start[e.rank]+e.a]
			s.deps[op.dep+op.nreq] = e.b
			op.nreq++
		}
	}
	for _, e := range b.edges {
		if e.start {
			op := &ops[start[e.rank]+e.a]
			s.deps[op.dep+op.nreq+op.nireq] = e.b
			op.nireq++
		}
	}
	b.edges = nil
	return nil
}

// buildLabels checks the labels (identifiers, no keyword, unique per
// rank) and stores them.
func (b *Builder) buildLabels(s *Schedule, ops []Op, start []int32) error {
	if len(b.labels) == 0 {
		return nil
	}
	seen := map[labelAt]int32{} // (rank, 0, name) -> op
	for _, l := range b.labels {
		if b.trusted {
			op := &ops[start[l.rank]+l.op]
			op.label = int32(len(s.labels))
			s.labels = append(s.labels, l.name)
			continue
		}
		if !IsLabel(l.name) {
			return fmt.Errorf("goal: rank %d op %d: label %q: allowed an identifier [a-zA-Z][a-zA-Z0-9_]* other than send, recv, calc, rank, num_ranks", l.rank, l.op, Clip(l.name))
		}
		op := &ops[start[l.rank]+l.op]
		key := labelAt{l.rank, 0, l.name}
		if prev, dup := seen[key]; dup && prev != l.op {
			return fmt.Errorf("goal: rank %d: label %q on ops %d and %d: labels must be unique within a rank", l.rank, Clip(l.name), prev, l.op)
		}
		if op.label > 0 {
			delete(seen, labelAt{l.rank, 0, s.labels[op.label]})
			s.labels[op.label] = l.name
		} else {
			op.label = int32(len(s.labels))
			s.labels = append(s.labels, l.name)
		}
		seen[key] = l.op
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
