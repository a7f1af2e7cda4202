package goal

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// sameSchedule compares what a schedule says: ops, dependencies and
// labels. With generated true, a label b has where a has none is allowed
// (the writer generates labels for unlabelled ops that dependencies name).
func sameSchedule(a, b *Schedule, generated bool) error {
	if a.NumRanks() != b.NumRanks() {
		return fmt.Errorf("%d ranks vs %d", a.NumRanks(), b.NumRanks())
	}
	for r := range a.NumRanks() {
		if a.Len(r) != b.Len(r) {
			return fmt.Errorf("rank %d: %d ops vs %d", r, a.Len(r), b.Len(r))
		}
		for i := range a.Len(r) {
			if x, y := a.Op(r, i), b.Op(r, i); x != y {
				return fmt.Errorf("rank %d op %d: %+v vs %+v", r, i, x, y)
			}
			if la, lb := a.Label(r, i), b.Label(r, i); la != lb && !(generated && la == "") {
				return fmt.Errorf("rank %d op %d: label %q vs %q", r, i, la, lb)
			}
			if !slices.Equal(a.Requires(r, i), b.Requires(r, i)) || !slices.Equal(a.IRequires(r, i), b.IRequires(r, i)) {
				return fmt.Errorf("rank %d op %d: requires %v/%v irequires %v/%v", r, i,
					a.Requires(r, i), b.Requires(r, i), a.IRequires(r, i), b.IRequires(r, i))
			}
		}
	}
	return nil
}

// randomSchedule adds random ops to random ranks (interleaved, so the
// builder's out-of-order path runs), random dependencies and a few
// labels, some shaped like the writer's generated ones to force renames.
func randomSchedule(rng *rand.Rand, n, nops int) *Schedule {
	b := NewBuilder(n, 0)
	for range nops {
		r := rng.IntN(n)
		op := Op{Kind: Kind(1 + rng.IntN(3)), Bytes: rng.Uint64N(1 << 20), Time: rng.Uint64(), Peer: int32(rng.IntN(n)),
			Tag: int32(rng.IntN(5)) - 1, CPU: uint8(rng.IntN(3)), NIC: uint8(rng.IntN(3))}
		if op.Kind == Send && op.Tag < 0 && rng.IntN(2) == 0 {
			op.Tag = 9
		}
		if op.Kind == Recv && rng.IntN(4) == 0 {
			op.Peer = AnySource
		}
		i := b.Add(r, op)
		switch rng.IntN(6) {
		case 0:
			b.SetLabel(r, i, fmt.Sprintf("l%d", rng.IntN(8)+int(i)))
		case 1:
			b.SetLabel(r, i, fmt.Sprintf("op_%d", i))
		}
		for range rng.IntN(3) {
			j := int32(rng.IntN(int(i) + 1))
			if rng.IntN(2) == 0 {
				b.Require(r, i, j)
			} else {
				b.IRequire(r, j, i)
			}
		}
	}
	s, err := b.Schedule()
	if err != nil {
		// Random labels may collide within a rank: the caller draws again.
		if !strings.Contains(err.Error(), "unique") {
			panic(err)
		}
		return nil
	}
	return s
}

func TestWriteReadRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	done := 0
	for trial := 0; done < 200; trial++ {
		s := randomSchedule(rng, 1+rng.IntN(6), rng.IntN(40))
		if s == nil {
			continue
		}
		done++
		var w1 bytes.Buffer
		if err := Write(&w1, s); err != nil {
			t.Fatal(err)
		}
		s2, err := Parse(w1.Bytes())
		if err != nil {
			t.Fatalf("trial %d: reading what Write wrote: %v\n%s", trial, err, w1.String())
		}
		if err := sameSchedule(s, s2, true); err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, w1.String())
		}
		// Read, in pieces of a byte or two, gives what Parse gave.
		s3, err := Read(iotest.HalfReader(iotest.OneByteReader(bytes.NewReader(w1.Bytes()))))
		if err != nil {
			t.Fatalf("trial %d: Read: %v", trial, err)
		}
		if err := sameSchedule(s2, s3, false); err != nil {
			t.Fatalf("trial %d: Read: %v\n%s", trial, err, w1.String())
		}
		var w2 bytes.Buffer
		if err := Write(&w2, s2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("trial %d: writing the reread schedule changed the text:\n%s\n---\n%s", trial, w1.String(), w2.String())
		}
	}
}

// The canonical text: defaults omitted, dependencies after the ops,
// generated labels only where a dependency needs them.
func TestWriteCanonical(t *testing.T) {
	b := NewBuilder(2, 0)
	r0 := b.AddRecv(1, AnySource, 16, AnyTag)
	s0 := b.AddSend(0, 1, 16, 0)
	c0 := b.Add(0, Op{Kind: Calc, Time: 50, CPU: 2})
	b.Add(0, Op{Kind: Send, Bytes: 0, Peer: 1, Tag: 3, NIC: 1})
	b.SetLabel(0, c0, "l1")
	b.Require(0, c0, s0)
	b.IRequire(1, b.AddCalc(1, 7), r0)
	s, err := b.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := Write(&w, s); err != nil {
		t.Fatal(err)
	}
	want := `num_ranks 2

rank 0 {
l0: send 16b to 1
l1: calc 50 cpu 2
send 0b to 1 tag 3 nic 1
l1 requires l0
}

rank 1 {
l0: recv 16b from -1 tag -1
l1: calc 7
l1 irequires l0
}
`
	if w.String() != want {
		t.Errorf("got\n%s\nwant\n%s", w.String(), want)
	}
}

// A label that looks generated forces the generated one to move aside.
func TestWriteLabelCollision(t *testing.T) {
	b := NewBuilder(1, 0)
	a := b.AddCalc(0, 1)
	c := b.AddCalc(0, 2)
	b.SetLabel(0, c, "l0")
	b.Require(0, c, a)
	s, err := b.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := Write(&w, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "l0_: calc 1\nl0: calc 2\nl0 requires l0_\n") {
		t.Errorf("got\n%s", w.String())
	}
}

// Filling ranks in order or interleaved builds the same schedule.
func TestBuilderOrderIndependent(t *testing.T) {
	build := func(order []int) *Schedule {
		b := NewBuilder(3, 0)
		for _, r := range order {
			i := b.AddCalc(r, uint64(10*r+b.Len(r)))
			if i > 0 {
				b.Require(r, i, i-1)
				b.IRequire(r, 0, i)
			}
			b.SetLabel(r, i, fmt.Sprintf("c%d", i))
		}
		s, err := b.Schedule()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	inOrder := build([]int{0, 0, 0, 1, 2, 2})
	mixed := build([]int{2, 0, 1, 0, 2, 0})
	if err := sameSchedule(inOrder, mixed, false); err != nil {
		t.Error(err)
	}
	if !slices.Equal(inOrder.deps, mixed.deps) {
		t.Errorf("dependency layouts differ: %v vs %v", inOrder.deps, mixed.deps)
	}
	if got := mixed.IRequires(0, 0); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("irequires of rank 0 op 0 = %v, want [1 2]", got)
	}
}

func TestBuilderErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		do   func(b *Builder)
		want string
	}{
		{"rank", func(b *Builder) { b.AddCalc(2, 1) }, "rank 2: allowed 0..1"},
		{"dst", func(b *Builder) { b.AddSend(0, 2, 1, 0) }, "send to 2: allowed 0..1"},
		{"dst any", func(b *Builder) { b.AddSend(0, -1, 1, 0) }, "send to -1"},
		{"src", func(b *Builder) { b.AddRecv(0, -2, 1, 0) }, "recv from -2: allowed -1 (any) or 0..1"},
		{"tag", func(b *Builder) { b.AddRecv(0, 1, 1, -5) }, "tag -5"},
		{"kind", func(b *Builder) { b.Add(0, Op{Kind: 9}) }, "kind 9"},
		{"dep", func(b *Builder) { b.AddCalc(0, 1); b.Require(0, 0, 1) }, "dependency 0 on 1: rank 0 has ops 0..0"},
		{"label", func(b *Builder) { b.SetLabel(0, b.AddCalc(0, 1), "send") }, "label \"send\""},
		{"label chars", func(b *Builder) { b.SetLabel(0, b.AddCalc(0, 1), "1x") }, "label \"1x\""},
		{"dup label", func(b *Builder) { b.SetLabel(0, b.AddCalc(0, 1), "x"); b.SetLabel(0, b.AddCalc(0, 1), "x") }, "unique"},
	} {
		b := NewBuilder(2, 0)
		c.do(b)
		if _, err := b.Schedule(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := NewBuilder(0, 0).Schedule(); err == nil || !strings.Contains(err.Error(), "num_ranks 0") {
		t.Errorf("0 ranks: %v", err)
	}
	// The same label on different ranks is fine.
	b := NewBuilder(2, 0)
	b.SetLabel(0, b.AddCalc(0, 1), "x")
	b.SetLabel(1, b.AddCalc(1, 1), "x")
	if _, err := b.Schedule(); err != nil {
		t.Error(err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(example))
	f.Add([]byte("num_ranks 1\nrank 0 {\n}\n"))
	f.Add([]byte("num_ranks 2\nrank 0 {\na: send 1b to 1\nb: calc 4\nb requires a\n}\nrank 1 {\nrecv 1b from 0\n}"))
	f.Add([]byte("num_ranks 1\r\nrank 0 {/*x*/ l: calc 1 cpu 2\r\n}"))
	f.Add([]byte("num_ranks 2\nrank 0 {\nsend 1b to 1 tag 18446744073709551615\n}\nrank 1 {\nrecv 1b from 0 tag 18446744073709551615\n}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		// Read, a byte at a time from a reader of unknown size, gives the
		// same schedule or error.
		s1, err1 := Read(iotest.OneByteReader(bytes.NewReader(data)))
		if (err == nil) != (err1 == nil) || err != nil && err.Error() != err1.Error() {
			t.Fatalf("Parse: %v; Read: %v", err, err1)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "goal: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		if err := sameSchedule(s, s1, false); err != nil {
			t.Fatalf("Read: %v", err)
		}
		var w1 bytes.Buffer
		if err := Write(&w1, s); err != nil {
			t.Fatal(err)
		}
		s2, err := Parse(w1.Bytes())
		if err != nil {
			t.Fatalf("rereading: %v\n%s", err, w1.String())
		}
		// Parsed schedules only depend on labelled ops: nothing generated.
		if err := sameSchedule(s, s2, false); err != nil {
			t.Fatalf("%v\n%s", err, w1.String())
		}
		var w2 bytes.Buffer
		if err := Write(&w2, s2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("not canonical:\n%s\n---\n%s", w1.String(), w2.String())
		}
	})
}

// Packed lays the ops out rank by rank whatever order they were added
// in, each rank's in the order added.
func TestPacked(t *testing.T) {
	b := NewBuilder(3, 0)
	b.AddCalc(2, 1)
	b.AddCalc(0, 2)
	b.AddCalc(2, 3)
	s, err := b.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	ops, first := s.Packed()
	if !slices.Equal(first, []int32{0, 1, 1, 3}) || len(ops) != 3 || ops[0].Size != 2 || ops[1].Size != 1 || ops[2].Size != 3 || s.Op(2, 1).Time != 3 {
		t.Fatalf("Packed = %v %v", ops, first)
	}
}
