package coll

import "fmt"

// A schedule program is one rank's part of a collective algorithm: the
// messages it posts, grouped in steps that it waits for, and the local
// work (copies, reductions) between them. It names data by Region, a byte
// range of one of the call's buffers, so an engine that moves real data
// (mpi) and one that only writes the pattern (logp/collgen) run the same
// code.

// Buf names a buffer of the call as the algorithm sees it, always as
// contiguous bytes (an engine packs typed data before and after).
type Buf uint8

const (
	// NoBuf is the buffer of empty messages (barriers, requests).
	NoBuf Buf = iota
	// Data is the operation's one buffer: bcast's message, allgather's
	// blocks in Layout.
	Data
	// SendBlock and RecvBlock are alltoall's blocks, one buffer per peer
	// (Region.Block): the user's memory, or packed scratch when a block
	// is not contiguous words. Copying from a SendBlock packs it, copying
	// to a RecvBlock unpacks it.
	SendBlock
	RecvBlock
	// RootBlock is a scatter's or gather's block of each rank in the
	// root's buffer (Region.Block): the user's memory, typed; sending it
	// packs it if it must, copying to and from it packs and unpacks.
	RootBlock
	// Input and Result are a reduction's vectors, packed: the rank's own
	// operand and where its result goes (one buffer when Args.InPlace).
	Input
	Result
	// Work, Tmp and Tmp2 are scratch an algorithm allocates (Rank.Alloc);
	// Hdr is scratch for sizes sent ahead of data (Rank.PutSizes).
	Work
	Tmp
	Tmp2
	Hdr
	// NBufs counts the buffers.
	NBufs
)

// Region is Len bytes at byte Off of buffer Buf (of block Block of it for
// SendBlock and RecvBlock).
type Region struct {
	Buf      Buf
	Off, Len int
	Block    int
}

// BlockOf is the whole of block j of b (SendBlock or RecvBlock), n bytes.
func BlockOf(b Buf, j, n int) Region { return Region{Buf: b, Len: n, Block: j} }

// At is the region of n bytes at byte off of b.
func (b Buf) At(off, n int) Region { return Region{Buf: b, Off: off, Len: n} }

// Sub is n bytes of r from its byte off.
func (r Region) Sub(off, n int) Region { r.Off += off; r.Len = n; return r }

// Empty is an empty message's region.
var Empty = Region{}

// Step is a set of messages posted together that one Wait completes.
// Messages at an offset that is not word-aligned are staged through
// scratch by the engine (a charged copy), as the DMA engine reads words
// from word addresses.
type Step interface {
	Send(peer int, r Region)
	Recv(peer int, r Region)
	// Wait completes every message of the step (and the requests an
	// Asks answered in it); the step is empty afterwards and can be
	// used again. Waiting on an empty step does nothing.
	Wait() error
	// WaitAll is Wait as one MPI_Waitall call, made even when the step is
	// empty: on the chip the call itself costs the processor its call
	// overhead, so the algorithms written with a bare Waitall keep it.
	WaitAll() error
}

// Rank is one rank of a collective call, as an engine runs it.
type Rank interface {
	// Step starts an empty step.
	Step() Step
	// Send, Recv and SendRecv are blocking messages (SendRecv posts its
	// receive first, then its send, and waits for both).
	Send(peer int, r Region) error
	Recv(peer int, r Region) error
	SendRecv(dst int, s Region, src int, rr Region) error
	// Asks posts an empty receive from each of peers, to be answered in
	// the order they arrive.
	Asks(peers []int) (Asks, error)
	// Alloc gives scratch buffer b n bytes, until the program ends.
	Alloc(b Buf, n int) error
	// Copy copies src to dst (the same length), charging the processor
	// for it.
	Copy(dst, src Region) error
	// Charge charges the processor for writing n bytes, as a copy.
	Charge(n int)
	// Combine reduces src into dst (dst = src op dst, element by
	// element, src holding the lower ranks' operands), charging the
	// processor for it.
	Combine(dst, src Region) error
	// PutSizes writes sz as 4-byte integers at dst (uncharged: Charge
	// says what it costs); Sizes reads them back from src.
	PutSizes(dst Region, sz []int)
	Sizes(src Region) []int
	// Own moves the root's own block of a scatter or gather between
	// its buffers (nothing when in place).
	Own() error
	// RootTree reports whether the root's buffer already is Layout sz
	// of its blocks in ranks relative to the root; if so it serves as
	// Work, and the algorithm need not pack into scratch.
	RootTree(sz []int) bool
}

// Truncated is an error a rank finds once the data has moved: the root
// sent Got bytes for a receive of Want. The algorithm goes on (the other
// ranks still get their data) and returns it at the end, so an engine
// completes the call before reporting it.
type Truncated struct{ Got, Want int }

func (e *Truncated) Error() string {
	return fmt.Sprintf("the root sends %d bytes into a %d-byte receive", e.Got, e.Want)
}

// Asks is a set of posted requests a rank answers in the order they
// arrive. Next waits for one not yet returned and gives its index in
// peers; the sends posted after it answer it, and the next Step.Wait
// completes the requests too. An engine without timing (a schedule
// writer) returns them in order and makes each answer depend on its
// request, the same rule with the order left to the model's timing.
type Asks interface {
	Next() (int, error)
}

// Args are what every rank's program is given: the communicator size, the
// rank, the root (rooted operations) and the sizes in bytes, whose meaning
// is the operation's.
type Args struct {
	P, Me, Root int
	// N is bcast's message.
	N int
	// Blocks are the bytes of each rank's block (allgather), P of them.
	Blocks []int
	// Send and Recv are the bytes of the block to and from each rank
	// (alltoall), P of each.
	Send, Recv []int
	// Tree is the broadcast tree of an OptimalTree algorithm.
	Tree *Tree
	// Grid is the communicator's ranks by mesh row (MeshGrid algorithms).
	Grid *Grid
	// Elem is the bytes of a reduction's element (blocks are split on
	// whole elements); N is then each rank's vector (reduce_scatter: the
	// whole vector, Blocks its parts, rank i's result being Blocks[i]).
	Elem int
	// InPlace says a reduction's Input and Result are one buffer (the
	// result at its start); Ex marks an exclusive scan.
	InPlace, Ex bool
	// Ordered says the reduction's op is not commutative: operands must
	// be combined in rank order.
	Ordered bool
	// Vec marks a scatterv or gatherv, whose sizes only the root knows
	// (Blocks, at the root); N is then the rank's own block.
	Vec bool
}

// Program is one algorithm's schedule program, run by every rank.
type Program func(r Rank, a Args) error
