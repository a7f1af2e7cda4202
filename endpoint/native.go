package endpoint

import (
	"fmt"
	"math"
)

// The native SCMP programming interface (thesis tables 2.1 to 2.3), for
// programs that bypass MPI. Each call charges call_cycles, plus the send
// instructions of the messages the processor builds itself.

// NoFlag means "no completion flag" to GetBlock.
const NoFlag = math.MaxUint32

// Handlers every machine has, registered first so that their ids are the
// same on every machine.
const (
	handlerGetBlock HandlerID = iota
	handlerPar
	handlerParDone
	handlerCallback // createThread with a callback (callback.go)
)

func (m *Machine) registerNative() {
	m.Register("getBlock", func(t *Thread, a []uint32) {
		// requester, dstAddr, dstStride, srcAddr, srcStride, count, flag
		if err := t.SendBlock(int(a[0]), a[1], a[2], a[3], a[4], int(a[5])); err != nil {
			panic(err)
		}
		if a[6] != NoFlag {
			if err := t.SendInt(int(a[0]), a[6], 1); err != nil {
				panic(err)
			}
		}
	})
	m.Register("parExecute", func(t *Thread, a []uint32) {
		fn, _ := t.node.m.handler(HandlerID(a[1]))
		if fn == nil {
			panic(fmt.Sprintf("parExecute: unknown handler %d", a[1]))
		}
		fn(t, a[2:])
		if err := t.CreateThread(int(a[0]), handlerParDone); err != nil {
			panic(err)
		}
	})
	m.Register("parExecuteDone", func(t *Thread, _ []uint32) { t.node.parDone++ })
	m.registerCallback()
}

// CreateThread starts handler h on node dst with args as its registers
// (createThread). The thread runs when dst's processor next yields.
func (t *Thread) CreateThread(dst int, h HandlerID, args ...uint32) error {
	t.Compute(t.node.cpu.NativeCallCycles + t.node.cpu.SendCycles(2+len(args)))
	_, err := t.node.m.SendWords(t.node.ID, dst, KindThread, uint32(h), 0, args, t.Now())
	return err
}

// SendInt writes v at word addr on node dst (sendDataIntValue).
func (t *Thread) SendInt(dst int, addr, v uint32) error {
	return t.sendWords(dst, addr, []uint32{v})
}

// SendFloat writes v at words addr, addr+1 on node dst, low word first
// (sendDataFloatValue).
func (t *Thread) SendFloat(dst int, addr uint32, v float64) error {
	b := math.Float64bits(v)
	return t.sendWords(dst, addr, []uint32{uint32(b), uint32(b >> 32)})
}

func (t *Thread) sendWords(dst int, addr uint32, w []uint32) error {
	t.Compute(t.node.cpu.NativeCallCycles + t.node.cpu.SendCycles(2+len(w)))
	_, err := t.node.m.SendWords(t.node.ID, dst, KindData, addr, 1, w, t.Now())
	return err
}

// SendBlockNB starts a DMA of count words from srcAddr (every srcStride)
// here to dstAddr (every dstStride) on node dst (sendDataBlockNB). Blocks
// longer than one SENDM message are split; the Transfer follows the last
// message, which ordered delivery makes the last to leave and arrive.
func (t *Thread) SendBlockNB(dst int, dstAddr, dstStride, srcAddr, srcStride uint32, count int) (*Transfer, error) {
	x := &Transfer{}
	if err := t.SendBlockNBTo(x, dst, dstAddr, dstStride, srcAddr, srcStride, count); err != nil {
		return nil, err
	}
	return x, nil
}

// SendBlockNBTo is SendBlockNB following the transfer in x (reset to
// zero first), which the caller provides so that a send allocates nothing.
// x must stay valid until x.Delivered.
func (t *Thread) SendBlockNBTo(x *Transfer, dst int, dstAddr, dstStride, srcAddr, srcStride uint32, count int) error {
	cpu := t.node.cpu
	// The call, then the first message's SENDH (below): one resume for
	// both, as nothing is seen to happen between them.
	t.ComputeThen(cpu.NativeCallCycles, cpu.SendCycles(2)+1)
	*x = Transfer{}
	for off := 0; off < count || off == 0; off += MaxBlockWords {
		n := min(MaxBlockWords, count-off)
		// SENDH builds the head and address flits; SENDM(E) hands the
		// rest to the DMA engine.
		if off > 0 {
			t.Compute(cpu.SendCycles(2) + 1)
		}
		p, err := t.node.m.SendBlock(t.node.ID, dst, KindData,
			dstAddr+uint32(off)*dstStride, dstStride, srcAddr+uint32(off)*srcStride, srcStride, n, t.Now())
		if err != nil {
			return err
		}
		if off+n >= count {
			p.Xfer = x
		}
		if count == 0 {
			break
		}
	}
	return nil
}

// SendBlock is SendBlockNB that waits until the DMA has read every word
// (sendDataBlock).
func (t *Thread) SendBlock(dst int, dstAddr, dstStride, srcAddr, srcStride uint32, count int) error {
	x, err := t.SendBlockNB(dst, dstAddr, dstStride, srcAddr, srcStride, count)
	if err != nil {
		return err
	}
	t.WaitUntil(fmt.Sprintf("sendDataBlock to node %d to complete", dst), func() bool { return x.Sent })
	return nil
}

// GetBlock asks node src to send count words from its srcAddr (every
// srcStride) to dstAddr (every dstStride) here, by creating a thread there
// (getBlock); when flag is not NoFlag, src then writes 1 at word flag here.
func (t *Thread) GetBlock(src int, dstAddr, dstStride, srcAddr, srcStride uint32, count int, flag uint32) error {
	return t.CreateThread(src, handlerGetBlock, uint32(t.node.ID), dstAddr, dstStride, srcAddr, srcStride, uint32(count), flag)
}

// ParExecute runs handler h with args on nodes 0..nodes-1 and waits until
// all of them have finished (parExecute).
func (t *Thread) ParExecute(nodes int, h HandlerID, args ...uint32) error {
	if nodes < 1 || nodes > len(t.node.m.Nodes) {
		return fmt.Errorf("parExecute: %d nodes: allowed 1..%d", nodes, len(t.node.m.Nodes))
	}
	start := t.node.parDone
	a := append([]uint32{uint32(t.node.ID), uint32(h)}, args...)
	for d := 0; d < nodes; d++ {
		if err := t.CreateThread(d, handlerPar, a...); err != nil {
			return err
		}
	}
	t.WaitUntil(fmt.Sprintf("parExecute on %d nodes", nodes), func() bool { return t.node.parDone-start >= nodes })
	return nil
}

// Read returns the word at addr of the thread's own memory.
func (t *Thread) Read(addr uint32) uint32 { return t.node.Mem.Read(addr) }

// Write stores v at addr of the thread's own memory.
func (t *Thread) Write(addr, v uint32) error { return t.node.Mem.Write(addr, v) }

// Poll waits until the word at addr equals v, as a flag loop does.
func (t *Thread) Poll(addr, v uint32) {
	t.WaitUntil(fmt.Sprintf("word %d to become %d", addr, v), func() bool { return t.node.Mem.Read(addr) == v })
}
