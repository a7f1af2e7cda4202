package coll

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
)

// procsToTest are communicator sizes covering powers of two, one either
// side of them and odd sizes.
var procsToTest = []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 31, 33}

func rootsOf(P int) []int { return []int{0, P - 1, P / 2} }

// pattern is n bytes that differ from rank to rank and byte to byte.
func pattern(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + seed*13 + 1)
	}
	return b
}

// TestBarriersComplete runs every barrier program in memory: all
// messages are empty and matched, and nobody waits forever.
func TestBarriersComplete(t *testing.T) {
	for _, a := range Algorithms() {
		if a.Op != "barrier" || a.Program == nil {
			continue
		}
		for _, P := range procsToTest {
			var args Args
			if a.MeshGrid {
				args.Grid = RowMajor(P, 3) // ragged last rows for most P
			}
			_, err := newMemWorld(P).run(a.Program, args, func(int) map[Buf][]byte { return nil })
			if err != nil {
				t.Errorf("barrier %s, P=%d: %v", a.Name, P, err)
			}
		}
	}
}

// TestBroadcastsDeliver runs every broadcast program in memory with real
// data: every rank ends with the root's message, byte for byte.
func TestBroadcastsDeliver(t *testing.T) {
	for _, a := range Algorithms() {
		if a.Op != "bcast" || a.Program == nil {
			continue
		}
		for _, P := range procsToTest {
			for _, n := range []int{0, 1, 5, 64, 1001} {
				for _, root := range rootsOf(P) {
					name := fmt.Sprintf("bcast %s, P=%d, %d bytes, root %d", a.Name, P, n, root)
					want := pattern(n, root)
					args := Args{Root: root, N: n}
					if a.OptimalTree {
						args.Tree = OptimalTree(P, 7.5, 1.25, 3.3) // a tree neither binomial nor flat
					}
					if a.MeshGrid {
						args.Grid = RowMajor(P, 3) // ragged last rows for most P
					}
					out, err := newMemWorld(P).run(a.Program, args, func(me int) map[Buf][]byte {
						if me == root {
							return map[Buf][]byte{Data: bytes.Clone(want)}
						}
						return map[Buf][]byte{Data: make([]byte, n)}
					})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for me := range P {
						if !bytes.Equal(out[me][Data], want) {
							t.Fatalf("%s: rank %d ends with %v, want %v", name, me, out[me][Data], want)
						}
					}
				}
			}
		}
	}
}

// TestMemWorldFindsDeadlock checks the checker: two ranks that both
// receive first never finish, and the run says so.
func TestMemWorldFindsDeadlock(t *testing.T) {
	prog := func(r Rank, a Args) error {
		if err := r.Recv(1-a.Me, Empty); err != nil {
			return err
		}
		return r.Send(1-a.Me, Empty)
	}
	if _, err := newMemWorld(2).run(prog, Args{}, func(int) map[Buf][]byte { return nil }); err == nil {
		t.Fatal("a receive-receive exchange completed")
	}
}

// TestMemWorldFindsLengthMismatch checks that both ends must agree on a
// message's length.
func TestMemWorldFindsLengthMismatch(t *testing.T) {
	prog := func(r Rank, a Args) error {
		if a.Me == 0 {
			return r.Send(1, Data.At(0, 8))
		}
		return r.Recv(0, Data.At(0, 4))
	}
	_, err := newMemWorld(2).run(prog, Args{}, func(int) map[Buf][]byte { return map[Buf][]byte{Data: make([]byte, 8)} })
	if err == nil {
		t.Fatal("an 8-byte message into a 4-byte region was accepted")
	}
}

// TestAllgathersDeliver runs every allgather program in memory with real
// data and blocks of different sizes (empty ones and ones that are not
// whole words among them): every rank ends with every rank's block.
func TestAllgathersDeliver(t *testing.T) {
	for _, a := range Algorithms() {
		if a.Op != "allgather" || a.Program == nil {
			continue
		}
		for _, P := range procsToTest {
			for _, shape := range []string{"uniform", "ragged"} {
				blocks := make([]int, P)
				for i := range blocks {
					blocks[i] = 12
					if shape == "ragged" {
						blocks[i] = (i * 5) % 11 // 0, 5, 10, 4, 9, 3, ...
					}
				}
				l := NewLayout(blocks)
				want := make([]byte, l.Size())
				for i := range P {
					copy(want[l.Off[i]:], pattern(blocks[i], i))
				}
				name := fmt.Sprintf("allgather %s, P=%d, %s blocks", a.Name, P, shape)
				out, err := newMemWorld(P).run(a.Program, Args{Blocks: blocks}, func(me int) map[Buf][]byte {
					b := make([]byte, l.Size())
					copy(b[l.Off[me]:], pattern(blocks[me], me))
					return map[Buf][]byte{Data: b}
				})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for me := range P {
					if !bytes.Equal(out[me][Data], want) {
						t.Fatalf("%s: rank %d ends with %v, want %v", name, me, out[me][Data], want)
					}
				}
			}
		}
	}
}

// TestAlltoallsDeliver runs every alltoall program in memory with real
// data: block j of rank i's send blocks ends as block i of rank j's
// receive blocks. Uniform blocks run Program; ragged ones (sizes that
// differ by pair, empty and odd ones among them) run Varying where the
// program needs one size.
func TestAlltoallsDeliver(t *testing.T) {
	for _, a := range Algorithms() {
		if a.Op != "alltoall" || a.Program == nil {
			continue
		}
		for _, P := range procsToTest {
			for _, shape := range []string{"uniform", "ragged"} {
				size := func(i, j int) int { // bytes rank i sends rank j
					if shape == "ragged" {
						return (i*3 + j*5) % 9
					}
					return 10
				}
				prog := a.Program
				if shape == "ragged" && a.Varying != nil {
					prog = a.Varying
				}
				w := newMemWorld(P)
				w.blocks = func(me int) (send, recv [][]byte) {
					for j := range P {
						send = append(send, pattern(size(me, j), me*P+j))
						recv = append(recv, make([]byte, size(j, me)))
					}
					copy(recv[me], send[me]) // the engine moves the rank's own block
					return send, recv
				}
				name := fmt.Sprintf("alltoall %s, P=%d, %s blocks", a.Name, P, shape)
				_, err := w.runEach(prog, func(int) map[Buf][]byte { return nil }, func(me int) Args {
					ar := Args{Send: make([]int, P), Recv: make([]int, P)}
					for j := range P {
						ar.Send[j], ar.Recv[j] = size(me, j), size(j, me)
					}
					return ar
				})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for me, r := range w.ranks {
					for j := range P {
						if want := pattern(size(j, me), j*P+me); !bytes.Equal(r.recv[j], want) {
							t.Fatalf("%s: rank %d's block from %d is %v, want %v", name, me, j, r.recv[j], want)
						}
					}
				}
			}
		}
	}
}

// rootedShapes are the block sizes of the scatter and gather tests: one
// size for all (not a whole word), and a vector call's sizes that differ
// by rank (empty ones among them).
var rootedShapes = []struct {
	name string
	vec  bool
	size func(i int) int
}{
	{"regular", false, func(int) int { return 6 }},
	{"vector", true, func(i int) int { return (i * 7) % 10 }},
}

// rootedCases are scatter and gather: where the data starts (the root's
// blocks, or every rank's Data), the root's own-block move, and where it
// must end.
var rootedCases = []struct {
	op      string
	scatter bool // data starts in the root's blocks
}{
	{"scatter", true},
	{"gather", false},
}

// TestRootedDeliver runs every scatter and gather program in memory,
// regular and vector: a scatter leaves the root's block i in rank i's
// Data, a gather leaves rank i's Data as the root's block i.
func TestRootedDeliver(t *testing.T) {
	for _, c := range rootedCases {
		for _, a := range Algorithms() {
			if a.Op != c.op || a.Program == nil {
				continue
			}
			for _, P := range procsToTest {
				for _, sh := range rootedShapes {
					for _, root := range rootsOf(P) {
						name := fmt.Sprintf("%s %s, P=%d, %s, root %d", c.op, a.Name, P, sh.name, root)
						w := rootedRun(t, name, c.scatter, a.Program, P, root, sh.vec, sh.size)
						for i := range P {
							got := w.ranks[i].bufs[Data]
							if !c.scatter {
								got = w.ranks[root].root[i]
							}
							if want := pattern(sh.size(i), i); !bytes.Equal(got, want) {
								t.Fatalf("%s: block %d ends as %v, want %v", name, i, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// rootedRun runs a scatter (or gather) program on P ranks with blocks of
// size(i) bytes, rank i's (or the root's block i) filled with pattern i.
func rootedRun(t *testing.T, name string, scatter bool, prog Program, P, root int, vec bool, size func(int) int) *memWorld {
	t.Helper()
	w := newMemWorld(P)
	w.rootBlocks = func(me int) [][]byte {
		var bl [][]byte
		for i := range P {
			b := make([]byte, size(i))
			if scatter {
				b = pattern(size(i), i)
			}
			bl = append(bl, b)
		}
		return bl
	}
	w.own = func(r *memRank) { copy(r.root[r.me], r.bufs[Data]) }
	if scatter {
		w.own = func(r *memRank) { copy(r.bufs[Data], r.root[r.me]) }
	}
	_, err := w.runEach(prog, func(me int) map[Buf][]byte {
		if scatter {
			return map[Buf][]byte{Data: make([]byte, size(me))}
		}
		return map[Buf][]byte{Data: pattern(size(me), me)}
	}, func(me int) Args {
		ar := Args{Root: root, N: size(me), Vec: vec}
		if me == root {
			ar.Blocks = make([]int, P)
			for i := range P {
				ar.Blocks[i] = size(i)
			}
		}
		return ar
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return w
}

// affineVector is rank i's operand: count affine maps that differ by rank
// and element.
func affineVector(i, count int) []byte {
	b := make([]byte, 8*count)
	for k := range count {
		binary.LittleEndian.PutUint32(b[8*k:], uint32(3+2*i+k))
		binary.LittleEndian.PutUint32(b[8*k+4:], uint32(7*i+k+1))
	}
	return b
}

// TestScansDeliver runs every scan program in memory, inclusive and
// exclusive, in place and not, with a non-commutative operation: rank i
// ends with ranks 0..i (exclusive: 0..i-1) combined in rank order.
func TestScansDeliver(t *testing.T) {
	const count = 3
	for _, a := range Algorithms() {
		if a.Op != "scan" || a.Program == nil {
			continue
		}
		for _, P := range procsToTest {
			for _, ex := range []bool{false, true} {
				for _, inPlace := range []bool{false, true} {
					name := fmt.Sprintf("scan %s, P=%d, exclusive %v, in place %v", a.Name, P, ex, inPlace)
					out, err := newMemWorld(P).run(a.Program, Args{N: 8 * count, Ex: ex, InPlace: inPlace}, func(me int) map[Buf][]byte {
						in := affineVector(me, count)
						if inPlace {
							return map[Buf][]byte{Input: in, Result: in}
						}
						return map[Buf][]byte{Input: in, Result: make([]byte, 8*count)}
					})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for me := range P {
						last := me
						if ex {
							last = me - 1
						}
						if last < 0 {
							continue // rank 0's exclusive result is undefined
						}
						want := affineVector(0, count)
						for i := 1; i <= last; i++ {
							next := affineVector(i, count)
							for k := 0; k < 8*count; k += 8 {
								affineOp(want[k:k+8], next[k:k+8])
							}
							want = next
						}
						if got := out[me][Result]; !bytes.Equal(got, want) {
							t.Fatalf("%s: rank %d ends with %v, want %v", name, me, got, want)
						}
					}
				}
			}
		}
	}
}
