package goal

import (
	"iter"
	"strconv"
)

// Kind is what an operation does. The values follow LogGOPSim's operation
// types, whose order (send, recv, calc) is also the order in which
// operations that become ready together are started.
type Kind uint8

const (
	Send Kind = 1 // send Bytes to rank Peer with Tag
	Recv Kind = 2 // receive Bytes from rank Peer (AnySource) with Tag (AnyTag)
	Calc Kind = 3 // occupy the CPU for Time cycles
)

// AnySource and AnyTag are the wildcards a receive may name (written -1).
// A send may carry AnyTag too (txt2bin accepts it): LogGOPSim then
// matches it against any receive tag.
const (
	AnySource = -1
	AnyTag    = -1
)

func (k Kind) String() string {
	switch k {
	case Send:
		return "send"
	case Recv:
		return "recv"
	case Calc:
		return "calc"
	}
	return "invalid"
}

// Op is one operation of a rank as generators add it and readers see it.
// A Schedule does not hold Ops: it keeps each as a 24-byte Packed record
// (a message's size and a calc's cycles share a field) and builds the Op
// when asked.
type Op struct {
	Bytes uint64 // message size of a send or recv, bytes
	Time  uint64 // duration of a calc, cycles
	Peer  int32  // destination of a send, source of a recv (or AnySource); 0 for calc
	Tag   int32  // message tag (AnyTag allowed); 0 for calc
	Kind  Kind
	CPU   uint8 // CPU index of the rank that executes the op
	NIC   uint8 // NIC index of the rank the message uses
}

// Packed is an operation as a Schedule stores it, 24 bytes: schedules of
// 2^20 ranks and more hold millions, and a simulator reads one record per
// op it touches. Its dependencies are a range of the schedule's one
// dependency array (Schedule.Requires); its label, if any, is a flag here
// or an entry of a sparse table (Schedule.Label).
type Packed struct {
	Size  uint64 // Bytes of a send or recv, Time of a calc
	Peer  int32
	Tag   int32
	dep   uint32 // start of the op's list in Schedule.deps; it ends where the next op's starts
	Kind  Kind
	CPU   uint8
	NIC   uint8
	flags uint8
}

const (
	// pIreq: the op has irequires entries; its list is its requires, its
	// irequires, then the number of requires (one entry more).
	pIreq = 1 << iota
	// pCanon: the op's label is "l" and its index in the rank, the label
	// Write generates (kept as this bit, not as a string).
	pCanon
)

// Bytes is a message's size (0 for a calc).
func (p *Packed) Bytes() uint64 {
	if p.Kind == Calc {
		return 0
	}
	return p.Size
}

// Op is the record unpacked.
func (p *Packed) Op() Op {
	op := Op{Peer: p.Peer, Tag: p.Tag, Kind: p.Kind, CPU: p.CPU, NIC: p.NIC}
	if p.Kind == Calc {
		op.Time = p.Size
	} else {
		op.Bytes = p.Size
	}
	return op
}

func pack(op Op) Packed {
	p := Packed{Peer: op.Peer, Tag: op.Tag, Kind: op.Kind, CPU: op.CPU, NIC: op.NIC, Size: op.Bytes}
	if op.Kind == Calc {
		p.Size = op.Time
	}
	return p
}

// Schedule is a GOAL schedule: the programs of ranks 0..N-1. Build one
// with a Builder or Read; the zero value is an empty schedule of no ranks.
// It is read-only once built.
type Schedule struct {
	ops    []Packed // every rank's ops, rank 0's first
	first  []int32  // index in ops of each rank's first op, NumRanks()+1 entries
	deps   []int32  // dependency lists of all ops in op order, indices within the op's rank
	labels []string // interned label names; labels[0] = ""
	// Labels other than the canonical ones (pCanon): labOp lists the ops
	// that have one, ascending, labID their names.
	labOp, labID []int32
}

// NumRanks is the number of ranks.
func (s *Schedule) NumRanks() int {
	if len(s.first) == 0 {
		return 0
	}
	return len(s.first) - 1
}

// NumOps is the number of operations over all ranks.
func (s *Schedule) NumOps() int { return len(s.ops) }

// Len is the number of operations of rank r.
func (s *Schedule) Len(r int) int { return int(s.first[r+1] - s.first[r]) }

// Op is operation i of rank r.
func (s *Schedule) Op(r, i int) Op { return s.ops[int(s.first[r])+i].Op() }

// Ops iterates over rank r's operations in schedule order.
func (s *Schedule) Ops(r int) iter.Seq2[int, Op] {
	return func(yield func(int, Op) bool) {
		lo, hi := int(s.first[r]), int(s.first[r+1])
		for k := lo; k < hi; k++ {
			if !yield(k-lo, s.ops[k].Op()) {
				return
			}
		}
	}
}

// Packed returns every rank's operations as stored, rank 0's first, and
// the index there of each rank's first op (NumRanks()+1 entries), for
// simulators that index ops globally: the schedule's own arrays, to be
// treated as read-only.
func (s *Schedule) Packed() (ops []Packed, first []int32) { return s.ops, s.first }

// list is global op k's dependency list and its number of requires.
func (s *Schedule) list(k int) ([]int32, int) {
	lo, hi := s.ops[k].dep, uint32(len(s.deps))
	if k+1 < len(s.ops) {
		hi = s.ops[k+1].dep
	}
	l := s.deps[lo:hi:hi]
	if s.ops[k].flags&pIreq == 0 {
		return l, len(l)
	}
	return l[: len(l)-1 : len(l)-1], int(l[len(l)-1])
}

// Requires lists the ops (indices in rank r) that op i of rank r waits to
// complete before it starts ("i requires j"). The slice is shared: do not
// modify it.
func (s *Schedule) Requires(r, i int) []int32 {
	l, n := s.list(int(s.first[r]) + i)
	return l[:n:n]
}

// IRequires lists the ops of rank r that op i waits to have started
// ("i irequires j"). The slice is shared: do not modify it.
func (s *Schedule) IRequires(r, i int) []int32 {
	l, n := s.list(int(s.first[r]) + i)
	if n == len(l) {
		return nil
	}
	return l[n:]
}

// Label is op i of rank r's label, "" if it has none.
func (s *Schedule) Label(r, i int) string {
	k := int(s.first[r]) + i
	if s.ops[k].flags&pCanon != 0 {
		return "l" + strconv.Itoa(i)
	}
	lo, hi := 0, len(s.labOp)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(s.labOp[m]) < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.labOp) && int(s.labOp[lo]) == k {
		return s.labels[s.labID[lo]]
	}
	return ""
}

// MemBytes is the memory the schedule's arrays take, bytes (their
// capacity: what the process holds for them).
func (s *Schedule) MemBytes() int {
	n := cap(s.ops)*24 + cap(s.first)*4 + cap(s.deps)*4 + cap(s.labOp)*4 + cap(s.labID)*4 + cap(s.labels)*16
	for _, l := range s.labels {
		n += len(l)
	}
	return n
}

// isCanon reports whether name is "l" followed by i in decimal, the label
// Write generates for op i.
func isCanon(name []byte, i int32) bool {
	if len(name) < 2 || name[0] != 'l' || len(name) > 11 || name[1] == '0' && len(name) > 2 {
		return false
	}
	var v int64
	for _, c := range name[1:] {
		if c < '0' || c > '9' {
			return false
		}
		v = v*10 + int64(c-'0')
	}
	return v == int64(i)
}
