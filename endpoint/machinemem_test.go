package endpoint

import (
	"runtime"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// machineBytesPerNode is the live heap a freshly built k x k machine takes,
// per tile.
func machineBytesPerNode(k int) float64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	m, _ := mesh.New(k, k)
	mc := NewMachine(des.New(), m, router.DefaultSpec(), DefaultSpec(), DefaultCPUSpec())
	runtime.GC()
	runtime.ReadMemStats(&b)
	runtime.KeepAlive(mc)
	return float64(int64(b.HeapAlloc)-int64(a.HeapAlloc)) / float64(k*k)
}

// A machine's memory is O(tiles): the bytes per tile of a 64x64 machine
// are within 1.25x those of an 8x8 one. Any table a tile keeps per other
// tile would cost 64 times as much per tile at 64x64: even 4 bytes a pair
// would add 16 KiB per tile there, against about 6.5 KiB for everything
// now.
func TestMachineMemoryLinearInTiles(t *testing.T) {
	small, large := machineBytesPerNode(8), machineBytesPerNode(64)
	t.Logf("machine heap: %.0f bytes/tile at 8x8, %.0f at 64x64", small, large)
	if small <= 0 || large > 1.25*small {
		t.Fatalf("machine heap %.0f bytes/tile at 64x64 against %.0f at 8x8; want at most 1.25x", large, small)
	}
}
