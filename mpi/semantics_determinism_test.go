package mpi

// Semantics tests (see semantics_test.go): determinism.

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"nocsim/mpi/datatype"
)

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
					q, err := r.Irecv(r.MustAlloc(400), 400, datatype.Byte, AnySource, AnyTag, c)
					if err != nil {
						t.Error(err)
						return
					}
					qs = append(qs, q)
				}
				if m.src == me {
					b := r.MustAlloc(m.n)
					semFill(b, m.n, me, i)
					q, err := r.Isend(b, m.n, datatype.Byte, m.dst, m.tag, c)
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
