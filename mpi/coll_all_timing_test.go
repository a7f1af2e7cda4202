package mpi

import (
	"bytes"
	"fmt"
	sched "nocsim/coll"
	"slices"
	"testing"

	"nocsim/des"
	"nocsim/mpi/datatype"
)

// Timing of the allgather and alltoall algorithms on the simulator: the
// ring against gather_bcast, and Bruck against the direct algorithms.

// allSync is a dissemination barrier on user messages, so that the timed
// calls start together without relying on another collective.
func allSync(r *Rank, c *Comm) {
	b := r.MustAlloc(4)
	defer r.Free(b)
	P, me := c.Size(), c.Rank()
	for k := 1; k < P; k <<= 1 {
		if _, err := r.Sendrecv(b, 0, datatype.Byte, (me+k)%P, 77, b, 0, datatype.Byte, (me-k+P)%P, 77, c); err != nil {
			panic(err)
		}
	}
}

// allTime runs one call of op with alg on P ranks, n bytes per rank (per
// block for alltoall), and returns the cycles from the earliest start to
// the latest finish.
func allTime(t *testing.T, op, alg string, P, n int) des.Time {
	cfg := DefaultConfig()
	cfg.SetAlgorithm(op, alg)
	cfg.Procs = P
	side := 4
	if P > 16 {
		side = 8
	}
	w := job(t, side, side, cfg, nil)
	start, end := make([]des.Time, P), make([]des.Time, P)
	w.Launch(func(r *Rank) {
		c := r.CommWorld()
		count := n / 4
		in := r.MustAlloc(4 * count)
		size := P * 4 * count
		if op == "alltoall" {
			in = r.MustAlloc(P * 4 * count)
		}
		out := r.MustAlloc(size)
		allSync(r, c)
		start[r.Rank()] = r.Now()
		var err error
		if op == "allgather" {
			err = r.Allgather(in, count, datatype.Int32, out, count, datatype.Int32, c)
		} else {
			err = r.Alltoall(in, count, datatype.Int32, out, count, datatype.Int32, c)
		}
		if err != nil {
			t.Error(err)
		}
		end[r.Rank()] = r.Now()
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	allNoLeaks(t, w)
	return slices.Max(end) - slices.Min(start)
}

// TestAllgatherRingBeatsGatherBcastLong is the direction the seeds give:
// at large sizes Puma's ring beats the Cray X1's gather-then-broadcast,
// which funnels everything through rank 0 and then broadcasts P times the
// data. Small sizes are logged, where the log-depth algorithms may win.
func TestAllgatherRingBeatsGatherBcastLong(t *testing.T) {
	t.Parallel()
	const P = 16
	type res struct {
		n   int
		alg string
		c   des.Time
	}
	sizes := []int{16, 256, 1024, 4096, 16384}
	algs := sched.Names("allgather")
	out := make([]res, 0, len(sizes)*len(algs))
	for _, n := range sizes {
		for _, a := range algs {
			out = append(out, res{n, a, allTime(t, "allgather", a, P, n)})
		}
	}
	get := func(n int, a string) des.Time {
		for _, r := range out {
			if r.n == n && r.alg == a {
				return r.c
			}
		}
		return 0
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "allgather, P=%d on 4x4, cycles:\n%8s", P, "bytes")
	for _, a := range algs {
		fmt.Fprintf(&b, " %20s", a)
	}
	for _, n := range sizes {
		fmt.Fprintf(&b, "\n%8d", n)
		for _, a := range algs {
			fmt.Fprintf(&b, " %20d", get(n, a))
		}
	}
	t.Log(b.String())
	if ring, gb := get(16384, "ring"), get(16384, "gather_bcast"); ring >= gb {
		t.Errorf("16 KiB per rank: ring %d cycles, gather_bcast %d: ring should be faster", ring, gb)
	}
}

// TestAllgatherRingBeatsGatherBcast64 is the same direction on 64 ranks of
// an 8x8 mesh, 4 KiB per rank.
func TestAllgatherRingBeatsGatherBcast64(t *testing.T) {
	t.Parallel()
	const P, n = 64, 4096
	ring, gb := allTime(t, "allgather", "ring", P, n), allTime(t, "allgather", "gather_bcast", P, n)
	t.Logf("allgather, P=%d on 8x8, %d bytes per rank: ring %d, gather_bcast %d cycles", P, n, ring, gb)
	if ring >= gb {
		t.Errorf("ring %d cycles, gather_bcast %d: ring should be faster", ring, gb)
	}
}

// TestAlltoallCrossover: Bruck's log P rounds win on short blocks, where
// message count dominates, and lose on long ones, where it forwards each
// block log P times; the direct algorithms win there.
func TestAlltoallCrossover(t *testing.T) {
	t.Parallel()
	const P = 16
	times := map[int]map[string]int64{}
	for _, n := range []int{16, 4096} {
		times[n] = map[string]int64{}
		for _, a := range sched.Names("alltoall") {
			times[n][a] = int64(allTime(t, "alltoall", a, P, n))
		}
	}
	t.Logf("alltoall P=%d on 4x4, cycles by block size: %v", P, times)
	for _, a := range []string{"pairwise", "post_all"} {
		if times[16]["bruck"] >= times[16][a] {
			t.Errorf("16-byte blocks: bruck %d cycles, %s %d: bruck should win", times[16]["bruck"], a, times[16][a])
		}
		if times[4096]["bruck"] <= times[4096][a] {
			t.Errorf("4 KiB blocks: bruck %d cycles, %s %d: bruck should lose", times[4096]["bruck"], a, times[4096][a])
		}
	}
}
