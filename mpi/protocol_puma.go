package mpi

import (
	"fmt"

	"nocsim/config"
	"nocsim/endpoint"
	"nocsim/mpi/mpierr"
)

// The puma_long protocol: Puma's optimistic long protocol (Brightwell and
// Shuler, "Design and Implementation of MPI on Puma Portals", section
// 2.2, figures 4 and 5), on the chip.
//
// The sender sends the header and the data at once, without asking: put
// messages, THREAD messages running _MPI_Puma_put at the receiver, each
// carrying the header and as many data words as fit the NIU queue. The
// handler on the receiving tile decides, when the first one arrives,
// whether a matching receive is posted (as Puma's kernel walks the match
// list when the header arrives):
//
//	posted:     the data goes into the receive buffer and the handler
//	            acknowledges "body saved" (a DATA word, 1, at the sender's
//	            flag); the sender's request completes on that word.
//	not posted: the data is dropped and only the header is queued as
//	            unexpected; the handler acknowledges "header only" (2).
//	            When the matching receive is posted, the receiver pulls
//	            the data: a THREAD message running _MPI_Request_data at the
//	            sender (a receiver-initiated get, the chip's getBlock with
//	            the library's own completion), which DMAs the block into the
//	            receive buffer and writes the receiver's flag. The sender
//	            keeps its buffer, and its request stays incomplete, until
//	            that block has left.
//
// The chip cannot DMA into a THREAD message behind a header the processor
// builds, so the sender's processor builds each put message word by word,
// as the eager protocol does; the pulled data moves by DMA. Buffered sends
// (MPI_Bsend) use the scmp rendezvous: their copy in the attached buffer
// is reclaimed when its data has left, which a dropped put cannot tell.

// pumaHeader is the words a put message carries before its data: source,
// tag, context, bytes, send request, mode, offset (words), sender's flag.
const pumaHeader = 8

// Acknowledgements written at the sender's flag.
const (
	pumaBodySaved  = 1
	pumaHeaderOnly = 2
)

// pumaIncoming is a multi-message put whose first message has arrived: the
// receive it goes into, or nil if it is being dropped.
type pumaIncoming struct {
	src  int
	sreq uint32
	q    *Request
}

// pumaCheck refuses puma_long on a machine whose NIU queue cannot hold a
// put message with one data word.
func pumaCheck(queueFlits int) error {
	if queueFlits-2-pumaHeader < 1 {
		return &config.KeyError{Key: "protocol", Value: `"puma_long"`, Allowed: fmt.Sprintf("scmp, eager or niu on this machine: a puma_long put message needs an NIU queue of at least %d flits, it has %d", 3+pumaHeader, queueFlits)}
	}
	return nil
}

// pumaProtocol sends header and data at once; buffered sends use the
// scmp rendezvous it embeds.
type pumaProtocol struct{ scmpProtocol }

func (pumaProtocol) name() string { return "puma_long" }

// gathers: the processor builds put messages from packed data.
func (pumaProtocol) gathers(q *Request) bool { return false }

// register adds the put message's handler, only in puma_long worlds:
// every other job's handlers keep their ids.
func (p pumaProtocol) register() {
	p.w.h.pumaPut = p.w.M.Register("_MPI_Puma_put", p.w.threadPumaPut)
}

func (p pumaProtocol) startSend(r *Rank, q *Request) error {
	if q.mode == modeBuffered {
		return p.scmpProtocol.startSend(r, q)
	}
	return p.w.pumaSend(r, q)
}

// pumaChunkWords is the data words one put message carries.
func (w *World) pumaChunkWords() int { return w.M.Spec.QueueFlits - 2 - pumaHeader }

// pumaSend sends q's header and data as put messages.
func (w *World) pumaSend(r *Rank, q *Request) error {
	q.proto = "puma_long"
	flag, err := r.Alloc(4)
	if err != nil {
		return err
	}
	le.PutUint32(flag.Bytes, 0)
	q.flag = flag
	r.sends[q.id] = q
	words, chunk := (q.bytes+3)/4, w.pumaChunkWords()
	for off := 0; off < words || off == 0; off += chunk {
		n := min(chunk, words-off)
		args := append(r.argBuf[:0], uint32(r.rank), uint32(q.tag), q.comm.ctx, uint32(q.bytes), q.id, uint32(q.mode), uint32(off), flag.Addr)
		args = appendWords(args, q.data.Bytes[4*off:min(q.bytes, 4*(off+n))])
		r.argBuf = args
		r.t.Compute(w.M.CPU.SendCycles(2 + len(args)))
		if _, err := w.M.SendWords(r.node.ID, q.peer, endpoint.KindThread, uint32(w.h.pumaPut), 0, args, r.t.Now()); err != nil {
			return mpierr.Errorf(mpierr.ErrOther, opNames[q.op], "%v", err)
		}
		if words == 0 {
			break
		}
	}
	return nil
}

// pumaArrived reports whether a puma_long send is complete: its body was
// saved, or it was pulled and the pulled block has left.
func (q *Request) pumaArrived() bool {
	return q.flag.Uint32(0) == pumaBodySaved || q.xfer != nil && q.xfer.Sent
}

// threadPumaPut is _MPI_Puma_put, the put message's handler on the
// receiving tile.
func (w *World) threadPumaPut(t *endpoint.Thread, a []uint32) {
	r := w.rankOf(t.Node())
	src, bytes, sreq, off, sflag := int(a[0]), int(a[3]), a[4], int(a[6]), a[7]
	data := a[pumaHeader:]
	last := off+len(data) >= (bytes+3)/4
	var q *Request
	if off == 0 {
		e := r.newEnvelope()
		e.src, e.tag, e.ctx, e.bytes, e.sreq, e.mode = src, int(int32(a[1])), a[2], bytes, sreq, sendMode(a[5])
		q = w.takePosted(r, e, t)
		if q == nil {
			if e.mode == modeReady {
				w.fail(fmt.Errorf("erroneous program: rank %d called MPI_Rsend to rank %d (tag %d) before a matching receive was posted", e.src, r.rank, e.tag))
				return
			}
			// Only the header is kept; the receive will pull the data.
			r.unexpected = append(r.unexpected, e)
			if !last {
				r.pumaIn = append(r.pumaIn, pumaIncoming{src: src, sreq: sreq})
			}
			w.pumaAck(t, src, sflag, pumaHeaderOnly)
			return
		}
		if !last {
			r.pumaIn = append(r.pumaIn, pumaIncoming{src: src, sreq: sreq, q: q})
		}
	} else {
		i := 0
		for i < len(r.pumaIn) && (r.pumaIn[i].src != src || r.pumaIn[i].sreq != sreq) {
			i++
		}
		if i == len(r.pumaIn) {
			w.fail(fmt.Errorf("rank %d: put message at word %d of send %d from rank %d without its first", r.rank, off, sreq, src))
			return
		}
		q = r.pumaIn[i].q
		if last {
			r.pumaIn = append(r.pumaIn[:i], r.pumaIn[i+1:]...)
		}
		if q == nil {
			return // dropped: the header is queued and the data will be pulled
		}
	}
	// The data goes into the receive buffer, as much as it holds.
	t.Compute(w.M.CPU.CopyCyclesPerWord * int64(len(data)))
	for k, x := range data {
		at := 4 * (off + k)
		if at >= min(bytes, q.bytes) {
			break
		}
		var b [4]byte
		le.PutUint32(b[:], x)
		copy(q.data.Bytes[at:min(bytes, q.bytes)], b[:])
	}
	if last {
		q.got = true
		w.pumaAck(t, src, sflag, pumaBodySaved)
	}
}

// pumaAck writes v at the sender's flag.
func (w *World) pumaAck(t *endpoint.Thread, src int, flag, v uint32) {
	if err := t.SendInt(src, flag, v); err != nil {
		w.fail(fmt.Errorf("rank %d: acknowledging a put from rank %d: %w", w.rankOf(t.Node()).rank, src, err))
	}
}
