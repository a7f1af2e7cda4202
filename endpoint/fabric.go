package endpoint

import (
	"fmt"
	"strings"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// Fabric is the machine's communication side: the router network plus one
// NIU per tile, and the packets in flight between them.
type Fabric struct {
	Eng  *des.Engine
	Topo mesh.Topology
	Net  *router.Network
	Spec Spec
	NIUs []*NIU

	// OnSent is called when a message's tail leaves its source NIU (for a
	// DMA send, when the DMA is complete). OnDeliver is called when the
	// tail is consumed at the destination NIU; the packet is recycled after
	// it returns.
	OnSent    func(p *Packet, now des.Time)
	OnDeliver func(p *Packet, now des.Time)

	pkts    packetTable
	err     error    // first delivery fault, which stops the run
	machine *Machine // the processors, when the fabric is part of one
}

// NewFabric builds the network and the NIUs on a fresh engine.
func NewFabric(eng *des.Engine, topo mesh.Topology, rs router.Spec, es Spec) *Fabric {
	f := &Fabric{Eng: eng, Topo: topo, Spec: es}
	f.Net = router.Build(eng, topo, rs)
	f.NIUs = make([]*NIU, topo.Nodes())
	for i := range f.NIUs {
		f.NIUs[i] = newNIU(f, i)
	}
	return f
}

// Packet returns the live packet with id, for callbacks and tests.
func (f *Fabric) Packet(id int32) *Packet { return f.pkts.get(id) }

// LivePackets is the number of messages created and not yet delivered.
func (f *Fabric) LivePackets() int { return f.pkts.Live() }

// Err returns the first delivery fault (a flit at the wrong tile, out of
// order, or corrupted), if any.
func (f *Fabric) Err() error { return f.err }

// SendSynthetic queues a synthetic packet of length flits from src to dst
// and returns it. Its payload is checked on delivery.
func (f *Fabric) SendSynthetic(src, dst, length int, now des.Time) *Packet {
	p := f.pkts.alloc()
	p.Src, p.Dst, p.Len = int32(src), int32(dst), int32(length)
	p.Kind = KindSynth
	p.Hops = int32(f.Topo.Hops(src, dst))
	p.Created = now
	p.built = true
	f.NIUs[src].enqueue(p)
	return p
}

// SendWords queues a message the processor builds with send instructions:
// a THREAD message calling handler addr with words as arguments, or a DATA
// message writing words at addr (every stride words). Messages between
// processors are ordered.
func (f *Fabric) SendWords(src, dst int, kind uint8, addr, stride uint32, words []uint32, now des.Time) (*Packet, error) {
	n := f.Topo.Nodes()
	switch {
	case src < 0 || src >= n || dst < 0 || dst >= n:
		return nil, fmt.Errorf("send %d->%d: nodes must be 0..%d", src, dst, n-1)
	case kind != KindData && kind != KindThread && kind != KindControl:
		return nil, fmt.Errorf("send: message type %d: allowed DATA (%d), THREAD (%d) or CONTROL (%d)", kind, KindData, KindThread, KindControl)
	case 2+len(words) > f.Spec.QueueFlits:
		return nil, fmt.Errorf("send: %d words do not fit the NIU queue of %d flits", len(words), f.Spec.QueueFlits)
	case kind == KindData && !f.NIUs[dst].Mem.inRange(addr, stride, len(words)):
		return nil, fmt.Errorf("send: destination words %d+%d*%d outside %s's memory", addr, stride, len(words), f.NIUs[dst].Name)
	}
	p := f.pkts.alloc()
	p.Src, p.Dst, p.Len = int32(src), int32(dst), int32(2+len(words))
	p.Kind = kind
	p.Hops = int32(f.Topo.Hops(src, dst))
	p.Created = now
	p.DstAddr, p.DstStride = addr, stride
	p.wordsBuf = append(p.wordsBuf[:0], words...) // the recycled record's buffer
	p.words = p.wordsBuf
	p.built = true
	p.Ordered = f.machine != nil
	f.NIUs[src].enqueue(p)
	return p, nil
}

// MaxBlockWords is the most words one DMA message carries: SENDM's count
// field is 16 bits.
const MaxBlockWords = 1<<16 - 1

// SendBlock starts a DMA transfer of count words from src's memory at
// srcAddr (every srcStride words) to dst's memory at dstAddr (every
// dstStride words), as SENDME/sendDataBlockNB do. kind is KindData or
// KindThread. The words are read when their flits are injected.
func (f *Fabric) SendBlock(src, dst int, kind uint8, dstAddr, dstStride, srcAddr, srcStride uint32, count int, now des.Time) (*Packet, error) {
	n := f.Topo.Nodes()
	switch {
	case src < 0 || src >= n || dst < 0 || dst >= n:
		return nil, fmt.Errorf("SendBlock %d->%d: nodes must be 0..%d", src, dst, n-1)
	case kind != KindData && kind != KindThread:
		return nil, fmt.Errorf("SendBlock: message type %d: allowed DATA (%d) or THREAD (%d)", kind, KindData, KindThread)
	case count < 0 || count > MaxBlockWords:
		return nil, fmt.Errorf("SendBlock: count %d: allowed 0..%d words per message", count, MaxBlockWords)
	case srcStride > 0xffff || dstStride > 0xffff:
		return nil, fmt.Errorf("SendBlock: strides %d/%d: allowed 0..65535", srcStride, dstStride)
	case !f.NIUs[src].Mem.inRange(srcAddr, srcStride, count):
		return nil, fmt.Errorf("SendBlock: source words %d+%d*%d outside %s's %d-word memory", srcAddr, srcStride, count, f.NIUs[src].Name, f.NIUs[src].Mem.size)
	case !f.NIUs[dst].Mem.inRange(dstAddr, dstStride, count):
		return nil, fmt.Errorf("SendBlock: destination words %d+%d*%d outside %s's %d-word memory", dstAddr, dstStride, count, f.NIUs[dst].Name, f.NIUs[dst].Mem.size)
	}
	p := f.pkts.alloc()
	p.Src, p.Dst, p.Len = int32(src), int32(dst), int32(2+count)
	p.Kind = kind
	p.Hops = int32(f.Topo.Hops(src, dst))
	p.Created = now
	p.SrcAddr, p.SrcStride, p.DstAddr, p.DstStride = srcAddr, srcStride, dstAddr, dstStride
	p.Ordered = f.machine != nil
	f.NIUs[src].enqueue(p)
	return p, nil
}

// consume handles one flit at its destination NIU: checks that it belongs
// there and arrives in order, writes DATA words into memory, and completes
// the packet at its tail.
func (f *Fabric) consume(n *NIU, fl *router.Flit, now des.Time) {
	p := f.pkts.get(fl.Packet)
	switch {
	case !p.live:
		f.fault(fmt.Errorf("%s: flit %d of dead packet %d", n.Name, fl.Pos(), fl.Packet))
		return
	case int(p.Dst) != n.Node:
		f.fault(fmt.Errorf("%s: flit %d of %s delivered to the wrong tile", n.Name, fl.Pos(), f.pkts.name(p.ID)))
	case fl.Head && fl.Index != 0:
		// A head keeps its offsets in Index (router.Flit.Offsets).
		dx, dy := fl.Offsets()
		f.fault(fmt.Errorf("%s: head of %s ejected with offsets (%d,%d) left", n.Name, f.pkts.name(p.ID), dx, dy))
	case fl.Index != p.received:
		f.fault(fmt.Errorf("%s: flit %d of %s arrived when flit %d was expected", n.Name, fl.Index, f.pkts.name(p.ID), p.received))
	case fl.Head != (fl.Index == 0) || fl.Tail != (fl.Index == p.Len-1):
		f.fault(fmt.Errorf("%s: flit %d of %s has head=%v tail=%v", n.Name, fl.Index, f.pkts.name(p.ID), fl.Head, fl.Tail))
	case p.Kind == KindSynth && fl.Word != synthWord(p.ID, fl.Index):
		f.fault(fmt.Errorf("%s: flit %d of %s corrupted", n.Name, fl.Index, f.pkts.name(p.ID)))
	}
	p.received++
	switch {
	case p.Kind == KindData && fl.Index >= 2:
		if err := n.Mem.writeAt(&n.wr[fl.VC], p.DstAddr+uint32(fl.Index-2)*p.DstStride, fl.Word); err != nil {
			f.fault(fmt.Errorf("%s: %s: %w", n.Name, f.pkts.name(p.ID), err))
		}
	case (p.Kind == KindThread || p.Kind == KindControl) && fl.Index == 1:
		n.ejHandler[fl.VC] = fl.Word
		n.ejArgs[fl.VC] = n.ejArgs[fl.VC][:0]
	case (p.Kind == KindThread || p.Kind == KindControl) && fl.Index >= 2:
		n.ejArgs[fl.VC] = append(n.ejArgs[fl.VC], fl.Word)
	}
	if fl.Tail {
		p.Done = now
		if p.Xfer != nil {
			p.Xfer.Delivered, p.Xfer.DeliveredAt = true, now
		}
		if n.node != nil {
			switch p.Kind {
			case KindThread:
				n.node.threadArrived(HandlerID(n.ejHandler[fl.VC]), n.ejArgs[fl.VC]) // it copies them
			case KindControl:
				n.node.controlArrived(HandlerID(n.ejHandler[fl.VC]), n.ejArgs[fl.VC])
			}
			n.node.poke()
		}
		if f.OnDeliver != nil {
			f.OnDeliver(p, now)
		}
		f.pkts.release(p.ID)
	}
}

func (f *Fabric) fault(err error) {
	if f.err == nil {
		f.err = err
		f.Eng.Stop()
	}
}

// Describe reports what every router VC and NIU holding work is waiting on.
func (f *Fabric) Describe() string {
	var b strings.Builder
	b.WriteString(f.Net.Describe(f.pkts.name))
	for _, n := range f.NIUs {
		n.describe(&b)
	}
	return b.String()
}

// CheckQuiescent verifies that nothing is left anywhere: no live packet, no
// flit in an NIU, and a quiescent network with every credit home.
func (f *Fabric) CheckQuiescent() error {
	if n := f.pkts.Live(); n != 0 {
		return fmt.Errorf("%d packets live", n)
	}
	for _, n := range f.NIUs {
		if n.Backlog() != 0 || n.ejN != 0 {
			return fmt.Errorf("%s: backlog %d, %d flits to eject", n.Name, n.Backlog(), n.ejN)
		}
		// An NIU with nothing to send leaves returning credits in their
		// channel, and nothing wakes for them (NIU.Tick): they count as
		// home, arrived or not.
		for v, c := range n.creditsHome() {
			if c != f.Net.Spec.VCBuf {
				return fmt.Errorf("%s vc%d: %d of %d credits", n.Name, v, c, f.Net.Spec.VCBuf)
			}
		}
	}
	return f.Net.CheckQuiescent()
}

// Flits returns flits injected and ejected by all NIUs.
func (f *Fabric) Flits() (injected, ejected uint64) {
	for _, n := range f.NIUs {
		injected += n.Injected
		ejected += n.Ejected
	}
	return
}
