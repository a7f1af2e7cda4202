package mpi

import (
	"errors"
	"fmt"
	"math/rand/v2"
	sched "nocsim/coll"
	"reflect"
	"strings"
	"testing"

	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Tests of Allgather(v) and Alltoall(v, w): every algorithm, against a
// serial computation of what each rank must receive.

// allType is a datatype whose shape the tests know independently of the
// library: the offsets of the data bytes of one element, in typemap order.
type allType struct {
	name string
	dt   *datatype.Datatype
	pos  []int
}

func (a allType) size() int { return len(a.pos) }

var (
	allInt32 = allType{"int32", datatype.Int32, []int{0, 1, 2, 3}}
	allByte  = allType{"byte", datatype.Byte, []int{0}}
	// Two int32s with a one-word hole: not contiguous, extent 12.
	allVec = func() allType {
		v, err := datatype.TypeVector(2, 1, 2, datatype.Int32)
		if err != nil {
			panic(err)
		}
		v.Commit()
		return allType{"vector", v, []int{0, 1, 2, 3, 8, 9, 10, 11}}
	}()
	allTypes3 = []allType{allInt32, allVec, allByte}
)

const allFill = 0xEE // bytes no collective may write

func allRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

func allBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// allPlace writes data into count elements of a at byte off of buf.
func allPlace(buf []byte, off int, a allType, count int, data []byte) {
	k := 0
	for e := 0; e < count; e++ {
		for _, p := range a.pos {
			buf[off+e*a.dt.Extent()+p] = data[k]
			k++
		}
	}
}

// allExpect is a block a buffer must hold after the call.
type allExpect struct {
	off   int
	a     allType
	count int
	data  []byte
}

// allVerify checks the blocks and that every other byte still holds
// allFill.
func allVerify(buf []byte, blocks []allExpect) error {
	mark := make([]bool, len(buf))
	for bi, b := range blocks {
		k := 0
		for e := 0; e < b.count; e++ {
			for _, p := range b.a.pos {
				at := b.off + e*b.a.dt.Extent() + p
				mark[at] = true
				if buf[at] != b.data[k] {
					return fmt.Errorf("block %d, data byte %d (buffer byte %d) = %#x, want %#x", bi, k, at, buf[at], b.data[k])
				}
				k++
			}
		}
	}
	for i, m := range mark {
		if !m && buf[i] != allFill {
			return fmt.Errorf("byte %d outside every block was overwritten (%#x)", i, buf[i])
		}
	}
	return nil
}

func allFilled(r *Rank, n int) datatype.Buffer {
	b := r.MustAlloc(n)
	for i := range b.Bytes {
		b.Bytes[i] = allFill
	}
	return b
}

// allHeapBlocks counts the blocks allocated in the rank's memory; a
// collective must leave it as it found it. (The heap's bookkeeping is not
// exported; reading it is test-only.)
func allHeapBlocks(r *Rank) int {
	return reflect.ValueOf(r.node.Mem).Elem().FieldByName("segs").Len()
}

// allNoLeaks checks that no request is left in any rank's queues.
func allNoLeaks(t *testing.T, w *World) {
	t.Helper()
	for _, r := range w.Ranks {
		if len(r.posted) != 0 || len(r.unexpected) != 0 || len(r.sends) != 0 {
			t.Errorf("rank %d: %d posted receives, %d unexpected messages, %d pending sends left", r.rank, len(r.posted), len(r.unexpected), len(r.sends))
		}
	}
}

// allVariant is one collective call of a test job; call runs it on a rank
// of c and checks what arrived.
type allVariant struct {
	name string
	call func(r *Rank, c *Comm) error
}

// allJob runs the variants one after the other on P ranks (8x8 mesh for
// P > 16, else 4x4) and checks for leaks.
func allJob(t *testing.T, P int, cfg Config, vs []allVariant) *World {
	t.Helper()
	side := 4
	if P > 16 {
		side = 8
	}
	cfg.Procs = P
	w := job(t, side, side, cfg, nil)
	w.Launch(func(r *Rank) {
		for _, v := range vs {
			before := allHeapBlocks(r)
			if err := v.call(r, r.CommWorld()); err != nil {
				t.Errorf("%s: rank %d: %v", v.name, r.Rank(), err)
				return
			}
			if n := allHeapBlocks(r); n != before {
				t.Errorf("%s: rank %d: %d heap blocks before, %d after", v.name, r.Rank(), before, n)
			}
		}
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	allNoLeaks(t, w)
	return w
}

// ---------------------------------------------------------------- tests

var allPs = []int{1, 2, 3, 5, 8, 13, 16, 64}

// allLong is the smallest int32 count whose total allgather and per-block
// alltoall size reaches the default coll_long_bytes.
func allLong(P int) (allgather, alltoall int) {
	long := DefaultConfig().CollLongBytes
	return (long + 4*P - 1) / (4 * P), (long + 3) / 4
}

func allgatherVariants(P int, seed uint64, large bool) []allVariant {
	vs := []allVariant{
		allgatherVariant(P, 0, allInt32, allInt32, false, seed),
		allgatherVariant(P, 5, allInt32, allInt32, false, seed+1),
		allgatherVariant(P, 3, allByte, allByte, false, seed+2), // 3-byte blocks: no block word-aligned
		allgatherVariant(P, 2, allVec, allVec, true, seed+3),
		allgatherVariant(P, 7, allByte, allByte, true, seed+4),
		allgatherVariant(P, 2, allByte, allVec, false, seed+5), // equivalent types differ
		allgathervVariant(P, 0, allInt32, false, seed+6),
		allgathervVariant(P, 6, allInt32, false, seed+7),
		allgathervVariant(P, 5, allByte, true, seed+8),
		allgathervVariant(P, 3, allVec, false, seed+9),
		allgathervVariant(P, 4, allVec, true, seed+10),
	}
	if large {
		n, _ := allLong(P)
		vs = append(vs, allgatherVariant(P, n, allInt32, allInt32, false, seed+11))
	} else {
		vs = append(vs, allgatherVariant(P, 40, allInt32, allInt32, false, seed+11))
	}
	return vs
}

func alltoallVariants(P int, seed uint64, large bool) []allVariant {
	vs := []allVariant{
		alltoallVariant(P, 0, allInt32, allInt32, false, seed),
		alltoallVariant(P, 5, allInt32, allInt32, false, seed+1),
		alltoallVariant(P, 3, allByte, allByte, false, seed+2),
		alltoallVariant(P, 2, allVec, allVec, true, seed+3),
		alltoallVariant(P, 6, allInt32, allInt32, true, seed+4),
		alltoallVariant(P, 16, allVec, allByte, false, seed+5), // 2 vectors as 16 bytes
		alltoallvVariant(P, 0, allInt32, false, seed+6),
		alltoallvVariant(P, 5, allInt32, false, seed+7),
		alltoallvVariant(P, 7, allByte, false, seed+8),
		alltoallvVariant(P, 3, allVec, true, seed+9),
		alltoallwVariant(P, 0, false, seed+10),
		alltoallwVariant(P, 3, false, seed+11),
		alltoallwVariant(P, 3, true, seed+12),
	}
	if large {
		_, n := allLong(P)
		vs = append(vs, alltoallVariant(P, n, allInt32, allInt32, false, seed+13))
	} else {
		vs = append(vs, alltoallVariant(P, 40, allInt32, allInt32, false, seed+13))
	}
	return vs
}

// TestAllgatherAlgorithms: every allgather algorithm (and auto) x P, each
// job running Allgather and Allgatherv with empty, odd-sized,
// non-contiguous, in-place and mixed-type calls back to back.
func TestAllgatherAlgorithms(t *testing.T) {
	t.Parallel()
	for _, alg := range append([]string{"auto", thesisLib}, sched.Names("allgather")...) {
		for _, P := range allPs {
			t.Run(fmt.Sprintf("%s/P=%d", alg, P), func(t *testing.T) {
				t.Parallel()
				cfg := libCfg(DefaultConfig(), "allgather", alg)
				// The long-message case costs too much at P = 64, which
				// gets its own auto test with a lowered threshold.
				allJob(t, P, cfg, allgatherVariants(P, uint64(100*P), P <= 16))
			})
		}
	}
}

// TestAlltoallAlgorithms: the same for Alltoall, Alltoallv and Alltoallw.
// At P = 64 every one of the 64 x 64 blocks is checked.
func TestAlltoallAlgorithms(t *testing.T) {
	t.Parallel()
	for _, alg := range append([]string{"auto", thesisLib}, sched.Names("alltoall")...) {
		for _, P := range allPs {
			t.Run(fmt.Sprintf("%s/P=%d", alg, P), func(t *testing.T) {
				t.Parallel()
				cfg := libCfg(DefaultConfig(), "alltoall", alg)
				allJob(t, P, cfg, alltoallVariants(P, uint64(200*P), P <= 16))
			})
		}
	}
}

// TestAllProtocols runs the algorithms over the eager and NIU protocols,
// where short sends complete at once or the NIUs answer.
func TestAllProtocols(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"eager", "niu"} {
		for _, alg := range sched.Names("allgather") {
			t.Run(proto+"/allgather/"+alg, func(t *testing.T) {
				t.Parallel()
				cfg := cfgFor(proto)
				cfg.SetAlgorithm("allgather", alg)
				allJob(t, 7, cfg, allgatherVariants(7, 7, false))
			})
		}
		for _, alg := range sched.Names("alltoall") {
			t.Run(proto+"/alltoall/"+alg, func(t *testing.T) {
				t.Parallel()
				cfg := cfgFor(proto)
				cfg.SetAlgorithm("alltoall", alg)
				allJob(t, 6, cfg, alltoallVariants(6, 6, false))
			})
		}
	}
}

// allMessages counts the messages a call moves: the receives every rank
// logs.
func allMessages(w *World) int {
	n := 0
	for _, r := range w.Ranks {
		n += r.Received()
	}
	return n
}

// TestAllMessageCounts checks each algorithm sends the number of messages
// its registry entry claims, and that auto picks by size: recursive
// doubling and Bruck below coll_long_bytes, ring and pairwise above.
func TestAllMessageCounts(t *testing.T) {
	t.Parallel()
	log2 := func(p int) int {
		k := 0
		for 1<<k < p {
			k++
		}
		return k
	}
	floor2 := func(P int) int {
		p := 1
		for 2*p <= P {
			p *= 2
		}
		return p
	}
	want := map[string]func(P int) int{
		"gather_bcast":       func(P int) int { return 2 * (P - 1) },
		"ring":               func(P int) int { return P * (P - 1) },
		"recursive_doubling": func(P int) int { p := floor2(P); return p*log2(p) + 2*(P-p) },
		"post_all":           func(P int) int { return P * (P - 1) },
		"pairwise":           func(P int) int { return P * (P - 1) },
		"bruck":              func(P int) int { return P * log2(P) },
	}
	type cse struct {
		op, alg, expect string
		P, count        int
		long            int // coll_long_bytes, 0 for the default
	}
	var cases []cse
	for _, P := range []int{1, 2, 5, 8, 13} {
		for _, a := range sched.Names("allgather") {
			cases = append(cases, cse{"allgather", a, a, P, 3, 0})
		}
		for _, a := range sched.Names("alltoall") {
			if !sched.IsNative("alltoall", a) { // no MPI messages: coll_cray_test.go counts its own
				cases = append(cases, cse{"alltoall", a, a, P, 3, 0})
			}
		}
		ag, a2a := allLong(P)
		cases = append(cases,
			cse{"allgather", "auto", "recursive_doubling", P, ag - 1, 0},
			cse{"allgather", "auto", "ring", P, ag, 0},
			cse{"alltoall", "auto", "bruck", P, a2a - 1, 0},
			cse{"alltoall", "auto", "pairwise", P, a2a, 0})
	}
	cases = append(cases,
		cse{"allgather", "auto", "recursive_doubling", 64, 3, 1024},
		cse{"allgather", "auto", "ring", 64, 4, 1024},
		cse{"alltoall", "auto", "bruck", 64, 63, 256},
		cse{"alltoall", "auto", "pairwise", 64, 64, 256})
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/P=%d/count=%d", c.op, c.alg, c.P, c.count), func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			cfg.SetAlgorithm(c.op, c.alg)
			if c.long > 0 {
				cfg.CollLongBytes = c.long
			}
			v := allgatherVariant(c.P, c.count, allInt32, allInt32, false, 1)
			if c.op == "alltoall" {
				v = alltoallVariant(c.P, c.count, allInt32, allInt32, false, 1)
			}
			w := allJob(t, c.P, cfg, []allVariant{v})
			if got, exp := allMessages(w), want[c.expect](c.P); got != exp {
				t.Errorf("%d messages, want %d (%s)", got, exp, c.expect)
			}
		})
	}
}

// TestAllgatherOnSubcommunicator runs on the halves of a split world, whose
// ranks are not the world's, in reverse order.
func TestAllgatherOnSubcommunicator(t *testing.T) {
	t.Parallel()
	for _, op := range []string{"allgather", "alltoall"} {
		for _, alg := range sched.Names(op) {
			t.Run(op+"/"+alg, func(t *testing.T) {
				t.Parallel()
				cfg := DefaultConfig()
				cfg.SetAlgorithm(op, alg)
				cfg.Procs = 11
				w := job(t, 4, 4, cfg, nil)
				// Halves of 6 and 5 ranks; each uses the inputs of its size.
				vs := map[int][]allVariant{}
				for _, P := range []int{5, 6} {
					if op == "allgather" {
						vs[P] = allgatherVariants(P, 9, false)
					} else {
						vs[P] = alltoallVariants(P, 9, false)
					}
				}
				w.Launch(func(r *Rank) {
					c, err := r.CommSplit(r.CommWorld(), r.Rank()%2, -r.Rank())
					if err != nil {
						t.Error(err)
						return
					}
					for _, v := range vs[c.Size()] {
						if err := v.call(r, c); err != nil {
							t.Errorf("%s: world rank %d: %v", v.name, r.Rank(), err)
							return
						}
					}
				})
				if err := w.Run(); err != nil {
					t.Fatal(err)
				}
				allNoLeaks(t, w)
			})
		}
	}
}

// TestAllErrors: erroneous arguments, the same on every rank, give the
// right error class on every rank and leave nothing behind; ranks that
// disagree stop the run.
func TestAllErrors(t *testing.T) {
	t.Parallel()
	const P = 4
	type cse struct {
		name  string
		class mpierr.Class
		call  func(r *Rank, c *Comm, b datatype.Buffer) error
	}
	one := []int{1, 1, 1, 1}
	zero := []int{0, 0, 0, 0}
	types := []*datatype.Datatype{datatype.Int32, datatype.Int32, datatype.Int32, datatype.Int32}
	cases := []cse{
		{"negative count", mpierr.ErrCount, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Allgather(b, 1, datatype.Int32, b, -1, datatype.Int32, c)
		}},
		{"nil type", mpierr.ErrType, func(r *Rank, c *Comm, b datatype.Buffer) error { return r.Alltoall(b, 1, nil, b, 1, datatype.Int32, c) }},
		{"send and receive sizes differ", mpierr.ErrCount, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Allgather(b, 2, datatype.Int32, b, 1, datatype.Int32, c)
		}},
		{"alltoall sizes differ", mpierr.ErrCount, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Alltoall(b, 1, datatype.Int64, b, 1, datatype.Int32, c)
		}},
		{"receive buffer too small", mpierr.ErrBuffer, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Allgather(b, 8, datatype.Int32, b, 8, datatype.Int32, c)
		}},
		{"short counts", mpierr.ErrArg, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Allgatherv(b, 1, datatype.Int32, b, one[:2], zero, datatype.Int32, c)
		}},
		{"short displacements", mpierr.ErrArg, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Alltoallv(b, one, zero, datatype.Int32, b, one, zero[:3], datatype.Int32, c)
		}},
		{"displacement outside", mpierr.ErrBuffer, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Alltoallw(b, one, zero, types, b, one, []int{0, 0, 0, 1000}, types, c)
		}},
		{"short types", mpierr.ErrArg, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Alltoallw(b, one, zero, types[:1], b, one, zero, types, c)
		}},
		{"negative displacement", mpierr.ErrBuffer, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Allgatherv(b, 1, datatype.Int32, b, one, []int{0, -1, 0, 0}, datatype.Int32, c)
		}},
		{"nil communicator", mpierr.ErrArg, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Alltoallv(b, one, zero, datatype.Int32, b, one, zero, datatype.Int32, nil)
		}},
	}
	cfg := DefaultConfig()
	cfg.Procs = P
	w := job(t, 4, 4, cfg, nil)
	w.Launch(func(r *Rank) {
		b := r.MustAlloc(64)
		for _, c := range cases {
			before := allHeapBlocks(r)
			err := c.call(r, r.CommWorld(), b)
			var e *mpierr.Error
			if !errors.As(err, &e) || e.Class != c.class {
				t.Errorf("%s: rank %d: got %v, want class %v", c.name, r.Rank(), err, c.class)
			}
			if n := allHeapBlocks(r); n != before {
				t.Errorf("%s: rank %d: %d heap blocks before, %d after", c.name, r.Rank(), before, n)
			}
		}
		// A correct call still works after the refused ones.
		if err := r.Allgather(InPlace, 0, datatype.Int32, b, 1, datatype.Int32, r.CommWorld()); err != nil {
			t.Error(err)
		}
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	allNoLeaks(t, w)

	w = job(t, 4, 4, cfg, nil)
	w.Launch(func(r *Rank) {
		b := r.MustAlloc(64)
		n := 1
		if r.Rank() == 2 {
			n = 2
		}
		r.Allgather(b, n, datatype.Int32, b, n, datatype.Int32, r.CommWorld())
	})
	if err := w.Run(); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("ranks disagreeing on the size: got %v", err)
	}
}
