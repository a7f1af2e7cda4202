package mpi

// Semantics tests: what an MPI program may rely on, checked end to end
// through the simulated network under every protocol. Every expected value
// is computed here, from the MPI rules, never read back from the library.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nocsim/endpoint"
)

// semEagerBytes restates DefaultConfig's eager threshold: messages up to it
// travel inside the THREAD message under the eager protocol.
const semEagerBytes = 128

// semByte is byte i of message seq from rank src: distinct per (src, seq).
func semByte(src, seq, i int) byte {
	return byte((src*131 + seq*29 + i*7 + 1) ^ (i >> 8))
}

func semFill(b Buffer, n, src, seq int) {
	for i := 0; i < n; i++ {
		b.Bytes[i] = semByte(src, seq, i)
	}
}

// semBad is the first of b's n bytes that is not message (src, seq), or -1.
func semBad(b []byte, n, src, seq int) int {
	if len(b) < n {
		return len(b)
	}
	for i := 0; i < n; i++ {
		if b[i] != semByte(src, seq, i) {
			return i
		}
	}
	return -1
}

func semSet(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// semClass is the MPI error class of err, or 0 if err is not an *Error.
func semClass(err error) Class {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return 0
}

func semProcs(cfg Config, p int) Config {
	cfg.Procs = p
	return cfg
}

// semSize is the size of message seq in the ordering tests: below, at and
// above the eager threshold, odd and word-sized, and empty.
func semSize(seq int) int {
	sizes := []int{4, 64, semEagerBytes, semEagerBytes + 1, 200, 1000, 7, 500, 12, 130, 0, 96}
	return sizes[seq%len(sizes)]
}

func semRun(t *testing.T, w *World) {
	t.Helper()
	if err := w.Run(); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// ---------------------------------------------------------------------------
// 1. Non-overtaking.

func TestSemNonOvertaking(t *testing.T) {
	const n = 24
	type variant struct {
		name string
		tag  func(seq int) int
		// order of (tag to receive with) the receiver uses; it checks that
		// each receive gets the earliest unreceived message of that tag.
		recvTags func() []int
		posted   bool // receives posted before the sender starts
	}
	sameTag := func(int) int { return 3 }
	mixedTag := func(seq int) int { return 1 + seq%3 }
	repeat := func(tag int) func() []int {
		return func() []int {
			out := make([]int, n)
			for i := range out {
				out[i] = tag
			}
			return out
		}
	}
	byTag := func() []int { // all tag 3, then tag 1, then tag 2
		var out []int
		for _, tg := range []int{3, 1, 2} {
			for s := 0; s < n; s++ {
				if mixedTag(s) == tg {
					out = append(out, tg)
				}
			}
		}
		return out
	}
	variants := []variant{
		{"unexpected-same-tag", sameTag, repeat(3), false},
		{"posted-same-tag", sameTag, repeat(3), true},
		{"unexpected-by-tag", mixedTag, byTag, false},
		{"posted-by-tag", mixedTag, byTag, true},
		{"unexpected-any-tag", mixedTag, repeat(AnyTag), false},
		{"posted-any-tag", mixedTag, repeat(AnyTag), true},
	}
	for _, proto := range Protocols {
		for _, v := range variants {
			t.Run(proto+"/"+v.name, func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				tags := v.recvTags()
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					tok := r.MustAlloc(4)
					switch r.Rank() {
					case 0:
						if v.posted {
							if _, err := r.Recv(tok, 1, Int32, 1, 100, c); err != nil {
								t.Error(err)
								return
							}
						}
						var qs []*Request
						for s := 0; s < n; s++ {
							b := r.MustAlloc(semSize(s))
							semFill(b, semSize(s), 0, s)
							q, err := r.Isend(b, semSize(s), Byte, 1, v.tag(s), c)
							if err != nil {
								t.Error(err)
								return
							}
							qs = append(qs, q)
							r.Compute(int64(s%4) * 30)
						}
						if _, err := r.Waitall(qs); err != nil {
							t.Error(err)
						}
					case 1:
						bufs := make([]Buffer, len(tags))
						for i := range bufs {
							bufs[i] = r.MustAlloc(1000)
						}
						// The model: which seq each receive must get.
						taken := make([]bool, n)
						want := make([]int, len(tags))
						for i, tg := range tags {
							want[i] = -1
							for s := 0; s < n; s++ {
								if !taken[s] && (tg == AnyTag || v.tag(s) == tg) {
									taken[s], want[i] = true, s
									break
								}
							}
						}
						check := func(i int, st Status, err error) {
							s := want[i]
							if err != nil {
								t.Errorf("receive %d: %v", i, err)
								return
							}
							if st.Source != 0 || st.Tag != v.tag(s) || st.Bytes != semSize(s) {
								t.Errorf("receive %d: status %+v, want message %d (tag %d, %d bytes)", i, st, s, v.tag(s), semSize(s))
								return
							}
							if k := semBad(bufs[i].Bytes, semSize(s), 0, s); k >= 0 {
								t.Errorf("receive %d (tag %d): byte %d is not message %d's: overtaken", i, tags[i], k, s)
							}
						}
						if v.posted {
							var qs []*Request
							for i, tg := range tags {
								q, err := r.Irecv(bufs[i], 1000, Byte, 0, tg, c)
								if err != nil {
									t.Error(err)
									return
								}
								qs = append(qs, q)
							}
							if err := r.Send(tok, 1, Int32, 0, 100, c); err != nil {
								t.Error(err)
								return
							}
							sts, err := r.Waitall(qs)
							for i := range qs {
								if err == nil {
									check(i, sts[i], sts[i].Err)
								} else {
									check(i, sts[i], err)
								}
							}
							return
						}
						r.Compute(100_000) // let everything arrive unexpected
						for i, tg := range tags {
							st, err := r.Recv(bufs[i], 1000, Byte, 0, tg, c)
							check(i, st, err)
						}
					}
				})
				semRun(t, w)
			})
		}
	}
}

// TestSemNonOvertakingAnySource has four senders; the receiver takes every
// message with MPI_ANY_SOURCE and MPI_ANY_TAG (half of them pre-posted) and
// checks each sender's messages arrive in that sender's order.
func TestSemNonOvertakingAnySource(t *testing.T) {
	const senders, k = 4, 12
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 3, 2, semProcs(cfgFor(proto), senders+1), nil)
			size := func(src, seq int) int { return max(semSize(seq+src), 1) }
			tag := func(seq int) int { return 10 + seq%2 }
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				me := r.Rank()
				if me != 0 {
					var qs []*Request
					for s := 0; s < k; s++ {
						b := r.MustAlloc(size(me, s))
						semFill(b, size(me, s), me, s)
						q, err := r.Isend(b, size(me, s), Byte, 0, tag(s), c)
						if err != nil {
							t.Error(err)
							return
						}
						qs = append(qs, q)
						r.Compute(int64(37 * me))
					}
					if _, err := r.Waitall(qs); err != nil {
						t.Error(err)
					}
					return
				}
				next := make([]int, senders+1)
				got := func(b Buffer, st Status, err error) {
					if err != nil {
						t.Error(err)
						return
					}
					src := st.Source
					if src < 1 || src > senders {
						t.Errorf("status source %d", src)
						return
					}
					s := next[src]
					next[src]++
					if s >= k || st.Tag != tag(s) || st.Bytes != size(src, s) {
						t.Errorf("from %d: status %+v, want message %d (tag %d, %d bytes)", src, st, s, tag(s), size(src, s))
						return
					}
					if i := semBad(b.Bytes, st.Bytes, src, s); i >= 0 {
						t.Errorf("from %d: message %d differs at byte %d: per-sender order broken", src, s, i)
					}
				}
				total := senders * k
				var qs []*Request
				var bufs []Buffer
				for i := 0; i < total/2; i++ {
					b := r.MustAlloc(1000)
					q, err := r.Irecv(b, 1000, Byte, AnySource, AnyTag, c)
					if err != nil {
						t.Error(err)
						return
					}
					qs, bufs = append(qs, q), append(bufs, b)
				}
				sts, err := r.Waitall(qs)
				for i := range qs {
					if err != nil {
						got(bufs[i], sts[i], err)
					} else {
						got(bufs[i], sts[i], sts[i].Err)
					}
				}
				b := r.MustAlloc(1000)
				for i := total / 2; i < total; i++ {
					semSet(b.Bytes, 0)
					st, err := r.Recv(b, 1000, Byte, AnySource, AnyTag, c)
					got(b, st, err)
				}
				for src := 1; src <= senders; src++ {
					if next[src] != k {
						t.Errorf("received %d messages from %d, want %d", next[src], src, k)
					}
				}
			})
			semRun(t, w)
		})
	}
}

// ---------------------------------------------------------------------------
// 2. Wildcards and Status.

func TestSemWildcardStatus(t *testing.T) {
	// On a communicator whose ranks are the world's reversed (comm rank =
	// 3 - world rank), comm rank 0 (world 3) receives from comm ranks 1..3.
	size1 := map[int]int{1: 24, 2: 20, 3: 300} // first round, tag 10+c
	size2 := map[int]int{1: 8, 2: 131, 3: 12}  // second round, tag 20+c
	type gc struct {
		dt   *Datatype
		want map[int]int // bytes -> GetCount
	}
	int3, err := TypeContiguous(3, Int32)
	if err != nil {
		t.Fatal(err)
	}
	if err := int3.Commit(); err != nil {
		t.Fatal(err)
	}
	counts := []gc{
		{Byte, map[int]int{24: 24, 20: 20, 300: 300}},
		{Int32, map[int]int{24: 6, 20: 5, 300: 75}},
		{Float64, map[int]int{24: 3, 20: Undefined, 300: Undefined}},
		{Int64, map[int]int{24: 3, 20: Undefined, 300: Undefined}},
		{Float32, map[int]int{24: 6, 20: 5, 300: 75}},
		{int3, map[int]int{24: 2, 20: Undefined, 300: 25}},
	}
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, cfgFor(proto), nil)
			w.Launch(func(r *Rank) {
				c, err := r.CommSplit(r.CommWorld(), 0, -r.Rank())
				if err != nil {
					t.Error(err)
					return
				}
				me := c.Rank()
				if me != 3-r.Rank() {
					t.Errorf("world %d: comm rank %d, want %d", r.Rank(), me, 3-r.Rank())
					return
				}
				b := r.MustAlloc(400)
				if me != 0 {
					r.Compute(int64(500 * me))
					semFill(b, size1[me], me, 1)
					if err := r.Send(b, size1[me], Byte, 0, 10+me, c); err != nil {
						t.Error(err)
					}
					// The second round waits for the receiver's go, so the
					// first round's wildcard receives cannot take it.
					if _, err := r.Recv(b, 1, Int32, 0, 1, c); err != nil {
						t.Error(err)
						return
					}
					semFill(b, size2[me], me, 2)
					if err := r.Send(b, size2[me], Byte, 0, 20+me, c); err != nil {
						t.Error(err)
					}
					return
				}
				seen := map[int]bool{}
				for i := 0; i < 3; i++ {
					semSet(b.Bytes, 0)
					st, err := r.Recv(b, 400, Byte, AnySource, AnyTag, c)
					if err != nil {
						t.Error(err)
						continue
					}
					src := st.Source
					if src < 1 || src > 3 || seen[src] {
						t.Errorf("ANY_SOURCE status source %d (already seen: %v)", src, seen[src])
						continue
					}
					seen[src] = true
					if st.Tag != 10+src || st.Bytes != size1[src] {
						t.Errorf("from %d: tag %d bytes %d, want %d %d", src, st.Tag, st.Bytes, 10+src, size1[src])
					}
					if k := semBad(b.Bytes, size1[src], src, 1); k >= 0 {
						t.Errorf("from %d: byte %d wrong", src, k)
					}
					for _, g := range counts {
						if got := GetCount(st, g.dt); got != g.want[size1[src]] {
							t.Errorf("GetCount(%d bytes, %s size %d) = %d, want %d", st.Bytes, g.dt.Name(), g.dt.Size(), got, g.want[size1[src]])
						}
					}
				}
				// Second round: wildcard in one field only.
				for dst := 1; dst <= 3; dst++ {
					if err := r.Send(b, 1, Int32, dst, 1, c); err != nil {
						t.Error(err)
						return
					}
				}
				r.Compute(20_000) // every second-round message is waiting
				for _, rc := range []struct{ src, tag, wantSrc int }{
					{2, AnyTag, 2}, {AnySource, 23, 3}, {AnySource, AnyTag, 1},
				} {
					semSet(b.Bytes, 0)
					st, err := r.Recv(b, 400, Byte, rc.src, rc.tag, c)
					if err != nil {
						t.Error(err)
						continue
					}
					s := rc.wantSrc
					if st.Source != s || st.Tag != 20+s || st.Bytes != size2[s] {
						t.Errorf("Recv(source %d, tag %d): status %+v, want source %d tag %d bytes %d", rc.src, rc.tag, st, s, 20+s, size2[s])
						continue
					}
					if k := semBad(b.Bytes, size2[s], s, 2); k >= 0 {
						t.Errorf("from %d: byte %d wrong", s, k)
					}
				}
			})
			semRun(t, w)
		})
	}
}

// ---------------------------------------------------------------------------
// 3. Probe and Iprobe.

func TestSemProbe(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				tok := r.MustAlloc(4)
				if r.Rank() == 0 {
					// Nothing is sent before rank 1 says so.
					if _, err := r.Recv(tok, 1, Int32, 1, 1, c); err != nil {
						t.Error(err)
						return
					}
					a, b := r.MustAlloc(52), r.MustAlloc(300)
					semFill(a, 52, 0, 7)
					semFill(b, 300, 0, 8)
					qa, err1 := r.Isend(a, 52, Byte, 1, 7, c)
					qb, err2 := r.Isend(b, 300, Byte, 1, 8, c)
					if err1 != nil || err2 != nil {
						t.Error(err1, err2)
						return
					}
					if _, err := r.Waitall([]*Request{qa, qb}); err != nil {
						t.Error(err)
					}
					return
				}
				for _, q := range [][2]int{{0, AnyTag}, {AnySource, AnyTag}, {0, 7}, {AnySource, 8}} {
					if st, ok := r.Iprobe(q[0], q[1], c); ok {
						t.Errorf("Iprobe(%d, %d) before any send: true, %+v", q[0], q[1], st)
					}
				}
				if err := r.Send(tok, 1, Int32, 0, 1, c); err != nil {
					t.Error(err)
					return
				}
				// The tag filter skips the first message.
				st, err := r.Probe(0, 8, c)
				if err != nil || st.Source != 0 || st.Tag != 8 || st.Bytes != 300 {
					t.Errorf("Probe(0, 8) = %+v, %v; want source 0 tag 8 300 bytes", st, err)
				}
				// Messages between a pair are ordered, so tag 7 is there too,
				// and it is the first matching a wildcard probe.
				for i := 0; i < 2; i++ {
					st, err = r.Probe(AnySource, AnyTag, c)
					if err != nil || st.Source != 0 || st.Tag != 7 || st.Bytes != 52 {
						t.Errorf("Probe(ANY, ANY) #%d = %+v, %v; want source 0 tag 7 52 bytes", i, st, err)
					}
				}
				if st, ok := r.Iprobe(0, 7, c); !ok || st.Tag != 7 || st.Bytes != 52 || st.Source != 0 {
					t.Errorf("Iprobe(0, 7) = %+v, %v; want the 52-byte message", st, ok)
				}
				buf := r.MustAlloc(st.Bytes)
				rs, err := r.Recv(buf, st.Bytes, Byte, st.Source, st.Tag, c)
				if err != nil || rs.Bytes != 52 || rs.Tag != 7 {
					t.Errorf("Recv of the probed message: %+v, %v", rs, err)
				}
				if k := semBad(buf.Bytes, 52, 0, 7); k >= 0 {
					t.Errorf("probed message: byte %d wrong", k)
				}
				if st, ok := r.Iprobe(0, 7, c); ok {
					t.Errorf("Iprobe(0, 7) after receiving it: true, %+v", st)
				}
				if st, ok := r.Iprobe(AnySource, AnyTag, c); !ok || st.Tag != 8 {
					t.Errorf("Iprobe(ANY, ANY) = %+v, %v; want the tag-8 message", st, ok)
				}
				big := r.MustAlloc(300)
				if rs, err := r.Recv(big, 300, Byte, 0, 8, c); err != nil || rs.Bytes != 300 {
					t.Errorf("Recv tag 8: %+v, %v", rs, err)
				} else if k := semBad(big.Bytes, 300, 0, 8); k >= 0 {
					t.Errorf("tag-8 message: byte %d wrong", k)
				}
				if st, ok := r.Iprobe(AnySource, AnyTag, c); ok {
					t.Errorf("Iprobe after receiving everything: %+v", st)
				}
			})
			semRun(t, w)
		})
	}
}

// ---------------------------------------------------------------------------
// 4. Send modes.

type semSender func(r *Rank, b Buffer, n, dest, tag int, c *Comm) (*Request, error)

var semModes = []struct {
	name     string
	ready    bool // needs the receive posted
	buffered bool
	send     semSender
}{
	{"Send", false, false, func(r *Rank, b Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return nil, r.Send(b, n, Byte, d, tg, c)
	}},
	{"Ssend", false, false, func(r *Rank, b Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return nil, r.Ssend(b, n, Byte, d, tg, c)
	}},
	{"Rsend", true, false, func(r *Rank, b Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return nil, r.Rsend(b, n, Byte, d, tg, c)
	}},
	{"Bsend", false, true, func(r *Rank, b Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return nil, r.Bsend(b, n, Byte, d, tg, c)
	}},
	{"Isend", false, false, func(r *Rank, b Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return r.Isend(b, n, Byte, d, tg, c)
	}},
	{"Issend", false, false, func(r *Rank, b Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return r.Issend(b, n, Byte, d, tg, c)
	}},
	{"Irsend", true, false, func(r *Rank, b Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return r.Irsend(b, n, Byte, d, tg, c)
	}},
	{"Ibsend", false, true, func(r *Rank, b Buffer, n, d, tg int, c *Comm) (*Request, error) {
		return r.Ibsend(b, n, Byte, d, tg, c)
	}},
}

// TestSemSendModes sends with every mode to a pre-posted receive (posted
// before a token tells the sender to go, as Rsend needs), overwrites the
// send buffer once the send is complete and checks the receiver still got
// the original data.
func TestSemSendModes(t *testing.T) {
	for _, proto := range Protocols {
		for _, m := range semModes {
			for _, n := range []int{40, 400} {
				t.Run(fmt.Sprintf("%s/%s/%d", proto, m.name, n), func(t *testing.T) {
					w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						tok := r.MustAlloc(4)
						if r.Rank() == 1 {
							buf := r.MustAlloc(n)
							q, err := r.Irecv(buf, n, Byte, 0, 5, c)
							if err != nil {
								t.Error(err)
								return
							}
							if err := r.Send(tok, 1, Int32, 0, 99, c); err != nil {
								t.Error(err)
								return
							}
							st, err := r.Wait(q)
							if err != nil || st.Source != 0 || st.Tag != 5 || st.Bytes != n {
								t.Errorf("Wait: %+v, %v", st, err)
							}
							if k := semBad(buf.Bytes, n, 0, 1); k >= 0 {
								t.Errorf("byte %d is not what was sent (send buffer reused after completion?)", k)
							}
							return
						}
						var attach Buffer
						if m.buffered {
							attach = r.MustAlloc(n + 64)
							if err := r.BufferAttach(attach); err != nil {
								t.Error(err)
								return
							}
						}
						if _, err := r.Recv(tok, 1, Int32, 1, 99, c); err != nil {
							t.Error(err)
							return
						}
						b := r.MustAlloc(n)
						semFill(b, n, 0, 1)
						q, err := m.send(r, b, n, 1, 5, c)
						if err != nil {
							t.Errorf("%s: %v", m.name, err)
							return
						}
						if q != nil {
							if _, err := r.Wait(q); err != nil {
								t.Errorf("Wait on %s: %v", m.name, err)
							}
						}
						semSet(b.Bytes, 0xff) // the send is complete: the buffer is ours
						if m.buffered {
							got, err := r.BufferDetach()
							if err != nil || got.Addr != attach.Addr || got.Len() != attach.Len() {
								t.Errorf("BufferDetach = %d bytes at %d, %v; want %d bytes at %d", got.Len(), got.Addr, err, attach.Len(), attach.Addr)
							}
						}
					})
					semRun(t, w)
				})
			}
		}
	}
}

// TestSemCompletionSemantics checks when sends complete against a receive
// posted late: synchronous sends not before the receive is posted, buffered
// sends (and short eager standard sends) at once.
func TestSemCompletionSemantics(t *testing.T) {
	const delay = 30_000
	cases := []struct {
		name string
		run  func(r *Rank, b Buffer, n int, c *Comm) error
		// sync: completes only after the receive is posted; early: before it.
		sync, early func(proto string, n int) bool
	}{
		{"Ssend", func(r *Rank, b Buffer, n int, c *Comm) error {
			return r.Ssend(b, n, Byte, 1, 5, c)
		}, func(string, int) bool { return true }, func(string, int) bool { return false }},
		{"Issend+Wait", func(r *Rank, b Buffer, n int, c *Comm) error {
			q, err := r.Issend(b, n, Byte, 1, 5, c)
			if err != nil {
				return err
			}
			_, err = r.Wait(q)
			return err
		}, func(string, int) bool { return true }, func(string, int) bool { return false }},
		{"Bsend", func(r *Rank, b Buffer, n int, c *Comm) error {
			if err := r.BufferAttach(r.MustAlloc(n + 16)); err != nil {
				return err
			}
			return r.Bsend(b, n, Byte, 1, 5, c)
		}, func(string, int) bool { return false }, func(string, int) bool { return true }},
		{"Ibsend+Wait", func(r *Rank, b Buffer, n int, c *Comm) error {
			if err := r.BufferAttach(r.MustAlloc(n + 16)); err != nil {
				return err
			}
			q, err := r.Ibsend(b, n, Byte, 1, 5, c)
			if err != nil {
				return err
			}
			_, err = r.Wait(q)
			return err
		}, func(string, int) bool { return false }, func(string, int) bool { return true }},
		{"Send", func(r *Rank, b Buffer, n int, c *Comm) error {
			return r.Send(b, n, Byte, 1, 5, c)
		}, func(string, int) bool { return false }, func(p string, n int) bool { return p == "eager" && n <= semEagerBytes }},
	}
	for _, proto := range Protocols {
		for _, cs := range cases {
			for _, n := range []int{40, 400} {
				t.Run(fmt.Sprintf("%s/%s/%d", proto, cs.name, n), func(t *testing.T) {
					w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
					var posted, done int64 = -1, -1
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						b := r.MustAlloc(n)
						if r.Rank() == 1 {
							r.Compute(delay)
							posted = int64(r.Now())
							st, err := r.Recv(b, n, Byte, 0, 5, c)
							if err != nil || st.Bytes != n {
								t.Errorf("Recv: %+v, %v", st, err)
							}
							if k := semBad(b.Bytes, n, 0, 3); k >= 0 {
								t.Errorf("byte %d wrong", k)
							}
							return
						}
						semFill(b, n, 0, 3)
						err := cs.run(r, b, n, c)
						done = int64(r.Now())
						if err != nil {
							t.Error(err)
						}
					})
					semRun(t, w)
					if cs.sync(proto, n) && done <= posted {
						t.Errorf("%s completed at cycle %d, before the receive was posted at %d", cs.name, done, posted)
					}
					if cs.early(proto, n) && done >= posted {
						t.Errorf("%s completed at cycle %d, not before the receive was posted at %d", cs.name, done, posted)
					}
				})
			}
		}
	}
}

// TestSemPollingLoopsMakeProgress polls with Test, Testall and Iprobe,
// computing between the calls, while the peer starts its side of the
// exchange late. MPI's progress rule: once the peer's matching call is
// made, repeated Test (Testall, Iprobe) calls must eventually succeed. The
// loops are bounded at far more simulated time than the exchange needs, so
// a library that never progresses fails instead of hanging; the program
// then finishes the exchange with Wait.
func TestSemPollingLoopsMakeProgress(t *testing.T) {
	const delay, maxPolls, pollCompute = 20_000, 400, 500
	type poller func(r *Rank, c *Comm, n int) (polls int, ok bool)
	pollTest := func(q *Request, r *Rank) (int, bool) {
		for polls := 0; polls < maxPolls; polls++ {
			ok, _, err := r.Test(q)
			if err != nil {
				t.Error(err)
			}
			if ok {
				return polls, true
			}
			r.Compute(pollCompute)
		}
		r.Wait(q)
		return maxPolls, false
	}
	cases := []struct {
		name   string
		sender bool // the poller is the sender (rank 0); else the receiver (rank 1)
		poll   poller
	}{
		{"Isend+Test", true, func(r *Rank, c *Comm, n int) (int, bool) {
			b := r.MustAlloc(n)
			semFill(b, n, 0, 0)
			q, err := r.Isend(b, n, Byte, 1, 1, c)
			if err != nil {
				t.Error(err)
				return 0, true
			}
			return pollTest(q, r)
		}},
		{"Issend+Test", true, func(r *Rank, c *Comm, n int) (int, bool) {
			b := r.MustAlloc(n)
			semFill(b, n, 0, 0)
			q, err := r.Issend(b, n, Byte, 1, 1, c)
			if err != nil {
				t.Error(err)
				return 0, true
			}
			return pollTest(q, r)
		}},
		{"Irecv+Test", false, func(r *Rank, c *Comm, n int) (int, bool) {
			b := r.MustAlloc(n)
			q, err := r.Irecv(b, n, Byte, 0, 1, c)
			if err != nil {
				t.Error(err)
				return 0, true
			}
			polls, ok := pollTest(q, r)
			if k := semBad(b.Bytes, n, 0, 0); k >= 0 {
				t.Errorf("received byte %d wrong", k)
			}
			return polls, ok
		}},
		{"Irecv+Testall", false, func(r *Rank, c *Comm, n int) (int, bool) {
			b := r.MustAlloc(n)
			q, err := r.Irecv(b, n, Byte, 0, 1, c)
			if err != nil {
				t.Error(err)
				return 0, true
			}
			for polls := 0; polls < maxPolls; polls++ {
				if ok, _, _ := r.Testall([]*Request{q}); ok {
					return polls, true
				}
				r.Compute(pollCompute)
			}
			r.Wait(q)
			return maxPolls, false
		}},
		{"Iprobe", false, func(r *Rank, c *Comm, n int) (int, bool) {
			b := r.MustAlloc(n)
			defer func() {
				if _, err := r.Recv(b, n, Byte, 0, 1, c); err != nil {
					t.Error(err)
				}
			}()
			for polls := 0; polls < maxPolls; polls++ {
				if st, ok := r.Iprobe(0, 1, c); ok {
					if st.Bytes != n || st.Tag != 1 || st.Source != 0 {
						t.Errorf("Iprobe: %+v", st)
					}
					return polls, true
				}
				r.Compute(pollCompute)
			}
			return maxPolls, false
		}},
	}
	for _, proto := range Protocols {
		for _, cs := range cases {
			for _, n := range []int{40, 400} {
				t.Run(fmt.Sprintf("%s/%s/%d", proto, cs.name, n), func(t *testing.T) {
					w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
					var polls int
					var ok bool
					var peerAt int64
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						poller := 1
						if cs.sender {
							poller = 0
						}
						if r.Rank() == poller {
							polls, ok = cs.poll(r, c, n)
							return
						}
						r.Compute(delay)
						peerAt = int64(r.Now())
						b := r.MustAlloc(n)
						if cs.sender {
							if _, err := r.Recv(b, n, Byte, 0, 1, c); err != nil {
								t.Error(err)
							}
							return
						}
						semFill(b, n, 0, 0)
						if err := r.Send(b, n, Byte, 1, 1, c); err != nil {
							t.Error(err)
						}
					})
					semRun(t, w)
					if !ok {
						t.Errorf("%s polled %d times (%d cycles of computation between calls) and never completed, though the peer made its matching call at cycle %d",
							cs.name, polls, maxPolls*pollCompute, peerAt)
					}
				})
			}
		}
	}
}

// TestSemWaitanyWaitallTestall: rank 0 has nine requests in flight
// (sends and receives to three peers that answer at different times).
func TestSemWaitanyWaitallTestall(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, cfgFor(proto), nil)
			sizeTo := func(dst, tag int) int { return 40 + 180*(tag-1) + dst }
			sizeFrom := func(src int) int { return 100 * src }
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				me := r.Rank()
				if me != 0 {
					r.Compute(int64(3000 * me))
					for tag := 1; tag <= 2; tag++ {
						b := r.MustAlloc(sizeTo(me, tag))
						st, err := r.Recv(b, sizeTo(me, tag), Byte, 0, tag, c)
						if err != nil || st.Bytes != sizeTo(me, tag) {
							t.Errorf("rank %d tag %d: %+v %v", me, tag, st, err)
						} else if k := semBad(b.Bytes, st.Bytes, 0, 10*me+tag); k >= 0 {
							t.Errorf("rank %d tag %d: byte %d wrong", me, tag, k)
						}
					}
					b := r.MustAlloc(sizeFrom(me))
					semFill(b, sizeFrom(me), me, 3)
					if err := r.Send(b, sizeFrom(me), Byte, 0, 3, c); err != nil {
						t.Error(err)
					}
					// Testall phase.
					r.Compute(5000)
					semFill(b, sizeFrom(me), me, 4)
					if err := r.Send(b, sizeFrom(me), Byte, 0, 4, c); err != nil {
						t.Error(err)
					}
					// Waitall phase.
					b5 := r.MustAlloc(64)
					if st, err := r.Recv(b5, 64, Byte, 0, 5, c); err != nil || st.Bytes != 64 {
						t.Errorf("rank %d tag 5: %+v %v", me, st, err)
					} else if k := semBad(b5.Bytes, 64, 0, 50+me); k >= 0 {
						t.Errorf("rank %d tag 5: byte %d wrong", me, k)
					}
					return
				}
				type slot struct {
					send         bool
					peer, tag, n int
					buf          Buffer
				}
				var slots []slot
				var qs []*Request
				for dst := 1; dst <= 3; dst++ {
					for tag := 1; tag <= 2; tag++ {
						n := sizeTo(dst, tag)
						b := r.MustAlloc(n)
						semFill(b, n, 0, 10*dst+tag)
						q, err := r.Isend(b, n, Byte, dst, tag, c)
						if err != nil {
							t.Error(err)
							return
						}
						slots, qs = append(slots, slot{true, dst, tag, n, b}), append(qs, q)
					}
				}
				for src := 3; src >= 1; src-- {
					b := r.MustAlloc(400)
					q, err := r.Irecv(b, 400, Byte, src, 3, c)
					if err != nil {
						t.Error(err)
						return
					}
					slots, qs = append(slots, slot{false, src, 3, sizeFrom(src), b}), append(qs, q)
				}
				seen := map[int]int{}
				for i := 0; i < len(qs); i++ {
					idx, st, err := r.Waitany(qs)
					if err != nil {
						t.Errorf("Waitany: %v", err)
					}
					if idx < 0 || idx >= len(qs) {
						t.Errorf("Waitany call %d returned index %d", i, idx)
						return
					}
					seen[idx]++
					if s := slots[idx]; !s.send {
						if st.Source != s.peer || st.Tag != 3 || st.Bytes != s.n {
							t.Errorf("Waitany index %d: status %+v, want source %d tag 3 bytes %d", idx, st, s.peer, s.n)
						} else if k := semBad(s.buf.Bytes, s.n, s.peer, 3); k >= 0 {
							t.Errorf("Waitany index %d: byte %d wrong", idx, k)
						}
					}
				}
				for i := range qs {
					if seen[i] != 1 {
						t.Errorf("Waitany returned index %d %d times", i, seen[i])
					}
				}
				if idx, _, err := r.Waitany(qs); idx != Undefined || err != nil {
					t.Errorf("Waitany with every request complete = %d, %v; want MPI_UNDEFINED", idx, err)
				}

				// Testall, polled.
				qs = qs[:0]
				var bufs []Buffer
				for src := 1; src <= 3; src++ {
					b := r.MustAlloc(400)
					q, err := r.Irecv(b, 400, Byte, src, 4, c)
					if err != nil {
						t.Error(err)
						return
					}
					qs, bufs = append(qs, q), append(bufs, b)
				}
				// The loop yields the processor explicitly (suspendThread)
				// so handler threads run: this checks Testall's results;
				// TestSemPollingLoopsMakeProgress checks progress without
				// the yield.
				polls := 0
				for polls < 2000 {
					ok, sts, err := r.Testall(qs)
					if err != nil {
						t.Error(err)
					}
					if ok {
						for i, st := range sts {
							src := i + 1
							if st.Source != src || st.Tag != 4 || st.Bytes != sizeFrom(src) {
								t.Errorf("Testall status %d: %+v", i, st)
							} else if k := semBad(bufs[i].Bytes, sizeFrom(src), src, 4); k >= 0 {
								t.Errorf("Testall request %d: byte %d wrong", i, k)
							}
						}
						break
					}
					if sts != nil {
						t.Errorf("Testall false with statuses %v", sts)
					}
					polls++
					r.Compute(300)
					r.Thread().Suspend()
				}
				if polls == 2000 {
					t.Errorf("Testall never completed")
					r.Waitall(qs)
				}
				if polls == 0 {
					t.Errorf("Testall complete at the first poll; the peers wait 5000 cycles before sending")
				}

				// Waitall.
				qs = qs[:0]
				for dst := 1; dst <= 3; dst++ {
					b := r.MustAlloc(64)
					semFill(b, 64, 0, 50+dst)
					q, err := r.Isend(b, 64, Byte, dst, 5, c)
					if err != nil {
						t.Error(err)
						return
					}
					qs = append(qs, q)
				}
				// A nil request (MPI_REQUEST_NULL) is skipped.
				qs = append(qs[:1], append([]*Request{nil}, qs[1:]...)...)
				if sts, err := r.Waitall(qs); err != nil || len(sts) != 4 || sts[1] != (Status{}) {
					t.Errorf("Waitall with a nil request: %v, %v", sts, err)
				}
			})
			semRun(t, w)
		})
	}
}

// TestSemSendrecvRing: every rank exchanges with both neighbours of a ring
// at once; blocking Sendrecv must not deadlock.
func TestSemSendrecvRing(t *testing.T) {
	for _, proto := range Protocols {
		for _, p := range []int{5, 8} {
			for _, n := range []int{64, 600} {
				t.Run(fmt.Sprintf("%s/P%d/%d", proto, p, n), func(t *testing.T) {
					w := job(t, 4, 2, semProcs(cfgFor(proto), p), nil)
					done := 0
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						me := r.Rank()
						right, left := (me+1)%p, (me+p-1)%p
						sb, rb := r.MustAlloc(n), r.MustAlloc(n)
						for round, dir := range []struct{ to, from, tag int }{{right, left, 7}, {left, right, 8}} {
							semFill(sb, n, me, round)
							semSet(rb.Bytes, 0)
							st, err := r.Sendrecv(sb, n, Byte, dir.to, dir.tag, rb, n, Byte, dir.from, dir.tag, c)
							if err != nil || st.Source != dir.from || st.Tag != dir.tag || st.Bytes != n {
								t.Errorf("rank %d round %d: %+v, %v", me, round, st, err)
								continue
							}
							if k := semBad(rb.Bytes, n, dir.from, round); k >= 0 {
								t.Errorf("rank %d round %d: byte %d is not rank %d's", me, round, k, dir.from)
							}
						}
						done++
					})
					semRun(t, w)
					if done != p {
						t.Errorf("%d of %d ranks finished", done, p)
					}
				})
			}
		}
	}
}

// ---------------------------------------------------------------------------
// 5. Truncation.

func TestSemTruncation(t *testing.T) {
	const sentinel = 0xee
	cases := []struct{ msg, capacity int }{
		{200, 64}, // rendezvous everywhere
		{100, 40}, // eager under eager
		{50, 30},  // capacity not a whole number of words
		{400, 130},
	}
	for _, proto := range Protocols {
		for _, cs := range cases {
			t.Run(fmt.Sprintf("%s/%d-into-%d", proto, cs.msg, cs.capacity), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					if r.Rank() == 0 {
						b := r.MustAlloc(cs.msg)
						for seq, tag := range []int{5, 6} {
							semFill(b, cs.msg, 0, seq)
							if err := r.Send(b, cs.msg, Byte, 1, tag, c); err != nil {
								t.Errorf("sender, message %d: %v", seq, err)
							}
						}
						semFill(b, 16, 0, 9)
						if err := r.Send(b, 16, Byte, 1, 7, c); err != nil {
							t.Error(err)
						}
						return
					}
					check := func(how string, buf Buffer, st Status, err error, seq, tag int) {
						if semClass(err) != ErrTruncate {
							t.Errorf("%s: error %v, want class %v", how, err, ErrTruncate)
						}
						if st.Source != 0 || st.Tag != tag || st.Bytes != cs.capacity {
							t.Errorf("%s: status %+v, want source 0 tag %d bytes %d", how, st, tag, cs.capacity)
						}
						if k := semBad(buf.Bytes, cs.capacity, 0, seq); k >= 0 {
							t.Errorf("%s: byte %d of the part that fits is wrong", how, k)
						}
						for i := cs.capacity; i < buf.Len(); i++ {
							if buf.Bytes[i] != sentinel {
								t.Errorf("%s: byte %d, past the %d-byte receive, was overwritten (%#x)", how, i, cs.capacity, buf.Bytes[i])
								break
							}
						}
					}
					// The Irecv is posted before anything arrives; the Recv
					// may find its message waiting or not.
					buf, buf2 := r.MustAlloc(cs.capacity+16), r.MustAlloc(cs.capacity+16)
					semSet(buf.Bytes, sentinel)
					semSet(buf2.Bytes, sentinel)
					q, err := r.Irecv(buf2, cs.capacity, Byte, 0, 6, c)
					if err != nil {
						t.Error(err)
						return
					}
					st, err := r.Recv(buf, cs.capacity, Byte, 0, 5, c)
					check("Recv", buf, st, err, 0, 5)
					st, err = r.Wait(q)
					check("Irecv+Wait", buf2, st, err, 1, 6)
					// The job goes on.
					small := r.MustAlloc(16)
					st, err = r.Recv(small, 16, Byte, 0, 7, c)
					if err != nil || st.Bytes != 16 || semBad(small.Bytes, 16, 0, 9) >= 0 {
						t.Errorf("message after the truncations: %+v, %v", st, err)
					}
				})
				semRun(t, w)
			})
		}
	}
}

// TestSemShortMessageLeavesRestOfReceiveBuffer: MPI modifies only the bytes
// of a message shorter than its receive buffer (MPI-3.1 section 3.2.4).
func TestSemShortMessageLeavesRestOfReceiveBuffer(t *testing.T) {
	for _, proto := range Protocols {
		for _, n := range []int{5, 131} {
			t.Run(fmt.Sprintf("%s/%d", proto, n), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				capacity := (n + 3) &^ 3
				var got []byte
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					if r.Rank() == 0 {
						b := r.MustAlloc(capacity)
						semSet(b.Bytes, 0xaa) // bytes after the message
						semFill(b, n, 0, 0)
						if err := r.Send(b, n, Byte, 1, 1, c); err != nil {
							t.Error(err)
						}
						return
					}
					b := r.MustAlloc(capacity)
					semSet(b.Bytes, 0xee)
					st, err := r.Recv(b, capacity, Byte, 0, 1, c)
					if err != nil || st.Bytes != n {
						t.Errorf("Recv: %+v, %v", st, err)
					}
					if k := semBad(b.Bytes, n, 0, 0); k >= 0 {
						t.Errorf("byte %d wrong", k)
					}
					got = append(got, b.Bytes[n:]...)
				})
				semRun(t, w)
				for i, v := range got {
					if v != 0xee {
						t.Errorf("a %d-byte message into a %d-byte receive changed byte %d past its end to %#x (the sender's memory after its buffer)", n, capacity, n+i, v)
					}
				}
			})
		}
	}
}

// ---------------------------------------------------------------------------
// 6. Ready send without a posted receive.

func TestSemRsendWithoutReceiveIsErroneous(t *testing.T) {
	for _, proto := range Protocols {
		for _, n := range []int{16, 400} {
			for _, nb := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%d/nonblocking=%v", proto, n, nb), func(t *testing.T) {
					w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						b := r.MustAlloc(n)
						if r.Rank() == 1 {
							// Waiting in a receive for another tag, so the
							// library handles the ready send as it arrives.
							r.Recv(b, n, Byte, 0, 50, c)
							r.Recv(b, n, Byte, 0, 3, c)
							return
						}
						if nb {
							if q, err := r.Irsend(b, n, Byte, 1, 3, c); err == nil {
								r.Send(b, n, Byte, 1, 50, c)
								r.Wait(q)
							}
							return
						}
						r.Rsend(b, n, Byte, 1, 3, c)
						r.Send(b, n, Byte, 1, 50, c)
					})
					err := w.Run()
					if err == nil {
						t.Fatal("run succeeded; a ready send before its receive is erroneous")
					}
					if msg := err.Error(); !strings.Contains(msg, "MPI_Rsend") || !strings.Contains(msg, "erroneous") {
						t.Errorf("error %q does not name MPI_Rsend as erroneous", msg)
					}
				})
			}
		}
	}
}

// ---------------------------------------------------------------------------
// 7. Deadlock reports.

func TestSemDeadlockSsendPair(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				b := r.MustAlloc(64)
				peer := 1 - r.Rank()
				r.Ssend(b, 64, Byte, peer, 4, c)
				r.Recv(b, 64, Byte, peer, 4, c)
			})
			err := w.Run()
			var dl *DeadlockError
			if !errors.As(err, &dl) {
				t.Fatalf("run: %v, want a *DeadlockError", err)
			}
			for _, want := range []string{
				"rank 0 in MPI_Ssend(dest=1", "rank 1 in MPI_Ssend(dest=0",
				"unmatched: rank 0 MPI_Ssend(dest=1, tag=4", "unmatched: rank 1 MPI_Ssend(dest=0, tag=4",
			} {
				if !strings.Contains(dl.Report, want) {
					t.Errorf("report lacks %q:\n%s", want, dl.Report)
				}
			}
		})
	}
}

func TestSemDeadlockRecvCycle(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), 3), nil)
			w.Launch(func(r *Rank) {
				b := r.MustAlloc(8)
				r.Recv(b, 8, Byte, (r.Rank()+1)%3, 0, r.CommWorld())
			})
			err := w.Run()
			var dl *DeadlockError
			if !errors.As(err, &dl) {
				t.Fatalf("run: %v, want a *DeadlockError", err)
			}
			for i := 0; i < 3; i++ {
				want := fmt.Sprintf("rank %d in MPI_Recv(source=%d", i, (i+1)%3)
				if !strings.Contains(dl.Report, want) {
					t.Errorf("report lacks %q:\n%s", want, dl.Report)
				}
			}
			if strings.Contains(dl.Report, "unmatched") {
				t.Errorf("report lists unmatched sends, but nothing was sent:\n%s", dl.Report)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// 8. Communicators.

func TestSemCommDupIsolation(t *testing.T) {
	for _, proto := range Protocols {
		for _, dupFirst := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dup-sent-first=%v", proto, dupFirst), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				const n = 48
				w.Launch(func(r *Rank) {
					world := r.CommWorld()
					dup, err := r.CommDup(world)
					if err != nil {
						t.Error(err)
						return
					}
					if dup.Size() != 2 || dup.Rank() != r.Rank() {
						t.Errorf("dup: size %d rank %d", dup.Size(), dup.Rank())
					}
					if cmp := CommCompare(world, dup); cmp != Congruent {
						t.Errorf("CommCompare(world, dup) = %v, want MPI_CONGRUENT", cmp)
					}
					tok := r.MustAlloc(4)
					if r.Rank() == 0 {
						if _, err := r.Recv(tok, 1, Int32, 1, 9, world); err != nil {
							t.Error(err)
							return
						}
						wb, db := r.MustAlloc(n), r.MustAlloc(n)
						semFill(wb, n, 0, 1) // world payload
						semFill(db, n, 0, 2) // dup payload
						order := []struct {
							b Buffer
							c *Comm
						}{{wb, world}, {db, dup}}
						if dupFirst {
							order[0], order[1] = order[1], order[0]
						}
						var qs []*Request
						for _, o := range order {
							q, err := r.Isend(o.b, n, Byte, 1, 5, o.c)
							if err != nil {
								t.Error(err)
								return
							}
							qs = append(qs, q)
						}
						if _, err := r.Waitall(qs); err != nil {
							t.Error(err)
						}
						// An unreceived message on dup is invisible on world.
						semFill(db, n, 0, 3)
						if err := r.Send(db, n, Byte, 1, 6, dup); err != nil {
							t.Error(err)
						}
						return
					}
					wb, db := r.MustAlloc(n), r.MustAlloc(n)
					// The receive on the other communicator is posted first,
					// so a context-blind match would take the wrong message.
					first, second := dup, world
					firstB, secondB := db, wb
					if dupFirst {
						first, second, firstB, secondB = world, dup, wb, db
					}
					q1, err1 := r.Irecv(firstB, n, Byte, 0, 5, first)
					q2, err2 := r.Irecv(secondB, n, Byte, 0, 5, second)
					if err1 != nil || err2 != nil {
						t.Error(err1, err2)
						return
					}
					if err := r.Send(tok, 1, Int32, 0, 9, world); err != nil {
						t.Error(err)
						return
					}
					if _, err := r.Waitall([]*Request{q1, q2}); err != nil {
						t.Error(err)
					}
					if k := semBad(wb.Bytes, n, 0, 1); k >= 0 {
						t.Errorf("the MPI_COMM_WORLD receive did not get the world message (byte %d)", k)
					}
					if k := semBad(db.Bytes, n, 0, 2); k >= 0 {
						t.Errorf("the dup receive did not get the dup message (byte %d)", k)
					}
					st, err := r.Probe(0, 6, dup)
					if err != nil || st.Tag != 6 || st.Bytes != n {
						t.Errorf("Probe on dup: %+v, %v", st, err)
					}
					if st, ok := r.Iprobe(0, 6, world); ok {
						t.Errorf("Iprobe on world sees a dup message: %+v", st)
					}
					if st, ok := r.Iprobe(AnySource, AnyTag, world); ok {
						t.Errorf("Iprobe(ANY, ANY) on world sees a dup message: %+v", st)
					}
					if _, err := r.Recv(db, n, Byte, 0, 6, dup); err != nil || semBad(db.Bytes, n, 0, 3) >= 0 {
						t.Errorf("Recv on dup: %v", err)
					}
				})
				semRun(t, w)
			})
		}
	}
}

func TestSemCommSplit(t *testing.T) {
	const p = 7
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 4, 2, semProcs(cfgFor(proto), p), nil)
			// Model: color = rank%2, key = -rank, so each half is in
			// decreasing world-rank order.
			members := map[int][]int{}
			for wr := p - 1; wr >= 0; wr-- {
				members[wr%2] = append(members[wr%2], wr)
			}
			w.Launch(func(r *Rank) {
				world := r.CommWorld()
				me := r.Rank()
				c, err := r.CommSplit(world, me%2, -me)
				if err != nil || c == nil {
					t.Errorf("rank %d: CommSplit: %v, %v", me, c, err)
					return
				}
				want := members[me%2]
				wantRank := slices.Index(want, me)
				if c.Size() != len(want) || c.Rank() != wantRank || !slices.Equal(c.Group().Members(), want) {
					t.Errorf("rank %d: size %d rank %d members %v; want %d %d %v", me, c.Size(), c.Rank(), c.Group().Members(), len(want), wantRank, want)
					return
				}
				if cmp := CommCompare(c, world); cmp != Unequal {
					t.Errorf("CommCompare(half, world) = %v, want MPI_UNEQUAL", cmp)
				}
				if cmp := CommCompare(c, c); cmp != Ident {
					t.Errorf("CommCompare(c, c) = %v, want MPI_IDENT", cmp)
				}
				// Ring in the new communicator, by comm rank.
				n := len(want)
				to, from := (wantRank+1)%n, (wantRank+n-1)%n
				sb, rb := r.MustAlloc(4), r.MustAlloc(4)
				sb.SetInt32(0, int32(me))
				st, err := r.Sendrecv(sb, 1, Int32, to, 2, rb, 1, Int32, from, 2, c)
				if err != nil || st.Source != from || st.Tag != 2 || int(rb.Int32(0)) != want[from] {
					t.Errorf("rank %d: ring on split comm: %+v %v got world rank %d, want source %d (world %d)", me, st, err, rb.Int32(0), from, want[from])
				}
				// Wildcard source reports the comm rank.
				if wantRank == 0 {
					for i := 1; i < n; i++ {
						st, err := r.Recv(rb, 1, Int32, AnySource, 3, c)
						if err != nil || st.Source < 1 || st.Source >= n || int(rb.Int32(0)) != want[st.Source] {
							t.Errorf("ANY_SOURCE on split comm: %+v %v payload world rank %d", st, err, rb.Int32(0))
						}
					}
				} else if err := r.Send(sb, 1, Int32, 0, 3, c); err != nil {
					t.Error(err)
				}

				// Same members, same order: congruent; reversed: similar.
				same, err := r.CommSplit(world, 0, me)
				if err != nil || same == nil {
					t.Errorf("CommSplit same: %v", err)
					return
				}
				if cmp := CommCompare(world, same); cmp != Congruent {
					t.Errorf("CommCompare(world, split in order) = %v, want MPI_CONGRUENT", cmp)
				}
				rev, err := r.CommSplit(world, 5, p-me)
				if err != nil || rev == nil {
					t.Errorf("CommSplit reversed: %v", err)
					return
				}
				if rev.Rank() != p-1-me {
					t.Errorf("reversed split: rank %d, want %d", rev.Rank(), p-1-me)
				}
				if cmp := CommCompare(world, rev); cmp != Similar {
					t.Errorf("CommCompare(world, reversed) = %v, want MPI_SIMILAR", cmp)
				}

				// MPI_UNDEFINED opts out.
				color := 1
				if me == 0 || me == 3 {
					color = Undefined
				}
				u, err := r.CommSplit(world, color, 0)
				if err != nil {
					t.Errorf("rank %d: CommSplit with Undefined: %v", me, err)
					return
				}
				if color == Undefined {
					if u != nil {
						t.Errorf("rank %d: color MPI_UNDEFINED gave a communicator of size %d", me, u.Size())
					}
					return
				}
				var rest []int
				for i := 0; i < p; i++ {
					if i != 0 && i != 3 {
						rest = append(rest, i)
					}
				}
				if u == nil || u.Size() != len(rest) || u.Rank() != slices.Index(rest, me) {
					t.Errorf("rank %d: split without 0 and 3: %v", me, u)
				}
			})
			semRun(t, w)
		})
	}
}

func TestSemCommCreate(t *testing.T) {
	const p = 6
	incl := []int{5, 1, 3} // world ranks, in new-comm order
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 3, 2, semProcs(cfgFor(proto), p), nil)
			got := make([]int, p)
			w.Launch(func(r *Rank) {
				world := r.CommWorld()
				me := r.Rank()
				g, err := GroupIncl(world.Group(), incl)
				if err != nil {
					t.Error(err)
					return
				}
				c, err := r.CommCreate(world, g)
				if err != nil {
					t.Errorf("rank %d: CommCreate: %v", me, err)
					return
				}
				want := slices.Index(incl, me)
				if want < 0 {
					if c != nil {
						t.Errorf("rank %d is not in the group but got a communicator", me)
					}
					got[me] = -1
					return
				}
				if c == nil || c.Size() != len(incl) || c.Rank() != want || !slices.Equal(c.Group().Members(), incl) {
					t.Errorf("rank %d: communicator %v, want rank %d of %v", me, c, want, incl)
					return
				}
				// Comm rank 0 gathers the world ranks from comm ranks 1, 2.
				b := r.MustAlloc(4)
				if want == 0 {
					for i := 1; i < len(incl); i++ {
						st, err := r.Recv(b, 1, Int32, i, 1, c)
						if err != nil || st.Source != i || int(b.Int32(0)) != incl[i] {
							t.Errorf("from comm rank %d: %+v %v payload %d", i, st, err, b.Int32(0))
						}
					}
				} else {
					b.SetInt32(0, int32(me))
					if err := r.Send(b, 1, Int32, 0, 1, c); err != nil {
						t.Error(err)
					}
				}
				got[me] = c.Rank()
			})
			semRun(t, w)
			want := []int{-1, 1, -1, 2, -1, 0}
			if !slices.Equal(got, want) {
				t.Errorf("comm ranks by world rank %v, want %v", got, want)
			}
		})
	}
}

func TestSemCommFree(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
			w.Launch(func(r *Rank) {
				world := r.CommWorld()
				dup, err := r.CommDup(world)
				if err != nil {
					t.Error(err)
					return
				}
				if err := r.CommFree(dup); err != nil {
					t.Errorf("CommFree: %v", err)
				}
				b := r.MustAlloc(8)
				if err := r.Send(b, 2, Int32, 1-r.Rank(), 0, dup); semClass(err) != ErrArg {
					t.Errorf("Send on a freed communicator: %v, want %v", err, ErrArg)
				}
				if _, err := r.Recv(b, 2, Int32, 1-r.Rank(), 0, dup); semClass(err) != ErrArg {
					t.Errorf("Recv on a freed communicator: %v, want %v", err, ErrArg)
				}
				if q, err := r.Isend(b, 2, Int32, 1-r.Rank(), 0, dup); semClass(err) != ErrArg || q != nil {
					t.Errorf("Isend on a freed communicator: %v, %v", q, err)
				}
				if _, err := r.CommDup(dup); semClass(err) != ErrArg {
					t.Errorf("CommDup of a freed communicator: %v", err)
				}
				if err := r.CommFree(dup); err == nil {
					t.Errorf("CommFree twice succeeded")
				}
				if err := r.CommFree(world); semClass(err) != ErrArg {
					t.Errorf("CommFree(MPI_COMM_WORLD): %v", err)
				}
				// World still works.
				if r.Rank() == 0 {
					b.SetInt32(0, 77)
					if err := r.Send(b, 1, Int32, 1, 1, world); err != nil {
						t.Error(err)
					}
				} else if _, err := r.Recv(b, 1, Int32, 0, 1, world); err != nil || b.Int32(0) != 77 {
					t.Errorf("world after the frees: %v, %d", err, b.Int32(0))
				}
			})
			semRun(t, w)
		})
	}
}

// ---------------------------------------------------------------------------
// 9. Derived datatypes through the network.

// semSeg is bytes [off, off+n) of one element, in typemap order.
type semSeg struct{ off, n int }

type semTypeCase struct {
	name  string
	build func() (*Datatype, error)
	segs  []semSeg // one element, in typemap order, worked out by hand
	count int
	align int // the largest basic type's size: the extent is padded to it
}

func (c semTypeCase) lbub() (lb, ub int) {
	lb, ub = c.segs[0].off, c.segs[0].off+c.segs[0].n
	for _, s := range c.segs {
		lb, ub = min(lb, s.off), max(ub, s.off+s.n)
	}
	return
}

// extent is the data's extent rounded up to the alignment (MPI-3.1 4.1.6).
func (c semTypeCase) extent() int {
	lb, ub := c.lbub()
	return (ub - lb + c.align - 1) / c.align * c.align
}

// layout is every byte offset of count elements, in order.
func (c semTypeCase) layout() []int {
	var offs []int
	for i := 0; i < c.count; i++ {
		for _, s := range c.segs {
			for k := 0; k < s.n; k++ {
				offs = append(offs, i*c.extent()+s.off+k)
			}
		}
	}
	return offs
}

func (c semTypeCase) span() int {
	_, ub := c.lbub()
	return (c.count-1)*c.extent() + ub
}

func semRange(off, n, stride, each int) []semSeg {
	var s []semSeg
	for i := 0; i < n; i++ {
		s = append(s, semSeg{off + i*stride, each})
	}
	return s
}

func semTypeCases() []semTypeCase {
	inner := func() (*Datatype, error) { return TypeVector(2, 1, 2, Int32) } // (0,4) (8,4), extent 12
	return []semTypeCase{
		{"contiguous", func() (*Datatype, error) { return TypeContiguous(5, Int32) },
			[]semSeg{{0, 20}}, 3, 4},
		{"contiguous-of-vector", func() (*Datatype, error) {
			v, err := inner()
			if err != nil {
				return nil, err
			}
			return TypeContiguous(3, v)
		}, []semSeg{{0, 4}, {8, 4}, {12, 4}, {20, 4}, {24, 4}, {32, 4}}, 2, 4},
		{"vector", func() (*Datatype, error) { return TypeVector(4, 2, 5, Int32) },
			semRange(0, 4, 20, 8), 2, 4},
		{"vector-words-1", func() (*Datatype, error) { return TypeVector(40, 1, 3, Int32) },
			semRange(0, 40, 12, 4), 1, 4},
		{"vector-words-2", func() (*Datatype, error) { return TypeVector(40, 1, 3, Int32) },
			semRange(0, 40, 12, 4), 2, 4},
		{"hvector", func() (*Datatype, error) { return TypeCreateHvector(3, 1, 24, Float64) },
			semRange(0, 3, 24, 8), 3, 8},
		{"hvector-words", func() (*Datatype, error) { return TypeCreateHvector(50, 1, 12, Float32) },
			semRange(0, 50, 12, 4), 1, 4},
		{"indexed", func() (*Datatype, error) { return TypeIndexed([]int{2, 1, 3}, []int{0, 4, 9}, Int32) },
			[]semSeg{{0, 8}, {16, 4}, {36, 12}}, 2, 4},
		{"indexed-block", func() (*Datatype, error) { return TypeCreateIndexedBlock(2, []int{1, 5, 8}, Float32) },
			[]semSeg{{4, 8}, {20, 8}, {32, 8}}, 3, 4},
		{"indexed-block-words", func() (*Datatype, error) { return TypeCreateIndexedBlock(1, []int{2, 5, 8, 11}, Int32) },
			semRange(8, 4, 12, 4), 1, 4},
		{"hindexed", func() (*Datatype, error) { return TypeCreateHindexed([]int{3, 1}, []int{20, 0}, Int32) },
			[]semSeg{{20, 12}, {0, 4}}, 2, 4},
		{"struct", func() (*Datatype, error) {
			return TypeCreateStruct([]int{1, 2, 1}, []int{0, 8, 24}, []*Datatype{Float64, Int32, Byte})
		}, []semSeg{{0, 8}, {8, 8}, {24, 1}}, 3, 8},
		{"struct-of-vector", func() (*Datatype, error) {
			v, err := inner()
			if err != nil {
				return nil, err
			}
			return TypeCreateStruct([]int{2, 1}, []int{0, 40}, []*Datatype{v, Float64})
		}, []semSeg{{0, 4}, {8, 4}, {12, 4}, {20, 4}, {40, 8}}, 4, 8},
	}
}

func TestSemDatatypesOverNetwork(t *testing.T) {
	const sentinel = 0xee
	cases := semTypeCases()
	for _, proto := range Protocols {
		for _, vdma := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/vector_dma=%v", proto, vdma), func(t *testing.T) {
				cfg := semProcs(cfgFor(proto), 2)
				cfg.VectorDMA = vdma
				w := job(t, 2, 2, cfg, nil)
				types := make([]*Datatype, len(cases))
				for i, cs := range cases {
					dt, err := cs.build()
					if err == nil {
						err = dt.Commit()
					}
					if err != nil {
						t.Fatalf("%s: %v", cs.name, err)
					}
					types[i] = dt
				}
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					for i, cs := range cases {
						dt, offs, span := types[i], cs.layout(), cs.span()
						size := len(offs)
						if r.Rank() == 0 {
							b := r.MustAlloc(span)
							semFill(b, span, 0, i)
							// Send, then Ssend (rendezvous even under eager,
							// so the vector DMA path is taken when enabled).
							if err := r.Send(b, cs.count, dt, 1, 0, c); err != nil {
								t.Errorf("%s: Send: %v", cs.name, err)
							}
							if err := r.Ssend(b, cs.count, dt, 1, 1, c); err != nil {
								t.Errorf("%s: Ssend: %v", cs.name, err)
							}
							continue
						}
						// (a) the same type: exactly the typemap's bytes land.
						in := map[int]bool{}
						for _, o := range offs {
							in[o] = true
						}
						b := r.MustAlloc(span + 16)
						semSet(b.Bytes, sentinel)
						st, err := r.Recv(b, cs.count, dt, 0, 0, c)
						if err != nil || st.Bytes != size || GetCount(st, dt) != cs.count {
							t.Errorf("%s: Recv same type: %+v, %v; want %d bytes, %d elements", cs.name, st, err, size, cs.count)
						}
						for k := range b.Bytes {
							want := byte(sentinel)
							if in[k] {
								want = semByte(0, i, k)
							}
							if b.Bytes[k] != want {
								t.Errorf("%s: same-type receive: byte %d = %#x, want %#x (in typemap: %v)", cs.name, k, b.Bytes[k], want, in[k])
								break
							}
						}
						// (b) as bytes: the typemap's bytes, packed in order.
						p := r.MustAlloc(size + 8)
						semSet(p.Bytes, sentinel)
						st, err = r.Recv(p, size, Byte, 0, 1, c)
						if err != nil || st.Bytes != size {
							t.Errorf("%s: Recv bytes: %+v, %v", cs.name, st, err)
						}
						for k, o := range offs {
							if p.Bytes[k] != semByte(0, i, o) {
								t.Errorf("%s: packed byte %d = %#x, want byte %d of the send buffer (%#x)", cs.name, k, p.Bytes[k], o, semByte(0, i, o))
								break
							}
						}
						for k := size; k < p.Len(); k++ {
							if p.Bytes[k] != sentinel {
								t.Errorf("%s: byte receive wrote byte %d past the message", cs.name, k)
								break
							}
						}
						r.Free(b)
						r.Free(p)
					}
					// Zero elements of a derived type: an empty message.
					vt := types[2]
					b := r.MustAlloc(3 * 68)
					if r.Rank() == 0 {
						if err := r.Send(b, 0, vt, 1, 9, c); err != nil {
							t.Errorf("Send of 0 elements: %v", err)
						}
						return
					}
					semSet(b.Bytes, sentinel)
					st, err := r.Recv(b, 3, vt, 0, 9, c)
					if err != nil || st.Bytes != 0 || GetCount(st, vt) != 0 {
						t.Errorf("Recv of an empty message: %+v, %v", st, err)
					}
					for k, v := range b.Bytes {
						if v != sentinel {
							t.Errorf("an empty message changed byte %d", k)
							break
						}
					}
				})
				semRun(t, w)
			})
		}
	}
}

// TestSemScatterOnReceive sends contiguous Int32s and receives them into a
// strided vector (and a struct), which must scatter them.
func TestSemScatterOnReceive(t *testing.T) {
	const sentinel = 0xee
	for _, proto := range Protocols {
		for _, vdma := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/vector_dma=%v", proto, vdma), func(t *testing.T) {
				cfg := semProcs(cfgFor(proto), 2)
				cfg.VectorDMA = vdma
				w := job(t, 2, 2, cfg, nil)
				var recvTypes []semTypeCase
				for _, cs := range semTypeCases() {
					if cs.name == "vector-words-1" || cs.name == "vector" || cs.name == "indexed-block" {
						recvTypes = append(recvTypes, cs)
					}
				}
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					for i, cs := range recvTypes {
						offs := cs.layout()
						n := len(offs)
						if r.Rank() == 0 {
							b := r.MustAlloc(n)
							semFill(b, n, 0, 20+i)
							if err := r.Send(b, n/4, Int32, 1, i, c); err != nil {
								t.Error(err)
							}
							continue
						}
						dt, err := cs.build()
						if err == nil {
							err = dt.Commit()
						}
						if err != nil {
							t.Error(err)
							return
						}
						b := r.MustAlloc(cs.span() + 8)
						semSet(b.Bytes, sentinel)
						st, err := r.Recv(b, cs.count, dt, 0, i, c)
						if err != nil || st.Bytes != n {
							t.Errorf("%s: %+v, %v", cs.name, st, err)
						}
						want := make([]byte, b.Len())
						semSet(want, sentinel)
						for k, o := range offs {
							want[o] = semByte(0, 20+i, k)
						}
						for k := range want {
							if b.Bytes[k] != want[k] {
								t.Errorf("%s: byte %d = %#x, want %#x", cs.name, k, b.Bytes[k], want[k])
								break
							}
						}
					}
				})
				semRun(t, w)
			})
		}
	}
}

// ---------------------------------------------------------------------------
// 10. Scale.

// semAllToAll has every rank send a distinct payload to every other with
// Isend/Irecv and Waitall.
func semAllToAll(t *testing.T, w *World, p int) {
	size := func(src, dst int) int { return []int{8, 100, 132, 260, 36}[(src+2*dst)%5] }
	seq := func(dst int) int { return 1000 + dst }
	ok := make([]bool, p)
	w.Launch(func(r *Rank) {
		c := r.CommWorld()
		me := r.Rank()
		var qs []*Request
		recvBuf := map[int]Buffer{}
		for k := 1; k < p; k++ {
			src := (me + p - k) % p
			b := r.MustAlloc(size(src, me))
			q, err := r.Irecv(b, size(src, me), Byte, src, 1, c)
			if err != nil {
				t.Error(err)
				return
			}
			recvBuf[src] = b
			qs = append(qs, q)
		}
		for k := 1; k < p; k++ {
			dst := (me + k) % p
			b := r.MustAlloc(size(me, dst))
			semFill(b, size(me, dst), me, seq(dst))
			q, err := r.Isend(b, size(me, dst), Byte, dst, 1, c)
			if err != nil {
				t.Error(err)
				return
			}
			qs = append(qs, q)
		}
		sts, err := r.Waitall(qs)
		if err != nil {
			t.Errorf("rank %d: Waitall: %v", me, err)
			return
		}
		good := true
		for k := 1; k < p; k++ {
			src := (me + p - k) % p
			st := sts[k-1]
			if st.Source != src || st.Tag != 1 || st.Bytes != size(src, me) {
				t.Errorf("rank %d from %d: status %+v", me, src, st)
				good = false
			} else if i := semBad(recvBuf[src].Bytes, size(src, me), src, seq(me)); i >= 0 {
				t.Errorf("rank %d from %d: byte %d wrong", me, src, i)
				good = false
			}
		}
		ok[me] = good
	})
	semRun(t, w)
	for i, g := range ok {
		if !g {
			t.Errorf("rank %d did not check all its data", i)
		}
	}
}

func TestSemAllToAll64(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			semAllToAll(t, job(t, 8, 8, cfgFor(proto), nil), 64)
		})
	}
}

func TestSemAllToAll13(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			semAllToAll(t, job(t, 4, 4, semProcs(cfgFor(proto), 13), nil), 13)
		})
	}
}

// ---------------------------------------------------------------------------
// 11. Wtime and Wtick.

func TestSemWtime(t *testing.T) {
	for _, hz := range []float64{1e9, 2.5e8} {
		for _, proto := range Protocols {
			t.Run(fmt.Sprintf("%s/%g", proto, hz), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), func(c *endpoint.CPUSpec) { c.ClockHz = hz })
				near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					tick := r.Wtick()
					if !near(tick, 1/hz) {
						t.Errorf("Wtick = %g, want %g", tick, 1/hz)
					}
					t0, c0 := r.Wtime(), r.Now()
					if !near(t0, float64(c0)/hz) && !(t0 == 0 && c0 == 0) {
						t.Errorf("Wtime %g at cycle %d, want %g", t0, c0, float64(c0)/hz)
					}
					r.Compute(1000)
					t1 := r.Wtime()
					if !near(t1-t0, 1000*tick) {
						t.Errorf("Wtime after Compute(1000) advanced %g, want %g", t1-t0, 1000*tick)
					}
					b := r.MustAlloc(400)
					if r.Rank() == 0 {
						r.Compute(5000)
						if err := r.Send(b, 400, Byte, 1, 0, c); err != nil {
							t.Error(err)
						}
					} else {
						if _, err := r.Recv(b, 400, Byte, 0, 0, c); err != nil {
							t.Error(err)
						}
						if t2 := r.Wtime(); !(t2 > t1+5000*tick) {
							t.Errorf("Wtime after a Recv that waited 5000 cycles: %g, not after %g", t2, t1+5000*tick)
						}
					}
				})
				semRun(t, w)
			})
		}
	}
}

// ---------------------------------------------------------------------------
// 12. Determinism.

func TestSemDeterminism(t *testing.T) {
	const p, msgs = 9, 60
	type msg struct{ src, dst, tag, n int }
	rng := rand.New(rand.NewPCG(42, 7))
	var plan []msg
	for len(plan) < msgs {
		s, d := rng.IntN(p), rng.IntN(p)
		if s != d {
			plan = append(plan, msg{s, d, rng.IntN(4), 1 + rng.IntN(400)})
		}
	}
	delays := make([]int64, p)
	for i := range delays {
		delays[i] = int64(rng.IntN(2000))
	}
	once := func(t *testing.T, proto string) ([][]Message, int64) {
		w := job(t, 3, 3, cfgFor(proto), nil)
		w.Launch(func(r *Rank) {
			c := r.CommWorld()
			me := r.Rank()
			var qs []*Request
			r.Compute(delays[me])
			for i, m := range plan {
				if m.dst == me {
					q, err := r.Irecv(r.MustAlloc(400), 400, Byte, AnySource, AnyTag, c)
					if err != nil {
						t.Error(err)
						return
					}
					qs = append(qs, q)
				}
				if m.src == me {
					b := r.MustAlloc(m.n)
					semFill(b, m.n, me, i)
					q, err := r.Isend(b, m.n, Byte, m.dst, m.tag, c)
					if err != nil {
						t.Error(err)
						return
					}
					qs = append(qs, q)
					r.Compute(int64(m.n))
				}
			}
			if _, err := r.Waitall(qs); err != nil {
				t.Error(err)
			}
		})
		semRun(t, w)
		logs := make([][]Message, p)
		for i, r := range w.Ranks {
			logs[i] = r.Messages()
		}
		return logs, int64(w.M.Eng.Now())
	}
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			l1, n1 := once(t, proto)
			l2, n2 := once(t, proto)
			if n1 != n2 {
				t.Errorf("end cycle %d, then %d", n1, n2)
			}
			if !reflect.DeepEqual(l1, l2) {
				t.Errorf("message logs differ between identical runs")
			}
			// The logs record every planned message.
			for r := 0; r < p; r++ {
				var want, got []string
				for _, m := range plan {
					if m.dst == r {
						want = append(want, fmt.Sprintf("%d/%d/%d", m.src, m.tag, m.n))
					}
				}
				for _, m := range l1[r] {
					if m.Dest != r {
						t.Errorf("rank %d logged a message for %d", r, m.Dest)
					}
					got = append(got, fmt.Sprintf("%d/%d/%d", m.Source, m.Tag, m.Bytes))
				}
				slices.Sort(want)
				slices.Sort(got)
				if !slices.Equal(want, got) {
					t.Errorf("rank %d received %v, want %v", r, got, want)
				}
			}
		})
	}
}

// ---------------------------------------------------------------------------
// 13. Argument errors.

func TestSemArgumentErrors(t *testing.T) {
	uncommitted, err := TypeVector(2, 1, 2, Int32)
	if err != nil {
		t.Fatal(err)
	}
	freed, err := TypeContiguous(2, Int32)
	if err == nil {
		err = freed.Commit()
	}
	if err == nil {
		err = freed.Free()
	}
	if err != nil {
		t.Fatal(err)
	}
	vec3, err := TypeVector(3, 1, 4, Int32) // span 36 bytes
	if err == nil {
		err = vec3.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	type call func(r *Rank, b Buffer, c *Comm) error
	send := func(n int, dt *Datatype, dst, tag int) call {
		return func(r *Rank, b Buffer, c *Comm) error { return r.Send(b, n, dt, dst, tag, c) }
	}
	isend := func(n int, dt *Datatype, dst, tag int) call {
		return func(r *Rank, b Buffer, c *Comm) error {
			q, err := r.Isend(b, n, dt, dst, tag, c)
			if q != nil {
				return fmt.Errorf("request %v returned with error %v", q, err)
			}
			return err
		}
	}
	recv := func(n int, dt *Datatype, src, tag int) call {
		return func(r *Rank, b Buffer, c *Comm) error { _, err := r.Recv(b, n, dt, src, tag, c); return err }
	}
	irecv := func(n int, dt *Datatype, src, tag int) call {
		return func(r *Rank, b Buffer, c *Comm) error {
			q, err := r.Irecv(b, n, dt, src, tag, c)
			if q != nil {
				return fmt.Errorf("request %v returned with error %v", q, err)
			}
			return err
		}
	}
	const p = 3
	cases := []struct {
		name string
		want Class
		f    call
	}{
		{"Send dest=P", ErrRank, send(1, Int32, p, 0)},
		{"Send dest=-1", ErrRank, send(1, Int32, -1, 0)},
		{"Send dest=ANY_SOURCE", ErrRank, send(1, Int32, AnySource, 0)},
		{"Isend dest=P+5", ErrRank, isend(1, Int32, p+5, 0)},
		{"Recv source=P", ErrRank, recv(1, Int32, p, 0)},
		{"Recv source=-5", ErrRank, recv(1, Int32, -5, 0)},
		{"Irecv source=P", ErrRank, irecv(1, Int32, p, 0)},
		{"Send tag=-1", ErrArg, send(1, Int32, 1, -1)},
		{"Send tag=ANY_TAG", ErrArg, send(1, Int32, 1, AnyTag)},
		{"Recv tag=-3", ErrArg, recv(1, Int32, 1, -3)},
		{"Isend tag=-7", ErrArg, isend(1, Int32, 1, -7)},
		{"Send tag=MPI_TAG_UB+1", ErrArg, send(1, Int32, 1, TagUB+1)},
		{"Isend tag=2^32+5", ErrArg, isend(1, Int32, 1, 1<<32+5)},
		{"Recv tag=MPI_TAG_UB+1", ErrArg, recv(1, Int32, 1, TagUB+1)},
		{"Send count=-1", ErrCount, send(-1, Int32, 1, 0)},
		{"Recv count=-1", ErrCount, recv(-1, Int32, 1, 0)},
		{"Irecv count=-2", ErrCount, irecv(-2, Byte, 1, 0)},
		{"Send uncommitted", ErrType, send(1, uncommitted, 1, 0)},
		{"Recv uncommitted", ErrType, recv(1, uncommitted, 1, 0)},
		{"Send freed type", ErrType, send(1, freed, 1, 0)},
		{"Send nil type", ErrType, send(1, nil, 1, 0)},
		{"Send 10 int32 from 36 bytes", ErrBuffer, send(10, Int32, 1, 0)},
		{"Recv 10 int32 into 36 bytes", ErrBuffer, recv(10, Int32, 1, 0)},
		{"Isend 2 vectors from 36 bytes", ErrBuffer, isend(2, vec3, 1, 0)},
		{"Irecv 5 float64 into 36 bytes", ErrBuffer, irecv(5, Float64, 1, 0)},
		{"Send nil comm", ErrArg, func(r *Rank, b Buffer, c *Comm) error { return r.Send(b, 1, Int32, 1, 0, nil) }},
		{"Bsend unattached", ErrBuffer, func(r *Rank, b Buffer, c *Comm) error { return r.Bsend(b, 1, Int32, 1, 0, c) }},
		{"Bsend too big", ErrBuffer, func(r *Rank, b Buffer, c *Comm) error {
			if err := r.BufferAttach(r.MustAlloc(16)); err != nil {
				return err
			}
			defer r.BufferDetach()
			return r.Bsend(b, 9, Int32, 1, 0, c)
		}},
		{"BufferAttach twice", ErrBuffer, func(r *Rank, b Buffer, c *Comm) error {
			if err := r.BufferAttach(r.MustAlloc(16)); err != nil {
				return err
			}
			defer r.BufferDetach()
			return r.BufferAttach(r.MustAlloc(16))
		}},
		{"Wait nil", ErrArg, func(r *Rank, b Buffer, c *Comm) error { _, err := r.Wait(nil); return err }},
		{"Probe source=P", ErrRank, func(r *Rank, b Buffer, c *Comm) error { _, err := r.Probe(p, 0, c); return err }},
		{"Probe tag=-4", ErrArg, func(r *Rank, b Buffer, c *Comm) error { _, err := r.Probe(1, -4, c); return err }},
		{"Iprobe source=P", ErrRank, func(r *Rank, b Buffer, c *Comm) error {
			st, ok := r.Iprobe(p, 0, c)
			if ok {
				return errors.New("Iprobe of an invalid rank found a message")
			}
			return st.Err
		}},
		{"Sendrecv dest=P", ErrRank, func(r *Rank, b Buffer, c *Comm) error {
			_, err := r.Sendrecv(b, 1, Int32, p, 0, b, 1, Int32, 1, 0, c)
			return err
		}},
	}
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), p), nil)
			finished := 0
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				b := r.MustAlloc(36)
				// Collective calls with bad arguments, on every rank.
				if _, err := r.CommSplit(c, -5, 0); semClass(err) != ErrArg {
					t.Errorf("CommSplit color -5: %v, want %v", err, ErrArg)
				}
				bad, _ := NewGroup([]int{0, 99})
				if _, err := r.CommCreate(c, bad); semClass(err) != ErrGroup {
					t.Errorf("CommCreate with a group not in the communicator: %v, want %v", err, ErrGroup)
				}
				if r.Rank() == 0 {
					for _, cs := range cases {
						err := cs.f(r, b, c)
						if got := semClass(err); got != cs.want {
							t.Errorf("%s: %v (class %v), want class %v", cs.name, err, got, cs.want)
						}
					}
				}
				// Nothing the errors left behind disturbs a real exchange.
				if r.Rank() == 0 {
					for dst := 1; dst < p; dst++ {
						b.SetInt32(0, int32(dst*11))
						if err := r.Send(b, 1, Int32, dst, 0, c); err != nil {
							t.Error(err)
						}
					}
				} else {
					st, err := r.Recv(b, 9, Int32, AnySource, AnyTag, c)
					if err != nil || st.Source != 0 || st.Bytes != 4 || int(b.Int32(0)) != 11*r.Rank() {
						t.Errorf("rank %d after the errors: %+v, %v, %d", r.Rank(), st, err, b.Int32(0))
					}
				}
				finished++
			})
			semRun(t, w)
			if finished != p {
				t.Errorf("%d of %d ranks finished", finished, p)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Posting a receive while envelopes arrive.

// TestSemRecvPostedWhileSendArrives: a receive is matched against the
// unexpected queue, which takes match_cycles per entry, and only then
// posted. A send announced in between must still meet it: under niu the
// RTS is handled by the NIU at arrival, and with preempt_threads a
// handler may run in the middle of the main thread's matching.
func TestSemRecvPostedWhileSendArrives(t *testing.T) {
	const noise, k = 100, 40
	variants := []struct {
		proto   string
		preempt bool
	}{{"niu", false}, {"scmp", true}, {"eager", true}, {"scmp", false}, {"eager", false}}
	for _, v := range variants {
		t.Run(fmt.Sprintf("%s/preempt=%v", v.proto, v.preempt), func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(v.proto), 3), func(c *endpoint.CPUSpec) { c.PreemptThreads = v.preempt })
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				switch r.Rank() {
				case 2:
					// Unreceived-for-now messages that make matching slow.
					b := r.MustAlloc(4)
					var qs []*Request
					for i := 0; i < noise; i++ {
						q, err := r.Isend(b, 1, Int32, 1, 99, c)
						if err != nil {
							t.Error(err)
							return
						}
						qs = append(qs, q)
					}
					r.Waitall(qs)
				case 0:
					r.Compute(20_000)
					var qs []*Request
					for i := 0; i < k; i++ {
						b := r.MustAlloc(200)
						semFill(b, 200, 0, i)
						q, err := r.Isend(b, 200, Byte, 1, i, c)
						if err != nil {
							t.Error(err)
							return
						}
						qs = append(qs, q)
						r.Compute(53)
					}
					r.Waitall(qs)
				case 1:
					r.Compute(15_000) // the noise is queued
					var qs []*Request
					bufs := make([]Buffer, k)
					for i := 0; i < k; i++ {
						bufs[i] = r.MustAlloc(200)
						q, err := r.Irecv(bufs[i], 200, Byte, 0, i, c)
						if err != nil {
							t.Error(err)
							return
						}
						qs = append(qs, q)
					}
					if _, err := r.Waitall(qs); err != nil {
						t.Error(err)
					}
					for i := range bufs {
						if j := semBad(bufs[i].Bytes, 200, 0, i); j >= 0 {
							t.Errorf("message %d: byte %d wrong", i, j)
						}
					}
					b := r.MustAlloc(4)
					for i := 0; i < noise; i++ {
						r.Recv(b, 1, Int32, 2, 99, c)
					}
				}
			})
			semRun(t, w)
		})
	}
}

// ---------------------------------------------------------------------------
// More matching rules.

// TestSemPostedReceivesMatchInPostOrder: an incoming message matches the
// first posted receive that accepts it, wildcard or not.
func TestSemPostedReceivesMatchInPostOrder(t *testing.T) {
	type post struct{ src, tag int }
	cases := []struct {
		name  string
		posts []post
	}{
		{"any-source-first", []post{{AnySource, 1}, {0, 1}}},
		{"specific-first", []post{{0, 1}, {AnySource, 1}}},
		{"any-tag-first", []post{{0, AnyTag}, {0, 1}}},
		{"both-wild-last", []post{{0, 1}, {AnySource, AnyTag}}},
	}
	for _, proto := range Protocols {
		for _, cs := range cases {
			for _, n := range []int{32, 300} {
				t.Run(fmt.Sprintf("%s/%s/%d", proto, cs.name, n), func(t *testing.T) {
					w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
					w.Launch(func(r *Rank) {
						c := r.CommWorld()
						tok := r.MustAlloc(4)
						if r.Rank() == 0 {
							if _, err := r.Recv(tok, 1, Int32, 1, 100, c); err != nil {
								t.Error(err)
								return
							}
							for seq := 0; seq < len(cs.posts); seq++ {
								b := r.MustAlloc(n)
								semFill(b, n, 0, seq)
								if err := r.Send(b, n, Byte, 1, 1, c); err != nil {
									t.Error(err)
								}
							}
							return
						}
						var qs []*Request
						var bufs []Buffer
						for _, p := range cs.posts {
							b := r.MustAlloc(n)
							q, err := r.Irecv(b, n, Byte, p.src, p.tag, c)
							if err != nil {
								t.Error(err)
								return
							}
							qs, bufs = append(qs, q), append(bufs, b)
						}
						if err := r.Send(tok, 1, Int32, 0, 100, c); err != nil {
							t.Error(err)
							return
						}
						if _, err := r.Waitall(qs); err != nil {
							t.Error(err)
						}
						for i, b := range bufs {
							if k := semBad(b.Bytes, n, 0, i); k >= 0 {
								t.Errorf("receive %d (source %d, tag %d) did not get message %d (byte %d)", i, cs.posts[i].src, cs.posts[i].tag, i, k)
							}
						}
					})
					semRun(t, w)
				})
			}
		}
	}
}

// TestSemSelfMessages: a rank may send to itself.
func TestSemSelfMessages(t *testing.T) {
	for _, proto := range Protocols {
		for _, n := range []int{40, 400} {
			t.Run(fmt.Sprintf("%s/%d", proto, n), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 3), nil)
				done := 0
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					me := r.Rank()
					sb, rb := r.MustAlloc(n), r.MustAlloc(n)
					semFill(sb, n, me, 1)
					q, err := r.Isend(sb, n, Byte, me, 1, c)
					if err != nil {
						t.Error(err)
						return
					}
					st, err := r.Recv(rb, n, Byte, me, 1, c)
					if err != nil || st.Source != me || st.Bytes != n || semBad(rb.Bytes, n, me, 1) >= 0 {
						t.Errorf("rank %d: Isend/Recv to self: %+v, %v", me, st, err)
					}
					if _, err := r.Wait(q); err != nil {
						t.Error(err)
					}
					semFill(sb, n, me, 2)
					st, err = r.Sendrecv(sb, n, Byte, me, 2, rb, n, Byte, me, 2, c)
					if err != nil || st.Source != me || st.Tag != 2 || semBad(rb.Bytes, n, me, 2) >= 0 {
						t.Errorf("rank %d: Sendrecv with self: %+v, %v", me, st, err)
					}
					done++
				})
				semRun(t, w)
				if done != 3 {
					t.Errorf("%d of 3 ranks finished", done)
				}
			})
		}
	}
}

// TestSemLargeTags: a tag the library accepts must arrive unchanged (or
// be refused with an error): it must not alias a smaller tag.
func TestSemLargeTags(t *testing.T) {
	for _, proto := range Protocols {
		for _, tag := range []int{math.MaxInt32, 1<<32 + 5} {
			t.Run(fmt.Sprintf("%s/%d", proto, tag), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				var sendErr error
				var got []int
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					b := r.MustAlloc(8)
					if r.Rank() == 0 {
						sendErr = r.Send(b, 2, Int32, 1, tag, c)
						if err := r.Send(b, 1, Int32, 1, 7, c); err != nil {
							t.Error(err)
						}
						return
					}
					for {
						st, err := r.Recv(b, 2, Int32, 0, AnyTag, c)
						if err != nil {
							t.Error(err)
							return
						}
						got = append(got, st.Tag)
						if st.Bytes == 4 {
							return
						}
					}
				})
				semRun(t, w)
				switch {
				case sendErr != nil && semClass(sendErr) != ErrArg:
					t.Errorf("Send with tag %d: %v, want class %v or success", tag, sendErr, ErrArg)
				case sendErr != nil && !slices.Equal(got, []int{7}):
					t.Errorf("Send with tag %d failed, yet the receiver got tags %v", tag, got)
				case sendErr == nil && !slices.Equal(got, []int{tag, 7}):
					t.Errorf("Send with tag %d succeeded; the receiver saw tags %v, want [%d 7]", tag, got, tag)
				}
			})
		}
	}
}

// TestSemCommOpsProcsBelowTiles: with fewer ranks than tiles the context
// server (the highest-numbered tile) is not a rank; communicators still
// work.
func TestSemCommOpsProcsBelowTiles(t *testing.T) {
	const p = 13
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 4, 4, semProcs(cfgFor(proto), p), nil)
			w.Launch(func(r *Rank) {
				world := r.CommWorld()
				me := r.Rank()
				dup, err := r.CommDup(world)
				if err != nil {
					t.Error(err)
					return
				}
				c, err := r.CommSplit(dup, me%3, -me)
				if err != nil || c == nil {
					t.Errorf("rank %d: split: %v", me, err)
					return
				}
				var members []int
				for i := p - 1; i >= 0; i-- {
					if i%3 == me%3 {
						members = append(members, i)
					}
				}
				my := slices.Index(members, me)
				if c.Size() != len(members) || c.Rank() != my {
					t.Errorf("rank %d: split size %d rank %d, want %d %d", me, c.Size(), c.Rank(), len(members), my)
					return
				}
				n := len(members)
				sb, rb := r.MustAlloc(4), r.MustAlloc(4)
				sb.SetInt32(0, int32(me))
				st, err := r.Sendrecv(sb, 1, Int32, (my+1)%n, 0, rb, 1, Int32, (my+n-1)%n, 0, c)
				if err != nil || st.Source != (my+n-1)%n || int(rb.Int32(0)) != members[(my+n-1)%n] {
					t.Errorf("rank %d: ring: %+v %v %d", me, st, err, rb.Int32(0))
				}
			})
			semRun(t, w)
		})
	}
}

// TestSemLargeMessages moves messages longer than one DMA block
// (endpoint.MaxBlockWords words), contiguous and as a strided vector, and
// truncates one past the first block.
func TestSemLargeMessages(t *testing.T) {
	const n = 300_000 // bytes: 75000 words, two DMA blocks
	const elems = 70_000
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			cfg := semProcs(cfgFor(proto), 2)
			cfg.VectorDMA = true
			w := job(t, 2, 2, cfg, nil)
			vt, err := TypeVector(elems, 1, 2, Int32)
			if err == nil {
				err = vt.Commit()
			}
			if err != nil {
				t.Fatal(err)
			}
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				if r.Rank() == 0 {
					b := r.MustAlloc(n)
					semFill(b, n, 0, 1)
					for tag := 1; tag <= 2; tag++ {
						if err := r.Send(b, n, Byte, 1, tag, c); err != nil {
							t.Error(err)
						}
					}
					r.Free(b)
					v := r.MustAlloc(8 * elems)
					semFill(v, 8*elems, 0, 2)
					if err := r.Send(v, 1, vt, 1, 3, c); err != nil {
						t.Error(err)
					}
					return
				}
				b := r.MustAlloc(n)
				st, err := r.Recv(b, n, Byte, 0, 1, c)
				if err != nil || st.Bytes != n {
					t.Errorf("large Recv: %+v %v", st, err)
				} else if k := semBad(b.Bytes, n, 0, 1); k >= 0 {
					t.Errorf("large message: byte %d wrong", k)
				}
				const capacity = 270_000
				semSet(b.Bytes, 0xee)
				st, err = r.Recv(b, capacity, Byte, 0, 2, c)
				if semClass(err) != ErrTruncate || st.Bytes != capacity {
					t.Errorf("truncated large Recv: %+v %v", st, err)
				}
				if k := semBad(b.Bytes, capacity, 0, 1); k >= 0 {
					t.Errorf("truncated large message: byte %d wrong", k)
				}
				if b.Bytes[capacity] != 0xee || b.Bytes[n-1] != 0xee {
					t.Errorf("truncated large message wrote past the receive")
				}
				p := r.MustAlloc(4 * elems)
				st, err = r.Recv(p, 4*elems, Byte, 0, 3, c)
				if err != nil || st.Bytes != 4*elems {
					t.Errorf("large vector: %+v %v", st, err)
					return
				}
				for j := 0; j < elems; j++ {
					for k := 0; k < 4; k++ {
						if p.Bytes[4*j+k] != semByte(0, 2, 8*j+k) {
							t.Errorf("large vector: element %d byte %d wrong", j, k)
							return
						}
					}
				}
			})
			semRun(t, w)
		})
	}
}

// TestSemAllToAllOneThreadContext repeats the 13-rank all-to-all with a
// single handler context per tile, so THREAD messages queue in the NIUs.
func TestSemAllToAllOneThreadContext(t *testing.T) {
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			semAllToAll(t, job(t, 4, 4, semProcs(cfgFor(proto), 13), func(c *endpoint.CPUSpec) { c.ThreadContexts = 1 }), 13)
		})
	}
}

// TestSemEagerThresholdEdges sends sizes around eager_bytes, for the
// smallest and largest allowed thresholds, to a busy receiver.
func TestSemEagerThresholdEdges(t *testing.T) {
	largest := 4 * (endpoint.DefaultSpec().QueueFlits - 2 - 6) // THREAD message: 2 head flits, 6 header words
	for _, eb := range []int{0, 1, semEagerBytes, largest} {
		t.Run(fmt.Sprint(eb), func(t *testing.T) {
			cfg := semProcs(cfgFor("eager"), 2)
			cfg.EagerBytes = eb
			w := job(t, 2, 2, cfg, nil)
			var sizes []int
			for _, n := range []int{0, 1, eb - 1, eb, eb + 1, eb, eb, eb, eb, eb, eb, eb, eb, eb, eb, eb} {
				if n >= 0 {
					sizes = append(sizes, n)
				}
			}
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				if r.Rank() == 0 {
					var qs []*Request
					for i, n := range sizes {
						b := r.MustAlloc(n)
						semFill(b, n, 0, i)
						q, err := r.Isend(b, n, Byte, 1, 1, c)
						if err != nil {
							t.Error(err)
							return
						}
						qs = append(qs, q)
					}
					if _, err := r.Waitall(qs); err != nil {
						t.Error(err)
					}
					return
				}
				r.Compute(50_000)
				b := r.MustAlloc(largest + 8)
				for i, n := range sizes {
					st, err := r.Recv(b, largest+8, Byte, 0, 1, c)
					if err != nil || st.Bytes != n || semBad(b.Bytes, n, 0, i) >= 0 {
						t.Errorf("message %d (%d bytes): %+v, %v", i, n, st, err)
					}
				}
			})
			semRun(t, w)
		})
	}
}

// TestSemNullRequests: nil requests (MPI_REQUEST_NULL) in the completion
// calls: Waitall, Testall and Waitany skip them; Wait reports an error;
// Test must not crash the rank (it may report completion or an error).
func TestSemNullRequests(t *testing.T) {
	w := job(t, 2, 2, semProcs(cfgFor("scmp"), 2), nil)
	w.Launch(func(r *Rank) {
		if r.Rank() != 0 {
			return
		}
		if sts, err := r.Waitall([]*Request{nil, nil}); err != nil || len(sts) != 2 {
			t.Errorf("Waitall(nil, nil) = %v, %v", sts, err)
		}
		if ok, _, err := r.Testall([]*Request{nil}); !ok || err != nil {
			t.Errorf("Testall(nil) = %v, %v", ok, err)
		}
		if idx, _, err := r.Waitany([]*Request{nil}); idx != Undefined || err != nil {
			t.Errorf("Waitany(nil) = %d, %v", idx, err)
		}
		if _, err := r.Wait(nil); semClass(err) != ErrArg {
			t.Errorf("Wait(nil) = %v, want %v", err, ErrArg)
		}
		ok, _, err := r.Test(nil)
		if !ok && semClass(err) != ErrArg {
			t.Errorf("Test(nil) = %v, %v; want completion or %v", ok, err, ErrArg)
		}
	})
	if err := w.Run(); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "\n"); i > 0 {
			msg = msg[:i]
		}
		t.Errorf("run: %s", msg)
	}
}

// TestSemSendrecvErrorLeavesNoReceive: a Sendrecv that fails on its send
// half (invalid destination) must not leave its receive half posted,
// where it would swallow a later message meant for another receive.
func TestSemSendrecvErrorLeavesNoReceive(t *testing.T) {
	// A send type reaching before the buffer start passes the span check
	// and fails only when the send packs it.
	negLB, err := TypeCreateHindexed([]int{1}, []int{-4}, Int32)
	if err == nil {
		err = negLB.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		dest  int
		dt    *Datatype
		count int
		class Class
	}{
		{"invalid-dest", 5, Byte, 16, ErrRank},
		{"send-type-before-buffer", 1, negLB, 1, ErrBuffer},
	}
	for _, proto := range Protocols {
		for _, cs := range cases {
			t.Run(proto+"/"+cs.name, func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					if r.Rank() == 1 {
						b := r.MustAlloc(16)
						semFill(b, 16, 1, 0)
						if err := r.Send(b, 16, Byte, 0, 4, c); err != nil {
							t.Error(err)
						}
						return
					}
					sb, orphan := r.MustAlloc(16), r.MustAlloc(16)
					if _, err := r.Sendrecv(sb, cs.count, cs.dt, cs.dest, 4, orphan, 16, Byte, 1, 4, c); semClass(err) != cs.class {
						t.Errorf("Sendrecv: %v, want class %v", err, cs.class)
					}
					b := r.MustAlloc(16)
					var got Status
					q, err := r.Irecv(b, 16, Byte, 1, 4, c)
					if err != nil {
						t.Error(err)
						return
					}
					// Bounded wait, so a swallowed message fails the test
					// rather than deadlocking the job.
					for i := 0; i < 200; i++ {
						ok, st, err := r.Test(q)
						if err != nil {
							t.Error(err)
						}
						if ok {
							got = st
							break
						}
						r.Compute(100)
						r.Thread().Suspend()
					}
					if got.Bytes != 16 || semBad(b.Bytes, 16, 1, 0) >= 0 {
						t.Errorf("the message for Recv(1, 4) never arrived; the failed Sendrecv's buffer holds %x", orphan.Bytes)
					}
				})
				err := w.Run()
				var dl *DeadlockError
				if err != nil && !errors.As(err, &dl) {
					t.Errorf("run: %v", err)
				}
			})
		}
	}
}

// TestSemTypeBeforeBufferStart: a datatype with a negative lower bound
// reaches before the start of any Buffer, which the library cannot
// address (Pack and Unpack report ErrBuffer). Like every other buffer
// that is too small, it must be refused when the call is made: a receive
// must not wait for (and consume) a message it cannot store, and failed
// sends must not keep memory.
func TestSemTypeBeforeBufferStart(t *testing.T) {
	negLB, err := TypeCreateHindexed([]int{1}, []int{-4}, Int32) // lb -4, ub 0
	if err == nil {
		err = negLB.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	const count = 100_000 // 400 KB a message; the heap is 4 MB
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
			w.Launch(func(r *Rank) {
				c := r.CommWorld()
				tok := r.MustAlloc(4)
				if r.Rank() == 1 {
					if _, err := r.Recv(tok, 1, Int32, 0, 9, c); err != nil {
						t.Error(err)
						return
					}
					b := r.MustAlloc(16)
					semFill(b, 16, 1, 0)
					if err := r.Send(b, 16, Byte, 0, 4, c); err != nil {
						t.Error(err)
					}
					return
				}
				big := r.MustAlloc(4 * count)
				for i := 0; i < 20; i++ {
					q, err := r.Isend(big, count, negLB, 1, 4, c)
					if q != nil || semClass(err) != ErrBuffer {
						t.Errorf("Isend %d of a type before the buffer: %v, %v; want %v", i, q, err, ErrBuffer)
						break
					}
				}
				if b, err := r.Alloc(1 << 20); err != nil {
					t.Errorf("after 20 refused Isends of %d bytes, 1 MB of a 4 MB heap cannot be had: %v", 4*count, err)
				} else {
					r.Free(b)
				}
				// Nothing has been sent to rank 0 yet: the receive must
				// fail at once, not wait.
				if _, err := r.Recv(big, 1, negLB, 1, 4, c); semClass(err) != ErrBuffer {
					t.Errorf("Recv of a type before the buffer: %v, want %v", err, ErrBuffer)
				}
				if err := r.Send(tok, 1, Int32, 1, 9, c); err != nil {
					t.Error(err)
					return
				}
				b := r.MustAlloc(16)
				if st, err := r.Recv(b, 16, Byte, 1, 4, c); err != nil || st.Bytes != 16 || semBad(b.Bytes, 16, 1, 0) >= 0 {
					t.Errorf("the next receive: %+v, %v", st, err)
				}
			})
			err := w.Run()
			if err != nil {
				msg := err.Error()
				if i := strings.Index(msg, "\n  unmatched"); i > 0 {
					msg = msg[:i]
				}
				t.Errorf("run: %s", msg)
			}
		})
	}
}

// TestSemLibraryTrafficInvisible: wildcard receives posted on
// MPI_COMM_WORLD before CommDup, CommSplit and CommCreate must not catch
// the library's own messages for them.
func TestSemLibraryTrafficInvisible(t *testing.T) {
	const p = 6
	for _, proto := range Protocols {
		t.Run(proto, func(t *testing.T) {
			w := job(t, 3, 2, semProcs(cfgFor(proto), p), nil)
			w.Launch(func(r *Rank) {
				world := r.CommWorld()
				me := r.Rank()
				rb := r.MustAlloc(64)
				q, err := r.Irecv(rb, 64, Byte, AnySource, AnyTag, world)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := r.CommDup(world); err != nil {
					t.Error(err)
				}
				if _, err := r.CommSplit(world, me%2, me); err != nil {
					t.Error(err)
				}
				g, _ := GroupIncl(world.Group(), []int{0, 2, 4})
				if _, err := r.CommCreate(world, g); err != nil {
					t.Error(err)
				}
				// (The collectives are not barriers: a neighbour's user
				// message may already have arrived, so only what the
				// receive got is checked.)
				sb := r.MustAlloc(12)
				semFill(sb, 12, me, 77)
				if err := r.Send(sb, 12, Byte, (me+1)%p, 77, world); err != nil {
					t.Error(err)
				}
				left := (me + p - 1) % p
				st, err := r.Wait(q)
				if err != nil || st.Source != left || st.Tag != 77 || st.Bytes != 12 || semBad(rb.Bytes, 12, left, 77) >= 0 {
					t.Errorf("rank %d: wildcard receive got %+v, %v; want rank %d's tag-77 message", me, st, err, left)
				}
			})
			semRun(t, w)
		})
	}
}

// TestSemWaitallReportsPerRequestErrors: Waitall and Testall return the
// first error and each request's own error in its status.
func TestSemWaitallReportsPerRequestErrors(t *testing.T) {
	for _, proto := range Protocols {
		for _, testall := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/testall=%v", proto, testall), func(t *testing.T) {
				w := job(t, 2, 2, semProcs(cfgFor(proto), 2), nil)
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					if r.Rank() == 0 {
						b := r.MustAlloc(200)
						for tag, n := range []int{16, 200, 16} {
							semFill(b, n, 0, tag)
							if err := r.Send(b, n, Byte, 1, tag, c); err != nil {
								t.Error(err)
							}
						}
						return
					}
					var qs []*Request
					bufs := []Buffer{r.MustAlloc(16), r.MustAlloc(64), r.MustAlloc(16)}
					for tag, b := range bufs {
						q, err := r.Irecv(b, b.Len(), Byte, 0, tag, c)
						if err != nil {
							t.Error(err)
							return
						}
						qs = append(qs, q)
					}
					var sts []Status
					var err error
					if testall {
						for ok := false; !ok; {
							ok, sts, err = r.Testall(qs)
							r.Compute(200)
						}
					} else {
						sts, err = r.Waitall(qs)
					}
					if semClass(err) != ErrTruncate {
						t.Errorf("error %v, want %v", err, ErrTruncate)
					}
					if len(sts) != 3 {
						t.Fatalf("statuses %v", sts)
					}
					for i, want := range []Class{0, ErrTruncate, 0} {
						if semClass(sts[i].Err) != want || (want == 0 && sts[i].Err != nil) {
							t.Errorf("status %d: error %v, want class %v", i, sts[i].Err, want)
						}
					}
					if sts[0].Bytes != 16 || sts[1].Bytes != 64 || sts[2].Bytes != 16 {
						t.Errorf("statuses %+v", sts)
					}
					for i, n := range []int{16, 64, 16} {
						if k := semBad(bufs[i].Bytes, n, 0, i); k >= 0 {
							t.Errorf("request %d: byte %d wrong", i, k)
						}
					}
				})
				semRun(t, w)
			})
		}
	}
}
