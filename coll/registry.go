package coll

import "sort"

// Where the algorithms come from (Algorithm.Source).
const (
	SrcThesis = "Poole 2004 (SCMP thesis) §4.2.4"
	// SrcThesisLike marks the default library's versions of the thesis's
	// patterns, carried over MPI messages (library = "thesis" runs the
	// mechanisms themselves: THREAD-message counters, figure 4.3 as drawn).
	SrcThesisLike = "after Poole 2004 §4.2.4, over MPI messages"
	// SrcCray marks versions over MPI messages of Cray X1 patterns; the
	// X1's own, on remote memory access, are mpi's native code.
	SrcCray  = "after Nicholson & Goozen, Cray X1 MPI, over MPI messages"
	SrcMPICH = "standard (MPICH)"
	// MeshSource is the mesh ("dimensional") family's.
	MeshSource = "Brightwell & Shuler, MPI on Puma portals: the hybrid \"dimensional\" collectives (rows, then columns); Poole 2004 §6.4 (topology-aware collectives, future work)"
)

// Algorithm is one registered collective algorithm.
type Algorithm struct {
	Op       string // operation: barrier, bcast, ...
	Name     string // selectable name
	Source   string // where it comes from
	Messages string // messages sent, for P ranks
	// Native marks an algorithm run on SCMP's native primitives (remote
	// stores, getBlock, THREAD handlers) instead of MPI messages: it is no
	// static pattern of messages, so it has no Program and its engine
	// keeps its own code; a recording sees none of its traffic.
	Native bool
	// Program is the schedule program (nil when Native).
	Program Program `json:"-"`
	// Varying, when set, marks a Program that needs every block of the
	// call to be one size and moves the user's data itself (Copy from
	// SendBlock, to RecvBlock); calls whose blocks differ run Varying
	// instead, on blocks the engine stages.
	Varying Program `json:"-"`
	// OptimalTree marks a program that runs on Args.Tree, the optimal
	// LogP broadcast tree (OptimalTree) the engine builds for the call's
	// P from its optimal_L, optimal_o and optimal_g: a run is then fully
	// described by its configuration, and every communicator size gets
	// its tree.
	OptimalTree bool
	// Ordered, on a reduction that combines operands out of rank order,
	// names the algorithm of the op a non-commutative op falls back to
	// ("": this one keeps rank order, given Args.Ordered).
	Ordered string
	// Auto says when the auto selection (an [mpi] algorithm key left at
	// "auto") picks it: for messages under coll_long_bytes, from it, or
	// both. Each op has one of each.
	Auto Auto
	// Thesis marks the algorithm the thesis's library (library =
	// "thesis") runs for its op, being the one Poole 2004 describes; the
	// ops it has none for run the profile's own code (mpi/thesis.go).
	Thesis bool
	// Growth is how its messages grow with P (a schedule's size, what
	// a prediction on the tier costs).
	Growth Growth
	// Scratch, when set, is the most scratch one rank allocates, in
	// bytes, at P ranks and n bytes (the call's size per rank), besides
	// the staging of blocks that do not start on a word.
	Scratch func(P, n int) int `json:"-"`
	// MeshGrid marks a program that runs on Args.Grid, the
	// communicator's ranks by mesh row, which the engine builds from
	// where its ranks run.
	MeshGrid bool
}

// Auto is when the auto selection picks an algorithm.
type Auto uint8

const (
	// AutoShort: messages under coll_long_bytes; AutoLong: from it.
	AutoShort Auto = 1 << iota
	AutoLong
	AutoAlways = AutoShort | AutoLong
)

// Growth is how an algorithm's messages grow with P.
type Growth uint8

const (
	Linear    Growth = iota // about P
	Log                     // about P log2 P
	Quadratic               // about P^2
)

// Ops are the operations with selectable algorithms, in documentation
// order.
var Ops = []string{"barrier", "bcast", "scatter", "gather", "allgather", "alltoall", "reduce", "allreduce", "reduce_scatter", "scan"}

var (
	registry []*Algorithm
	index    = map[[2]string]*Algorithm{}
)

// Register adds algorithms to the registry (from init functions: the
// registry is complete before main runs). Registering an op and name twice
// is a programming error.
func Register(as ...*Algorithm) {
	for _, a := range as {
		k := [2]string{a.Op, a.Name}
		if index[k] != nil {
			panic("coll: " + a.Op + " algorithm " + a.Name + " registered twice")
		}
		if (a.Program == nil) != a.Native {
			panic("coll: " + a.Op + " algorithm " + a.Name + ": a program exactly when not native")
		}
		registry = append(registry, a)
		index[k] = a
	}
}

// Lookup is the algorithm registered as op's name, nil if none.
func Lookup(op, name string) *Algorithm { return index[[2]string{op, name}] }

// Algorithms lists the registered algorithms, by operation (in Ops order)
// then name.
func Algorithms() []*Algorithm {
	out := append([]*Algorithm(nil), registry...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Op != out[j].Op {
			return opOrder(out[i].Op) < opOrder(out[j].Op)
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// AutoPick is the algorithm the auto selection runs for op at a message
// size under coll_long_bytes (long false) or from it, nil if none.
func AutoPick(op string, long bool) *Algorithm {
	want := AutoShort
	if long {
		want = AutoLong
	}
	for _, a := range registry {
		if a.Op == op && a.Auto&want != 0 {
			return a
		}
	}
	return nil
}

// ThesisPick is the registered algorithm the thesis's library runs for
// op, nil if the profile has its own code for op.
func ThesisPick(op string) *Algorithm {
	for _, a := range registry {
		if a.Op == op && a.Thesis {
			return a
		}
	}
	return nil
}

// IsNative reports whether op's algorithm name is registered Native.
func IsNative(op, name string) bool {
	a := Lookup(op, name)
	return a != nil && a.Native
}

// Names lists the algorithms registered for op, by name.
func Names(op string) []string {
	var out []string
	for _, a := range Algorithms() {
		if a.Op == op {
			out = append(out, a.Name)
		}
	}
	return out
}

func opOrder(op string) int {
	for i, o := range Ops {
		if o == op {
			return i
		}
	}
	return len(Ops)
}
