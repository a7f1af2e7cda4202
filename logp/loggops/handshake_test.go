package loggops

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"nocsim/logp/goal"
)

// hsSeg is the handshake segment of the hand-worked tests, at h = 2 hops
// for every pair: the full latency L + h·Lh = 120, the clear-to-send's
// leg L_cts + h·L_cts_per_hop = 38, the data's L_data + h·L_data_per_hop
// = 56, so the request to send flies 120 - 38 - 56 = 26.
var hsSeg = Segment{L: 100, Lh: 10, Os: 40, Or: 20, Gap: 170, G: 0.25,
	Handshake: true, Lcts: 30, LctsH: 4, Ldata: 50, LdataH: 3, Octs: 54, GapData: 3}

func hsParams(seg Segment, coop bool) Params {
	return Params{S: 0, Segments: []Segment{seg}, Hops: func(a, b int) int { return 2 }, Cooperative: coop}
}

func schedule(t *testing.T, b *goal.Builder) *goal.Schedule {
	t.Helper()
	s, err := b.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An isolated message keeps the fitted one-way time: the request to send
// reaches the waiting receiver at o_s + 26, the clear-to-send the idle
// sender 38 later, the data the receiver 56 after that, which then
// takes o_r + (s-1)G: o_s + L + h·Lh + (s-1)G + o_r in all. A ping-pong
// therefore ends, at rank 0, exactly when the plain tier's does.
func TestHandshakePingPong(t *testing.T) {
	plainSeg := hsSeg
	plainSeg.Handshake = false
	for _, coop := range []bool{false, true} {
		for _, bytes := range []uint64{1, 8, 1024, 65536} {
			oneWay := 40 + 120 + 20 + float64(bytes-1)*0.25
			hs := run(t, pingPong(bytes, nil), hsParams(hsSeg, coop))
			plain := run(t, pingPong(bytes, nil), hsParams(plainSeg, coop))
			if !near(hs.Finish[0], 2*oneWay) || !near(plain.Finish[0], 2*oneWay) {
				t.Errorf("coop=%v %d B: rank 0 ends at %v (handshake), %v (plain), want 2 x %v", coop, bytes, hs.Finish[0], plain.Finish[0], oneWay)
			}
			// Rank 1's send completes when its clear-to-send's handler
			// is done and its data has left the NIC: its handler starts
			// o_s + 26 + 38 after the send (at oneWay), and ends o_cts
			// later or g_data + (s-1)G later for the NIC, not at the
			// match (oneWay + o_s + 26) as in LogGOPSim.
			if want := oneWay + 40 + 26 + 38 + max(54, 3+float64(bytes-1)*0.25); !near(hs.Finish[1], want) {
				t.Errorf("coop=%v %d B: rank 1 ends at %v, want %v", coop, bytes, hs.Finish[1], want)
			}
		}
	}
}

// A root posts k sends of 8 B to k waiting receivers back to back. The
// i-th request to send (i from 1) leaves at (i-1)·o_s, so its
// clear-to-send is back at i·o_s + 26 + 38. The root's CPU is busy
// posting until k·o_s, then takes each clear-to-send at
// c_i = max(c_{i-1} + o_cts, i·o_s + 64), c_1 = max(k·o_s, o_s + 64);
// receiver i completes at c_i + 56 + o_r + 7·G (its data waits for no
// NIC: g_data + 7G = 4.75 < o_cts), and the root ends at c_k + o_cts. At
// k = 4: 237.75, 291.75, 345.75, 399.75, spaced o_cts = 54, root 376. The
// root has nothing else to do, so Cooperative changes nothing here.
func TestHandshakeFanOut(t *testing.T) {
	for _, coop := range []bool{false, true} {
		for k := 1; k <= 4; k++ {
			b := goal.NewBuilder(k+1, 0)
			for i := 1; i <= k; i++ {
				b.AddSend(0, i, 8, 0)
				b.AddRecv(i, 0, 8, 0)
			}
			res := run(t, schedule(t, b), hsParams(hsSeg, coop))
			c := max(float64(k)*40, 40+64)
			for i := 1; i <= k; i++ {
				if i > 1 {
					c = max(c+54, float64(i)*40+64)
				}
				if want := c + 56 + 20 + 7*0.25; !near(res.Finish[i], want) {
					t.Errorf("coop=%v k=%d: receiver %d completes at %v, want %v", coop, k, i, res.Finish[i], want)
				}
			}
			if want := c + 54; !near(res.Finish[0], want) {
				t.Errorf("coop=%v k=%d: root ends at %v, want %v", coop, k, res.Finish[0], want)
			}
		}
	}
}

// Send first: the receiver computes c cycles, then posts. With c = 1000
// the request to send (at rank 1 at 66) waits for the CPU until 1000.
// Cooperative: the rank then has its receive to start, so the request's
// handler runs once it is posted (at 1000) and finds it: the
// clear-to-send leaves at the posting + L_post (1000 + 0) and reaches
// the idle sender at 1038, whose handler runs to 1092; the data arrives
// at 1094 and the receive completes at 1094 + o_r + 7G = 1115.75: the
// posting plus L_post + L_cts + L_data + o_r + (s-1)G, what calibrate's
// late-receiver benchmark measures; with L_post = 25 all of it 25 later.
// Not cooperative: the handler runs at 1000 first (queued before the
// receive), the request waits, and the receive finds it: the
// clear-to-send leaves o_r after the posting, 1020, and L_post plays no
// part: 1112 and 1135.75. Posted at 50, 16 before the request arrives:
// with L_post = 0 the isolated one-way time (181.75, handler to 158);
// with L_post = 25 the clear-to-send leaves at max(66, 75) = 75, 9 later.
func TestHandshakeSendFirst(t *testing.T) {
	for _, c := range []struct {
		coop         bool
		calc         uint64
		post         float64
		want0, want1 float64
	}{
		{true, 1000, 0, 1092, 1115.75}, {true, 1000, 25, 1117, 1140.75},
		{false, 1000, 0, 1112, 1135.75}, {false, 1000, 25, 1112, 1135.75},
		{true, 50, 0, 158, 181.75}, {true, 50, 25, 167, 190.75},
		{false, 50, 0, 158, 181.75}, {false, 50, 25, 167, 190.75},
	} {
		b := goal.NewBuilder(2, 0)
		b.AddSend(0, 1, 8, 0)
		k := b.AddCalc(1, c.calc)
		b.Require(1, b.AddRecv(1, 0, 8, 0), k)
		seg := hsSeg
		seg.Lpost = c.post
		res := run(t, schedule(t, b), hsParams(seg, c.coop))
		if res.Finish[0] != c.want0 || res.Finish[1] != c.want1 {
			t.Errorf("coop=%v calc %d, L_post %v: finishes %v, want [%v %v]", c.coop, c.calc, c.post, res.Finish, c.want0, c.want1)
		}
	}
}

// Cooperative against not: rank 0 posts A to rank 1 and B to rank 2 (8 B
// each) with g_data = 200, so B waits for the NIC while the CPU is free.
// A starts at 0 (CPU to 40, NIC to 200); its clear-to-send is back at 104.
//
// Not cooperative: the handler runs at 104 (CPU to 158), its data waits
// for the NIC until 200 (NIC to 401.75), reaches rank 1 at 256, done at
// 277.75. B then waits for the NIC until 401.75 (CPU to 441.75, NIC to
// 601.75); its clear-to-send is back at 505.75, handler to 559.75, data
// at max(505.75, 601.75) + 56 = 657.75, done at 679.5.
//
// Cooperative: at 104 B is waiting to start, so the handler parks; B
// starts at 200 (CPU to 240, NIC to 400), the handler runs at 240 (CPU
// to 294), A's data leaves at 400 (NIC to 601.75), rank 1 done at
// 477.75. B's clear-to-send is back at 304, runs to 358, its data
// leaves at 601.75: rank 2 done at 679.5. In both, rank 0 ends when B's
// data has left its NIC, 601.75 + 200 + 1.75 = 803.5 (its handler ends
// at 559.75 and 358).
func TestHandshakeCooperative(t *testing.T) {
	seg := hsSeg
	seg.GapData = 200
	for _, c := range []struct {
		coop bool
		want []float64
	}{{false, []float64{803.5, 277.75, 679.5}}, {true, []float64{803.5, 477.75, 679.5}}} {
		b := goal.NewBuilder(3, 0)
		b.AddSend(0, 1, 8, 0)
		b.AddSend(0, 2, 8, 0)
		b.AddRecv(1, 0, 8, 0)
		b.AddRecv(2, 0, 8, 0)
		res := run(t, schedule(t, b), hsParams(seg, c.coop))
		for r, w := range c.want {
			if res.Finish[r] != w {
				t.Errorf("coop=%v: finishes %v, want %v", c.coop, res.Finish, c.want)
				break
			}
		}
	}
}

// With zero legs, handler time and gaps (L_cts = L_data = o_cts = g =
// g_data = G = 0), a handshake whose clear-to-send finds its sender's CPU
// free is LogGOPSim's rendezvous: the request flies L, is matched on
// arrival, and the data arrives at once. In a binomial broadcast with L
// > P·o every sender has posted all its sends before the first answer
// comes back, so every rank's finish is the plain tier's.
func TestHandshakeZeroLegsIsRendezvous(t *testing.T) {
	for P := 2; P <= 16; P++ {
		for _, coop := range []bool{false, true} {
			plain := Segment{L: 100, Os: 2, Or: 3}
			hs := plain
			hs.Handshake = true
			s := binomial(P, 64, nil)
			a := run(t, s, Params{S: 0, Segments: []Segment{plain}})
			b := run(t, s, Params{S: 0, Segments: []Segment{hs}, Cooperative: coop})
			for r := range a.Finish {
				if a.Finish[r] != b.Finish[r] {
					t.Fatalf("P=%d coop=%v: rank %d finishes at %v (rendezvous), %v (handshake)", P, coop, r, a.Finish[r], b.Finish[r])
				}
			}
		}
	}
}

// Handshake fields without Handshake change nothing; eager sizes (s <=
// S) are never handshakes.
func TestHandshakeOptIn(t *testing.T) {
	off := hsSeg
	off.Handshake = false
	plain := Segment{L: off.L, Lh: off.Lh, Os: off.Os, Or: off.Or, Gap: off.Gap, G: off.G}
	for _, pat := range patterns {
		s := pat.make(9, 100, nil)
		for _, S := range []uint64{0, 1000} {
			a := run(t, s, Params{S: S, Segments: []Segment{plain}})
			b := run(t, s, Params{S: S, Segments: []Segment{off}, Cooperative: true})
			p := Params{S: S, Segments: []Segment{plain}}
			q := Params{S: S, Segments: []Segment{hsSeg}}
			if S == 1000 {
				if c, d := run(t, s, p), run(t, s, q); c.Max != d.Max {
					t.Errorf("%s: eager sizes: %v plain, %v with a handshake segment", pat.name, c.Max, d.Max)
				}
			}
			if a.Max != b.Max {
				t.Errorf("%s S=%d: %v plain, %v with the handshake off", pat.name, S, a.Max, b.Max)
			}
		}
	}
}

// A handshake send nobody receives is stuck, and named; negative legs,
// or legs longer than L, are refused.
func TestHandshakeStuckAndValidate(t *testing.T) {
	b := goal.NewBuilder(2, 0)
	b.AddSend(0, 1, 8, 0)
	_, err := Simulate(schedule(t, b), hsParams(hsSeg, true), Options{})
	var se *StuckError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "no receive matches it") {
		t.Errorf("unreceived handshake: %v", err)
	}
	for _, c := range []struct {
		mod  func(*Segment)
		want string
	}{
		{func(s *Segment) { s.Octs = -1 }, "o_cts = -1"},
		{func(s *Segment) { s.Lpost = -2 }, "L_post = -2"},
		{func(s *Segment) { s.Lcts = 60 }, "exceed L"},
		{func(s *Segment) { s.LdataH = 8 }, "exceed L"},
	} {
		seg := hsSeg
		c.mod(&seg)
		if err := hsParams(seg, false).Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
	}
}

// A bound that holds on any schedule: a handshake message's data cannot
// reach its receiver before the request to send's flight, L_cts and
// L_data have passed, which sum to L (hops included), so every receive
// completes at least o_s + L + h·Lh + o_r + (s-1)max(O, G) after its
// send started (the isolated one-way time), and every send completes at
// least o_s + (s-1)O + o_cts after it started. Random schedules (unique
// tags pair each send with its receive; dependencies only on earlier
// ops of a rank; some cannot finish and are skipped), random legs, both
// Cooperative settings.
func TestHandshakeOneWayBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	checked := 0
	for range 300 {
		P := 2 + rng.IntN(6)
		b := goal.NewBuilder(P, 0)
		type msg struct {
			src, dst int
			size     uint64
			s, r     int32
		}
		var msgs []msg
		for tag := range 4 + rng.IntN(20) {
			src := rng.IntN(P)
			dst := (src + 1 + rng.IntN(P-1)) % P
			size := 1 + uint64(rng.IntN(3000)) // 0 B is eager at S = 0
			m := msg{src: src, dst: dst, size: size}
			m.s = b.AddSend(src, dst, size, tag)
			m.r = b.AddRecv(dst, src, size, tag)
			for _, x := range []struct {
				r  int
				op int32
			}{{src, m.s}, {dst, m.r}} {
				if x.op > 0 && rng.IntN(2) == 0 {
					b.Require(x.r, x.op, int32(rng.IntN(int(x.op))))
				}
				if rng.IntN(4) == 0 {
					b.Require(x.r, b.AddCalc(x.r, uint64(rng.IntN(300))), x.op)
				}
			}
			msgs = append(msgs, m)
		}
		s := schedule(t, b)
		L, Lh := 50+rng.Float64()*100, rng.Float64()*20
		seg := Segment{L: L, Lh: Lh, Os: rng.Float64() * 50, Or: rng.Float64() * 30, Gap: rng.Float64() * 200,
			G: rng.Float64() * 0.5, O: rng.Float64() * 0.5, Handshake: true, Lpost: rng.Float64() * 30,
			Lcts: rng.Float64() * L / 2, LctsH: rng.Float64() * Lh / 2, Ldata: rng.Float64() * L / 2, LdataH: rng.Float64() * Lh / 2,
			Octs: rng.Float64() * 60, GapData: rng.Float64() * 20}
		hops := func(a, b int) int { return (a*7 + b*3) % 5 }
		res, err := Simulate(s, Params{S: 0, Segments: []Segment{seg}, Hops: hops, Cooperative: rng.IntN(2) == 0}, Options{Trace: true})
		var se *StuckError
		if errors.As(err, &se) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			s1 := float64(max(m.size, 1) - 1)
			ss, se, _ := res.OpTimes(m.src, int(m.s))
			_, re, _ := res.OpTimes(m.dst, int(m.r))
			oneWay := seg.Os + seg.L + float64(hops(m.src, m.dst))*seg.Lh + seg.Or + s1*max(seg.O, seg.G)
			if re < ss+oneWay-1e-9 || se < ss+seg.Os+s1*seg.O+seg.Octs-1e-9 {
				t.Fatalf("%d B from %d to %d: sent %v..%v, received by %v: below the bounds %v and %v", m.size, m.src, m.dst, ss, se, re, ss+oneWay, ss+seg.Os+s1*seg.O+seg.Octs)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Errorf("only %d messages checked: the generator makes too many stuck schedules", checked)
	}
}
