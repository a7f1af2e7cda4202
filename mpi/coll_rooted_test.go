package mpi

import (
	"errors"
	"fmt"
	"math/rand/v2"
	sched "nocsim/coll"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// Test data: buffers hold count elements of a test type whose data bytes
// sit at known offsets; every other byte is rtFill and must stay so.

type rtType struct {
	name string
	dt   *datatype.Datatype
	at   func(p int) int // offset in an element of its packed byte p
}

func (tt rtType) size() int { return tt.dt.Size() }
func (tt rtType) ext() int  { return tt.dt.Extent() }

var rtVecType = func() *datatype.Datatype {
	t, err := datatype.TypeVector(2, 1, 2, datatype.Int32) // 8 data bytes in a 12-byte extent
	if err != nil {
		panic(err)
	}
	t.Commit()
	return t
}()

var (
	rtB   = rtType{"byte", datatype.Byte, func(p int) int { return p }}
	rtI32 = rtType{"int32", datatype.Int32, func(p int) int { return p }}
	rtF64 = rtType{"float64", datatype.Float64, func(p int) int { return p }}
	rtVec = rtType{"vector", rtVecType, func(p int) int {
		if p < 4 {
			return p
		}
		return p + 4
	}}
)

const rtFill = 0xA5

func rtData(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 0xC011EC7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// rtPut writes packed bytes as elements of tt from byte base of buf and
// marks the bytes written in mask (if not nil).
func rtPut(tt rtType, packed, buf []byte, base int, mask []bool) {
	n := tt.size()
	for q, v := range packed {
		o := base + q/n*tt.ext() + tt.at(q%n)
		buf[o] = v
		if mask != nil {
			mask[o] = true
		}
	}
}

// rtExpect is what a buffer must hold: blocks of packed data at offsets;
// every other byte is rtFill.
type rtExpect struct {
	tt     rtType
	base   int
	packed []byte
}

func rtVerify(buf []byte, want []rtExpect) error {
	exp := make([]byte, len(buf))
	mask := make([]bool, len(buf))
	for _, w := range want {
		rtPut(w.tt, w.packed, exp, w.base, mask)
	}
	for i := range buf {
		if !mask[i] {
			exp[i] = rtFill
		}
		if buf[i] != exp[i] {
			return fmt.Errorf("byte %d of %d is %#x, want %#x", i, len(buf), buf[i], exp[i])
		}
	}
	return nil
}

// rtBuf allocates n bytes (at least one) filled with rtFill.
func rtBuf(r *Rank, n int) datatype.Buffer {
	b := r.MustAlloc(max(n, 1))
	for i := range b.Bytes {
		b.Bytes[i] = rtFill
	}
	return b
}

func rtHeapBlocks(r *Rank) int {
	return reflect.ValueOf(r.node.Mem).Elem().FieldByName("segs").Len()
}

// rtRun runs body on every rank of a P-rank world (8x8 mesh for P > 16,
// else 4x4) and checks that nothing leaked: heap blocks, queued requests,
// open collective calls.
func rtRun(t *testing.T, P int, cfg Config, body func(r *Rank, c *Comm)) *World {
	t.Helper()
	cfg.Procs = P
	wd := 4
	if P > 16 {
		wd = 8
	}
	w := job(t, wd, wd, cfg, nil)
	w.Launch(func(r *Rank) {
		blocks := rtHeapBlocks(r)
		body(r, r.CommWorld())
		if n := rtHeapBlocks(r); n != blocks {
			t.Errorf("rank %d: %d heap blocks at the end, %d at the start", r.rank, n, blocks)
		}
	})
	if err := w.Run(); err != nil {
		t.Fatalf("P=%d: %v", P, err)
	}
	rtNoLeaks(t, w)
	return w
}

func rtNoLeaks(t *testing.T, w *World) {
	t.Helper()
	for _, r := range w.Ranks {
		if len(r.posted) != 0 || len(r.unexpected) != 0 || len(r.sends) != 0 || r.internal != 0 {
			t.Errorf("rank %d: %d posted receives, %d unexpected messages, %d pending sends, internal depth %d left",
				r.rank, len(r.posted), len(r.unexpected), len(r.sends), r.internal)
		}
	}
}

var rtPs = []int{1, 2, 3, 5, 8, 13, 16, 64}

func rtRoots(P int) []int {
	out := []int{0}
	for _, r := range []int{P - 1, P / 2} {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// rtCheck reports a rank's failure once per job.
type rtCheck struct {
	t      *testing.T
	failed bool
}

func (k *rtCheck) errorf(format string, a ...any) {
	if !k.failed {
		k.failed = true
		k.t.Errorf(format, a...)
	}
}

// rtForAlgs runs test for every algorithm of op and "auto", for every P
// under the thesis's protocol and for a few under the others, in parallel.
func rtForAlgs(t *testing.T, op string, test func(t *testing.T, cfg Config, P int)) {
	for _, alg := range append(sched.Names(op), "auto", thesisLib) {
		for _, proto := range Protocols {
			if alg == thesisLib && proto != "scmp" {
				continue // the thesis's library has only its rendezvous
			}
			Ps := rtPs
			if proto != "scmp" {
				Ps = []int{5, 16}
			}
			for _, P := range Ps {
				t.Run(fmt.Sprintf("%s/%s/P=%d", alg, proto, P), func(t *testing.T) {
					t.Parallel()
					cfg := libCfg(cfgFor(proto), op, alg)
					test(t, cfg, P)
				})
			}
		}
	}
}

// thesisLib stands, in a list of algorithms to test, for the thesis
// library profile, which runs its own algorithm for every operation.
const thesisLib = "library=thesis"

// libCfg selects alg for op in cfg, or the thesis profile for thesisLib.
func libCfg(cfg Config, op, alg string) Config {
	if alg == thesisLib {
		cfg.Library = "thesis"
		return cfg
	}
	cfg.SetAlgorithm(op, alg)
	return cfg
}

func rtCfg(op, alg string) Config {
	cfg := DefaultConfig()
	cfg.SetAlgorithm(op, alg)
	return cfg
}

func TestRootedRegistry(t *testing.T) {
	want := map[string][]string{
		"barrier": {"central", "dissemination", "mesh", "tree4", "tree4_scatter"},
		"bcast":   {"binomial", "flat", "mesh", "optimal", "pull", "pull_rma", "scatter_allgather"},
		"scatter": {"binomial", "flat", "pull_rma"},
		"gather":  {"binomial", "flat", "push"},
	}
	for op, names := range want {
		if got := sched.Names(op); !slices.Equal(got, names) {
			t.Errorf("%s: algorithms %v, want %v", op, got, names)
		}
		for _, n := range names {
			cfg := rtCfg(op, n)
			if err := cfg.Validate(64, 64); err != nil {
				t.Errorf("%s=%s refused: %v", op, n, err)
			}
		}
	}
	for _, a := range sched.Algorithms() {
		if _, ok := want[a.Op]; ok && (a.Source == "" || a.Messages == "") {
			t.Errorf("%s/%s: source or message count missing", a.Op, a.Name)
		}
	}
}

// TestRootedBarrier checks that no rank leaves a barrier before the last
// one has entered, with ranks arriving at staggered times.
func TestRootedBarrier(t *testing.T) {
	rtForAlgs(t, "barrier", func(t *testing.T, cfg Config, P int) {
		const rounds = 3
		enter := make([][]des.Time, rounds)
		leave := make([][]des.Time, rounds)
		for i := range rounds {
			enter[i], leave[i] = make([]des.Time, P), make([]des.Time, P)
		}
		rtRun(t, P, cfg, func(r *Rank, c *Comm) {
			for i := range rounds {
				r.Compute(int64((r.Rank()*37+i*11)%P) * 50)
				enter[i][r.Rank()] = r.Now()
				if err := r.Barrier(c); err != nil {
					t.Error(err)
				}
				leave[i][r.Rank()] = r.Now()
			}
		})
		for i := range rounds {
			if last, first := slices.Max(enter[i]), slices.Min(leave[i]); first < last {
				t.Errorf("round %d: a rank left at cycle %d, before the last arrival at %d", i, first, last)
			}
		}
	})
}

type rtBcastCase struct {
	root, other rtType
	rn, on      int // counts at the root and at the others
}

func rtBcastCases(P int) []rtBcastCase {
	all := []rtBcastCase{
		{rtB, rtB, 0, 0},
		{rtB, rtB, 1, 1},
		{rtB, rtB, 7, 7},
		{rtI32, rtB, 5, 20},
		{rtVec, rtI32, 3, 6},
		{rtI32, rtVec, 6, 3},
		{rtF64, rtF64, 100, 100},
		{rtB, rtB, 5001, 5001}, // above coll_long_bytes
	}
	if P == 64 {
		return []rtBcastCase{all[2], all[4], all[7]}
	}
	return all
}

func TestRootedBcast(t *testing.T) {
	rtForAlgs(t, "bcast", func(t *testing.T, cfg Config, P int) {
		rtRun(t, P, cfg, func(r *Rank, c *Comm) {
			k := &rtCheck{t: t}
			call := uint64(0)
			for _, root := range rtRoots(P) {
				for _, cs := range rtBcastCases(P) {
					call++
					data := rtData(call, cs.rn*cs.root.size())
					tt, n := cs.other, cs.on
					if r.Rank() == root {
						tt, n = cs.root, cs.rn
					}
					buf := rtBuf(r, n*tt.ext())
					if r.Rank() == root {
						rtPut(tt, data, buf.Bytes, 0, nil)
					}
					if err := r.Bcast(buf, n, tt.dt, root, c); err != nil {
						k.errorf("rank %d root %d %v: %v", r.Rank(), root, cs, err)
					} else if err := rtVerify(buf.Bytes, []rtExpect{{tt, 0, data}}); err != nil {
						k.errorf("rank %d root %d %s x%d: %v", r.Rank(), root, tt.name, n, err)
					}
					r.Free(buf)
				}
			}
		})
	})
}

// TestRootedMismatchedRoots: ranks disagreeing on the root end the run
// with an error naming both, instead of hanging.
func TestRootedMismatchedRoots(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Procs = 4
	w := job(t, 4, 4, cfg, nil)
	w.Launch(func(r *Rank) {
		b := r.MustAlloc(8)
		root := 0
		if r.Rank() == 1 {
			root = 1
		}
		r.Bcast(b, 2, datatype.Int32, root, r.CommWorld())
	})
	err := w.Run()
	if err == nil {
		t.Fatal("mismatched roots: the run succeeded")
	}
	for _, s := range []string{"does not match", "rank 0", "rank 1", "root=0", "root=1"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

// TestRootedIsolation: back-to-back broadcasts from different roots keep
// their data apart, and a user receive for any source and tag posted
// across them gets only the user's message.
func TestRootedIsolation(t *testing.T) {
	for _, alg := range sched.Names("bcast") {
		for _, proto := range Protocols {
			t.Run(alg+"/"+proto, func(t *testing.T) {
				t.Parallel()
				const P, n = 5, 40
				cfg := cfgFor(proto)
				cfg.Bcast = alg
				rtRun(t, P, cfg, func(r *Rank, c *Comm) {
					me := r.Rank()
					user := rtBuf(r, 8)
					var q *Request
					if me == 3 {
						var err error
						if q, err = r.Irecv(user, 8, datatype.Byte, AnySource, AnyTag, c); err != nil {
							t.Error(err)
						}
					}
					bufs := make([]datatype.Buffer, P)
					for root := range P {
						bufs[root] = rtBuf(r, n)
						if me == root {
							copy(bufs[root].Bytes, rtData(uint64(root), n))
						}
					}
					// Without waiting in between: consecutive calls overlap.
					for root := P - 1; root >= 0; root-- {
						if err := r.Bcast(bufs[root], n, datatype.Byte, root, c); err != nil {
							t.Error(err)
						}
					}
					for root := range P {
						if !slices.Equal(bufs[root].Bytes, rtData(uint64(root), n)) {
							t.Errorf("rank %d: broadcast from root %d corrupted", me, root)
						}
						r.Free(bufs[root])
					}
					switch me {
					case 1:
						copy(user.Bytes, "userdata")
						if err := r.Send(user, 8, datatype.Byte, 3, 77, c); err != nil {
							t.Error(err)
						}
					case 3:
						st, err := r.Wait(q)
						if err != nil || st.Source != 1 || st.Tag != 77 || string(user.Bytes) != "userdata" {
							t.Errorf("user receive got %+v %q, %v", st, user.Bytes, err)
						}
					}
					r.Free(user)
				})
			})
		}
	}
}

// TestRootedErrors: arguments every rank gets wrong fail on every rank
// without communicating.
func TestRootedErrors(t *testing.T) {
	const P = 4
	cases := []struct {
		name  string
		class mpierr.Class
		call  func(r *Rank, c *Comm, b datatype.Buffer) error
	}{
		{"bcast root out of range", mpierr.ErrRank, func(r *Rank, c *Comm, b datatype.Buffer) error { return r.Bcast(b, 1, datatype.Int32, P, c) }},
		{"bcast negative root", mpierr.ErrRank, func(r *Rank, c *Comm, b datatype.Buffer) error { return r.Bcast(b, 1, datatype.Int32, -1, c) }},
		{"bcast negative count", mpierr.ErrCount, func(r *Rank, c *Comm, b datatype.Buffer) error { return r.Bcast(b, -1, datatype.Int32, 0, c) }},
		{"bcast buffer too small", mpierr.ErrBuffer, func(r *Rank, c *Comm, b datatype.Buffer) error { return r.Bcast(b, 100, datatype.Int32, 0, c) }},
		{"scatter root out of range", mpierr.ErrRank, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Scatter(b, 1, datatype.Byte, b, 1, datatype.Byte, P, c)
		}},
		{"gather root out of range", mpierr.ErrRank, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Gather(b, 1, datatype.Byte, b, 1, datatype.Byte, P+3, c)
		}},
		{"gatherv root out of range", mpierr.ErrRank, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Gatherv(b, 1, datatype.Byte, b, nil, nil, datatype.Byte, -2, c)
		}},
		{"scatterv root out of range", mpierr.ErrRank, func(r *Rank, c *Comm, b datatype.Buffer) error {
			return r.Scatterv(b, nil, nil, datatype.Byte, b, 1, datatype.Byte, P, c)
		}},
		{"scatter uncommitted type", mpierr.ErrType, func(r *Rank, c *Comm, b datatype.Buffer) error {
			v, _ := datatype.TypeVector(2, 1, 2, datatype.Int32)
			return r.Scatter(b, 1, v, b, 1, v, 0, c)
		}},
	}
	for _, cs := range cases {
		rtRun(t, P, DefaultConfig(), func(r *Rank, c *Comm) {
			b := rtBuf(r, 16)
			err := cs.call(r, c, b)
			var e *mpierr.Error
			if !errors.As(err, &e) || e.Class != cs.class {
				t.Errorf("%s: rank %d got %v, want class %v", cs.name, r.Rank(), err, cs.class)
			}
			// The communicator still works afterwards.
			if err := r.Bcast(b, 4, datatype.Int32, 0, c); err != nil {
				t.Errorf("%s: rank %d: bcast after the error: %v", cs.name, r.Rank(), err)
			}
			r.Free(b)
		})
	}
	// The size checks that only the root can make, with a single rank.
	rtRun(t, 1, DefaultConfig(), func(r *Rank, c *Comm) {
		b := rtBuf(r, 16)
		defer r.Free(b)
		if err := r.Scatterv(b, nil, nil, datatype.Byte, b, 1, datatype.Byte, 0, c); err == nil {
			t.Error("Scatterv without counts succeeded")
		}
		if err := r.Gatherv(b, 1, datatype.Byte, b, []int{4}, []int{14}, datatype.Byte, 0, c); err == nil {
			t.Error("Gatherv past the buffer end succeeded")
		}
		if err := r.Gatherv(b, 1, datatype.Byte, b, []int{1}, []int{-1}, datatype.Byte, 0, c); err == nil {
			t.Error("Gatherv before the buffer start succeeded")
		}
		if err := r.Scatter(b, 2, datatype.Byte, b, 3, datatype.Byte, 0, c); err == nil {
			t.Error("Scatter with the root's receive the wrong size succeeded")
		}
	})
}

// TestRootedSubcommunicator runs the rooted operations on the two halves
// of a split world, ranked in reverse, where ranks of the communicator
// differ from world ranks.
func TestRootedSubcommunicator(t *testing.T) {
	const P = 10
	for _, alg := range []string{"flat", "binomial"} {
		cfg := DefaultConfig()
		cfg.Bcast, cfg.Scatter, cfg.Gather = alg, alg, alg
		rtRun(t, P, cfg, func(r *Rank, world *Comm) {
			c, err := r.CommSplit(world, r.Rank()%2, -r.Rank())
			if err != nil {
				t.Error(err)
				return
			}
			n, me, root := c.Size(), c.Rank(), 1
			const per = 6
			// Every rank's data, by its rank in c.
			data := func(i int) []byte { return rtData(uint64(100*(r.Rank()%2)+i), per) }
			b := rtBuf(r, per)
			if me == root {
				copy(b.Bytes, data(root))
			}
			if err := r.Bcast(b, per, datatype.Byte, root, c); err != nil || !slices.Equal(b.Bytes, data(root)) {
				t.Errorf("rank %d: bcast %v %v", r.Rank(), b.Bytes, err)
			}
			all := rtBuf(r, n*per)
			if me == root {
				for i := range n {
					copy(all.Bytes[i*per:], data(i))
				}
			}
			if err := r.Scatter(all, per, datatype.Byte, b, per, datatype.Byte, root, c); err != nil || !slices.Equal(b.Bytes, data(me)) {
				t.Errorf("rank %d: scatter %v %v", r.Rank(), b.Bytes, err)
			}
			got := rtBuf(r, n*per)
			if err := r.Gather(b, per, datatype.Byte, got, per, datatype.Byte, root, c); err != nil {
				t.Error(err)
			}
			if me == root && !slices.Equal(got.Bytes, all.Bytes) {
				t.Errorf("rank %d: gather %v, want %v", r.Rank(), got.Bytes, all.Bytes)
			}
			for _, x := range []datatype.Buffer{b, all, got} {
				r.Free(x)
			}
			if err := r.Barrier(c); err != nil {
				t.Error(err)
			}
		})
	}
}
