package endpoint

import (
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

func newTestFabric(t *testing.T, w, h int) (*des.Engine, *Fabric) {
	t.Helper()
	m, err := mesh.New(w, h)
	if err != nil {
		t.Fatal(err)
	}
	es := DefaultSpec()
	es.MemoryWords = 1 << 16
	eng := des.New()
	return eng, NewFabric(eng, m, router.DefaultSpec(), es)
}

// A strided DMA block lands word for word at the destination stride, and
// memory between the strided words is untouched.
func TestSendBlockMovesStridedWords(t *testing.T) {
	cases := []struct {
		name                 string
		src, dst             int
		srcStride, dstStride uint32
		count                int
	}{
		{"row to column (transpose)", 0, 15, 1, 16, 16},
		{"column to row", 5, 10, 16, 1, 16},
		{"scatter by P, gather by 1", 3, 3, 7, 1, 40},
		{"one word", 12, 1, 1, 1, 1},
		{"empty block", 2, 9, 1, 1, 0},
		{"long block", 0, 15, 1, 3, 1000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng, f := newTestFabric(t, 4, 4)
			const srcAddr, dstAddr = 100, 5000
			src, dst := f.NIUs[c.src], f.NIUs[c.dst]
			for i := 0; i < c.count; i++ {
				src.Mem.Write(srcAddr+uint32(i)*c.srcStride, 0xA0000000+uint32(i))
			}
			var sent, done des.Time = -1, -1
			f.OnSent = func(p *Packet, now des.Time) { sent = now }
			f.OnDeliver = func(p *Packet, now des.Time) { done = now }
			if _, err := f.SendBlock(c.src, c.dst, KindData, dstAddr, c.dstStride, srcAddr, c.srcStride, c.count, 0); err != nil {
				t.Fatal(err)
			}
			if err := eng.Run(-1); err != nil {
				t.Fatal(err)
			}
			if f.Err() != nil {
				t.Fatal(f.Err())
			}
			if sent < 0 || done < sent {
				t.Fatalf("sent at %d, delivered at %d", sent, done)
			}
			want := map[uint32]uint32{}
			for i := 0; i < c.count; i++ {
				want[dstAddr+uint32(i)*c.dstStride] = 0xA0000000 + uint32(i)
			}
			lo, hi := uint32(dstAddr-10), uint32(dstAddr+10)+uint32(c.count)*max(c.dstStride, 1)
			for a := lo; a < hi; a++ {
				if c.src == c.dst && a >= srcAddr && a < srcAddr+uint32(c.count)*c.srcStride {
					continue // same tile: the source words are there too
				}
				if got := dst.Mem.Read(a); got != want[a] {
					t.Fatalf("word %d: got %#x, want %#x", a, got, want[a])
				}
			}
			// The message is a head, an address flit and the data.
			if got := dst.Ejected; got != uint64(2+c.count) {
				t.Fatalf("ejected %d flits, want %d", got, 2+c.count)
			}
			if err := f.CheckQuiescent(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The words are read when their flits leave, as a DMA engine does: a write
// to the source before injection is what arrives.
func TestSendBlockReadsAtInjection(t *testing.T) {
	eng, f := newTestFabric(t, 2, 1)
	f.NIUs[0].Mem.Write(10, 1)
	if _, err := f.SendBlock(0, 1, KindData, 20, 1, 10, 1, 1, 0); err != nil {
		t.Fatal(err)
	}
	f.NIUs[0].Mem.Write(10, 2) // before the engine runs: the DMA has not read it yet
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	if got := f.NIUs[1].Mem.Read(20); got != 2 {
		t.Fatalf("got %d, want the value at injection time, 2", got)
	}
}

func TestSendBlockRejectsBadArguments(t *testing.T) {
	_, f := newTestFabric(t, 2, 2)
	size := uint32(f.Spec.MemoryWords)
	cases := []struct {
		name                                 string
		src, dst                             int
		kind                                 uint8
		dstAddr, dstStride, srcAddr, srcStep uint32
		count                                int
		want                                 string
	}{
		{"bad node", 0, 4, KindData, 0, 1, 0, 1, 1, "nodes must be"},
		{"bad kind", 0, 1, KindSynth, 0, 1, 0, 1, 1, "message type"},
		{"too many words", 0, 1, KindData, 0, 1, 0, 1, MaxBlockWords + 1, "count"},
		{"negative count", 0, 1, KindData, 0, 1, 0, 1, -1, "count"},
		{"stride too big", 0, 1, KindData, 0, 1 << 16, 0, 1, 2, "strides"},
		{"source overflow", 0, 1, KindData, 0, 1, size - 1, 1, 2, "source words"},
		{"destination overflow", 0, 1, KindData, size - 5, 2, 0, 1, 4, "destination words"},
	}
	for _, c := range cases {
		_, err := f.SendBlock(c.src, c.dst, c.kind, c.dstAddr, c.dstStride, c.srcAddr, c.srcStep, c.count, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	if f.LivePackets() != 0 {
		t.Fatalf("rejected sends left %d packets", f.LivePackets())
	}
}

// A processor that stops taking messages backs flits up through credit flow
// control; the watchdog then ends the run with a report naming the stuck
// router VCs and the paused NIU instead of hanging.
func TestWatchdogReportsBlockedNetwork(t *testing.T) {
	eng, f := newTestFabric(t, 4, 1)
	eng.SetWatchdog(500, f.Describe)
	f.NIUs[3].Pause(true)
	for i := 0; i < 6; i++ {
		f.SendSynthetic(0, 3, 20, 0)
	}
	err := eng.Run(100000)
	st, ok := err.(*des.Stall)
	if !ok {
		t.Fatalf("Run returned %v, want a *des.Stall", err)
	}
	if st.At-st.Since != 500 {
		t.Fatalf("watchdog fired after %d cycles without progress, want 500", st.At-st.Since)
	}
	for _, want := range []string{"R(3,0) in W vc", "no credit", "NIU(3,0)", "paused", "packet", "age"} {
		if !strings.Contains(st.Error(), want) {
			t.Errorf("report lacks %q:\n%s", want, st.Error())
		}
	}
	// Resuming the processor lets everything drain.
	f.NIUs[3].Pause(false)
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	if err := f.CheckQuiescent(); err != nil {
		t.Fatalf("after resuming: %v", err)
	}
}
