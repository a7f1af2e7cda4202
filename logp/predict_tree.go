package logp

import "slices"

// Exact critical paths of the binomial trees nocsim's MPI builds (mpi's
// rtKids and reduceBinomial): relative rank c's parent is c with its
// lowest set bit cleared, and a rank serves its children farthest (biggest
// subtree) first. At P not a power of two the tree is unbalanced, so its
// longest branch is not ceil(log2 P) rounds of equal cost: the evaluators
// below follow every branch with LogGOPS's rules and charge the slowest,
// exactly as the LogGOPS tier runs the same tree (logp/loggops).

// binParent is relative rank c's parent in the binomial tree.
func binParent(c int) int { return c & (c - 1) }

// binSubtree is the number of ranks under relative rank c (itself
// included) in the binomial tree of P ranks.
func binSubtree(c, P int) int {
	if c == 0 {
		return P
	}
	return min(c&-c, P-c)
}

// binKids lists relative rank r's children, farthest first, into buf.
func binKids(r, P int, buf []int) []int {
	buf = buf[:0]
	top := 1 << ceilLog2(P) // the root: every power of two below P
	if r != 0 {
		top = r & -r
	}
	for m := top / 2; m >= 1; m /= 2 {
		if r+m < P {
			buf = append(buf, r+m)
		}
	}
	return buf
}

// binomialDown adds the critical path of a broadcast-like pass down the
// tree: a rank passes what it has to its children at once, back to back,
// child c getting size(c) bytes. Terms: the messages of the slowest
// branch, and the sends its ranks made to earlier children first.
func (e *env) binomialDown(prefix string, size func(c int) int) {
	P := e.P
	at := make([]float64, P)   // when rank c has its data
	wait := make([]float64, P) // how long c's parent sent to earlier children first
	var kids []int
	for r := range P {
		t := at[r]
		for _, c := range binKids(r, P, kids) {
			cc := e.cost(size(c))
			wait[c] = t - at[r]
			at[c] = t + cc.one()
			t += cc.sendIv()
		}
	}
	leaf := 0
	for c := range P {
		if at[c] > at[leaf] {
			leaf = c
		}
	}
	e.walk(prefix, leaf, size, wait, "sends to earlier children, max(o_s+(m-1)O, g+(m-1)G) each")
}

// binomialUp adds the critical path of a gather-like pass up the tree: a
// rank sends its parent size(c) bytes once it has handled every child's
// message, and handles messages in the order they arrive (LogGOPS), each
// once its processor and receive interface are free.
func (e *env) binomialUp(prefix string, size func(c int) int) {
	P := e.P
	ready := make([]float64, P) // when rank c's part is complete and it sends
	wait := make([]float64, P)  // how long c's message queued behind its siblings'
	last := make([]int, P)      // the child each rank handled last (0: none)
	var kids []int
	for r := P - 1; r >= 0; r-- {
		kids = binKids(r, P, kids)
		arrive := func(c int) float64 { cc := e.cost(size(c)); return ready[c] + cc.os + cc.l }
		slices.SortStableFunc(kids, func(a, b int) int {
			switch ta, tb := arrive(a), arrive(b); {
			case ta < tb:
				return -1
			case ta > tb:
				return 1
			}
			return a - b
		})
		var cpu, nic float64
		for _, c := range kids {
			cc := e.cost(size(c))
			a := max(arrive(c), cpu, nic)
			wait[c] = a - arrive(c)
			cpu, nic = a+cc.or+cc.bytes(), a+cc.g+cc.gm
			last[r] = c
		}
		ready[r] = cpu
	}
	// The root's last message, its sender's last, ... down to a leaf.
	leaf := 0
	for last[leaf] != 0 {
		leaf = last[leaf]
	}
	e.walk(prefix, leaf, size, wait, "receives queued behind earlier children's")
}

// walk adds the terms of the tree path from leaf to the root: every
// message's, and the waits before them under one name.
func (e *env) walk(prefix string, leaf int, size func(c int) int, wait []float64, waitName string) {
	var w float64
	for c := leaf; c != 0; c = binParent(c) {
		e.msg(prefix, 1, e.cost(size(c)))
		w += wait[c]
	}
	if leaf == 0 { // P >= 2 always has a branch; keep the terms' names all the same
		e.msg(prefix, 0, e.cost(size(1)))
	}
	e.add(prefix+waitName, w)
}
