package loggops

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"nocsim/logp/goal"
)

// randomContended is a random schedule built to make ops wait: few ranks,
// many messages between them (some with wildcard source or tag), calcs,
// two CPUs and NICs, random requires/irequires on earlier ops of the same
// rank. It may deadlock; both simulators must then report the same.
func randomContended(rng *rand.Rand) *goal.Schedule {
	P := 2 + rng.IntN(5)
	b := goal.NewBuilder(P, 0)
	type pending struct {
		r  int
		op goal.Op
	}
	var ops []pending
	for range 4 + rng.IntN(40) {
		src := rng.IntN(P)
		dst := (src + 1 + rng.IntN(P-1)) % P
		size := []uint64{0, 1, 8, 100, 300, 1000}[rng.IntN(6)]
		tag := int32(rng.IntN(3))
		nic, cpu := uint8(rng.IntN(2)), uint8(rng.IntN(2))
		ops = append(ops, pending{src, goal.Op{Kind: goal.Send, Peer: int32(dst), Tag: tag, Bytes: size, CPU: cpu, NIC: nic}})
		from, rtag := int32(src), tag
		if rng.IntN(6) == 0 {
			from = goal.AnySource
		}
		if rng.IntN(6) == 0 {
			rtag = goal.AnyTag
		}
		ops = append(ops, pending{dst, goal.Op{Kind: goal.Recv, Peer: from, Tag: rtag, Bytes: size, CPU: uint8(rng.IntN(2)), NIC: nic}})
	}
	for range rng.IntN(10) {
		ops = append(ops, pending{rng.IntN(P), goal.Op{Kind: goal.Calc, Time: uint64(rng.IntN(6)), CPU: uint8(rng.IntN(2))}})
	}
	rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	for _, o := range ops {
		i := b.Add(o.r, o.op)
		if i > 0 && rng.IntN(3) == 0 {
			b.Require(o.r, i, int32(rng.IntN(int(i))))
		}
		if i > 0 && rng.IntN(5) == 0 {
			b.IRequire(o.r, i, int32(rng.IntN(int(i))))
		}
	}
	s, err := b.Schedule()
	if err != nil {
		panic(err)
	}
	return s
}

// randomTiedParams are small whole numbers, so that many events fall due
// at the same time and the order among equals decides; some runs use the
// handshake, cooperative or not.
func randomTiedParams(rng *rand.Rand) Params {
	n := func(k int) float64 { return float64(rng.IntN(k)) }
	p := Params{L: n(8), Os: n(4), Or: n(4), Gap: n(6), G: n(2) / 4, O: n(2) / 4, S: []uint64{0, 8, 100, DefaultS}[rng.IntN(4)]}
	switch rng.IntN(3) {
	case 1:
		p.Segments = []Segment{{MaxBytes: 8, L: n(8), Os: n(4), Or: n(4), Gap: n(6), G: n(2) / 4},
			{L: 6 + n(8), Os: n(4), Or: n(4), Gap: n(6), G: n(2) / 4, O: n(2) / 4, Handshake: true,
				Lpost: n(3), Lcts: n(3), Ldata: n(3), Octs: n(3), GapData: n(3)}}
		p.Hops = func(a, b int) int { return (a - b + 8) % 3 }
		p.Cooperative = rng.IntN(2) == 0
	case 2:
		p.Word = 4
	}
	return p
}

// The wait lists give LogGOPSim's results event for event: every op's
// start and end, every rank's finish and every deadlock report are those
// of retrying each waiting event on its own (the naive loop), over random
// contended schedules with many ties.
func TestWaitListsMatchNaiveRetries(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 7))
	stuck := 0
	for n := range 3000 {
		s := randomContended(rng)
		p := randomTiedParams(rng)
		fast, errF := Simulate(s, p, Options{Trace: true})
		slow, errS := Simulate(s, p, Options{Trace: true, naive: true})
		if (errF == nil) != (errS == nil) || errF != nil && errF.Error() != errS.Error() {
			t.Fatalf("case %d: wait lists: %v; naive: %v\n%s", n, errF, errS, text(s))
		}
		if errF != nil {
			var se *StuckError
			if !errors.As(errF, &se) {
				t.Fatalf("case %d: %v", n, errF)
			}
			stuck++
			continue
		}
		if fast.Max != slow.Max || fast.MaxRank != slow.MaxRank {
			t.Fatalf("case %d: max %v (rank %d), naive %v (rank %d)", n, fast.Max, fast.MaxRank, slow.Max, slow.MaxRank)
		}
		for r := range s.NumRanks() {
			if fast.Finish[r] != slow.Finish[r] {
				t.Fatalf("case %d: rank %d finishes at %v, naive %v", n, r, fast.Finish[r], slow.Finish[r])
			}
			for i := range s.Len(r) {
				a0, a1, _ := fast.OpTimes(r, i)
				b0, b1, _ := slow.OpTimes(r, i)
				if a0 != b0 || a1 != b1 {
					t.Fatalf("case %d: rank %d op %d runs %v..%v, naive %v..%v\n%s", n, r, i, a0, a1, b0, b1, text(s))
				}
			}
		}
	}
	// Both kinds of outcome were exercised.
	if stuck == 0 || stuck == 3000 {
		t.Errorf("%d of 3000 random schedules deadlocked: the comparison covers only one outcome", stuck)
	}
}

func text(s *goal.Schedule) string {
	var b strings.Builder
	_ = goal.Write(&b, s)
	return b.String()
}

// fanOut is one rank sending n messages at once to n receivers, and
// gather n senders to one receiver: every op ready at 0, each waiting for
// the same CPU and NIC.
func fanOut(n int, gather bool) *goal.Schedule {
	b := goal.NewBuilder(n+1, 2*n)
	for r := 1; r <= n; r++ {
		if gather {
			b.AddSend(r, 0, 1, 0)
			b.AddRecv(0, r, 1, 0)
		} else {
			b.AddSend(0, r, 1, 0)
			b.AddRecv(r, 0, 1, 0)
		}
	}
	s, err := b.Schedule()
	if err != nil {
		panic(err)
	}
	return s
}

// Queue work grows linearly with the ops waiting for one rank's CPU and
// NIC, not quadratically: n ready sends on one rank (and n messages
// arriving at one rank) cost a few queue operations each. LogGOPSim's
// loop, which retries every waiting op each time the NIC frees, does
// n²/2 and more, which the same bound catches.
func TestWaitingIsLinear(t *testing.T) {
	p := New(6, 2, 4, 0, 0)
	for _, gather := range []bool{false, true} {
		for _, n := range []int{500, 8000} {
			s := fanOut(n, gather)
			work := func(naive bool) uint64 {
				m, err := newSim(s, p, Options{naive: naive})
				if err != nil {
					t.Fatal(err)
				}
				m.run()
				if err := m.stuck(); err != nil {
					t.Fatal(err)
				}
				if got, want := m.finish().Max, float64(n-1)*4+2+6+2; !gather && got != want {
					t.Fatalf("fan-out of %d: finish %v, want (n-1)g + o + L + o = %v", n, got, want)
				}
				return m.q.pushes + m.q.pops
			}
			ops := uint64(s.NumOps())
			if w := work(false); w > 8*ops {
				t.Errorf("gather %v, n = %d: %d queue operations for %d ops, want at most 8 per op", gather, n, w, ops)
			}
			if n > 500 {
				continue // the naive loop once, small: it is quadratic
			}
			if w := work(true); w < ops*ops/16 {
				t.Errorf("gather %v, n = %d: the naive loop takes %d queue operations, expected quadratic (>= %d): the bound above would not catch it", gather, n, w, ops*ops/16)
			}
		}
	}
}
