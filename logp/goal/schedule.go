package goal

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

// Op is one operation of a rank. It is kept small (48 bytes) because a
// schedule of 2^20 ranks holds millions of them: the label and the
// dependency lists live in the Schedule, reached through its methods.
type Op struct {
	Bytes uint64 // message size of a send or recv, bytes
	Time  uint64 // duration of a calc, cycles
	Peer  int32  // destination of a send, source of a recv (or AnySource); 0 for calc
	Tag   int32  // message tag (AnyTag allowed); 0 for calc
	Kind  Kind
	CPU   uint8 // CPU index of the rank that executes the op
	NIC   uint8 // NIC index of the rank the message uses

	label int32  // index into Schedule.labels; 0 = unlabelled
	dep   uint32 // start of this op's requires list in Schedule.deps
	nreq  uint32 // requires entries, followed by nireq irequires entries
	nireq uint32
}

// Rank is the program of one rank: its operations in schedule order.
// Dependencies name operations by their index in Ops.
type Rank struct {
	Ops []Op
}

// Schedule is a GOAL schedule: one Rank per rank 0..N-1. Build one with a
// Builder or Read; the zero value is an empty schedule of no ranks.
type Schedule struct {
	Ranks  []Rank
	deps   []int32  // dependency lists of all ops, indices within the op's rank
	labels []string // labels[0] = "" (no label)
	all    []Op     // every rank's ops, which Ranks[r].Ops slice
	first  []int32  // index in all of each rank's first op, len(Ranks)+1
}

// Flat returns every rank's operations as one slice, rank 0's first, and
// the index there of each rank's first op (first has len(Ranks)+1
// entries), for simulators that index ops globally. It shares the
// schedule's own array unless Ranks were changed after the build, when it
// returns a copy. Treat both slices as read-only.
func (s *Schedule) Flat() (ops []Op, first []int32) {
	if s.first != nil && len(s.first) == len(s.Ranks)+1 {
		shared := true
		for r := range s.Ranks {
			o := s.Ranks[r].Ops
			lo, hi := s.first[r], s.first[r+1]
			if len(o) != int(hi-lo) || len(o) > 0 && &o[0] != &s.all[lo] {
				shared = false
				break
			}
		}
		if shared {
			return s.all, s.first
		}
	}
	first = make([]int32, len(s.Ranks)+1)
	for r := range s.Ranks {
		first[r+1] = first[r] + int32(len(s.Ranks[r].Ops))
		ops = append(ops, s.Ranks[r].Ops...)
	}
	return ops, first
}

// NumOps is the number of operations over all ranks.
func (s *Schedule) NumOps() int {
	n := 0
	for i := range s.Ranks {
		n += len(s.Ranks[i].Ops)
	}
	return n
}

// Requires lists the ops (indices in rank r) that op i of rank r waits to
// complete before it starts ("i requires j"). The slice is shared: do not
// modify it.
func (s *Schedule) Requires(r, i int) []int32 {
	op := &s.Ranks[r].Ops[i]
	return s.deps[op.dep : op.dep+op.nreq : op.dep+op.nreq]
}

// IRequires lists the ops of rank r that op i waits to have started
// ("i irequires j"). The slice is shared: do not modify it.
func (s *Schedule) IRequires(r, i int) []int32 {
	op := &s.Ranks[r].Ops[i]
	lo := op.dep + op.nreq
	return s.deps[lo : lo+op.nireq : lo+op.nireq]
}

// Label is op i of rank r's label, "" if it has none.
func (s *Schedule) Label(r, i int) string {
	if l := s.Ranks[r].Ops[i].label; l > 0 {
		return s.labels[l]
	}
	return ""
}
