package mpi

import (
	"sort"

	sched "nocsim/coll"
	"nocsim/mpi/datatype"
)

// The one registry of collective algorithms: what each is (listed in the
// docs, selected by the [mpi] keys) and the code that runs it.

// Algorithm describes one registered collective algorithm.
type Algorithm struct {
	Op       string // operation: barrier, bcast, ...
	Name     string // selectable name
	Source   string // where it comes from
	Messages string // messages sent, for P ranks
	// Native marks an algorithm run on SCMP's native primitives (remote
	// stores, getBlock, THREAD handlers) instead of MPI messages: a
	// recording sees none of its traffic, and logp/collgen has no
	// schedule for it.
	Native bool
}

// algEntry is a registry entry: an algorithm and the code that runs it.
type algEntry struct {
	Algorithm
	// run is the op's kind of runner (barrierRun, bcastRun, ...): each
	// operation's call looks its algorithm up in the registry instead of
	// switching on names.
	run any
	// profile marks the thesis profile's own code (thesis.go): run under
	// library = "thesis" only, neither listed nor selectable.
	profile bool
}

var (
	registry []algEntry
	algIndex = map[algKey]algEntry{} // registry by operation and name
)

type algKey struct{ op, name string }

// register adds algorithms to the registry; called from init functions.
func register(es ...algEntry) {
	for _, e := range es {
		registry = append(registry, e)
		algIndex[algKey{e.Op, e.Name}] = e
	}
}

// lookupAlg is the entry registered for op's algorithm name; its run is
// nil if there is none, which the caller's assertion of its op's runner
// type reports.
func lookupAlg(op, name string) algEntry { return algIndex[algKey{op, name}] }

// Algorithms lists the registered algorithms, by operation then name.
func Algorithms() []Algorithm {
	var out []Algorithm
	for _, e := range registry {
		if !e.profile {
			out = append(out, e.Algorithm)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Op != out[j].Op {
			return opOrder(out[i].Op) < opOrder(out[j].Op)
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// CollOps are the operations with selectable algorithms, in documentation
// order.
var CollOps = []string{"barrier", "bcast", "scatter", "gather", "allgather", "alltoall", "reduce", "allreduce", "reduce_scatter", "scan"}

func opOrder(op string) int {
	for i, o := range CollOps {
		if o == op {
			return i
		}
	}
	return len(CollOps)
}

// AlgorithmNames lists the names registered for op.
func AlgorithmNames(op string) []string {
	var out []string
	for _, a := range Algorithms() {
		if a.Op == op {
			out = append(out, a.Name)
		}
	}
	return out
}

// The runner types, one per operation: what every algorithm of the
// operation is given.
type (
	barrierRun func(x *coll) error
	bcastRun   func(x *coll, b datatype.Buffer, n, root int) error
	scatterRun func(x *coll, p rtPart) error
	gatherRun  func(x *coll, p rtPart) error
	// allgatherRun is given the working buffer of the P blocks of
	// blocks[i] bytes in sched.Layout.
	allgatherRun func(x *coll, w datatype.Buffer, blocks []int) error
	// alltoallRun runs an alltoall on blocks alltoallRun has staged.
	alltoallRun func(x *coll, sb, rb []allBlock, ss, rs *alltoallStage) error
)

// rtPart is what a scatter or gather algorithm is given: the root's
// blocks, this rank's own part (scatter: its receive area; gather: its
// packed data) of mine bytes, own (the root's move of its own block), and
// late, where the binomial scatter leaves an error found once the data
// has moved.
type rtPart struct {
	bl         *rtBlocks
	b          datatype.Buffer
	mine, root int
	vec        bool
	own        func() error
	late       *error
}

// The algorithms written once as coll schedule programs run through
// runProgram; their entries come from coll's registry, so their names and
// descriptions are written there only.
func init() {
	for _, a := range sched.Algorithms() {
		if a.Program != nil {
			register(algEntry{Algorithm: Algorithm{Op: a.Op, Name: a.Name, Source: a.Source, Messages: a.Messages}, run: a})
		}
	}
}
