package energy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// tableRow is one technology and flit width of a per-event model: the
// energy of each event (pJ per flit, or per head for VC allocation and
// route computation), a router's clock energy per cycle, its leakage and
// its area, for a router of the table's port count.
type tableRow struct {
	Tech          string  `toml:"tech"`
	FlitBits      int     `toml:"flit_bits"`
	BufferWrite   float64 `toml:"buffer_write_pj"`
	BufferRead    float64 `toml:"buffer_read_pj"`
	Crossbar      float64 `toml:"crossbar_pj"`
	SwitchAlloc   float64 `toml:"switch_alloc_pj"`
	VCAlloc       float64 `toml:"vc_alloc_pj"`
	Route         float64 `toml:"route_pj"`
	LinkPerMM     float64 `toml:"link_pj_per_mm"`
	ClockPerCycle float64 `toml:"clock_pj_per_cycle"`
	LeakMW        float64 `toml:"router_leak_mw"`
	AreaMM2       float64 `toml:"router_area_mm2"`
	Source        string  `toml:"source"`
}

// tableFile is a per-event model's file.
type tableFile struct {
	Kind       string `toml:"kind"`
	Model      string `toml:"model"`
	Source     string `toml:"source"`
	TablePorts int    `toml:"table_ports"`
	// TableClockHz is the clock the table was generated at. Its per-event
	// energies hold at any clock (DSENT's do not change at 2 GHz); the
	// leakage is a power, charged over the run's time at Params.ClockHz.
	TableClockHz float64    `toml:"table_clock_hz"`
	Rows         []tableRow `toml:"row"`
}

// table is a per-event model with its row chosen.
type table struct {
	name  string
	ports int // the table router's ports: a router with more is charged pro rata
	row   tableRow
	p     Params
}

func loadTable(name string, data []byte, p Params) (Model, error) {
	var f tableFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, fmt.Errorf("energy model %s: %v", name, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("energy model %s: unknown key %s (allowed: the keys of models/dsent.toml)", name, u[0])
	}
	if f.Model != "" {
		name = f.Model
	}
	if f.TablePorts < 1 {
		return nil, fmt.Errorf("energy model %s: table_ports = %d: allowed the table router's port count, at least 1", name, f.TablePorts)
	}
	var have []string
	for _, r := range f.Rows {
		if r.Tech == p.Tech && r.FlitBits == p.FlitBits {
			return &table{name: name, ports: f.TablePorts, row: r, p: p}, nil
		}
		have = append(have, fmt.Sprintf("%s/%d", r.Tech, r.FlitBits))
	}
	slices.Sort(have)
	key, v := "tech", strconv.Quote(p.Tech)
	if slices.ContainsFunc(f.Rows, func(r tableRow) bool { return r.Tech == p.Tech }) {
		key, v = "flit_bits", strconv.Itoa(p.FlitBits)
	}
	return nil, bad(key, v, fmt.Sprintf("in model %s, tech/flit_bits one of %s (tech %q, flit_bits %d asked)", name, strings.Join(have, ", "), p.Tech, p.FlitBits))
}

// Check accepts every network (the table prices any router pro rata), and
// tiles at a node the tile model scales to.
func (t *table) Check(n Network) error {
	if n.Tiles {
		_, err := tileScale(t.row.Tech)
		return err
	}
	return nil
}

// Energy charges each event its row's energy: buffer writes and reads per
// flit into and out of an input buffer, the crossbar and switch
// allocation per flit switched, VC allocation and route computation per
// head granted a VC, a link per flit per mm; and each router its clock
// energy every cycle and its leakage power over the time the cycles take
// at p.ClockHz, pro rata to its ports against the table router's. A bus
// is priced as routers' parts (see bus).
func (t *table) Energy(a Activity) (Breakdown, error) {
	r, tot := t.row, a.Totals()
	var b Breakdown
	if a.Bus != nil {
		b = t.bus(a, tot)
	} else {
		b = t.routers(a, tot)
	}
	scale := 1.0
	if len(a.Tiles) > 0 {
		s, err := tileScale(r.Tech)
		if err != nil {
			return Breakdown{}, err
		}
		scale = s
	}
	tile, err := tileComponents(a, scale, r.BufferWrite+r.BufferRead)
	if err != nil {
		return Breakdown{}, err
	}
	b.Components = append(b.Components, tile...)
	return b, nil
}

// routers prices a network of routers and links.
func (t *table) routers(a Activity, tot Totals) Breakdown {
	r := t.row
	f := func(n uint64, e float64) float64 { return float64(n) * e }
	// Router-cycles weighted by ports over the table's: a concentrated
	// mesh's 8-port router leaks and clocks as 8/5 of the table's.
	share := float64(tot.RouterPorts) / float64(t.ports)
	rc := float64(a.Cycles) * share
	return Breakdown{Model: t.name, Tech: r.Tech, FlitBits: r.FlitBits, ClockHz: t.p.ClockHz, Cycles: a.Cycles,
		AreaMM2: r.AreaMM2 * share,
		Components: []Component{
			{"buffer write", KindDynamic, f(tot.BufferWrites, r.BufferWrite)},
			{"buffer read", KindDynamic, f(tot.BufferReads, r.BufferRead)},
			{"crossbar", KindDynamic, f(tot.Traversals, r.Crossbar)},
			{"switch allocation", KindDynamic, f(tot.Traversals, r.SwitchAlloc)},
			{"VC allocation", KindDynamic, f(tot.VCAllocs, r.VCAlloc)},
			{"route computation", KindDynamic, f(tot.VCAllocs, r.Route)},
			{"links", KindDynamic, f(tot.LinkFlits, r.LinkPerMM*t.p.TileMM*a.LinkTiles)},
			{"router clock", KindClock, rc * r.ClockPerCycle},
			{"router leakage", KindLeakage, rc / t.p.ClockHz * r.LeakMW * 1e-3 * 1e12},
		}}
}

// bus prices a bus's network as a router's parts would cost. Each node's
// bus interface is one input port of a router: every flit is written into
// its buffers and read out of them at the table's energies, and each
// interface is charged 1/table_ports of a router's clock, leakage and area
// (as a router of more ports than the table's is charged pro rata). The
// arbiter is a router's switch allocator, charged switch_alloc_pj once per
// packet granted the bus: the table's energy is per flit switched, but the
// bus arbitrates once per packet, whose flits then hold it to the tail.
// Every flit drives the whole wire, link_pj_per_mm over its length
// (LinkTiles: N-1 tile pitches). The wire's leakage is not charged: the
// table gives links none, on any topology.
func (t *table) bus(a Activity, tot Totals) Breakdown {
	r := t.row
	f := func(n uint64, e float64) float64 { return float64(n) * e }
	share := float64(tot.BusInterfaces) / float64(t.ports)
	rc := float64(a.Cycles) * share
	return Breakdown{Model: t.name, Tech: r.Tech, FlitBits: r.FlitBits, ClockHz: t.p.ClockHz, Cycles: a.Cycles,
		AreaMM2: r.AreaMM2 * share,
		Components: []Component{
			{"bus interface buffer write", KindDynamic, f(tot.BufferWrites, r.BufferWrite)},
			{"bus interface buffer read", KindDynamic, f(tot.BufferReads, r.BufferRead)},
			{"bus arbitration", KindDynamic, f(tot.BusGrants, r.SwitchAlloc)},
			{"bus wire", KindDynamic, f(tot.LinkFlits, r.LinkPerMM*t.p.TileMM*a.LinkTiles)},
			{"bus interface clock", KindClock, rc * r.ClockPerCycle},
			{"bus interface leakage", KindLeakage, rc / t.p.ClockHz * r.LeakMW * 1e-3 * 1e12},
		}}
}
