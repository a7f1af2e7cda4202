package endpoint

import (
	"math/rand/v2"
	"testing"
)

// Reading and writing through a cursor (the DMA engine's hold on a heap
// block) is reading and writing the memory: whatever blocks come and go
// between accesses (a block freed under a DMA reads as zero, a write to it
// is refused, a new block at the same address is a new block), every
// access agrees with Read and Write. A reference memory that only ever
// uses Read and Write, fed the same operations, says what each should be.
func TestCursorAgreesWithReadWrite(t *testing.T) {
	const words = 1 << 12
	rng := rand.New(rand.NewPCG(12, 6))
	m, ref := newMemory(words), newMemory(words)
	var rc, wc cursor
	var blocks []uint32
	for step := range 20000 {
		addr := uint32(rng.IntN(words))
		if len(blocks) > 0 && rng.IntN(3) > 0 {
			// Mostly near a live block, where a DMA streams.
			b := blocks[rng.IntN(len(blocks))]
			addr = b + uint32(rng.IntN(80))
		}
		switch op := rng.IntN(20); {
		case op == 0:
			n := 4 * (1 + rng.IntN(64))
			a, _, err := m.Alloc(n)
			ra, _, rerr := ref.Alloc(n)
			if a != ra || (err == nil) != (rerr == nil) {
				t.Fatalf("step %d: Alloc(%d) = %d, %v; reference %d, %v", step, n, a, err, ra, rerr)
			}
			if err == nil {
				blocks = append(blocks, a)
			}
		case op == 1 && len(blocks) > 0:
			i := rng.IntN(len(blocks))
			if err, rerr := m.Free(blocks[i]), ref.Free(blocks[i]); err != nil || rerr != nil {
				t.Fatalf("step %d: Free(%d): %v, reference %v", step, blocks[i], err, rerr)
			}
			blocks = append(blocks[:i], blocks[i+1:]...)
		case op < 10:
			v := rng.Uint32()
			err, rerr := m.writeAt(&wc, addr, v), ref.Write(addr, v)
			if (err == nil) != (rerr == nil) {
				t.Fatalf("step %d: write at %d through the cursor: %v; reference %v", step, addr, err, rerr)
			}
		default:
			if got, want := m.readAt(&rc, addr), ref.Read(addr); got != want {
				t.Fatalf("step %d: word %d through the cursor is %d, want %d", step, addr, got, want)
			}
		}
	}
}
