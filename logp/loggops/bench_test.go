package loggops

import (
	"fmt"
	"testing"
)

// BenchmarkBinomialBroadcast simulates a 2^20-rank binomial broadcast of
// 1-byte messages (2^20-1 sends and as many receives) and reports
// schedule operations simulated per second.
//
//	go test ./logp/loggops -run XXX -bench BinomialBroadcast -benchtime 3x
func BenchmarkBinomialBroadcast(b *testing.B) {
	const P = 1 << 20
	s := binomial(P, 1, nil)
	p := New(6, 2, 4, 0, 0)
	ops := s.NumOps()
	b.ReportAllocs()
	b.ResetTimer()
	var res *Result
	for b.Loop() {
		var err error
		if res, err = Simulate(s, p, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ops)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(res.Max, "finish_cycles")
}

// BenchmarkBinomialBroadcastHandshake is the same broadcast with every
// message a cooperative handshake (each adds a clear-to-send and a data
// event): allocations stay those of the schedule's arrays, none per
// event.
//
//	go test ./logp/loggops -run XXX -bench BroadcastHandshake -benchtime 3x
func BenchmarkBinomialBroadcastHandshake(b *testing.B) {
	const P = 1 << 20
	s := binomial(P, 1, nil)
	seg := Segment{L: 6, Os: 2, Or: 2, Gap: 4, Handshake: true, Lcts: 2, Ldata: 2, Octs: 1, GapData: 1}
	p := Params{S: 0, Segments: []Segment{seg}, Cooperative: true}
	ops := s.NumOps()
	b.ReportAllocs()
	b.ResetTimer()
	var res *Result
	for b.Loop() {
		var err error
		if res, err = Simulate(s, p, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ops)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(res.Max, "finish_cycles")
}

// BenchmarkReadySends is one rank with n sends ready at once (n messages
// to n ranks), at two sizes: time per op stays about the same from 2^14
// to 2^18 (it grew with n, n²/2 retries, before the wait lists).
//
//	go test ./logp/loggops -run XXX -bench ReadySends -benchtime 3x
func BenchmarkReadySends(b *testing.B) {
	for _, n := range []int{1 << 14, 1 << 18} {
		s := fanOut(n, false)
		p := New(6, 2, 4, 0, 0)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Simulate(s, p, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.NumOps()), "ns/op-simulated")
		})
	}
}
