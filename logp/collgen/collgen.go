package collgen

import (
	"fmt"

	"nocsim/coll"
	"slices"
	"strings"

	"nocsim/logp/goal"
)

// Options are the parts of a collective's schedule that are not its
// message pattern.
type Options struct {
	// Root is the root rank of bcast, scatter, gather and reduce.
	Root int
	// ElemBytes is the size of one element of a reduction (8: float64,
	// as `nocsim coll` reduces); the size must be a multiple of it.
	ElemBytes int
	// FlopCycles is the cost of combining one element (a calc of
	// count*FlopCycles wherever the MPI code reduces count elements).
	FlopCycles uint64
	// CopyCyclesPerWord, when not 0, adds a calc of ceil(n/4)*it wherever
	// the MPI code charges the processor for copying or packing n bytes
	// (the chip's copy_cycles_per_word); 0 leaves copies out, as
	// LogGOPSim's generated schedules have none.
	CopyCyclesPerWord uint64
	// Tag is the tag of every message (a collective's messages all carry
	// its own tag in the MPI layer).
	Tag int
	// OptimalL, OptimalO and OptimalG (cycles) are the LogP parameters the
	// optimal broadcast's tree is built for (mpi's optimal_L, optimal_o,
	// optimal_g).
	OptimalL, OptimalO, OptimalG float64
	// MeshW is the width of the mesh the mesh algorithms place ranks on
	// (rank i on tile i, row-major, as nocsim's World does); 0 is the
	// smallest square holding the ranks (logp.SquareWidth), as
	// logp.Params.MeshWidth takes without a machine.
	MeshW int
}

// DefaultOptions are root 0, float64 elements, one cycle per element
// combined, no copy costs, tag 0, and the optimal broadcast built for the
// mpi package's default optimal_L, optimal_o and optimal_g.
func DefaultOptions() Options {
	return Options{ElemBytes: 8, FlopCycles: 1, OptimalL: 160, OptimalO: 32, OptimalG: 180}
}

// MaxOps bounds the operations of one generated schedule (as Estimate
// counts them), so that a request far too large for memory is refused,
// naming the memory it would need (Memory), before anything is
// allocated. At the bound that is about 13 GB; a 2^24-rank binomial
// broadcast (Estimate 2^27, 2^25 in fact) took 6.5 GB on the tier.
const MaxOps = 1 << 28

// Memory is about the bytes a generated schedule of est operations
// (Estimate) on procs ranks takes while it is built and simulated on the
// LogGOPS tier: the 24-byte op records reserved for est, and per rank its
// clocks, queues and result, with the builder's and the simulator's
// per-op arrays for the operations a rank has in fact (fewer than est
// counts for most algorithms). Measured: 1.07 GB for a 2^22-rank
// binomial broadcast, 6.5 GB at 2^24.
func Memory(est int64, procs int) int64 { return 24*est + 300*int64(procs) }

// MaxProcs is the largest rank count.
const MaxProcs = 1 << 24

// Ops lists the operations, in documentation order: coll's, and exscan,
// scan's exclusive variant (the same algorithms, registered under scan).
var Ops = append(slices.Clone(coll.Ops), "exscan")

// Algorithms lists the algorithm names of op, sorted (nil for an unknown
// op).
func Algorithms(op string) []string {
	if op == "exscan" {
		op = "scan"
	}
	if !slices.Contains(Ops, op) {
		return nil
	}
	var names []string
	for _, a := range coll.Algorithms() {
		if a.Op == op && a.Program != nil {
			names = append(names, a.Name)
		}
	}
	slices.Sort(names)
	return names
}

// IsReduction reports whether op combines elements (its size must be a
// multiple of Options.ElemBytes).
func IsReduction(op string) bool {
	switch op {
	case "reduce", "allreduce", "reduce_scatter", "scan", "exscan":
		return true
	}
	return false
}

// Rooted reports whether op has a root.
func Rooted(op string) bool {
	switch op {
	case "bcast", "scatter", "gather", "reduce":
		return true
	}
	return false
}

// Generate builds the GOAL schedule of one call of collective op with
// algorithm alg on procs ranks: the messages the mpi package's algorithm
// of that name sends, in the same order, with the dependencies its waits
// create and calcs for its reductions (and copies, if asked). bytes has
// the meaning `nocsim coll --sizes` gives it: bcast, the buffer; scatter,
// gather and allgather, each rank's block; alltoall, the block to each
// rank; the reductions, each rank's vector (reduce_scatter: split into
// procs blocks of bytes/ElemBytes/procs elements, the last taking the
// remainder).
func Generate(op, alg string, procs int, bytes int64, opt Options) (*goal.Schedule, error) {
	names := Algorithms(op)
	if names == nil {
		return nil, fmt.Errorf("collgen: op %q: allowed %s", op, strings.Join(Ops, ", "))
	}
	if !slices.Contains(names, alg) {
		return nil, fmt.Errorf("collgen: %s algorithm %q: allowed %s", op, alg, strings.Join(names, ", "))
	}
	if procs < 1 || procs > MaxProcs {
		return nil, fmt.Errorf("collgen: procs %d: allowed 1..%d", procs, MaxProcs)
	}
	if bytes < 0 || bytes > 1<<40 {
		return nil, fmt.Errorf("collgen: size %d bytes: allowed 0..%d", bytes, int64(1)<<40)
	}
	if opt.ElemBytes == 0 {
		opt.ElemBytes = 8
	}
	if opt.ElemBytes < 0 || opt.ElemBytes > 1<<20 {
		return nil, fmt.Errorf("collgen: element size %d bytes: allowed 1..%d", opt.ElemBytes, 1<<20)
	}
	if IsReduction(op) && bytes%int64(opt.ElemBytes) != 0 {
		return nil, fmt.Errorf("collgen: size %d bytes: a reduction needs a multiple of the %d-byte element", bytes, opt.ElemBytes)
	}
	if Rooted(op) && (opt.Root < 0 || opt.Root >= procs) {
		return nil, fmt.Errorf("collgen: root %d: allowed 0..%d", opt.Root, procs-1)
	}
	if opt.MeshW < 0 || opt.MeshW > MaxProcs {
		return nil, fmt.Errorf("collgen: mesh width %d: allowed 0..%d (0: the smallest square)", opt.MeshW, MaxProcs)
	}
	if opt.Tag < 0 || opt.Tag > 1<<31-1 {
		return nil, fmt.Errorf("collgen: tag %d: allowed 0..%d", opt.Tag, 1<<31-1)
	}
	if opt.FlopCycles > 1<<40 || opt.CopyCyclesPerWord > 1<<40 {
		return nil, fmt.Errorf("collgen: flop cycles %d, copy cycles per word %d: allowed at most 2^40 each", opt.FlopCycles, opt.CopyCyclesPerWord)
	}
	est := Estimate(op, alg, procs)
	if est > MaxOps {
		return nil, fmt.Errorf("collgen: %s %s on %d ranks needs about %d operations, about %.1f GB: allowed at most %d (use fewer ranks)", op, alg, procs, est, float64(Memory(est, procs))/1e9, MaxOps)
	}
	g := &gen{b: goal.NewBuilder(procs, int(est)), opt: opt, P: procs, n: bytes, ex: op == "exscan"}
	regOp := op
	if g.ex {
		regOp = "scan" // exscan runs scan's algorithms (coll.Args.Ex)
	}
	rank := g.framed(coll.Lookup(regOp, alg))
	for me := range procs {
		g.begin(me)
		rank(me)
		g.flush()
	}
	return g.b.Schedule()
}

// Estimate is about how many operations (messages, both ends, and calcs)
// the schedule of op/alg on procs ranks has: the size hint of the build,
// and what MaxOps is checked against.
func Estimate(op, alg string, procs int) int64 {
	P := int64(procs)
	lg := int64(1)
	for 1<<lg < P {
		lg++
	}
	var growth coll.Growth
	if a := coll.Lookup(op, alg); a != nil {
		growth = a.Growth
	} else if a := coll.Lookup("scan", alg); op == "exscan" && a != nil {
		growth = a.Growth
	}
	switch growth {
	case coll.Quadratic:
		per := int64(3) // send, receive and a calc per step
		if op == "allreduce" {
			per = 5
		}
		return P*(P-1)*per + 4*P
	case coll.Log:
		return P*(lg+2)*4 + 4*P
	}
	return 8*P + 8
}

// gen writes one rank's program at a time. The dependencies follow the
// MPI code's waits: an operation requires the rank's cursor, the
// operations completed by its latest wait (or its latest calc); a wait
// makes what it completed the cursor. Calcs merge until the next message,
// so back-to-back charges are one calc, as a recording shows them.
type gen struct {
	b   *goal.Builder
	opt Options
	P   int
	n   int64 // the size argument, bytes

	me     int
	cursor []int32
	epoch  int32  // counts cursor changes
	calc   uint64 // cycles not yet written

	// answer is the request the next send answers (coll.Asks), -1 none;
	// asked are the answered requests the next wait completes.
	answer int32
	asked  []pend

	// spare and staged are the storage of the blocking calls' steps.
	spare  step
	staged []int64

	blocks []int      // every rank's block: n bytes each (coll.Args.Blocks)
	tree   *coll.Tree // the optimal broadcast's tree (coll.Args.Tree)
	grid   *coll.Grid // the ranks by mesh row (coll.Args.Grid)
	ex     bool       // an exclusive scan (coll.Args.Ex)
}

// pend is a posted operation not yet waited for, and the cursor epoch it
// was posted in: if it is the current one, it required the whole cursor.
type pend struct {
	op    int32
	epoch int32
}

// step is a set of posted operations a later wait completes.
type step []pend

func (g *gen) begin(me int) {
	g.me, g.cursor, g.epoch, g.calc = me, g.cursor[:0], 0, 0
	g.answer, g.asked = -1, g.asked[:0]
}

// flush writes the pending computation as one calc.
func (g *gen) flush() {
	if g.calc == 0 {
		return
	}
	i := g.b.AddCalc(g.me, g.calc)
	g.calc = 0
	g.requireCursor(i)
	g.cursor = append(g.cursor[:0], i)
	g.epoch++
}

func (g *gen) requireCursor(i int32) {
	for _, c := range g.cursor {
		g.b.Require(g.me, i, c)
	}
}

// copies charges copying n bytes, as the MPI code's charge(n) does.
func (g *gen) copies(n int64) {
	if n > 0 {
		g.calc += uint64((n+3)/4) * g.opt.CopyCyclesPerWord
	}
}

// flops charges combining count elements.
func (g *gen) flops(count int64) { g.calc += uint64(count) * g.opt.FlopCycles }

func (g *gen) post(s *step, op goal.Op) {
	g.flush()
	op.Tag = int32(g.opt.Tag)
	i := g.b.Add(g.me, op)
	g.requireCursor(i)
	*s = append(*s, pend{i, g.epoch})
}

// isend and irecv post n bytes to or from peer into step s.
func (g *gen) isend(s *step, peer int, n int64) {
	g.post(s, goal.Op{Kind: goal.Send, Peer: int32(peer), Bytes: uint64(n)})
}

func (g *gen) irecv(s *step, peer int, n int64) {
	g.post(s, goal.Op{Kind: goal.Recv, Peer: int32(peer), Bytes: uint64(n)})
}

// wait completes step s: its operations become the cursor (with the old
// cursor too unless one of them already required it).
func (g *gen) wait(s *step) {
	if len(*s) == 0 {
		return
	}
	g.flush()
	implied := false
	for _, p := range *s {
		implied = implied || p.epoch == g.epoch
	}
	if implied {
		g.cursor = g.cursor[:0]
	}
	for _, p := range *s {
		g.cursor = append(g.cursor, p.op)
	}
	g.epoch++
	*s = (*s)[:0]
}
