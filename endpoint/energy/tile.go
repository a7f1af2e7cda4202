package energy

import (
	"fmt"
	"math"

	"github.com/BurntSushi/toml"
)

// TileActivity is one tile's events besides its NIU's flits: its
// processor's busy cycles and its kernels' counted operations, and the
// words the DMA engine read from and wrote to its memory.
type TileActivity struct {
	BusyCycles                  uint64
	Flops, MemOps, Iters, Calls uint64 // endpoint.Ops: the kernels' counts
	DMAReads, DMAWrites         uint64
}

// tileModel is models/tile.toml: the processor's and memory's energies.
type tileModel struct {
	Source        string             `toml:"source"`
	InstructionPJ float64            `toml:"instruction_pj"`
	FlopPJ        float64            `toml:"flop_pj"`
	IterationPJ   float64            `toml:"iteration_pj"`
	CallPJ        float64            `toml:"call_pj"`
	SRAMKiB       []float64          `toml:"sram_kib"`
	SRAMPJ        []float64          `toml:"sram_pj"`
	Scale         map[string]float64 `toml:"scale"`
}

func loadTile() (tileModel, error) {
	var t tileModel
	b, err := builtin.ReadFile("models/tile.toml")
	if err != nil {
		return t, err
	}
	md, err := toml.Decode(string(b), &t)
	if err != nil {
		return t, fmt.Errorf("energy model tile: %v", err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return t, fmt.Errorf("energy model tile: unknown key %s", u[0])
	}
	if len(t.SRAMKiB) < 2 || len(t.SRAMKiB) != len(t.SRAMPJ) {
		return t, fmt.Errorf("energy model tile: sram_kib and sram_pj need the same two or more points")
	}
	return t, nil
}

// sramPJ is the energy of one access to an SRAM of kib KiB: interpolated
// in log size between the table's points, the first point's below it and
// the last's above it.
func (t tileModel) sramPJ(kib float64) float64 {
	k, e := t.SRAMKiB, t.SRAMPJ
	if kib <= k[0] {
		return e[0]
	}
	for i := 1; i < len(k); i++ {
		if kib <= k[i] {
			f := math.Log(kib/k[i-1]) / math.Log(k[i]/k[i-1])
			return e[i-1] + f*(e[i]-e[i-1])
		}
	}
	return e[len(e)-1]
}

// tileComponents prices the tiles' activity at a node scale: the
// processors (busy cycles, operations), the memories (DMA words and the
// kernels' loads and stores) and the NIUs (each flit sent or taken is
// written into and read out of its queue, niuFlitPJ). None without tiles
// (a noc run's activity has none).
func tileComponents(a Activity, scale, niuFlitPJ float64) ([]Component, error) {
	if len(a.Tiles) == 0 {
		return nil, nil
	}
	t, err := loadTile()
	if err != nil {
		return nil, err
	}
	var cpu, mem float64
	sram := t.sramPJ(float64(a.TileMemoryBytes) / 1024)
	for _, x := range a.Tiles {
		cpu += float64(x.BusyCycles)*t.InstructionPJ + float64(x.Flops)*t.FlopPJ + float64(x.Iters)*t.IterationPJ + float64(x.Calls)*t.CallPJ
		mem += float64(x.DMAReads+x.DMAWrites+x.MemOps) * sram
	}
	var flits uint64
	for i := range a.Inject {
		flits += a.Inject[i] + a.Eject[i]
	}
	return []Component{
		{"processor", KindDynamic, cpu * scale},
		{"memory", KindDynamic, mem * scale},
		{"NIU", KindDynamic, float64(flits) * niuFlitPJ},
	}, nil
}

// tileScale is the tile model's factor for technology node tech (1, the
// 45 nm figures, for a model that names none).
func tileScale(tech string) (float64, error) {
	if tech == "" {
		return 1, nil
	}
	t, err := loadTile()
	if err != nil {
		return 0, err
	}
	s, ok := t.Scale[tech]
	if !ok {
		return 0, bad("tech", tech, "a node of the tile model's table (45nm, 32nm, 22nm, 11nm)")
	}
	return s, nil
}
