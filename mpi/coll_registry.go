package mpi

import (
	sched "nocsim/coll"
	"nocsim/mpi/datatype"
)

// The code behind each collective algorithm of coll's registry, which
// names and describes them all (listed in the docs, selected by the [mpi]
// keys): its schedule program, or for a Native one mpi's own code.

// algEntry is an algorithm and the code that runs it.
type algEntry struct {
	*sched.Algorithm
	// run is the op's kind of runner (barrierRun, bcastRun, ...), or the
	// *sched.Algorithm whose program runs: each operation's call looks its
	// algorithm up instead of switching on names.
	run any
	// profile marks the thesis profile's own code (thesis.go): run under
	// library = "thesis" only, neither listed nor selectable.
	profile bool
}

var algIndex = map[algKey]algEntry{} // by operation and name

type algKey struct{ op, name string }

// register adds algorithms; called from init functions.
func register(es ...algEntry) {
	for _, e := range es {
		algIndex[algKey{e.Op, e.Name}] = e
	}
}

// lookupAlg is the entry registered for op's algorithm name; its run is
// nil if there is none, which the caller's assertion of its op's runner
// type reports.
func lookupAlg(op, name string) algEntry { return algIndex[algKey{op, name}] }

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

// Every algorithm of coll's registry: a program runs through runProgram
// (or runReduction); a Native one runs its code here (crayRuns).
func init() {
	for _, a := range sched.Algorithms() {
		e := algEntry{Algorithm: a, run: a}
		if a.Native {
			if e.run = crayRuns[algKey{a.Op, a.Name}]; e.run == nil {
				panic("mpi: native " + a.Op + " algorithm " + a.Name + " has no code")
			}
		}
		register(e)
	}
}
