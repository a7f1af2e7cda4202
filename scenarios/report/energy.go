package report

import "fmt"

// Energy is a run's energy under the [energy] model: in total, by kind
// and by component, its average power at the model's clock, and per flit
// delivered (over a noc point's measurement window, over a whole run on
// the chip).
type Energy struct {
	Model      string            `json:"model"`
	Tech       string            `json:"tech"`
	FlitBits   int               `json:"flit_bits"`
	ClockHz    float64           `json:"clock_hz"`
	TotalPJ    float64           `json:"energy_pj"`
	PowerMW    float64           `json:"power_mw"`
	PerFlitPJ  float64           `json:"energy_per_delivered_flit_pj"` // 0 when no flit was delivered
	DynamicPJ  float64           `json:"dynamic_energy_pj"`
	ClockPJ    float64           `json:"clock_energy_pj"`
	LeakagePJ  float64           `json:"leakage_energy_pj"`
	AreaMM2    float64           `json:"area_mm2"`
	Components []EnergyComponent `json:"components"`
	// Router- and tile-cycles over the same cycles, summed over the
	// routers (the tiles): busy when the router's pipeline ran (the
	// processor computed), idle in the others; busy + idle is the routers
	// (tiles) times the cycles. 0 and 0 where there are none: a bus has
	// no routers, synthetic traffic prices no tiles.
	RouterBusyCycles uint64 `json:"router_busy_cycles"`
	RouterIdleCycles uint64 `json:"router_idle_cycles"`
	TileBusyCycles   uint64 `json:"tile_busy_cycles"`
	TileIdleCycles   uint64 `json:"tile_idle_cycles"`
}

// EnergyComponent is one line of a breakdown: energy over the window and
// its average power.
type EnergyComponent struct {
	Name    string  `json:"name"`
	Kind    string  `json:"kind"` // dynamic, clock or leakage
	PJ      float64 `json:"energy_pj"`
	PowerMW float64 `json:"power_mw"`
}

// energyCells are a table's energy (nJ) and power (mW) cells for e, "-"
// for a row without energy.
func energyCells(e *Energy) string {
	if e == nil {
		return "-\t-\t"
	}
	return fmt.Sprintf("%.2f\t%.1f\t", e.TotalPJ/1e3, e.PowerMW)
}
