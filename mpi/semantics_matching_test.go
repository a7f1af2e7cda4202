package mpi

// Semantics tests (see semantics_test.go): how receives and probes match
// messages.

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
	"nocsim/mpi/mpierr"
)

// ---------------------------------------------------------------------------
// 2. Wildcards and Status.

func TestSemWildcardStatus(t *testing.T) {
	// On a communicator whose ranks are the world's reversed (comm rank =
	// 3 - world rank), comm rank 0 (world 3) receives from comm ranks 1..3.
	size1 := map[int]int{1: 24, 2: 20, 3: 300} // first round, tag 10+c
	size2 := map[int]int{1: 8, 2: 131, 3: 12}  // second round, tag 20+c
	type gc struct {
		dt   *datatype.Datatype
		want map[int]int // bytes -> GetCount
	}
	int3, err := datatype.TypeContiguous(3, datatype.Int32)
	if err != nil {
		t.Fatal(err)
	}
	if err := int3.Commit(); err != nil {
		t.Fatal(err)
	}
	counts := []gc{
		{datatype.Byte, map[int]int{24: 24, 20: 20, 300: 300}},
		{datatype.Int32, map[int]int{24: 6, 20: 5, 300: 75}},
		{datatype.Float64, map[int]int{24: 3, 20: group.Undefined, 300: group.Undefined}},
		{datatype.Int64, map[int]int{24: 3, 20: group.Undefined, 300: group.Undefined}},
		{datatype.Float32, map[int]int{24: 6, 20: 5, 300: 75}},
		{int3, map[int]int{24: 2, 20: group.Undefined, 300: 25}},
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
					if err := r.Send(b, size1[me], datatype.Byte, 0, 10+me, c); err != nil {
						t.Error(err)
					}
					// The second round waits for the receiver's go, so the
					// first round's wildcard receives cannot take it.
					if _, err := r.Recv(b, 1, datatype.Int32, 0, 1, c); err != nil {
						t.Error(err)
						return
					}
					semFill(b, size2[me], me, 2)
					if err := r.Send(b, size2[me], datatype.Byte, 0, 20+me, c); err != nil {
						t.Error(err)
					}
					return
				}
				seen := map[int]bool{}
				for i := 0; i < 3; i++ {
					semSet(b.Bytes, 0)
					st, err := r.Recv(b, 400, datatype.Byte, AnySource, AnyTag, c)
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
					if err := r.Send(b, 1, datatype.Int32, dst, 1, c); err != nil {
						t.Error(err)
						return
					}
				}
				r.Compute(20_000) // every second-round message is waiting
				for _, rc := range []struct{ src, tag, wantSrc int }{
					{2, AnyTag, 2}, {AnySource, 23, 3}, {AnySource, AnyTag, 1},
				} {
					semSet(b.Bytes, 0)
					st, err := r.Recv(b, 400, datatype.Byte, rc.src, rc.tag, c)
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
					if _, err := r.Recv(tok, 1, datatype.Int32, 1, 1, c); err != nil {
						t.Error(err)
						return
					}
					a, b := r.MustAlloc(52), r.MustAlloc(300)
					semFill(a, 52, 0, 7)
					semFill(b, 300, 0, 8)
					qa, err1 := r.Isend(a, 52, datatype.Byte, 1, 7, c)
					qb, err2 := r.Isend(b, 300, datatype.Byte, 1, 8, c)
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
				if err := r.Send(tok, 1, datatype.Int32, 0, 1, c); err != nil {
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
				rs, err := r.Recv(buf, st.Bytes, datatype.Byte, st.Source, st.Tag, c)
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
				if rs, err := r.Recv(big, 300, datatype.Byte, 0, 8, c); err != nil || rs.Bytes != 300 {
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
						q, err := r.Isend(b, 1, datatype.Int32, 1, 99, c)
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
						q, err := r.Isend(b, 200, datatype.Byte, 1, i, c)
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
					bufs := make([]datatype.Buffer, k)
					for i := 0; i < k; i++ {
						bufs[i] = r.MustAlloc(200)
						q, err := r.Irecv(bufs[i], 200, datatype.Byte, 0, i, c)
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
						r.Recv(b, 1, datatype.Int32, 2, 99, c)
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
							if _, err := r.Recv(tok, 1, datatype.Int32, 1, 100, c); err != nil {
								t.Error(err)
								return
							}
							for seq := 0; seq < len(cs.posts); seq++ {
								b := r.MustAlloc(n)
								semFill(b, n, 0, seq)
								if err := r.Send(b, n, datatype.Byte, 1, 1, c); err != nil {
									t.Error(err)
								}
							}
							return
						}
						var qs []*Request
						var bufs []datatype.Buffer
						for _, p := range cs.posts {
							b := r.MustAlloc(n)
							q, err := r.Irecv(b, n, datatype.Byte, p.src, p.tag, c)
							if err != nil {
								t.Error(err)
								return
							}
							qs, bufs = append(qs, q), append(bufs, b)
						}
						if err := r.Send(tok, 1, datatype.Int32, 0, 100, c); err != nil {
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
						sendErr = r.Send(b, 2, datatype.Int32, 1, tag, c)
						if err := r.Send(b, 1, datatype.Int32, 1, 7, c); err != nil {
							t.Error(err)
						}
						return
					}
					for {
						st, err := r.Recv(b, 2, datatype.Int32, 0, AnyTag, c)
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
				case sendErr != nil && semClass(sendErr) != mpierr.ErrArg:
					t.Errorf("Send with tag %d: %v, want class %v or success", tag, sendErr, mpierr.ErrArg)
				case sendErr != nil && !slices.Equal(got, []int{7}):
					t.Errorf("Send with tag %d failed, yet the receiver got tags %v", tag, got)
				case sendErr == nil && !slices.Equal(got, []int{tag, 7}):
					t.Errorf("Send with tag %d succeeded; the receiver saw tags %v, want [%d 7]", tag, got, tag)
				}
			})
		}
	}
}
