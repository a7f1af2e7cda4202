package energy_test

import (
	"math"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/endpoint/energy"
	"nocsim/mesh"
	"nocsim/router"
)

// A chip counted by hand: tile 0 charges a kernel's operations and DMAs a
// block of W words to tile 5 of a 4x3 mesh. The source's memory is read W
// times and the destination's written W times by the DMA engine; the
// processors' busy cycles are what the cost model charged; and the tile
// components price exactly that: busy cycles x 70 pJ plus each flop 2.3,
// each loop iteration 0.3, each call 0.1 (Horowitz, 45 nm); memory words
// (DMA and the kernel's loads and stores) at the SRAM figure of the
// tile's memory size; the NIUs' flits each written into and read out of a
// queue at the network table's buffer energies.
func TestTileEnergyCountedByHand(t *testing.T) {
	eng := des.New()
	es := endpoint.DefaultSpec()
	es.MemoryWords = 8192 // 32 KiB: 20 pJ an access
	m := endpoint.NewMachine(eng, mesh.Mesh{W: 4, H: 3}, router.DefaultSpec(), es, endpoint.DefaultCPUSpec())
	defer m.Close()
	const W = 40
	src, _, _ := m.Nodes[0].Alloc(4 * W)
	dst, _, _ := m.Nodes[5].Alloc(4 * W)
	ops := endpoint.Ops{Flops: 100, Mem: 30, Iters: 20, Calls: 2}
	m.Nodes[0].Start("kernel", func(th *endpoint.Thread) {
		th.Charge(ops)
		if _, err := m.SendBlock(0, 5, endpoint.KindData, dst, 1, src, 1, W, eng.Now()); err != nil {
			t.Error(err)
		}
	})
	if err := m.Run(-1); err != nil {
		t.Fatal(err)
	}
	a, err := energy.SnapshotMachine(m)
	if err != nil {
		t.Fatal(err)
	}
	if a.Tiles[0].DMAReads != W || a.Tiles[5].DMAWrites != W || a.Tiles[0].Flops != 100 || a.Tiles[0].MemOps != 30 {
		t.Fatalf("tile 0 %+v, tile 5 %+v", a.Tiles[0], a.Tiles[5])
	}
	var busy uint64
	for _, x := range a.Tiles {
		busy += x.BusyCycles
	}
	if busy != uint64(m.Nodes[0].Busy+m.Nodes[5].Busy) || busy == 0 {
		t.Fatalf("busy cycles %d", busy)
	}
	model, err := energy.Load(energy.Params{Model: energy.DSENT, Tech: "45nm", FlitBits: 32, TileMM: 1, ClockHz: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	b, err := model.Energy(a)
	if err != nil {
		t.Fatal(err)
	}
	tot := a.Totals()
	want := map[string]float64{
		"processor": float64(busy)*70 + 100*2.3 + 20*0.3 + 2*0.1,
		"memory":    float64(W+W+30) * 20,
		"NIU":       float64(tot.Injected+tot.Ejected) * (1.228 + 1.118),
	}
	seen := 0
	for _, c := range b.Components {
		if w, ok := want[c.Name]; ok {
			seen++
			if math.Abs(c.PJ-w) > 1e-9*w {
				t.Errorf("%s: %.6g pJ, want %.6g", c.Name, c.PJ, w)
			}
		}
	}
	if seen != len(want) || tot.Injected != W+2 {
		t.Errorf("%d tile components, %d flits injected (a DMA message of %d words is %d flits)", seen, tot.Injected, W, W+2)
	}
	// At 22 nm the tile's figures scale as DSENT's router energy does.
	m22, _ := energy.Load(energy.Params{Model: energy.DSENT, Tech: "22nm", FlitBits: 32, TileMM: 1, ClockHz: 1e9})
	b22, _ := m22.Energy(a)
	for i, c := range b22.Components {
		if c.Name == "processor" && math.Abs(c.PJ-b.Components[i].PJ*0.2569) > 1e-9*c.PJ {
			t.Errorf("22 nm processor %.6g pJ, want 45 nm's x 0.2569", c.PJ)
		}
	}
}
