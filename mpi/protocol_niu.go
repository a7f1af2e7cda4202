package mpi

import (
	"nocsim/endpoint"
	"nocsim/mpi/mpierr"
)

// niuProtocol is the scmp rendezvous with the RTS and the CTS handled by
// the NIUs as control messages: no handler threads, no processor time at
// the far end.
type niuProtocol struct{ scmpProtocol }

func (niuProtocol) name() string { return "niu" }

// startSend announces q with an NIU control message (the RTS).
func (p niuProtocol) startSend(r *Rank, q *Request) error {
	m := p.w.M
	r.sends[q.id] = q
	args := []uint32{uint32(r.rank), uint32(q.tag), q.comm.ctx, uint32(q.bytes), q.id, uint32(q.mode)}
	r.t.Compute(m.CPU.SendCycles(2 + len(args)))
	if _, err := m.SendWords(r.node.ID, q.peer, endpoint.KindControl, uint32(p.w.h.ctlPostSend), 0, args, r.t.Now()); err != nil {
		return mpierr.Errorf(mpierr.ErrOther, opNames[q.op], "%v", err)
	}
	return nil
}

// askData sends the CTS as a control message: from the receiving thread t,
// which pays for building it, or from the NIU itself (t nil) when the RTS
// found its receive posted.
func (p niuProtocol) askData(r *Rank, src int, args ctsArgs, t *endpoint.Thread) error {
	m := p.w.M
	if t == nil {
		_, err := m.SendWords(r.node.ID, src, endpoint.KindControl, uint32(p.w.h.ctlRequestData), 0, args[:], m.Eng.Now())
		return err
	}
	t.Compute(m.CPU.SendCycles(2 + len(args)))
	_, err := m.SendWords(r.node.ID, src, endpoint.KindControl, uint32(p.w.h.ctlRequestData), 0, args[:], t.Now())
	return err
}
