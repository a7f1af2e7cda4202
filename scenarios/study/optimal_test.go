package study

import (
	"fmt"
	"slices"
	"testing"

	"nocsim/coll"
	"nocsim/logp"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/mpi/trace"
	"nocsim/scenarios"
)

// The optimal bcast on the chip sends exactly the tree logp.OptimalBroadcast
// builds for the same L, o, g: every rank receives from its parent in that
// tree, then sends to its children in the order the tree informs them (its
// send slots' order), and nothing else; the data reaches every rank. Run
// for P not a power of two and a root other than 0 (ranks relative to the
// root), with parameter sets whose trees differ (the paper's, the
// defaults, a wide fan-out and a chain-like one).
func TestOptimalBcastIsKarpsTree(t *testing.T) {
	params := [][3]float64{{6, 2, 4}, {160, 32, 180}, {10, 1, 1}, {1, 0, 100}, {7.5, 1.25, 3.3}}
	notBinomial := false
	for _, q := range params {
		for _, c := range []struct{ P, root, size int }{{5, 0, 8}, {12, 7, 13}, {16, 3, 1024}} {
			t.Run(fmt.Sprintf("L=%g,o=%g,g=%g/P=%d", q[0], q[1], q[2], c.P), func(t *testing.T) {
				sc := scenarios.Defaults()
				sc.Network.Mesh = "4x4"
				sc.MPI.Procs = c.P
				sc.MPI.Bcast = "optimal"
				sc.MPI.OptimalL, sc.MPI.OptimalO, sc.MPI.OptimalG = q[0], q[1], q[2]
				w, err := sc.NewJob()
				if err != nil {
					t.Fatal(err)
				}
				defer w.M.Close()
				w.Record()
				data := make([]byte, c.size)
				for i := range data {
					data[i] = byte(7*i + 3)
				}
				got := make([][]byte, c.P)
				w.Launch(func(r *mpi.Rank) {
					b := r.MustAlloc(c.size)
					if r.Rank() == c.root {
						copy(b.Bytes, data)
					}
					if err := r.Bcast(b, c.size, datatype.Byte, c.root, r.CommWorld()); err != nil {
						t.Errorf("rank %d: %v", r.Rank(), err)
					}
					got[r.Rank()] = slices.Clone(b.Bytes[:c.size])
				})
				if err := w.Run(); err != nil {
					t.Fatal(err)
				}
				_, parent, _ := coll.OptimalBroadcast(c.P, q[0], q[1], q[2])
				abs := func(rel int) int32 { return int32((rel + c.root) % c.P) }
				tr := w.Trace()
				for rel := range c.P {
					me := abs(rel)
					var wantRecv, wantSend, gotRecv, gotSend []int32
					if rel != 0 {
						wantRecv = []int32{abs(parent[rel])}
						notBinomial = notBinomial || parent[rel] != rel&(rel-1)
					}
					for k := range c.P {
						if parent[k] == rel && k != 0 {
							wantSend = append(wantSend, abs(k))
						}
					}
					for _, op := range tr.Ranks[me] {
						switch op.Kind {
						case trace.Send:
							gotSend = append(gotSend, op.Peer)
						case trace.Recv:
							gotRecv = append(gotRecv, op.Peer)
						}
					}
					if !slices.Equal(gotRecv, wantRecv) || !slices.Equal(gotSend, wantSend) {
						t.Errorf("rank %d: received from %v, sent to %v; the tree has %v and %v", me, gotRecv, gotSend, wantRecv, wantSend)
					}
					if !slices.Equal(got[me], data) {
						t.Errorf("rank %d: the data did not arrive", me)
					}
				}
			})
		}
	}
	if !notBinomial {
		t.Error("every tree was the binomial one: the test cannot tell the algorithms apart")
	}
}

// coll --params gives the optimal bcast the fitted L (at the average hop
// distance), o = (o_s+o_r)/2 and g of the run's message size, the values
// the model builds its tree from: the run's senders and receivers are that
// tree's, and the two sizes (two segments) give different trees.
func TestCollParamsSetOptimalKeys(t *testing.T) {
	p := logp.Params{P: 16, AvgHops: 2.5, Segments: []logp.Segment{
		{MaxBytes: 64, L: 8, Lh: 0.8, Os: 1, Or: 1, Gap: 1}, // wide fan-out
		{L: 1, Os: 0.5, Or: 0, Gap: 100},                    // a rank sends about once
	}}
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	sw := &CollSweep{Op: "bcast", Algs: []string{"optimal"}, Procs: []int{16}, Sizes: []int{8, 1024}, Params: &p}
	var trees [][]int
	for _, n := range sw.Sizes {
		var tr *trace.Trace
		row, err := sw.runOne(&sc, "optimal", 16, n, func(x *trace.Trace) { tr = x }, nil)
		if err != nil || !row.Correct {
			t.Fatalf("%d bytes: %v %s", n, err, row.Error)
		}
		L, o, g := p.OptimalLogP(n)
		_, parent, _ := coll.OptimalBroadcast(16, L, o, g)
		trees = append(trees, parent)
		for r := 1; r < 16; r++ {
			var from []int32
			for _, op := range tr.Ranks[r] {
				if op.Kind == trace.Recv {
					from = append(from, op.Peer)
				}
			}
			if !slices.Equal(from, []int32{int32(parent[r])}) {
				t.Errorf("%d bytes: rank %d received from %v, the tree for L=%g o=%g g=%g has %d", n, r, from, L, o, g, parent[r])
			}
		}
	}
	if slices.Equal(trees[0], trees[1]) {
		t.Error("both segments give the same tree: the test cannot tell them apart")
	}
	if sc.MPI.OptimalL != scenarios.Defaults().MPI.OptimalL {
		t.Errorf("runOne changed the caller's scenario: optimal_L = %v", sc.MPI.OptimalL)
	}
}
