package mesh

import "fmt"

// Bus is N nodes on one shared medium: no routers and no links between
// them, one transfer at a time (router.Build builds its arbiter). Route is
// never called. Every transfer, to any node including the sender, crosses the bus once.
type Bus struct {
	N int
}

// NewBus returns a bus of n nodes, or an error naming the allowed range.
func NewBus(n int) (Bus, error) {
	if n < 1 || n > MaxDim*MaxDim {
		return Bus{}, fmt.Errorf("bus of %d nodes: allowed 1..%d", n, MaxDim*MaxDim)
	}
	return Bus{N: n}, nil
}

func (b Bus) Name() string                    { return fmt.Sprintf("bus %d", b.N) }
func (b Bus) Nodes() int                      { return b.N }
func (b Bus) Label(n int) string              { return fmt.Sprintf("(%d)", n) }
func (b Bus) Neighbor(int, Port) (int, bool)  { return 0, false }
func (b Bus) Route(int, int) (Port, int, int) { return Local, 0, 0 }
func (b Bus) Hops(int, int) int               { return 1 }

// Offsets address the destination, since a bus has no hops to count: its
// node id's low 8 bits in dx and the rest in dy (so that 256x256 nodes fit
// the head's 16-bit offsets). The bus clears them as it delivers the head.
func (b Bus) Offsets(_, dst int) (int, int) { return dst & 0xff, dst >> 8 }
