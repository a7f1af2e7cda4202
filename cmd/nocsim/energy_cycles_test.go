package main

import (
	"encoding/json"
	"math"
	"testing"
)

// energyCycles is the busy and idle counts of a JSON energy object, with
// the leakage that says over how many cycles they were counted.
type energyCycles struct {
	LeakagePJ  float64 `json:"leakage_energy_pj"`
	RouterBusy uint64  `json:"router_busy_cycles"`
	RouterIdle uint64  `json:"router_idle_cycles"`
	TileBusy   uint64  `json:"tile_busy_cycles"`
	TileIdle   uint64  `json:"tile_idle_cycles"`
}

// The energy JSON's router- and tile-cycles add up: on a 4x4 mesh under
// synthetic traffic the routers' busy and idle cycles are 16 routers times
// the measurement window, with some of each, and there are no tiles; on
// the chip (a broadcast) routers and tiles each add up to 16 times the
// run's cycles, which DSENT's leakage gives independently (7.75 mW a
// router at 1 GHz: 7.75 pJ a router-cycle; on a bus 16 interfaces at 1/5
// of a router's), and a bus has no routers.
func TestEnergyBusyIdleCycles(t *testing.T) {
	code, out, stderr := nocsim(t, "noc", "-q", "--json", "--mesh", "4x4", "--rates", "0.05,0.3", "--warmup-cycles", "200", "--measure-cycles", "700")
	if code != 0 {
		t.Fatalf("noc: exit %d: %s", code, stderr)
	}
	var pts []struct {
		Energy energyCycles `json:"energy"`
	}
	if err := json.Unmarshal([]byte(out), &pts); err != nil || len(pts) != 2 {
		t.Fatalf("noc JSON: %v, %d points", err, len(pts))
	}
	for i, p := range pts {
		e := p.Energy
		if e.RouterBusy+e.RouterIdle != 16*700 || e.RouterBusy == 0 || e.RouterIdle == 0 || e.TileBusy != 0 || e.TileIdle != 0 {
			t.Errorf("noc point %d: %+v, want router busy + idle = 16 x 700, some of each, and no tiles", i, e)
		}
	}
	if pts[1].Energy.RouterBusy <= pts[0].Energy.RouterBusy {
		t.Errorf("routers busy %d cycles at 0.3 flits/node/cycle, %d at 0.05: want more under more load", pts[1].Energy.RouterBusy, pts[0].Energy.RouterBusy)
	}
	for _, c := range []struct {
		topo           string
		routers        uint64
		leakPerCyclePJ float64
	}{
		{"mesh", 16, 16 * 7.75},
		{"bus", 0, 16 * 7.75 / 5},
	} {
		code, out, stderr := nocsim(t, "coll", "-q", "--json", "--mesh", "4x4", "--topology", c.topo, "--op", "bcast", "--algs", "binomial", "--sizes", "1024")
		if code != 0 {
			t.Fatalf("coll on a %s: exit %d: %s", c.topo, code, stderr)
		}
		var rows []struct {
			Energy energyCycles `json:"energy"`
		}
		if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("coll JSON: %v, %d rows", err, len(rows))
		}
		e := rows[0].Energy
		cycles := uint64(math.Round(e.LeakagePJ / c.leakPerCyclePJ))
		if e.TileBusy+e.TileIdle != 16*cycles || e.TileBusy == 0 || e.RouterBusy+e.RouterIdle != c.routers*cycles || (c.routers > 0) != (e.RouterBusy > 0) {
			t.Errorf("coll on a %s of %d cycles: %+v, want tiles busy + idle = 16 x cycles, routers %d x cycles", c.topo, cycles, e, c.routers)
		}
	}
}
