package study

import (
	"fmt"
	"iter"
	"slices"
	"testing"

	"nocsim/coll"
	"nocsim/logp/collgen"
	"nocsim/logp/goal"
	"nocsim/mpi"
	"nocsim/mpi/trace"
	"nocsim/scenarios"
)

// collgenSetup is the 4x4 machine the recordings run on, call_cycles a
// prime, and the generator's options that match it.
func collgenSetup() (scenarios.Scenario, collgen.Options) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	sc.Node.CallCycles = callCycles
	opt := collgen.DefaultOptions()
	opt.FlopCycles = uint64(sc.Node.FlopCycles)
	opt.CopyCyclesPerWord = uint64(sc.Node.CopyCyclesPerWord)
	opt.OptimalL, opt.OptimalO, opt.OptimalG = sc.MPI.OptimalL, sc.MPI.OptimalO, sc.MPI.OptimalG
	opt.MeshW = 4 // the mesh algorithms' ranks on the 4x4 mesh
	return sc, opt
}

// One description: the generated schedule of every registered collective
// algorithm is the message pattern the MPI layer executes. Each algorithm
// runs on the flit-level chip with recording on (the same program as
// `nocsim coll`), and per rank the recording and the generated schedule
// must have:
//   - the same messages in the same posting order (kind, peer, bytes);
//   - for every message, the same set of earlier messages it waits for,
//     through any chain of dependencies (the waits of the MPI code);
//   - one tag on every message (a collective call's own tag);
//   - the same computation but for call overheads: the recording also
//     counts the collective call's and each MPI_Waitall/Waitany's charge
//     (call_cycles each, set to a prime here so nothing else can make up a
//     multiple of it); the generator charges the chip's flop and copy
//     costs only.
//
// Timing decides one thing: the pull broadcast's root answers requests in
// the order they arrive (Waitany), so there its sends are compared as a
// multiset and its dependencies are not compared.
func TestGeneratedMatchesRecorded(t *testing.T) {
	procs := []int{1, 2, 3, 4, 5, 7, 8, 12, 16}
	byteSizes, redSizes := []int{0, 5, 64, 1000}, []int{0, 8, 40, 1000}
	if testing.Short() {
		procs, byteSizes, redSizes = []int{1, 3, 8, 12}, []int{5, 64}, []int{8, 40}
	}
	sc, opt := collgenSetup()
	checked := 0
	for a, op := range generatedOps() {
		sizes := byteSizes
		if collgen.IsReduction(op) {
			sizes = redSizes
		}
		for _, P := range procs {
			roots := []int{0}
			if collgen.Rooted(op) && P > 1 {
				roots = append(roots, P-1)
			}
			for _, n := range sizes {
				for _, root := range roots {
					matchRecorded(t, sc, opt, op, a.Name, P, n, root)
					checked++
				}
			}
		}
	}
	t.Logf("%d runs compared", checked)
}

// TestGeneratorKnowsEveryAlgorithm: the generator's names are the
// registry's, but for the Native ones (the Cray X1's remote-memory
// algorithms send no MPI messages: there is no GOAL schedule to generate).
func TestGeneratorKnowsEveryAlgorithm(t *testing.T) {
	for _, op := range coll.Ops {
		var want []string
		for _, a := range coll.Names(op) {
			if !coll.IsNative(op, a) {
				want = append(want, a)
			}
		}
		if got := collgen.Algorithms(op); !slices.Equal(got, want) {
			t.Errorf("%s: generator has %v, mpi registers %v", op, got, want)
		}
	}
}

// generatedOps are every algorithm on MPI messages with each operation
// it runs (scan's also run exscan); the Native ones (remote stores and
// getBlocks) send no MPI messages to record or generate.
func generatedOps() iter.Seq2[*coll.Algorithm, string] {
	return func(yield func(*coll.Algorithm, string) bool) {
		for _, a := range coll.Algorithms() {
			if a.Native {
				continue
			}
			if !yield(a, a.Op) || a.Op == "scan" && !yield(a, "exscan") {
				return
			}
		}
	}
}

// matchRecorded records op/alg on the chip and compares the recording with
// the generated schedule (compareSchedules).
func matchRecorded(t *testing.T, sc scenarios.Scenario, opt collgen.Options, op, alg string, P, n, root int) {
	t.Helper()
	name := fmt.Sprintf("%s/%s/P=%d/%dB/root=%d", op, alg, P, n, root)
	tr := recordColl(t, sc, op, alg, P, n, root)
	opt.Root = root
	s, err := collgen.Generate(op, alg, P, int64(n), opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	compareSchedules(t, name, tr, s, op == "bcast" && alg == "pull", root)
}

func recordColl(t *testing.T, sc0 scenarios.Scenario, op, alg string, P, n, root int) *trace.Trace {
	t.Helper()
	sc := sc0
	sc.MPI.Procs = P
	sc.MPI.SetAlgorithm(scenarios.RegistryOp(op), alg)
	w, err := sc.NewJob()
	if err != nil {
		t.Fatal(err)
	}
	defer w.M.Close()
	w.Record()
	check := newCollCheck(op, P, n, root)
	w.Launch(func(r *mpi.Rank) {
		if err := check.run(r); err != nil {
			check.fail(r.Rank(), err)
		}
	})
	if err := w.Run(); err != nil {
		t.Fatalf("%s %s P=%d %dB: %v", op, alg, P, n, err)
	}
	if check.err != nil {
		t.Fatalf("%s %s P=%d %dB: %v", op, alg, P, n, check.err)
	}
	return w.Trace()
}

const callCycles = 997

type msgOp struct {
	send        bool
	peer, bytes int64
}

// messages lists a rank's messages in order and, for each, the set of
// earlier messages (indices into that list) it requires transitively;
// calc is the total computation.
func messages(n int, kind func(i int) (k goal.Kind, peer, bytes int64, calc uint64), deps func(i int) []int32) (ms []msgOp, closure [][]bool, calc uint64) {
	idx := make([]int, n) // message index of op i, -1 for a calc
	reach := make([][]bool, n)
	for i := range n {
		k, peer, bytes, c := kind(i)
		calc += c
		idx[i] = -1
		if k != goal.Calc {
			idx[i] = len(ms)
			ms = append(ms, msgOp{k == goal.Send, peer, bytes})
		}
	}
	for i := range n {
		r := make([]bool, len(ms))
		for _, d := range deps(i) {
			if idx[d] >= 0 {
				r[idx[d]] = true
			}
			for j, v := range reach[d] {
				r[j] = r[j] || v
			}
		}
		reach[i] = r
		if idx[i] >= 0 {
			closure = append(closure, r)
		}
	}
	return ms, closure, calc
}

func compareSchedules(t *testing.T, name string, tr *trace.Trace, s *goal.Schedule, pull bool, root int) {
	t.Helper()
	if len(tr.Ranks) != s.NumRanks() {
		t.Fatalf("%s: %d recorded ranks, %d generated", name, len(tr.Ranks), s.NumRanks())
	}
	tags := map[int64]bool{}
	for r := range tr.Ranks {
		rec := tr.Ranks[r]
		rm, rc, rcalc := messages(len(rec), func(i int) (goal.Kind, int64, int64, uint64) {
			op := rec[i]
			switch op.Kind {
			case trace.Send:
				tags[op.Tag] = true
				return goal.Send, int64(op.Peer), op.Bytes, 0
			case trace.Recv:
				tags[op.Tag] = true
				return goal.Recv, int64(op.Peer), op.Bytes, 0
			}
			return goal.Calc, 0, 0, uint64(op.Cycles)
		}, func(i int) []int32 { return rec[i].Requires })
		gm, gc, gcalc := messages(s.Len(r), func(i int) (goal.Kind, int64, int64, uint64) {
			op := s.Op(r, i)
			return op.Kind, int64(op.Peer), int64(op.Bytes), op.Time
		}, func(i int) []int32 { return s.Requires(r, i) })
		if pull && r == root {
			key := func(m msgOp) string { return fmt.Sprint(m) }
			a, b := make([]string, len(rm)), make([]string, len(gm))
			for i := range rm {
				a[i] = key(rm[i])
			}
			for i := range gm {
				b[i] = key(gm[i])
			}
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Errorf("%s rank %d: recorded messages %v, generated %v", name, r, rm, gm)
			}
			continue
		}
		if !slices.Equal(rm, gm) {
			t.Errorf("%s rank %d: recorded messages %v, generated %v", name, r, rm, gm)
			continue
		}
		for i := range rc {
			if !slices.Equal(rc[i], gc[i]) {
				t.Errorf("%s rank %d message %d (%v): recorded waits for %v, generated %v", name, r, i, rm[i], rc[i], gc[i])
				break
			}
		}
		if d := int64(rcalc) - int64(gcalc); d < callCycles || d%callCycles != 0 {
			t.Errorf("%s rank %d: generated %d cycles of computation, recorded %d: the difference is not a positive multiple of the call overhead %d", name, r, gcalc, rcalc, callCycles)
		}
	}
	if len(tags) > 1 {
		t.Errorf("%s: recorded %d tags, expected one per collective call", name, len(tags))
	}
}

// collgen's default optimal-broadcast parameters are the mpi package's
// default keys, so `goal gen --alg optimal` writes the tree a default run
// builds.
func TestCollgenOptimalDefaultsAreMPIs(t *testing.T) {
	o, c := collgen.DefaultOptions(), mpi.DefaultConfig()
	if o.OptimalL != c.OptimalL || o.OptimalO != c.OptimalO || o.OptimalG != c.OptimalG {
		t.Errorf("collgen (L, o, g) = (%v, %v, %v), mpi's optimal_L/o/g = (%v, %v, %v)", o.OptimalL, o.OptimalO, o.OptimalG, c.OptimalL, c.OptimalO, c.OptimalG)
	}
}
