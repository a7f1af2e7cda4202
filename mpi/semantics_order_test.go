package mpi

// Semantics tests (see semantics_test.go): message order.

import (
	"testing"

	"nocsim/mpi/datatype"
)

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
							if _, err := r.Recv(tok, 1, datatype.Int32, 1, 100, c); err != nil {
								t.Error(err)
								return
							}
						}
						var qs []*Request
						for s := 0; s < n; s++ {
							b := r.MustAlloc(semSize(s))
							semFill(b, semSize(s), 0, s)
							q, err := r.Isend(b, semSize(s), datatype.Byte, 1, v.tag(s), c)
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
						bufs := make([]datatype.Buffer, len(tags))
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
								q, err := r.Irecv(bufs[i], 1000, datatype.Byte, 0, tg, c)
								if err != nil {
									t.Error(err)
									return
								}
								qs = append(qs, q)
							}
							if err := r.Send(tok, 1, datatype.Int32, 0, 100, c); err != nil {
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
							st, err := r.Recv(bufs[i], 1000, datatype.Byte, 0, tg, c)
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
						q, err := r.Isend(b, size(me, s), datatype.Byte, 0, tag(s), c)
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
				got := func(b datatype.Buffer, st Status, err error) {
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
				var bufs []datatype.Buffer
				for i := 0; i < total/2; i++ {
					b := r.MustAlloc(1000)
					q, err := r.Irecv(b, 1000, datatype.Byte, AnySource, AnyTag, c)
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
					st, err := r.Recv(b, 1000, datatype.Byte, AnySource, AnyTag, c)
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
