package loggops

import (
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
