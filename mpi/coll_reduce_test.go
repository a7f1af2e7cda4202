package mpi

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// Reduction tests: every operation x algorithm x P, on real data checked
// against serial left folds computed here.

var redPs = []int{1, 2, 3, 5, 8, 13, 16, 64}

// redJob runs prog on P ranks (an 8x8 mesh for P = 64, else 4x4) and
// checks that nothing was left behind.
func redJob(t *testing.T, P int, cfg Config, prog func(r *Rank)) *World {
	t.Helper()
	w, h := 4, 4
	if P > 16 {
		w, h = 8, 8
	}
	cfg.Procs = P
	wd := job(t, w, h, cfg, nil)
	wd.Launch(prog)
	if err := wd.Run(); err != nil {
		t.Fatal(err)
	}
	redQuiet(t, wd)
	return wd
}

func redQuiet(t *testing.T, w *World) {
	t.Helper()
	for _, r := range w.Ranks {
		if len(r.posted) > 0 || len(r.unexpected) > 0 || len(r.sends) != 0 {
			t.Errorf("rank %d: %d posted, %d unexpected, %d sends left", r.rank, len(r.posted), len(r.unexpected), len(r.sends))
		}
	}
	if err := w.CheckQuiet(); err != nil {
		t.Error(err)
	}
}

// redHeap is the number of blocks allocated on the rank's tile, to catch
// scratch an algorithm forgot to free.
func redHeap(r *Rank) int {
	return reflect.ValueOf(r.node.Mem).Elem().FieldByName("segs").Len()
}

// redKind is an element type with an op and its serial definition.
type redKind struct {
	name string
	dt   *Datatype
	op   *Op
	gen  func(rng *rand.Rand) []int64
	fold func(a, b []int64) []int64 // a op b, a from the lower ranks
	put  func(b []byte, i int, e []int64)
	get  func(b []byte, i int) []int64
}

func i32(v int64) int64 { return int64(int32(v)) }

func put32(b []byte, at int, v int64) { le.PutUint32(b[at:], uint32(v)) }
func get32(b []byte, at int) int64    { return int64(int32(le.Uint32(b[at:]))) }

var redSum32 = &redKind{
	name: "sum32", dt: Int32, op: OpSum,
	gen:  func(rng *rand.Rand) []int64 { return []int64{int64(int32(rng.Uint32()))} },
	fold: func(a, b []int64) []int64 { return []int64{i32(a[0] + b[0])} },
	put:  func(b []byte, i int, e []int64) { put32(b, 4*i, e[0]) },
	get:  func(b []byte, i int) []int64 { return []int64{get32(b, 4*i)} },
}

// Single bytes: blocks of odd sizes start off word boundaries.
var redBytes = &redKind{
	name: "byte", dt: Byte, op: OpSum,
	gen:  func(rng *rand.Rand) []int64 { return []int64{int64(rng.IntN(256))} },
	fold: func(a, b []int64) []int64 { return []int64{int64(uint8(a[0] + b[0]))} },
	put:  func(b []byte, i int, e []int64) { b[i] = byte(e[0]) },
	get:  func(b []byte, i int) []int64 { return []int64{int64(b[i])} },
}

// 2x2 int32 matrix products: non-commutative.
var redMatType = func() *Datatype {
	t, err := TypeContiguous(4, Int32)
	if err != nil {
		panic(err)
	}
	t.Commit()
	return t
}()

func matMul(a, b []int64) []int64 {
	return []int64{
		i32(a[0]*b[0] + a[1]*b[2]), i32(a[0]*b[1] + a[1]*b[3]),
		i32(a[2]*b[0] + a[3]*b[2]), i32(a[2]*b[1] + a[3]*b[3]),
	}
}

var redMat = &redKind{
	name: "matrix", dt: redMatType,
	op: OpCreate(func(in, inout Buffer, count int, t *Datatype) {
		for i := range count {
			a, b := make([]int64, 4), make([]int64, 4)
			for j := range 4 {
				a[j], b[j] = int64(in.Int32(4*i+j)), int64(inout.Int32(4*i+j))
			}
			for j, v := range matMul(a, b) {
				inout.SetInt32(4*i+j, int32(v))
			}
		}
	}, false),
	gen: func(rng *rand.Rand) []int64 {
		return []int64{int64(rng.IntN(5) - 2), int64(rng.IntN(5) - 2), int64(rng.IntN(5) - 2), int64(rng.IntN(5) - 2)}
	},
	fold: matMul,
	put: func(b []byte, i int, e []int64) {
		for j := range 4 {
			put32(b, 16*i+4*j, e[j])
		}
	},
	get: func(b []byte, i int) []int64 {
		return []int64{get32(b, 16*i), get32(b, 16*i+4), get32(b, 16*i+8), get32(b, 16*i+12)}
	},
}

// Affine maps x -> a*x + b in a non-contiguous type (a at byte 0, b at
// byte 8, extent 12): composition is non-commutative and the user
// function must see the type's layout.
var redAffType = func() *Datatype {
	t, err := TypeVector(2, 1, 2, Int32)
	if err != nil {
		panic(err)
	}
	t.Commit()
	return t
}()

func affine(f, g []int64) []int64 { return []int64{i32(f[0] * g[0]), i32(g[0]*f[1] + g[1])} }

var redAff = &redKind{
	name: "affine", dt: redAffType,
	op: OpCreate(func(in, inout Buffer, count int, t *Datatype) {
		for i := range count {
			v := affine([]int64{int64(in.Int32(3 * i)), int64(in.Int32(3*i + 2))},
				[]int64{int64(inout.Int32(3 * i)), int64(inout.Int32(3*i + 2))})
			inout.SetInt32(3*i, int32(v[0]))
			inout.SetInt32(3*i+2, int32(v[1]))
		}
	}, false),
	gen:  func(rng *rand.Rand) []int64 { return []int64{int64(rng.IntN(7) - 3), int64(rng.IntN(201) - 100)} },
	fold: affine,
	put:  func(b []byte, i int, e []int64) { put32(b, 12*i, e[0]); put32(b, 12*i+8, e[1]) },
	get:  func(b []byte, i int) []int64 { return []int64{get32(b, 12*i), get32(b, 12*i+8)} },
}

// A commutative user op (int32 sum), for the paths that need commutativity.
var redUsum = &redKind{
	name: "usum", dt: Int32,
	op: OpCreate(func(in, inout Buffer, count int, t *Datatype) {
		for i := range count {
			inout.SetInt32(i, in.Int32(i)+inout.Int32(i))
		}
	}, true),
	gen: redSum32.gen, fold: redSum32.fold, put: redSum32.put, get: redSum32.get,
}

// redCall is one collective call of a test job.
type redCall struct {
	kind    *redKind
	fn      string // Reduce, Allreduce, ReduceScatter, ReduceScatterBlock, Scan, Exscan
	root    int
	inPlace bool
	counts  []int // elements per rank (Reduce_scatter) or one count
	in      [][][]int64
	init    [][]byte // rbuf before the call, per rank
	got     [][]byte // rbuf after the call, per rank
}

func (c *redCall) String() string {
	return fmt.Sprintf("%s %s root=%d inplace=%v counts=%v", c.fn, c.kind.name, c.root, c.inPlace, redShort(c.counts))
}

func redShort(v []int) string {
	if len(v) > 6 {
		return fmt.Sprintf("%v...(%d)", v[:6], len(v))
	}
	return fmt.Sprint(v)
}

func (c *redCall) total() int {
	if c.fn == "ReduceScatter" || c.fn == "ReduceScatterBlock" {
		s := 0
		for _, n := range c.counts {
			s += n
		}
		return s
	}
	return c.counts[0]
}

// outCount is how many result elements rank i gets.
func (c *redCall) outCount(i int) int {
	if c.fn == "ReduceScatter" || c.fn == "ReduceScatterBlock" {
		return c.counts[i]
	}
	return c.counts[0]
}

// redRun runs calls in one job of P ranks, then checks every result
// against the serial fold.
func redRun(t *testing.T, P int, cfg Config, calls []*redCall) *World {
	t.Helper()
	for ci, c := range calls {
		n := c.total()
		c.in = make([][][]int64, P)
		c.init = make([][]byte, P)
		c.got = make([][]byte, P)
		for i := range P {
			rng := rand.New(rand.NewPCG(uint64(ci), uint64(i)))
			c.in[i] = make([][]int64, n)
			for k := range n {
				c.in[i][k] = c.kind.gen(rng)
			}
			rlen := c.kind.dt.Span(c.outCount(i))
			if c.inPlace {
				rlen = c.kind.dt.Span(n)
			}
			b := make([]byte, max(rlen, 1))
			for k := range b {
				b[k] = byte(0xA5 ^ k ^ i)
			}
			if c.inPlace {
				for k := range n {
					c.kind.put(b, k, c.in[i][k])
				}
			}
			c.init[i] = b
		}
	}
	w := redJob(t, P, cfg, func(r *Rank) {
		me, comm := r.Rank(), r.CommWorld()
		for _, c := range calls {
			n := c.total()
			sbuf := r.MustAlloc(max(c.kind.dt.Span(n), 1))
			for k := range n {
				c.kind.put(sbuf.Bytes, k, c.in[me][k])
			}
			rbuf := r.MustAlloc(len(c.init[me]))
			copy(rbuf.Bytes, c.init[me])
			sarg := sbuf
			if c.inPlace && (c.fn != "Reduce" || me == c.root) {
				sarg = InPlace
			}
			before := redHeap(r)
			var err error
			switch c.fn {
			case "Reduce":
				err = r.Reduce(sarg, rbuf, n, c.kind.dt, c.kind.op, c.root, comm)
			case "Allreduce":
				err = r.Allreduce(sarg, rbuf, n, c.kind.dt, c.kind.op, comm)
			case "ReduceScatter":
				err = r.ReduceScatter(sarg, rbuf, c.counts, c.kind.dt, c.kind.op, comm)
			case "ReduceScatterBlock":
				err = r.ReduceScatterBlock(sarg, rbuf, c.counts[0], c.kind.dt, c.kind.op, comm)
			case "Scan":
				err = r.Scan(sarg, rbuf, n, c.kind.dt, c.kind.op, comm)
			case "Exscan":
				err = r.Exscan(sarg, rbuf, n, c.kind.dt, c.kind.op, comm)
			}
			if err != nil {
				t.Errorf("%v rank %d: %v", c, me, err)
			}
			if after := redHeap(r); after != before {
				t.Errorf("%v rank %d: %d heap blocks before, %d after", c, me, before, after)
			}
			c.got[me] = slices.Clone(rbuf.Bytes)
			r.Free(rbuf)
			r.Free(sbuf)
		}
	})
	for _, c := range calls {
		redCheck(t, P, c)
	}
	return w
}

// redFoldRanks folds element k over ranks lo..hi-1 in rank order.
func redFoldRanks(c *redCall, k, lo, hi int) []int64 {
	acc := c.in[lo][k]
	for i := lo + 1; i < hi; i++ {
		acc = c.kind.fold(acc, c.in[i][k])
	}
	return acc
}

func redCheck(t *testing.T, P int, c *redCall) {
	t.Helper()
	offs := []int{0}
	if c.fn == "ReduceScatter" || c.fn == "ReduceScatterBlock" {
		for _, n := range c.counts {
			offs = append(offs, offs[len(offs)-1]+n)
		}
	}
	for i := range P {
		want := slices.Clone(c.init[i])
		strict := true // bytes outside the result must be untouched
		var first, lo, hi int
		switch c.fn {
		case "Reduce":
			if i != c.root {
				hi = -1
			} else {
				hi = P
			}
		case "Allreduce":
			hi = P
		case "ReduceScatter", "ReduceScatterBlock":
			first, hi = offs[i], P
			strict = !c.inPlace
		case "Scan":
			hi = i + 1
		case "Exscan":
			hi = i
		}
		if hi > lo {
			for k := range c.outCount(i) {
				c.kind.put(want, k, redFoldRanks(c, first+k, lo, hi))
			}
		}
		got := c.got[i]
		if strict {
			if !bytes.Equal(got, want) {
				t.Errorf("%v: rank %d: %s", c, i, redDiff(c, got, want))
				return
			}
			continue
		}
		for k := range c.outCount(i) {
			if g, w := c.kind.get(got, k), c.kind.get(want, k); !slices.Equal(g, w) {
				t.Errorf("%v: rank %d element %d: got %v want %v", c, i, k, g, w)
				return
			}
		}
	}
}

func redDiff(c *redCall, got, want []byte) string {
	for k := range got {
		if got[k] != want[k] {
			return fmt.Sprintf("first difference at byte %d of %d: got %#x want %#x", k, len(got), got[k], want[k])
		}
	}
	return "lengths differ"
}

// redCalls builds the calls of one job: every kind at several counts,
// roots and in-place settings. long adds counts above coll_long_bytes.
func redCalls(fn string, P int, long bool) []*redCall {
	var calls []*redCall
	roots := []int{0}
	if fn == "Reduce" {
		roots = slices.Compact([]int{0, P / 2, P - 1})
	}
	counts := []int{0, 1, 37}
	kinds := []*redKind{redSum32, redBytes, redMat, redAff, redUsum}
	add := func(k *redKind, n int, root int, inPlace bool) {
		c := &redCall{kind: k, fn: fn, root: root, inPlace: inPlace}
		switch fn {
		case "ReduceScatterBlock":
			c.counts = slices.Repeat([]int{n}, P)
		case "ReduceScatter":
			// Uneven blocks, some empty.
			c.counts = make([]int, P)
			for i := range c.counts {
				if n > 0 {
					c.counts[i] = max(0, n+(i*7)%3-1)
				}
			}
		default:
			c.counts = []int{n}
		}
		calls = append(calls, c)
	}
	if P == 64 {
		// Big jobs simulate slowly: a few calls only.
		add(redSum32, 0, 0, false)
		add(redSum32, 5, roots[len(roots)/2], false)
		add(redMat, 3, roots[len(roots)-1], true)
		if long {
			add(redSum32, 1100/P+1, 0, false)
		}
		return calls
	}
	for _, k := range kinds {
		for _, n := range counts {
			for _, root := range roots {
				for _, ip := range []bool{false, true} {
					if ip && (fn == "Reduce" && root != P-1 || k == redBytes && n > 1) {
						continue
					}
					add(k, n, root, ip)
				}
			}
		}
	}
	if long {
		per := 1
		if fn == "ReduceScatter" || fn == "ReduceScatterBlock" {
			per = P
		}
		root := roots[len(roots)-1]
		add(redSum32, 1100/per+1, root, false)     // 4400 bytes
		add(redBytes, 4099/per+1, root, false)     // odd sizes
		add(redMat, 300/per+1, root, P != 64)      // 4800 bytes, non-commutative
		add(redUsum, 1100/per+1, roots[0], P < 64) // commutative user op
	}
	return calls
}

// redFamily runs fns under every algorithm of op (and auto) for every P.
func redFamily(t *testing.T, op string, fns ...string) {
	t.Parallel()
	for _, alg := range append(AlgorithmNames(op), "auto", thesisLib) {
		for _, P := range redPs {
			t.Run(fmt.Sprintf("%s/P=%d", alg, P), func(t *testing.T) {
				t.Parallel()
				cfg := libCfg(DefaultConfig(), op, alg)
				var calls []*redCall
				for _, fn := range fns {
					// At P = 64 only auto's first operation goes long.
					long := P != 64 || alg == "auto" && fn == fns[0]
					calls = append(calls, redCalls(fn, P, long)...)
				}
				redRun(t, P, cfg, calls)
			})
		}
	}
}

func TestReduceRooted(t *testing.T)    { redFamily(t, "reduce", "Reduce") }
func TestReduceAllreduce(t *testing.T) { redFamily(t, "allreduce", "Allreduce") }
func TestReduceReduceScatter(t *testing.T) {
	redFamily(t, "reduce_scatter", "ReduceScatter", "ReduceScatterBlock")
}
func TestReduceScan(t *testing.T) { redFamily(t, "scan", "Scan", "Exscan") }

func TestReduceRegistered(t *testing.T) {
	want := map[string][]string{
		"reduce":         {"binomial", "flat", "mesh", "reduce_scatter_gather", "ring"},
		"allreduce":      {"mesh", "recursive_doubling", "reduce_bcast", "reduce_scatter_allgather", "ring"},
		"reduce_scatter": {"recursive_halving", "reduce_scatterv", "ring"},
		"scan":           {"chain", "recursive_doubling"},
	}
	for op, names := range want {
		if got := AlgorithmNames(op); !slices.Equal(got, names) {
			t.Errorf("%s: registered %v, want %v", op, got, names)
		}
	}
	for _, a := range Algorithms() {
		if want[a.Op] != nil && (a.Source == "" || a.Messages == "") {
			t.Errorf("%s/%s: missing source or message count", a.Op, a.Name)
		}
	}
}

// redMessages counts the messages one call sends, over all ranks, and
// checks that the result is right.
func redMessages(t *testing.T, P int, cfg Config, fn string, k *redKind, count int) int {
	t.Helper()
	c := &redCall{kind: k, fn: fn, root: P - 1, counts: []int{count}}
	if fn == "ReduceScatter" {
		c.counts = make([]int, P)
		for i := range c.counts {
			c.counts[i] = count / P
		}
	}
	w := redRun(t, P, cfg, []*redCall{c})
	n := 0
	for _, r := range w.Ranks {
		n += r.Received()
	}
	return n
}

// TestReduceMessageCounts checks the registered message counts at P = 8
// and 13 (which folds), and that auto and the non-commutative fallbacks
// pick what they should.
func TestReduceMessageCounts(t *testing.T) {
	t.Parallel()
	type tc struct {
		op, alg, fn string
		k           *redKind
		count       int
		want        func(P int) int
	}
	log2 := func(P int) int { return len(fmt.Sprintf("%b", P)) - 1 }
	pof2 := func(P int) int { return 1 << log2(P) }
	rdAll := func(P int) int { p := pof2(P); return p*log2(P) + 2*(P-p) }
	binom := func(P int) int { return P - 1 }
	ring := func(P int) int { return 2 * P * (P - 1) }
	cases := []tc{
		{"reduce", "binomial", "Reduce", redSum32, 10, binom},
		{"reduce", "binomial", "Reduce", redMat, 10, func(P int) int { return P }}, // non-commutative: via rank 0
		{"reduce", "flat", "Reduce", redMat, 10, binom},
		{"reduce", "mesh", "Reduce", redSum32, 10, binom},
		{"reduce", "mesh", "Reduce", redMat, 10, func(P int) int { return P }}, // non-commutative: binomial's
		{"reduce", "auto", "Reduce", redSum32, 10, binom},
		{"reduce", "ring", "Reduce", redSum32, 100, func(P int) int { return P*(P-1) + P*(P-1)/2 }},
		{"reduce", "ring", "Reduce", redMat, 100, func(P int) int { return P }}, // non-commutative: binomial via rank 0
		{"reduce", "auto", "Reduce", redMat, 2000, func(P int) int { return P }},
		{"allreduce", "reduce_bcast", "Allreduce", redSum32, 10, func(P int) int { return 2 * (P - 1) }},
		{"allreduce", "recursive_doubling", "Allreduce", redMat, 10, rdAll},
		// the dimensional allreduce on the 4x4 mesh (coll_mesh_test.go)
		{"allreduce", "mesh", "Allreduce", redSum32, 10, func(P int) int { return meshDimsMessages(4, seqTiles(P), 40, false) }},
		{"allreduce", "mesh", "Allreduce", redMat, 10, rdAll}, // non-commutative: recursive doubling
		{"allreduce", "ring", "Allreduce", redSum32, 100, ring},
		{"allreduce", "ring", "Allreduce", redMat, 100, rdAll},
		{"allreduce", "reduce_scatter_allgather", "Allreduce", redSum32, 100, func(P int) int { p := pof2(P); return 2*p*log2(P) + 2*(P-p) }},
		{"allreduce", "reduce_scatter_allgather", "Allreduce", redMat, 100, rdAll}, // non-commutative: recursive doubling
		{"allreduce", "auto", "Allreduce", redSum32, 10, rdAll},
		{"allreduce", "auto", "Allreduce", redSum32, 2000, ring},
		{"reduce_scatter", "reduce_scatterv", "ReduceScatter", redSum32, 104, func(P int) int { return 2 * (P - 1) }},
		{"reduce_scatter", "ring", "ReduceScatter", redSum32, 104, func(P int) int { return P * (P - 1) }},
		{"reduce_scatter", "ring", "ReduceScatter", redMat, 104, func(P int) int { return 2 * (P - 1) }},
		{"reduce_scatter", "recursive_halving", "ReduceScatter", redSum32, 104, rdAll},
		{"reduce_scatter", "auto", "ReduceScatter", redSum32, 104, rdAll},
		{"reduce_scatter", "auto", "ReduceScatter", redSum32, 1300, func(P int) int { return P * (P - 1) }},
		{"scan", "chain", "Scan", redMat, 10, binom},
		{"scan", "recursive_doubling", "Scan", redMat, 10, func(P int) int {
			n := 0
			for d := 1; d < P; d <<= 1 {
				n += P - d
			}
			return n
		}},
	}
	for _, c := range cases {
		for _, P := range []int{8, 13} {
			cfg := DefaultConfig()
			cfg.SetAlgorithm(c.op, c.alg)
			got := redMessages(t, P, cfg, c.fn, c.k, c.count)
			if want := c.want(P); got != want {
				t.Errorf("%s %s %s count %d P=%d: %d messages, want %d", c.op, c.alg, c.k.name, c.count, P, got, want)
			}
		}
	}
	// Rabenseifner, root P-1: fold, halving, gather to the root's new
	// rank (plus a hand-over when the root was folded away).
	for _, P := range []int{8, 13} {
		cfg := DefaultConfig()
		cfg.Reduce = "reduce_scatter_gather"
		p := pof2(P)
		want := (P - p) + p*log2(P) + p - 1
		if got := redMessages(t, P, cfg, "Reduce", redSum32, 100); got != want {
			t.Errorf("reduce_scatter_gather P=%d: %d messages, want %d", P, got, want)
		}
	}
}

// TestReducePredefinedOps runs every predefined op through Allreduce
// (short and long, so both default algorithms) against Go arithmetic.
func TestReducePredefinedOps(t *testing.T) {
	t.Parallel()
	type typ struct {
		dt   *Datatype
		gen  func(rng *rand.Rand) float64 // values, kept exact in every type
		enc  func(b []byte, i int, v float64)
		dec  func(b []byte, i int) float64
		fold map[*Op]func(a, b float64) float64
	}
	ints := func(wrap func(int64) int64) map[*Op]func(a, b float64) float64 {
		f := func(g func(a, b int64) int64) func(a, b float64) float64 {
			return func(a, b float64) float64 { return float64(wrap(g(int64(a), int64(b)))) }
		}
		b2 := func(v bool) int64 {
			if v {
				return 1
			}
			return 0
		}
		return map[*Op]func(a, b float64) float64{
			OpSum:  f(func(a, b int64) int64 { return a + b }),
			OpProd: f(func(a, b int64) int64 { return a * b }),
			OpMax:  f(func(a, b int64) int64 { return max(a, b) }),
			OpMin:  f(func(a, b int64) int64 { return min(a, b) }),
			OpLand: f(func(a, b int64) int64 { return b2(a != 0 && b != 0) }),
			OpLor:  f(func(a, b int64) int64 { return b2(a != 0 || b != 0) }),
			OpLxor: f(func(a, b int64) int64 { return b2((a != 0) != (b != 0)) }),
			OpBand: f(func(a, b int64) int64 { return a & b }),
			OpBor:  f(func(a, b int64) int64 { return a | b }),
			OpBxor: f(func(a, b int64) int64 { return a ^ b }),
		}
	}
	smallInt := func(rng *rand.Rand) float64 {
		if rng.IntN(4) == 0 {
			return 0 // so logical ops see both truth values
		}
		return float64(rng.IntN(41) - 20)
	}
	types := []typ{
		{Int32, smallInt, func(b []byte, i int, v float64) { put32(b, 4*i, int64(v)) }, func(b []byte, i int) float64 { return float64(get32(b, 4*i)) },
			ints(func(v int64) int64 { return int64(int32(v)) })},
		{Int64, func(rng *rand.Rand) float64 { return float64(rng.IntN(7) - 3) }, func(b []byte, i int, v float64) { le.PutUint64(b[8*i:], uint64(int64(v))) }, func(b []byte, i int) float64 { return float64(int64(le.Uint64(b[8*i:]))) },
			ints(func(v int64) int64 { return v })},
		{Uint32, func(rng *rand.Rand) float64 { return float64(rng.IntN(3) * rng.IntN(20)) }, func(b []byte, i int, v float64) { le.PutUint32(b[4*i:], uint32(v)) },
			func(b []byte, i int) float64 { return float64(le.Uint32(b[4*i:])) }, ints(func(v int64) int64 { return int64(uint32(v)) })},
		{Float64, func(rng *rand.Rand) float64 { return []float64{0.5, 1, 2, -1, -0.25, 4}[rng.IntN(6)] },
			func(b []byte, i int, v float64) { le.PutUint64(b[8*i:], math.Float64bits(v)) },
			func(b []byte, i int) float64 { return math.Float64frombits(le.Uint64(b[8*i:])) },
			map[*Op]func(a, b float64) float64{
				OpSum: func(a, b float64) float64 { return a + b }, OpProd: func(a, b float64) float64 { return a * b },
				OpMax: math.Max, OpMin: math.Min,
			}},
	}
	ops := []*Op{OpSum, OpProd, OpMax, OpMin, OpLand, OpLor, OpLxor, OpBand, OpBor, OpBxor}
	for _, P := range []int{5, 16} {
		for _, count := range []int{7, 700} {
			t.Run(fmt.Sprintf("P=%d/count=%d", P, count), func(t *testing.T) {
				t.Parallel()
				type call struct {
					ty  typ
					op  *Op
					in  [][]float64
					got [][]byte
				}
				var calls []*call
				for ti, ty := range types {
					for oi, op := range ops {
						if ty.fold[op] == nil {
							continue
						}
						c := &call{ty: ty, op: op, in: make([][]float64, P), got: make([][]byte, P)}
						for i := range P {
							rng := rand.New(rand.NewPCG(uint64(ti*100+oi), uint64(i)))
							for range count {
								c.in[i] = append(c.in[i], ty.gen(rng))
							}
						}
						calls = append(calls, c)
					}
				}
				// MAXLOC/MINLOC on the pair types, with ties.
				type lcall struct {
					dt    *Datatype
					op    *Op
					val   [][]float64
					idx   [][]int32
					got   [][]byte
					vsize int
				}
				var lcalls []*lcall
				for _, dt := range []*Datatype{Float64Int32, Float32Int32, TwoInt32} {
					for _, op := range []*Op{OpMaxloc, OpMinloc} {
						c := &lcall{dt: dt, op: op, val: make([][]float64, P), idx: make([][]int32, P), got: make([][]byte, P), vsize: dt.Size() - 4}
						for i := range P {
							rng := rand.New(rand.NewPCG(uint64(len(lcalls)), uint64(i)))
							for range count {
								c.val[i] = append(c.val[i], float64(rng.IntN(4)-1)) // many ties
								c.idx[i] = append(c.idx[i], int32(rng.IntN(3*P)))
							}
						}
						lcalls = append(lcalls, c)
					}
				}
				putPair := func(c *lcall, b []byte, k int, v float64, ix int32) {
					at := k * c.dt.Size()
					switch c.vsize {
					case 8:
						le.PutUint64(b[at:], math.Float64bits(v))
					default:
						if c.dt == Float32Int32 {
							le.PutUint32(b[at:], math.Float32bits(float32(v)))
						} else {
							le.PutUint32(b[at:], uint32(int32(v)))
						}
					}
					le.PutUint32(b[at+c.vsize:], uint32(ix))
				}
				redJob(t, P, DefaultConfig(), func(r *Rank) {
					me, comm := r.Rank(), r.CommWorld()
					for _, c := range calls {
						n := count * c.ty.dt.Size()
						s, b := r.MustAlloc(n), r.MustAlloc(n)
						for k, v := range c.in[me] {
							c.ty.enc(s.Bytes, k, v)
						}
						if err := r.Allreduce(s, b, count, c.ty.dt, c.op, comm); err != nil {
							t.Error(err)
						}
						c.got[me] = slices.Clone(b.Bytes)
						r.Free(s)
						r.Free(b)
					}
					for _, c := range lcalls {
						n := count * c.dt.Size()
						b := r.MustAlloc(n)
						for k := range count {
							putPair(c, b.Bytes, k, c.val[me][k], c.idx[me][k])
						}
						if err := r.Allreduce(InPlace, b, count, c.dt, c.op, comm); err != nil {
							t.Error(err)
						}
						c.got[me] = slices.Clone(b.Bytes)
						r.Free(b)
					}
				})
				for _, c := range calls {
					for k := range count {
						want := c.in[0][k]
						for i := 1; i < P; i++ {
							want = c.ty.fold[c.op](want, c.in[i][k])
						}
						for i := range P {
							if got := c.ty.dec(c.got[i], k); got != want {
								t.Fatalf("%s %s element %d rank %d: got %v want %v", c.op.Name(), c.ty.dt.Name(), k, i, got, want)
							}
						}
					}
				}
				for _, c := range lcalls {
					want := make([]byte, count*c.dt.Size())
					for k := range count {
						v, ix := c.val[0][k], c.idx[0][k]
						for i := 1; i < P; i++ {
							w, jx := c.val[i][k], c.idx[i][k]
							better := w > v
							if c.op == OpMinloc {
								better = w < v
							}
							if better || w == v && jx < ix {
								v, ix = w, jx
							}
						}
						putPair(c, want, k, v, ix)
					}
					for i := range P {
						if !bytes.Equal(c.got[i], want) {
							t.Fatalf("%s on %d-byte pairs, rank %d: wrong result", c.op.Name(), c.dt.Size(), i)
						}
					}
				}
			})
		}
	}
}

// TestReduceErrors checks argument errors (raised identically on every
// rank, so the job still ends).
func TestReduceErrors(t *testing.T) {
	t.Parallel()
	redJob(t, 4, DefaultConfig(), func(r *Rank) {
		c := r.CommWorld()
		b := r.MustAlloc(64)
		wantClass := func(err error, class Class, what string) {
			t.Helper()
			e, ok := err.(*Error)
			if !ok || e.Class != class {
				t.Errorf("%s: got %v, want %v", what, err, class)
			}
		}
		wantClass(r.Reduce(b, b, 1, Int32, OpSum, 4, c), ErrRank, "root out of range")
		wantClass(r.Reduce(b, b, 1, Int32, nil, 0, c), ErrArg, "nil op")
		wantClass(r.Allreduce(b, b, 1, redMatType, OpSum, c), ErrType, "SUM on a derived type")
		wantClass(r.Allreduce(b, b, 1, Int32, OpMaxloc, c), ErrType, "MAXLOC on Int32")
		wantClass(r.Allreduce(b, b, 100, Int32, OpSum, c), ErrBuffer, "buffer too small")
		wantClass(r.Scan(b, b, -1, Int32, OpSum, c), ErrCount, "negative count")
		wantClass(r.ReduceScatter(b, b, []int{1, 1}, Int32, OpSum, c), ErrArg, "wrong number of counts")
		wantClass(r.ReduceScatterBlock(b, b, -1, Int32, OpSum, c), ErrCount, "negative block")
		if r.Rank() != 0 {
			wantClass(r.Reduce(InPlace, b, 1, Int32, OpSum, 0, c), ErrArg, "in place at a non-root")
		} else {
			small, _ := b.Slice(0, 2)
			wantClass(r.Reduce(InPlace, small, 1, Int32, OpSum, 0, c), ErrBuffer, "root buffer too small")
		}
	})
}

// redTime is the cycles from the earliest start to the latest end of one
// call made right after a barrier.
func redTime(t *testing.T, P int, cfg Config, count int, call func(r *Rank, s, b Buffer, c *Comm) error) int64 {
	t.Helper()
	var start, end []int64
	redJob(t, P, cfg, func(r *Rank) {
		c := r.CommWorld()
		s, b := r.MustAlloc(8*count), r.MustAlloc(8*count)
		for k := range count {
			s.SetFloat64(k, float64(r.Rank()+k))
		}
		if err := r.Barrier(c); err != nil {
			t.Error(err)
		}
		t0 := int64(r.Now())
		if err := call(r, s, b, c); err != nil {
			t.Error(err)
		}
		t1 := int64(r.Now())
		for k := range count {
			want := float64(P*(P-1)/2 + P*k)
			if r.Rank() == P-1 {
				if got := b.Float64(k); got != want {
					t.Errorf("rank %d element %d: %v want %v", r.Rank(), k, got, want)
					break
				}
			}
		}
		start, end = append(start, t0), append(end, t1)
	})
	return slices.Max(end) - slices.Min(start)
}

// TestReduceTiming checks on the simulator the direction the sources give:
// short allreduces favour recursive doubling over reduce+bcast (half the
// rounds), long ones the ring (each rank moves 2n instead of n log P),
// and the binomial reduce beats the root receiving P-1 messages.
func TestReduceTiming(t *testing.T) {
	t.Parallel()
	allreduce := func(r *Rank, s, b Buffer, c *Comm) error {
		return r.Allreduce(s, b, b.Len()/8, Float64, OpSum, c)
	}
	reduce := func(r *Rank, s, b Buffer, c *Comm) error {
		return r.Reduce(s, b, b.Len()/8, Float64, OpSum, c.Size()-1, c)
	}
	with := func(op, alg string) Config {
		cfg := DefaultConfig()
		cfg.SetAlgorithm(op, alg)
		return cfg
	}
	cmp := func(what string, P, count int, fast, slow string, op string, call func(*Rank, Buffer, Buffer, *Comm) error, must bool) {
		tf := redTime(t, P, with(op, fast), count, call)
		ts := redTime(t, P, with(op, slow), count, call)
		t.Logf("%s, P=%d, %d bytes: %s %d cycles, %s %d cycles", what, P, 8*count, fast, tf, slow, ts)
		if tf >= ts {
			if must {
				t.Errorf("%s: %s (%d cycles) should beat %s (%d cycles)", what, fast, tf, slow, ts)
			} else {
				t.Logf("%s: %s does not beat %s here", what, fast, slow)
			}
		}
	}
	cmp("allreduce", 64, 1, "recursive_doubling", "reduce_bcast", "allreduce", allreduce, true)
	cmp("allreduce", 16, 8192, "ring", "reduce_bcast", "allreduce", allreduce, true)
	cmp("reduce", 64, 1, "binomial", "flat", "reduce", reduce, true)
}

// TestReduceProtocols runs every operation under each point-to-point
// protocol, since eager messages arrive before their receives are posted.
func TestReduceProtocols(t *testing.T) {
	t.Parallel()
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			var calls []*redCall
			for _, fn := range []string{"Reduce", "Allreduce", "ReduceScatter", "ReduceScatterBlock", "Scan", "Exscan"} {
				for _, c := range redCalls(fn, 5, true) {
					if c.kind == redSum32 || c.kind == redMat {
						calls = append(calls, c)
					}
				}
			}
			redRun(t, 5, cfgFor(proto), calls)
		})
	}
}
