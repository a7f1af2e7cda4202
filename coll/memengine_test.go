package coll

import (
	"encoding/binary"
	"fmt"
	"sync"
)

// memWorld runs a program on P ranks in memory, one goroutine each, with
// MPI's matching rules for one tag: messages between a pair arrive in the
// order they were sent, receives take them in the order they were posted,
// sends never block (unbounded buffering). It checks what no engine
// should have to: both ends of every message agree on its length, and no
// rank waits forever (a deadlock fails the run, naming who waits on whom).
// Data moves for real, so a test can check what each rank ends with.
type memWorld struct {
	mu      sync.Mutex
	cond    *sync.Cond
	P       int
	queue   map[[2]int][][]byte // (src, dst) -> messages in flight
	blocked int
	live    int
	err     error
	waits   map[int]string // rank -> what it waits for

	// blocks, when set, gives each rank's alltoall blocks; rootBlocks
	// the root's scatter or gather blocks; own moves the root's own
	// block (scatter: to its Data; gather: from it).
	blocks     func(me int) (send, recv [][]byte)
	rootBlocks func(me int) [][]byte
	own        func(r *memRank)
	ranks      []*memRank
	// bytewise makes Combine add byte by byte (mod 256), a commutative
	// operation any element size divides, instead of affineOp.
	bytewise bool
}

// memRank is one rank of a memWorld.
type memRank struct {
	w    *memWorld
	me   int
	bufs map[Buf][]byte
	// send and recv are alltoall's blocks (SendBlock, RecvBlock); root
	// is the root's blocks of a scatter or gather (RootBlock).
	send, recv, root [][]byte
}

func newMemWorld(P int) *memWorld {
	w := &memWorld{P: P, queue: map[[2]int][][]byte{}, waits: map[int]string{}}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// run runs prog on every rank with args a (P, Me set per rank); bufs(me)
// gives each rank's buffers, which it ends with.
func (w *memWorld) run(prog Program, a Args, bufs func(me int) map[Buf][]byte) ([]map[Buf][]byte, error) {
	return w.runEach(prog, bufs, func(int) Args { return a })
}

// runEach is run with arguments that differ by rank.
func (w *memWorld) runEach(prog Program, bufs func(me int) map[Buf][]byte, args func(me int) Args) ([]map[Buf][]byte, error) {
	out := make([]map[Buf][]byte, w.P)
	var wg sync.WaitGroup
	w.live = w.P
	errs := make([]error, w.P)
	for me := range w.P {
		out[me] = bufs(me)
		if out[me] == nil {
			out[me] = map[Buf][]byte{}
		}
		r := &memRank{w: w, me: me, bufs: out[me]}
		if w.blocks != nil {
			r.send, r.recv = w.blocks(me)
		}
		if w.rootBlocks != nil {
			r.root = w.rootBlocks(me)
		}
		w.ranks = append(w.ranks, r)
		ra := args(me)
		ra.P, ra.Me = w.P, me
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[me] = prog(r, ra)
			w.mu.Lock()
			w.live--
			w.progress()
			w.mu.Unlock()
		}()
	}
	wg.Wait()
	if w.err != nil {
		return out, w.err
	}
	for me, err := range errs {
		if err != nil {
			return out, fmt.Errorf("rank %d: %v", me, err)
		}
	}
	for k, q := range w.queue {
		if len(q) > 0 {
			return out, fmt.Errorf("%d message(s) from rank %d to rank %d never received", len(q), k[0], k[1])
		}
	}
	return out, nil
}

// progress notes that a rank may now move; w.mu is held.
func (w *memWorld) progress() {
	w.blocked = 0
	clear(w.waits)
	w.cond.Broadcast()
}

func (r *memRank) bytes(g Region) []byte {
	b := r.bufs[g.Buf]
	switch g.Buf {
	case SendBlock:
		b = r.send[g.Block]
	case RecvBlock:
		b = r.recv[g.Block]
	case RootBlock:
		b = r.root[g.Block]
	}
	if g.Len == 0 {
		return nil
	}
	if g.Off < 0 || g.Off+g.Len > len(b) {
		panic(fmt.Sprintf("rank %d: region %d..%d of buffer %d, which has %d bytes", r.me, g.Off, g.Off+g.Len, g.Buf, len(b)))
	}
	return b[g.Off : g.Off+g.Len]
}

func (r *memRank) post(dst int, g Region) {
	w := r.w
	msg := append([]byte(nil), r.bytes(g)...)
	w.mu.Lock()
	k := [2]int{r.me, dst}
	w.queue[k] = append(w.queue[k], msg)
	w.progress()
	w.mu.Unlock()
}

// take waits for the next message from any of srcs (the lowest index
// among those with one) and returns the index; false after a deadlock.
func (r *memRank) take(srcs []int, what string) (int, []byte, bool) {
	w := r.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		if w.err != nil {
			return 0, nil, false
		}
		for i, s := range srcs {
			k := [2]int{s, r.me}
			if q := w.queue[k]; len(q) > 0 {
				w.queue[k] = q[1:]
				return i, q[0], true
			}
		}
		// Every progress (a post, a rank finishing) resets the count and
		// wakes all waiters, which count themselves again if still stuck:
		// when all live ranks have counted themselves since, none can move.
		w.blocked++
		w.waits[r.me] = what
		if w.blocked == w.live {
			w.err = fmt.Errorf("deadlock: %v", w.waits)
			w.cond.Broadcast()
			return 0, nil, false
		}
		w.cond.Wait()
	}
}

func (r *memRank) recvInto(src int, g Region) error {
	_, msg, ok := r.take([]int{src}, fmt.Sprintf("a message from %d", src))
	if !ok {
		return fmt.Errorf("deadlock")
	}
	if len(msg) != g.Len {
		return fmt.Errorf("rank %d: %d bytes from rank %d into a %d-byte region", r.me, len(msg), src, g.Len)
	}
	copy(r.bytes(g), msg)
	return nil
}

type memStep struct {
	r     *memRank
	recvs []memRecv
}

type memRecv struct {
	src int
	g   Region
}

func (r *memRank) Step() Step { return &memStep{r: r} }

func (s *memStep) Send(peer int, g Region) { s.r.post(peer, g) }

func (s *memStep) Recv(peer int, g Region) { s.recvs = append(s.recvs, memRecv{peer, g}) }

func (s *memStep) Wait() error {
	recvs := s.recvs
	s.recvs = nil
	for _, q := range recvs {
		if err := s.r.recvInto(q.src, q.g); err != nil {
			return err
		}
	}
	return nil
}

func (s *memStep) WaitAll() error { return s.Wait() }

func (r *memRank) Send(peer int, g Region) error { r.post(peer, g); return nil }

func (r *memRank) Recv(peer int, g Region) error { return r.recvInto(peer, g) }

func (r *memRank) SendRecv(dst int, s Region, src int, g Region) error {
	r.post(dst, s)
	return r.recvInto(src, g)
}

func (r *memRank) Alloc(b Buf, n int) error {
	r.bufs[b] = make([]byte, n)
	return nil
}

func (r *memRank) Copy(dst, src Region) error {
	if dst.Len != src.Len {
		return fmt.Errorf("rank %d: copy of %d bytes into %d", r.me, src.Len, dst.Len)
	}
	copy(r.bytes(dst), r.bytes(src))
	return nil
}

func (r *memRank) Charge(int) {}

// Combine reduces with affineOp, a non-commutative operation, so a test
// sees the rank order it is combined in.
func (r *memRank) Combine(dst, src Region) error {
	if dst.Len != src.Len || dst.Len%8 != 0 && !r.w.bytewise {
		return fmt.Errorf("rank %d: combine of %d bytes into %d", r.me, src.Len, dst.Len)
	}
	d, s := r.bytes(dst), r.bytes(src)
	if r.w.bytewise {
		for k := range d {
			d[k] += s[k]
		}
		return nil
	}
	for k := 0; k < len(d); k += 8 {
		affineOp(s[k:k+8], d[k:k+8])
	}
	return nil
}

// affineOp sets y to x op y, for elements that are affine maps v -> a*v+b
// mod 2^32 (a, b little-endian uint32s) and op "x, then y": associative,
// not commutative.
func affineOp(x, y []byte) {
	le := binary.LittleEndian
	xa, xb := le.Uint32(x), le.Uint32(x[4:])
	ya, yb := le.Uint32(y), le.Uint32(y[4:])
	le.PutUint32(y, xa*ya)
	le.PutUint32(y[4:], ya*xb+yb)
}

func (r *memRank) PutSizes(dst Region, sz []int) {
	b := r.bytes(dst)
	for j, n := range sz {
		binary.LittleEndian.PutUint32(b[4*j:], uint32(int32(n)))
	}
}

func (r *memRank) Sizes(src Region) []int {
	b := r.bytes(src)
	sz := make([]int, len(b)/4)
	for j := range sz {
		sz[j] = int(int32(binary.LittleEndian.Uint32(b[4*j:])))
	}
	return sz
}

func (r *memRank) Own() error {
	r.w.own(r)
	return nil
}

// RootTree: the in-memory root keeps its blocks apart, so it always packs.
func (r *memRank) RootTree([]int) bool { return false }

type memAsks struct {
	r     *memRank
	peers []int
	left  []int // indexes not yet answered
}

func (r *memRank) Asks(peers []int) (Asks, error) {
	a := &memAsks{r: r, peers: peers}
	for i := range peers {
		a.left = append(a.left, i)
	}
	return a, nil
}

func (a *memAsks) Next() (int, error) {
	srcs := make([]int, len(a.left))
	for j, i := range a.left {
		srcs[j] = a.peers[i]
	}
	j, msg, ok := a.r.take(srcs, "any request")
	if !ok {
		return 0, fmt.Errorf("deadlock")
	}
	if len(msg) != 0 {
		return 0, fmt.Errorf("rank %d: a %d-byte request", a.r.me, len(msg))
	}
	i := a.left[j]
	a.left = append(a.left[:j], a.left[j+1:]...)
	return i, nil
}
