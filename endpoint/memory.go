package endpoint

import (
	"encoding/binary"
	"fmt"
	"sort"
)

const pageBits = 12

// Memory is a tile's word-addressed local memory. The low quarter is static
// memory, paged in on first write, which native programs address directly;
// the rest is a heap that Alloc hands out as byte slices the program works
// on, and that the DMA engine reads and writes word by word. A 64-tile
// machine with 8 MiB per tile costs only what its programs touch.
type Memory struct {
	// gen counts Allocs and Frees: a cursor (see cursor) is good only
	// while it stays the same. First, as DMA checks it at every word.
	gen   uint64
	size  uint32
	heap  uint32     // first heap word
	pages [][]uint32 // static memory by page; the table itself is made on first write
	segs  []segment  // allocated heap blocks, by address
	free  []span     // free heap spans, by address
	last  int        // segment of the last heap access, as DMA runs sequentially

	// DMAReads and DMAWrites are the words the NIU's DMA engine has read
	// and written (readAt, writeAt), which energy prices as memory
	// accesses. The program's own reads and writes through Read and
	// Write are not counted: a Go program reads simulated memory for free
	// (checking a result, say) unless it charges the cycles, and kernels
	// count their loads and stores as operations (Ops.Mem).
	DMAReads, DMAWrites uint64

	// Freed small blocks' byte slices by word count, for the next Alloc
	// of that size: a library's flag words and small temporaries come and
	// go with every message. Only the Go storage is reused; addresses are
	// handed out exactly as without it.
	spare *spareStore // made on the first Free
}

// spareStore is freed blocks' storage kept for reuse.
type spareStore struct {
	small [spareWords + 1][][]byte // by word count
	big   [spareBig][]byte         // a few larger blocks, any size
}

// spareWords is the largest block whose storage Free keeps, and
// spareKeep how many of each size it keeps.
const spareWords, spareKeep = 16, 64

// spareBig is how many larger freed blocks' storage Free keeps: a
// collective's scratch vectors are freed and wanted again at each call.
const spareBig = 4

type segment struct {
	addr  uint32
	bytes []byte
}

type span struct{ addr, words uint32 }

func newMemory(words int) Memory {
	heap := uint32(words) / 4
	return Memory{
		size: uint32(words),
		heap: heap,
		free: []span{{heap, uint32(words) - heap}},
	}
}

// Size is the memory size in words.
func (m *Memory) Size() uint32 { return m.size }

// HeapBase is the first word of the heap; lower words are static memory.
func (m *Memory) HeapBase() uint32 { return m.heap }

// Read returns the word at addr; untouched or unallocated memory reads as
// zero.
func (m *Memory) Read(addr uint32) uint32 {
	if addr < m.heap {
		if m.pages == nil {
			return 0
		}
		pg := m.pages[addr>>pageBits]
		if pg == nil {
			return 0
		}
		return pg[addr&(1<<pageBits-1)]
	}
	s := m.seg(addr)
	if s == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(s.bytes[(addr-s.addr)*4:])
}

// Write stores v at addr. A write into the heap outside any allocated
// block is refused: it would be a program's or the library's bug.
func (m *Memory) Write(addr, v uint32) error {
	if addr < m.heap {
		if m.pages == nil {
			// Made on first touch: a chip of 65536 tiles that never
			// touches static memory pays nothing for its page tables.
			m.pages = make([][]uint32, (m.heap+(1<<pageBits)-1)>>pageBits)
		}
		pg := m.pages[addr>>pageBits]
		if pg == nil {
			pg = make([]uint32, 1<<pageBits)
			m.pages[addr>>pageBits] = pg
		}
		pg[addr&(1<<pageBits-1)] = v
		return nil
	}
	s := m.seg(addr)
	if s == nil {
		return fmt.Errorf("write to unallocated heap word %d", addr)
	}
	binary.LittleEndian.PutUint32(s.bytes[(addr-s.addr)*4:], v)
	return nil
}

// cursor is a DMA engine's hold on the heap block it streams through:
// reading or writing a word through it skips the block lookup while the
// words stay in the block and no block has been allocated or freed since
// (gen). The zero value holds nothing.
type cursor struct {
	b    []byte
	base uint32 // first word of b
	n    uint32 // words in b
	gen  uint64
}

// readAt is Read(addr) through c.
func (m *Memory) readAt(c *cursor, addr uint32) uint32 {
	m.DMAReads++
	if off := addr - c.base; off < c.n && c.gen == m.gen {
		return binary.LittleEndian.Uint32(c.b[off*4:])
	}
	if addr >= m.heap {
		if s := m.seg(addr); s != nil {
			c.hold(s, m.gen)
		}
	}
	return m.Read(addr)
}

// writeAt is Write(addr, v) through c.
func (m *Memory) writeAt(c *cursor, addr, v uint32) error {
	m.DMAWrites++
	if off := addr - c.base; off < c.n && c.gen == m.gen {
		binary.LittleEndian.PutUint32(c.b[off*4:], v)
		return nil
	}
	if addr >= m.heap {
		if s := m.seg(addr); s != nil {
			c.hold(s, m.gen)
		}
	}
	return m.Write(addr, v)
}

func (c *cursor) hold(s *segment, gen uint64) {
	c.b, c.base, c.n, c.gen = s.bytes, s.addr, uint32(len(s.bytes)/4), gen
}

func (m *Memory) seg(addr uint32) *segment {
	if m.last < len(m.segs) {
		if s := &m.segs[m.last]; addr >= s.addr && addr < s.addr+uint32(len(s.bytes)/4) {
			return s
		}
	}
	i := sort.Search(len(m.segs), func(i int) bool { return m.segs[i].addr > addr }) - 1
	if i < 0 || addr >= m.segs[i].addr+uint32(len(m.segs[i].bytes)/4) {
		return nil
	}
	m.last = i
	return &m.segs[i]
}

// Alloc reserves a heap block of at least n bytes (whole words) and returns
// its first word address and its bytes, zeroed. First fit, so freed blocks
// are reused.
func (m *Memory) Alloc(n int) (uint32, []byte, error) {
	words := uint32((max(n, 1) + 3) / 4)
	for i, f := range m.free {
		if f.words < words {
			continue
		}
		addr := f.addr
		if f.words == words {
			m.free = append(m.free[:i], m.free[i+1:]...)
		} else {
			m.free[i] = span{f.addr + words, f.words - words}
		}
		b := m.spareBytes(words)
		if b == nil {
			b = make([]byte, words*4)
		}
		j := sort.Search(len(m.segs), func(j int) bool { return m.segs[j].addr > addr })
		m.segs = append(m.segs, segment{})
		copy(m.segs[j+1:], m.segs[j:])
		m.segs[j] = segment{addr, b}
		m.gen++
		return addr, b[:n], nil
	}
	return 0, nil, fmt.Errorf("out of memory: %d bytes wanted, heap of %d words exhausted", n, m.size-m.heap)
}

// Free returns the block at addr to the heap.
func (m *Memory) Free(addr uint32) error {
	j := sort.Search(len(m.segs), func(j int) bool { return m.segs[j].addr >= addr })
	if j == len(m.segs) || m.segs[j].addr != addr {
		return fmt.Errorf("free of word %d, which is not an allocated block", addr)
	}
	sp := span{addr, uint32(len(m.segs[j].bytes) / 4)}
	m.keepSpare(m.segs[j].bytes)
	m.segs = append(m.segs[:j], m.segs[j+1:]...)
	m.last = 0
	m.gen++
	i := sort.Search(len(m.free), func(i int) bool { return m.free[i].addr > addr })
	m.free = append(m.free, span{})
	copy(m.free[i+1:], m.free[i:])
	m.free[i] = sp
	// Coalesce with the neighbours so large blocks can be had again.
	if i+1 < len(m.free) && m.free[i].addr+m.free[i].words == m.free[i+1].addr {
		m.free[i].words += m.free[i+1].words
		m.free = append(m.free[:i+1], m.free[i+2:]...)
	}
	if i > 0 && m.free[i-1].addr+m.free[i-1].words == m.free[i].addr {
		m.free[i-1].words += m.free[i].words
		m.free = append(m.free[:i], m.free[i+1:]...)
	}
	return nil
}

// inRange reports whether count words from addr at stride stay in memory.
func (m *Memory) inRange(addr, stride uint32, count int) bool {
	if count == 0 {
		return addr <= m.size
	}
	last := uint64(addr) + uint64(stride)*uint64(count-1)
	return last < uint64(m.size)
}

// spareBytes returns kept storage for a block of words words, zeroed, or
// nil.
func (m *Memory) spareBytes(words uint32) []byte {
	sp := m.spare
	if sp == nil {
		return nil
	}
	if words <= spareWords {
		s := sp.small[words]
		if len(s) == 0 {
			return nil
		}
		b := s[len(s)-1]
		s[len(s)-1] = nil
		sp.small[words] = s[:len(s)-1]
		clear(b)
		return b
	}
	for i, b := range sp.big {
		if len(b) == int(words)*4 {
			sp.big[i] = nil
			clear(b)
			return b
		}
	}
	return nil
}

// keepSpare keeps a freed block's storage (its full length) for reuse,
// a bounded amount of it.
func (m *Memory) keepSpare(b []byte) {
	if m.spare == nil {
		m.spare = new(spareStore)
	}
	sp := m.spare
	words := uint32(len(b) / 4)
	if words <= spareWords {
		if len(sp.small[words]) < spareKeep {
			sp.small[words] = append(sp.small[words], b)
		}
		return
	}
	for i := range sp.big {
		if sp.big[i] == nil {
			sp.big[i] = b
			return
		}
	}
	// Full: drop the oldest, so the sizes in use now win.
	copy(sp.big[:], sp.big[1:])
	sp.big[spareBig-1] = b
}
