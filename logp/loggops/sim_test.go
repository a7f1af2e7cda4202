package loggops

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"nocsim/logp/goal"
)

func run(t *testing.T, s *goal.Schedule, p Params) *Result {
	t.Helper()
	res, err := Simulate(s, p, Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The brief's figures (L=6, o=2, g=4, G=O=0, 1-byte messages), each
// checked by hand in the comments of the builders and below.
func TestPatterns(t *testing.T) {
	p := New(6, 2, 4, 0, 0)
	for _, c := range []struct {
		name string
		s    *goal.Schedule
		want float64
	}{
		// root sends at 0, 4, 8 to 4, 2, 1; 4 has it at 10 and sends at 10,
		// 14 to 6, 5; 6 has it at 20 and sends to 7, which has it at 30.
		{"binomial broadcast P=8", binomial(8, 1, nil), 30},
		// three rounds of o+L+o = 10 each, the next round starting when
		// the message of the last is handled.
		{"dissemination P=8", dissemination(8, 1, nil), 30},
		// 7 sends g = 4 apart: the last starts at 24, handled 24+o+L+o.
		{"flat broadcast P=8", flat(8, 1, nil), 34},
		// 7 messages reach the root at o+L = 8, handled g = 4 apart.
		{"linear gather P=8", gather(8, 1, nil), 34},
		{"ping-pong 1 byte", pingPong(1, nil), 20},
		{"ping-pong 0 bytes", pingPong(0, nil), 20},
		{"LogP optimal broadcast P=8", optimalBroadcast8(), 24},
	} {
		if got := run(t, c.s, p).Max; got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// G = 0.1: 2 (o + L + 1023 G + o) = 2 (10 + 102.3).
	p.G = 0.1
	if got := run(t, pingPong(1024, nil), p).Max; math.Abs(got-224.6) > 1e-9 {
		t.Errorf("1024-byte ping-pong with G=0.1: %v, want 224.6", got)
	}
}

// Closed forms of the simple patterns over random parameter sets: the
// ping-pong is two one-way trips (the second possibly waiting for rank 0's
// CPU to finish its send), the flat and gather patterns serialise on the
// root's NIC and CPU.
func TestClosedForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		p := Params{L: rng.Float64() * 20, Os: rng.Float64() * 5, Or: rng.Float64() * 5, Gap: rng.Float64() * 10,
			G: rng.Float64(), O: rng.Float64(), S: DefaultS}
		s := uint64(1 + rng.IntN(200))
		s1 := float64(s - 1)
		// One way: the receiver takes o_r + max(O,G)(s-1) after the first
		// byte arrives o_s + L after the send starts.
		oneWay := func(start float64) float64 { return start + p.Os + p.L + p.Or + max(s1*p.O, s1*p.G) }
		// The answer starts when rank 1's CPU is free (its send NIC is
		// idle). Rank 0's receive NIC is idle, but its CPU may still be
		// busy with its own send until o_s + (s-1)O.
		arrive := oneWay(0) + p.Os + p.L
		want := max(arrive, p.Os+s1*p.O) + p.Or + max(s1*p.O, s1*p.G)
		if got := run(t, pingPong(s, nil), p).Max; !near(got, want) {
			t.Fatalf("ping-pong %d bytes %+v: %v, want %v", s, p, got, want)
		}
		// Flat broadcast: the root's k-th send starts at k * max(g+(s-1)G,
		// o_s+(s-1)O); receivers are idle, so the last is handled at once.
		P := 2 + rng.IntN(10)
		step := max(p.Gap+s1*p.G, p.Os+s1*p.O)
		want = float64(P-2)*step + p.Os + p.L + p.Or + max(s1*p.O, s1*p.G)
		if got := run(t, flat(P, s, nil), p).Max; !near(got, want) {
			t.Fatalf("flat P=%d %d bytes %+v: %v, want %v", P, s, p, got, want)
		}
		// Gather: all messages arrive at o_s + L; the root handles one per
		// max(g + (s-1)G, o_r + max((s-1)O, (s-1)G)).
		step = max(p.Gap+s1*p.G, p.Or+max(s1*p.O, s1*p.G))
		want = p.Os + p.L + float64(P-2)*step + p.Or + max(s1*p.O, s1*p.G)
		if got := run(t, gather(P, s, nil), p).Max; !near(got, want) {
			t.Fatalf("gather P=%d %d bytes %+v: %v, want %v", P, s, p, got, want)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

// Per-op times of the optimal tree: each rank has the item (its receive
// ends) exactly when Karp et al.'s schedule says.
func TestOptimalTreeTrace(t *testing.T) {
	res := run(t, optimalBroadcast8(), New(6, 2, 4, 0, 0))
	for r := 1; r < 8; r++ {
		_, end, ok := res.OpTimes(r, 0)
		if !ok || end != optimalTree.at[r] {
			t.Errorf("rank %d has the item at %v, want %v", r, end, optimalTree.at[r])
		}
	}
	// The root's sends start g apart.
	for i := range 4 {
		if st, _, _ := res.OpTimes(0, i); st != float64(4*i) {
			t.Errorf("root send %d starts at %v, want %v", i, st, 4*i)
		}
	}
	if _, _, ok := (&Result{}).OpTimes(0, 0); ok {
		t.Error("OpTimes without Trace reports ok")
	}
}

// Rendezvous: the send completes when the receiver matches it, and the
// sender's clocks move to that time.
func TestRendezvous(t *testing.T) {
	mk := func(late bool) *goal.Schedule {
		b := goal.NewBuilder(2, 0)
		s := b.AddSend(0, 1, 100, 0)
		b.Require(0, b.AddCalc(0, 1), s)
		if late {
			c := b.AddCalc(1, 100)
			b.Require(1, b.AddRecv(1, 0, 100, 0), c)
		} else {
			b.AddRecv(1, 0, 100, 0)
		}
		x, err := b.Schedule()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	p := New(6, 2, 4, 0, 0)
	// Eager: the calc follows the send's o = 2.
	if got := run(t, mk(false), p).Finish[0]; got != 3 {
		t.Errorf("eager: rank 0 finishes at %v, want 3", got)
	}
	p.S = 99
	// Matched on arrival at o+L = 8: the calc runs 8..9.
	if got := run(t, mk(false), p).Finish[0]; got != 9 {
		t.Errorf("rendezvous, receive posted: rank 0 finishes at %v, want 9", got)
	}
	// The receiver computes until 100, handles the message then (o: to
	// 102) and posts the receive at 100, which matches at once: the send
	// completes at 100 and the calc runs 100..101.
	res := run(t, mk(true), p)
	if res.Finish[0] != 101 || res.Finish[1] != 102 {
		t.Errorf("rendezvous, message waiting: finishes %v, want [101 102]", res.Finish)
	}
}

// Wildcards: a receive from any source takes the first message handled.
func TestWildcards(t *testing.T) {
	b := goal.NewBuilder(3, 0)
	b.AddCalc(2, 10)
	b.Require(2, b.AddSend(2, 0, 1, 5), 0)
	b.AddSend(1, 0, 1, 7)
	first := b.AddRecv(0, goal.AnySource, 1, goal.AnyTag)
	b.Require(0, b.AddRecv(0, 2, 1, 5), first)
	s, _ := b.Schedule()
	res := run(t, s, New(6, 2, 4, 0, 0))
	// Rank 1's message (handled 8..10) matches the wildcard; rank 2's
	// (sent at 10, handled 18..20) the specific receive.
	if _, end, _ := res.OpTimes(0, 0); end != 10 {
		t.Errorf("wildcard receive ends at %v, want 10", end)
	}
	if res.Finish[0] != 20 {
		t.Errorf("rank 0 finishes at %v, want 20", res.Finish[0])
	}
}

// Two CPUs of a rank compute in parallel; one CPU serialises.
func TestCPUs(t *testing.T) {
	for _, c := range []struct {
		cpu  uint8
		want float64
	}{{0, 20}, {1, 10}} {
		b := goal.NewBuilder(1, 0)
		b.AddCalc(0, 10)
		b.Add(0, goal.Op{Kind: goal.Calc, Time: 10, CPU: c.cpu})
		s, _ := b.Schedule()
		if got := run(t, s, New(1, 1, 1, 0, 0)).Max; got != c.want {
			t.Errorf("second calc on cpu %d: %v, want %v", c.cpu, got, c.want)
		}
	}
}

func TestStuck(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
		want []string
	}{
		{"unmatched recv", "num_ranks 2\nrank 0 {\nr: recv 4b from 1 tag 3\n}\nrank 1 {\n}\n",
			[]string{"1 rank(s) stuck", "rank 0 op 0 (r) recv from 1 tag 3: posted, no matching message arrives"}},
		{"cycle", "num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\na requires b\nb irequires a\n}\n",
			[]string{"rank 0 op 0 (a) calc: waits for b to complete"}},
		{"unreceived", "num_ranks 2\nrank 0 {\ns: send 4b to 1 tag 9\n}\nrank 1 {\n}\n",
			[]string{"rank 1 message from 0 tag 9: sent by rank 0's op 0, arrived, and no receive matches it"}},
		{"rendezvous", "num_ranks 2\nrank 0 {\ns: send 70000b to 1\n}\nrank 1 {\nrecv 70000b from 0 tag 1\n}\n",
			[]string{"2 rank(s) stuck", "rank 0 op 0 (s) send to 1 tag 0: rendezvous send (70000 bytes > S = 65535)", "rank 1 message from 0 tag 0"}},
	} {
		s, err := goal.Parse([]byte(c.text))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Simulate(s, New(6, 2, 4, 0, 0), Options{})
		var se *StuckError
		if !errors.As(err, &se) {
			t.Fatalf("%s: %v, want a StuckError", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, err, w)
			}
		}
	}
}

func TestParamsValidate(t *testing.T) {
	for _, p := range []Params{{L: -1}, {Os: math.NaN()}, {Gap: math.Inf(1)}, {G: -0.5}, {O: math.NaN()}, {Or: -2}} {
		if _, err := Simulate(pingPong(1, nil), p, Options{}); err == nil || !strings.Contains(err.Error(), "allowed a finite number") {
			t.Errorf("%+v: %v", p, err)
		}
	}
	var p Params
	p.SetO(3)
	if p.Os != 3 || p.Or != 3 {
		t.Errorf("SetO: %+v", p)
	}
}

// S is inclusive: a message of exactly S bytes is eager, one more byte
// rendezvous (the sender's calc then waits for the match at o+L = 8).
func TestEagerThreshold(t *testing.T) {
	for _, c := range []struct {
		bytes uint64
		want  float64
	}{{100, 3}, {101, 9}} {
		b := goal.NewBuilder(2, 0)
		s := b.AddSend(0, 1, c.bytes, 0)
		b.Require(0, b.AddCalc(0, 1), s)
		b.AddRecv(1, 0, c.bytes, 0)
		x, _ := b.Schedule()
		p := New(6, 2, 4, 0, 0)
		p.S = 100
		if got := run(t, x, p).Finish[0]; got != c.want {
			t.Errorf("%d bytes, S = 100: rank 0 finishes at %v, want %v", c.bytes, got, c.want)
		}
	}
}

// Wildcards on a receive posted after its message arrived (it matches in
// the unexpected queue) and on a send's tag.
func TestWildcardsUnexpected(t *testing.T) {
	b := goal.NewBuilder(3, 0)
	x := b.AddRecv(0, 2, 1, 9)
	r := b.AddRecv(0, goal.AnySource, 1, 3)
	b.Require(0, r, x)
	b.AddSend(1, 0, 1, goal.AnyTag)
	b.AddSend(2, 0, 1, 9)
	s, _ := b.Schedule()
	res := run(t, s, New(6, 2, 4, 0, 0))
	// Both messages arrive at 8. Rank 1's (queued first) matches no posted
	// receive and waits; rank 2's finds the CPU busy until 10 and the
	// receive NIC until 12, is handled at 12 (CPU to 14) and completes x;
	// r is posted at 14 and takes rank 1's message at once.
	if _, end, _ := res.OpTimes(0, int(r)); end != 14 || res.Finish[0] != 14 {
		t.Errorf("wildcard receive ends at %v, rank 0 at %v, want 14 and 14", end, res.Finish[0])
	}
	// Without the send-side wildcard the message matches nothing.
	b = goal.NewBuilder(2, 0)
	b.AddSend(1, 0, 1, 4)
	b.AddRecv(0, goal.AnySource, 1, 3)
	s, _ = b.Schedule()
	if _, err := Simulate(s, New(6, 2, 4, 0, 0), Options{}); err == nil {
		t.Error("tag 4 matched a receive of tag 3")
	}
}

// Ops ready together start sends first, whatever their schedule order:
// the send goes at 0 (CPU to 2), the calc runs 2..12, rank 1 has the
// message at o+L+o = 10 (20 if the calc went first).
func TestTypeOrder(t *testing.T) {
	b := goal.NewBuilder(2, 0)
	b.AddCalc(0, 10)
	b.AddSend(0, 1, 1, 0)
	b.AddRecv(1, 0, 1, 0)
	s, _ := b.Schedule()
	res := run(t, s, New(6, 2, 4, 0, 0))
	if res.Finish[0] != 12 || res.Finish[1] != 10 {
		t.Errorf("finishes %v, want [12 10]", res.Finish)
	}
}

// Any schedule that parses simulates to a result or a StuckError, never a
// panic or a hang, and finish times are at least the rank's busy time.
func FuzzSimulate(f *testing.F) {
	f.Add([]byte("num_ranks 2\nrank 0 {\na: send 4b to 1\nb: recv 4b from 1\nb requires a\n}\nrank 1 {\nc: recv 4b from -1 tag -1\nd: send 70000b to 0 cpu 1 nic 1\nd irequires c\n}\n"), 3.0, 1.0)
	f.Add([]byte("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\na requires b\nb requires a\n}\n"), 0.0, 0.0)
	f.Fuzz(func(t *testing.T, text []byte, o, g float64) {
		s, err := goal.Parse(text)
		if err != nil || s.NumOps() > 5000 {
			return
		}
		p := New(6, math.Abs(math.Mod(o, 100)), math.Abs(math.Mod(g, 100)), 0.25, 0.125)
		if p.Validate() != nil {
			return
		}
		p.S = 1000
		res, err := Simulate(s, p, Options{Trace: true})
		if s.NumOps() <= 500 { // the wait lists give the naive retry loop's result
			naive, errN := Simulate(s, p, Options{naive: true})
			if (err == nil) != (errN == nil) || err != nil && err.Error() != errN.Error() || err == nil && !slices.Equal(res.Finish, naive.Finish) {
				t.Fatalf("wait lists: %v %v; naive retries: %v %v", err, res, errN, naive)
			}
		}
		if err != nil {
			var se *StuckError
			if !errors.As(err, &se) || len(se.Stuck) == 0 {
				t.Fatalf("error %v is not a StuckError with entries", err)
			}
			return
		}
		for r := range s.NumRanks() {
			busy := 0.0
			for i, op := range s.Ops(r) {
				if op.Kind == goal.Calc && op.CPU == 0 {
					busy += float64(op.Time)
				}
				if st, end, _ := res.OpTimes(r, i); end < st {
					t.Fatalf("rank %d op %d ends at %v before it starts at %v", r, i, end, st)
				}
			}
			if res.Finish[r] < busy {
				t.Fatalf("rank %d finishes at %v, before its CPU 0 computed %v", r, res.Finish[r], busy)
			}
		}
	})
}
