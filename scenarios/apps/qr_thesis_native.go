package apps

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"nocsim/endpoint"
	"nocsim/mpi/datatype"
)

// qrThesisSlots is the native thesis QR's block of slots and flags, at the
// same word addresses on every node (every node allocates the same sizes
// in the same order). Every slot is reused each column: the global
// barrier of a column is passed only once every node has read what the
// column before sent it. Flags hold the column's number plus one.
type qrThesisSlots struct {
	part, partFlag uint32 // the top's: each grid row's norm partial (2 words) and its flag
	diag, diagFlag uint32 // the top's: A[k][k]
	vals, valFlag  uint32 // alpha, v_k, beta from the top
	arrive         uint32 // node 0's: each node's barrier arrival
	release        uint32 // the barrier's release
	v              datatype.Buffer
	vFlag          uint32
	dots           datatype.Buffer // each grid row's dot products (maxCols doubles)
	dotFlag        uint32
}

// qrThesisNativeWords is the words of the slots beyond v and dots.
func qrThesisNativeWords(P, Y int) int { return 3*Y + 3 + 7 + P + 1 + 1 + Y }

func newQRThesisSlots(alloc func(int) datatype.Buffer, P, Y, maxRows, maxCols int) *qrThesisSlots {
	w := alloc(4 * qrThesisNativeWords(P, Y)).Addr
	s := &qrThesisSlots{}
	next := func(words int) uint32 { a := w; w += uint32(words); return a }
	s.part, s.partFlag = next(2*Y), next(Y)
	s.diag, s.diagFlag = next(2), next(1)
	s.vals, s.valFlag = next(6), next(1)
	s.arrive, s.release = next(P), next(1)
	s.vFlag, s.dotFlag = next(1), next(Y)
	s.v = alloc(8 * (maxRows + 1))
	s.dots = alloc(8 * Y * max(maxCols, 1))
	return s
}

// runQRThesisNative is the native version of the thesis variant.
func runQRThesisNative(mc Machine, cfg QRConfig, a *mat.Dense, out *qrOutcome) error {
	m := mc.NewMachine()
	defer m.Close()
	P, n := cfg.Procs, cfg.N
	X, Y := cfg.grid()
	maxRows, maxCols := ownRows(n, Y, 0), ownRows(n, X, 0)
	for me := 0; me < P; me++ {
		node := m.Nodes[me]
		al := &allocator{node: node}
		t := newQRTile(a, X, Y, me)
		al.alloc(8 * maxRows * maxCols) // the tile's place in memory
		s := newQRThesisSlots(al.alloc, P, Y, maxRows, maxCols)
		if al.err != nil {
			return fmt.Errorf("node %d: %w", me, al.err)
		}
		out.tile[me] = t
		node.Start(fmt.Sprintf("qr %d", me), func(th *endpoint.Thread) {
			q := &qrThesisNode{th: th, t: t, s: s, me: me, P: P, X: X, Y: Y, maxCols: maxCols}
			d := make([]float64, t.cols)
			for k := 0; k < n-1; k++ {
				q.column(k, d)
			}
			out.end[me] = th.Now()
		})
	}
	if err := m.Run(-1); err != nil {
		return err
	}
	return m.CheckQuiescent()
}

// qrThesisNode is one node's thread of the native thesis QR: its tile,
// the slots it shares with the others, and the grid.
type qrThesisNode struct {
	th      *endpoint.Thread
	t       *qrTile
	s       *qrThesisSlots
	me, P   int
	X, Y    int
	maxCols int
}

// readF reads the double at word address a of the node's memory.
func (q *qrThesisNode) readF(a uint32) float64 {
	return math.Float64frombits(uint64(q.th.Read(a)) | uint64(q.th.Read(a+1))<<32)
}

// column is section 5.2.1's steps for column k: the Householder vector on
// the column's grid column (1-3), the global barrier (4), v along the
// rows (5), the dot products down the columns and the update (6).
func (q *qrThesisNode) column(k int, d []float64) {
	t := q.t
	seq := uint32(k + 1)
	pk := k % q.X
	r0, mr, _, nc := t.step(k)
	var beta float64
	if t.pc == pk {
		beta = q.householder(k, seq, r0)
	}
	q.barrier(seq)
	beta = q.shareV(seq, pk, mr, beta)
	if nc == 0 {
		return
	}
	q.sumDots(k, seq, nc, d)
	q.th.Charge(t.update(k, beta, d))
}

// householder is steps 1-3 on column k's grid column: the norm partials and
// A[k][k] to the top (grid row 0), which computes alpha, v_k and beta and
// sends them down the column; every node reflects its piece. It returns
// beta.
func (q *qrThesisNode) householder(k int, seq uint32, r0 int) float64 {
	th, t, s, X, Y := q.th, q.t, q.s, q.X, q.Y
	pk, rk := k%X, k%Y
	top := pk // grid row 0 of grid column pk
	// 1, 2: the norm partial and A[k][k] to the top.
	sum, ops := t.norm2(k)
	th.Charge(ops)
	if t.pr != 0 {
		mustOK(th.SendFloat(top, s.part+uint32(2*t.pr), sum))
		mustOK(th.SendInt(top, s.partFlag+uint32(t.pr), seq))
		if t.pr == rk {
			mustOK(th.SendFloat(top, s.diag, t.colK(k, r0)[0]))
			mustOK(th.SendInt(top, s.diagFlag, seq))
		}
	}
	// 3: the top's values to the column.
	var alpha, vk, beta float64
	if t.pr == 0 {
		for src := 1; src < Y; src++ {
			th.Poll(s.partFlag+uint32(src), seq)
			sum += q.readF(s.part + uint32(2*src))
		}
		x0 := 0.0
		if rk == 0 {
			x0 = t.colK(k, r0)[0]
		} else {
			th.Poll(s.diagFlag, seq)
			x0 = q.readF(s.diag)
		}
		y := int64(Y - 1)
		th.Charge(endpoint.Ops{Flops: y, Mem: 2 * y, Iters: y})
		var ops endpoint.Ops
		alpha, vk, beta, ops = house(sum, x0)
		th.Charge(ops)
		for pr := 1; pr < Y; pr++ {
			dst := pr*X + pk
			mustOK(th.SendFloat(dst, s.vals, alpha))
			mustOK(th.SendFloat(dst, s.vals+2, vk))
			mustOK(th.SendFloat(dst, s.vals+4, beta))
			mustOK(th.SendInt(dst, s.valFlag, seq))
		}
	} else {
		th.Poll(s.valFlag, seq)
		alpha, vk, beta = q.readF(s.vals), q.readF(s.vals+2), q.readF(s.vals+4)
	}
	th.Charge(t.reflect(k, alpha, vk))
	return beta
}

// barrier is step 4: every node's arrival to node 0, its release back.
func (q *qrThesisNode) barrier(seq uint32) {
	th, s := q.th, q.s
	if q.me != 0 {
		mustOK(th.SendInt(0, s.arrive+uint32(q.me), seq))
		th.Poll(s.release, seq)
		return
	}
	for src := 1; src < q.P; src++ {
		th.Poll(s.arrive+uint32(src), seq)
	}
	for dst := 1; dst < q.P; dst++ {
		mustOK(th.SendInt(dst, s.release, seq))
	}
}

// shareV is step 5: the grid column pk sends its piece of v (mr rows) and
// beta along its grid row; the others wait for it. It returns beta.
func (q *qrThesisNode) shareV(seq uint32, pk, mr int, beta float64) float64 {
	th, t, s, X := q.th, q.t, q.s, q.X
	if t.pc != pk {
		th.Poll(s.vFlag, seq)
		t.getV(s.v, mr)
		return s.v.Float64(mr)
	}
	t.putV(s.v, mr)
	s.v.SetFloat64(mr, beta)
	for c := 1; c < X; c++ {
		dst := t.pr*X + (pk+c)%X
		_, err := th.SendBlockNB(dst, s.v.Addr, 1, s.v.Addr, 1, 2*(mr+1))
		mustOK(err)
		mustOK(th.SendInt(dst, s.vFlag, seq))
	}
	return beta
}

// sumDots is step 6's exchange: the node's dot products of its nc columns
// to the rest of its grid column, and the column's sums, in grid-row
// order, into d.
func (q *qrThesisNode) sumDots(k int, seq uint32, nc int, d []float64) {
	th, t, s, X, Y, maxCols := q.th, q.t, q.s, q.X, q.Y, q.maxCols
	th.Charge(t.dots(k, d))
	own := t.pr * maxCols
	for j := 0; j < nc; j++ {
		s.dots.SetFloat64(own+j, d[j])
	}
	addr := s.dots.Addr + uint32(2*own)
	for r := 1; r < Y; r++ {
		dst := ((t.pr+r)%Y)*X + t.pc
		_, err := th.SendBlockNB(dst, addr, 1, addr, 1, 2*nc)
		mustOK(err)
		mustOK(th.SendInt(dst, s.dotFlag+uint32(t.pr), seq))
	}
	for src := 0; src < Y; src++ {
		if src != t.pr {
			th.Poll(s.dotFlag+uint32(src), seq)
		}
	}
	for j := 0; j < nc; j++ {
		sum := 0.0
		for src := 0; src < Y; src++ {
			sum += s.dots.Float64(src*maxCols + j)
		}
		d[j] = sum
	}
	e := int64(Y) * int64(nc)
	th.Charge(endpoint.Ops{Flops: e - int64(nc), Mem: 2*e + 2*int64(nc), Iters: e + int64(nc), Calls: 1})
}
