package endpoint

const pageBits = 12

// Memory is a tile's word-addressed local memory. Pages are allocated on
// first write, so a 64-tile machine with 8 MiB per tile costs only what its
// programs touch.
type Memory struct {
	size  uint32
	pages [][]uint32
}

func newMemory(words int) Memory {
	return Memory{size: uint32(words), pages: make([][]uint32, (words+(1<<pageBits)-1)>>pageBits)}
}

// Size is the memory size in words.
func (m *Memory) Size() uint32 { return m.size }

// Read returns the word at addr; untouched memory reads as zero.
func (m *Memory) Read(addr uint32) uint32 {
	pg := m.pages[addr>>pageBits]
	if pg == nil {
		return 0
	}
	return pg[addr&(1<<pageBits-1)]
}

// Write stores v at addr.
func (m *Memory) Write(addr, v uint32) {
	pg := m.pages[addr>>pageBits]
	if pg == nil {
		pg = make([]uint32, 1<<pageBits)
		m.pages[addr>>pageBits] = pg
	}
	pg[addr&(1<<pageBits-1)] = v
}

// inRange reports whether count words from addr at stride stay in memory.
func (m *Memory) inRange(addr, stride uint32, count int) bool {
	if count == 0 {
		return addr <= m.size
	}
	last := uint64(addr) + uint64(stride)*uint64(count-1)
	return last < uint64(m.size)
}
