package mpi

import (
	"fmt"

	"nocsim/endpoint"
	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// scmpProtocol is the thesis's rendezvous: the announcement (RTS) and the
// request for the data (CTS) are THREAD messages, the data a DMA block and
// the completion a DATA word. eager, niu and puma_long embed it for the
// sends they leave to the rendezvous.
type scmpProtocol struct{ w *World }

func (scmpProtocol) name() string            { return "scmp" }
func (scmpProtocol) gathers(q *Request) bool { return true }
func (scmpProtocol) register()               {}

// startSend announces q with a THREAD message running _MPI_Post_send at
// the receiver.
func (p scmpProtocol) startSend(r *Rank, q *Request) error {
	q.proto = "scmp"
	r.sends[q.id] = q
	if err := r.t.CreateThread(q.peer, p.w.h.postSend, uint32(r.rank), uint32(q.tag), q.comm.ctx, uint32(q.bytes), q.id, uint32(q.mode)); err != nil {
		return mpierr.Errorf(mpierr.ErrOther, opNames[q.op], "%v", err)
	}
	return nil
}

// askData starts _MPI_Request_data at the sender from the receiving
// thread t.
func (p scmpProtocol) askData(r *Rank, src int, args ctsArgs, t *endpoint.Thread) error {
	return t.CreateThread(src, p.w.h.requestData, args[:]...)
}

// requestData asks the sender for the data (the CTS) the protocol's way
// (askData). t is the thread asking, or nil for the NIU.
func (w *World) requestData(r *Rank, q *Request, e *envelope, t *endpoint.Thread) {
	n := min(e.bytes, q.bytes)
	words := (n + 3) / 4
	if !q.temp && 4*words > n {
		// The DMA engine writes whole words: a message ending inside a
		// word goes to a temporary, so the receive buffer's bytes past the
		// message stay as they were.
		addr, b, err := r.node.Alloc(4 * words)
		if err != nil {
			w.fail(fmt.Errorf("rank %d: %w", r.rank, err))
			return
		}
		q.data, q.temp = datatype.Buffer{Addr: addr, Bytes: b}, true
	}
	args := ctsArgs{e.sreq, uint32(r.rank), q.data.Addr, q.flag.Addr, uint32(words)}
	err := w.proto.askData(r, e.src, args, t)
	if err != nil {
		w.fail(fmt.Errorf("rank %d: asking rank %d for data: %w", r.rank, e.src, err))
	}
}

// postSend is _MPI_Post_send at the receiver: match a posted receive, or
// queue the announcement.
func (w *World) postSend(r *Rank, a []uint32, t *endpoint.Thread) {
	e := r.newEnvelope()
	e.src, e.tag, e.ctx, e.bytes, e.sreq, e.mode = int(a[0]), int(int32(a[1])), a[2], int(a[3]), a[4], sendMode(a[5])
	if q := w.takePosted(r, e, t); q != nil {
		w.requestData(r, q, e, t)
		return
	}
	if e.mode == modeReady {
		w.fail(fmt.Errorf("erroneous program: rank %d called MPI_Rsend to rank %d (tag %d) before a matching receive was posted", e.src, r.rank, e.tag))
		return
	}
	r.unexpected = append(r.unexpected, e)
}

func (w *World) threadPostSend(t *endpoint.Thread, a []uint32) {
	w.postSend(w.rankOf(t.Node()), a, t)
}

func (w *World) ctlPostSend(n *endpoint.Node, a []uint32) {
	w.postSend(w.rankOf(n), a, nil)
}

// sendData is _MPI_Request_data at the sender: DMA the data into the
// receive buffer, then write the receiver's completion flag.
func (w *World) sendData(r *Rank, a []uint32, t *endpoint.Thread) {
	q := r.sends[a[0]]
	if q == nil {
		w.fail(fmt.Errorf("rank %d: data requested for unknown send %d", r.rank, a[0]))
		return
	}
	delete(r.sends, a[0])
	q.matched = true
	dst, addr, flag, words := int(a[1]), a[2], a[3], int(a[4])
	stride := max(q.stride, 1)
	if t != nil {
		// The send is seen complete only once the flag is sent too (q.xfer
		// set last), as the handler returns its transfer then.
		x := &q.xferB
		err := t.SendBlockNBTo(x, dst, addr, 1, q.data.Addr, stride, words)
		if err == nil {
			err = t.SendInt(dst, flag, 1)
		}
		if err != nil {
			w.fail(fmt.Errorf("rank %d: sending data to rank %d: %w", r.rank, dst, err))
		}
		q.xfer = x
		return
	}
	now := w.M.Eng.Now()
	q.xfer = &q.xferB
	for off := 0; off < words || off == 0; off += endpoint.MaxBlockWords {
		n := min(endpoint.MaxBlockWords, words-off)
		p, err := w.M.SendBlock(r.node.ID, dst, endpoint.KindData, addr+uint32(off), 1, q.data.Addr+uint32(off)*stride, stride, n, now)
		if err != nil {
			w.fail(fmt.Errorf("rank %d: sending data to rank %d: %w", r.rank, dst, err))
			return
		}
		if off+n >= words {
			p.Xfer = q.xfer
		}
		if words == 0 {
			break
		}
	}
	if _, err := w.M.SendWords(r.node.ID, dst, endpoint.KindData, flag, 1, []uint32{1}, now); err != nil {
		w.fail(err)
	}
}

func (w *World) threadRequestData(t *endpoint.Thread, a []uint32) {
	w.sendData(w.rankOf(t.Node()), a, t)
}

func (w *World) ctlRequestData(n *endpoint.Node, a []uint32) {
	w.sendData(w.rankOf(n), a, nil)
}
