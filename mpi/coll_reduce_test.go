package mpi

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	sched "nocsim/coll"
	"reflect"
	"slices"
	"testing"

	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
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
	for _, alg := range append(sched.Names(op), "auto", thesisLib) {
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
		if got := sched.Names(op); !slices.Equal(got, names) {
			t.Errorf("%s: registered %v, want %v", op, got, names)
		}
	}
	for _, a := range sched.Algorithms() {
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

// TestReduceErrors checks argument errors (raised identically on every
// rank, so the job still ends).
func TestReduceErrors(t *testing.T) {
	t.Parallel()
	redJob(t, 4, DefaultConfig(), func(r *Rank) {
		c := r.CommWorld()
		b := r.MustAlloc(64)
		wantClass := func(err error, class mpierr.Class, what string) {
			t.Helper()
			e, ok := err.(*mpierr.Error)
			if !ok || e.Class != class {
				t.Errorf("%s: got %v, want %v", what, err, class)
			}
		}
		wantClass(r.Reduce(b, b, 1, datatype.Int32, datatype.OpSum, 4, c), mpierr.ErrRank, "root out of range")
		wantClass(r.Reduce(b, b, 1, datatype.Int32, nil, 0, c), mpierr.ErrArg, "nil op")
		wantClass(r.Allreduce(b, b, 1, redMatType, datatype.OpSum, c), mpierr.ErrType, "SUM on a derived type")
		wantClass(r.Allreduce(b, b, 1, datatype.Int32, datatype.OpMaxloc, c), mpierr.ErrType, "MAXLOC on Int32")
		wantClass(r.Allreduce(b, b, 100, datatype.Int32, datatype.OpSum, c), mpierr.ErrBuffer, "buffer too small")
		wantClass(r.Scan(b, b, -1, datatype.Int32, datatype.OpSum, c), mpierr.ErrCount, "negative count")
		wantClass(r.ReduceScatter(b, b, []int{1, 1}, datatype.Int32, datatype.OpSum, c), mpierr.ErrArg, "wrong number of counts")
		wantClass(r.ReduceScatterBlock(b, b, -1, datatype.Int32, datatype.OpSum, c), mpierr.ErrCount, "negative block")
		if r.Rank() != 0 {
			wantClass(r.Reduce(InPlace, b, 1, datatype.Int32, datatype.OpSum, 0, c), mpierr.ErrArg, "in place at a non-root")
		} else {
			small, _ := b.Slice(0, 2)
			wantClass(r.Reduce(InPlace, small, 1, datatype.Int32, datatype.OpSum, 0, c), mpierr.ErrBuffer, "root buffer too small")
		}
	})
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
