package energy

import (
	"fmt"
	"math"
	"strconv"

	"github.com/BurntSushi/toml"
)

// noximFile is the noxim model's data: power.yaml's tables.
type noximFile struct {
	Kind        string                `toml:"kind"`
	Model       string                `toml:"model"`
	Source      string                `toml:"source"`
	Buffer      [][5]float64          `toml:"buffer"`
	Crossbar    [][4]float64          `toml:"crossbar"`
	LinkBitLine [][3]float64          `toml:"link_bit_line"`
	Routing     map[string][2]float64 `toml:"routing"`
	Selection   map[string][2]float64 `toml:"selection"`
}

type noxim struct {
	f noximFile
	p Params
}

func loadNoxim(name string, data []byte, p Params) (Model, error) {
	var f noximFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, fmt.Errorf("energy model %s: %v", name, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("energy model %s: unknown key %s (allowed: the keys of models/noxim.toml)", name, u[0])
	}
	if _, ok := f.Selection["default"]; !ok {
		return nil, fmt.Errorf("energy model %s: [selection] default is missing", name)
	}
	return &noxim{f: f, p: p}, nil
}

// noximRows are the table rows a network is priced with.
type noximRows struct {
	buf        [5]float64
	xbar       [4]float64
	line       [3]float64
	route, sel [2]float64
}

// Check finds the rows a network needs: its buffer depth and flit width, a
// 5-port crossbar, its link length, its routing. An error names the key
// that asks for a missing row.
func (n *noxim) Check(net Network) error {
	_, err := n.rows(net)
	return err
}

func (n *noxim) rows(net Network) (noximRows, error) {
	var rw noximRows
	var buf *[5]float64
	for i, r := range n.f.Buffer {
		if int(r[0]) == net.VCBuf && int(r[1]) == n.p.FlitBits {
			buf = &n.f.Buffer[i]
		}
	}
	if buf == nil {
		return rw, bad("vc_buf", net.VCBuf, fmt.Sprintf("a buffer depth of model noxim's table at flit_bits %d (2, 4, 8, 16, 32, 64 with 16, 32, 64 or 128 bits)", n.p.FlitBits))
	}
	var xbar *[4]float64
	for i, r := range n.f.Crossbar {
		if int(r[1]) == n.p.FlitBits {
			xbar = &n.f.Crossbar[i]
		}
	}
	if net.Ports != 5 && !net.Bus {
		return rw, bad("energy_model", "noxim", "a topology of 5-port routers (noxim's table has 5-port crossbars only; a cmesh's have 8)")
	}
	if xbar == nil {
		return rw, bad("flit_bits", n.p.FlitBits, "16, 32, 64 or 128 with model noxim")
	}
	// A bus's wire is priced as N-1 links of one tile pitch in series
	// (Noxim's bit line is nearly linear in length, and its table stops at
	// 3 mm).
	mm, what := n.p.TileMM*net.LinkTiles, fmt.Sprintf("links here are %g tile pitches", net.LinkTiles)
	if net.Bus {
		mm, what = n.p.TileMM, "a bus's wire is priced as links of one tile pitch"
	}
	var line *[3]float64
	for i, r := range n.f.LinkBitLine {
		if math.Abs(r[0]-mm) < 1e-9 {
			line = &n.f.LinkBitLine[i]
		}
	}
	if line == nil {
		return rw, bad("tile_mm", strconv.FormatFloat(n.p.TileMM, 'g', -1, 64),
			fmt.Sprintf("a link length of model noxim's table, 0.5 to 3 mm in steps of 0.5 (%s)", what))
	}
	if net.Bus {
		// A bus computes no routes: its arbiter reads the destination.
		return noximRows{buf: *buf, xbar: *xbar, line: *line}, nil
	}
	route, ok := n.f.Routing[net.Routing]
	if !ok {
		return rw, bad("routing", net.Routing, "a routing of model noxim's table")
	}
	return noximRows{buf: *buf, xbar: *xbar, line: *line, route: route, sel: n.f.Selection["default"]}, nil
}

// Energy charges Noxim's events and leakage with the network's rows.
func (n *noxim) Energy(a Activity) (Breakdown, error) {
	rw, err := n.rows(NetworkOf(a))
	if err != nil {
		return Breakdown{}, err
	}
	bits := float64(n.p.FlitBits)
	buf := rw.buf
	tot := a.Totals()
	const pj = 1e12
	secs := float64(a.Cycles) / n.p.ClockHz
	b := Breakdown{Model: n.f.Model, Tech: "unstated", FlitBits: n.p.FlitBits, ClockHz: n.p.ClockHz, Cycles: a.Cycles}
	if a.Bus != nil {
		b.Components = noximBus(a, tot, rw, bits, secs)
	} else {
		b.Components = noximRouters(a, tot, rw, bits, secs)
	}
	tile, err := tileComponents(a, 1, (buf[3]+buf[4])*pj)
	if err != nil {
		return Breakdown{}, err
	}
	b.Components = append(b.Components, tile...)
	return b, nil
}

// noximRouters is Noxim's charges on a network of routers: buffers,
// crossbar, links, routing and selection per event, and the leakage of
// every router's buffers and logic.
func noximRouters(a Activity, tot Totals, rw noximRows, bits, secs float64) []Component {
	const pj = 1e12
	routers := float64(len(a.Routers))
	buffers := routers * 5 * float64(a.VCs)
	buf, xbar, line, route, sel := rw.buf, rw.xbar, rw.line, rw.route, rw.sel
	c := func(count uint64, joules float64) float64 { return float64(count) * joules * pj }
	return []Component{
		{"buffer push", KindDynamic, c(tot.BufferWrites, buf[3])},
		{"buffer pop", KindDynamic, c(tot.BufferReads, buf[4])},
		{"crossbar", KindDynamic, c(tot.Traversals, xbar[3])},
		{"links", KindDynamic, c(tot.LinkFlits, bits*line[2])},
		{"routing", KindDynamic, c(tot.VCAllocs, route[1])},
		{"selection", KindDynamic, c(tot.VCAllocs, sel[1])},
		{"buffer leakage", KindLeakage, buffers * buf[2] * secs * pj},
		{"crossbar leakage", KindLeakage, routers * xbar[2] * secs * pj},
		{"routing leakage", KindLeakage, routers * route[0] * secs * pj},
		{"selection leakage", KindLeakage, routers * sel[0] * secs * pj},
	}
}

// noximBus is Noxim's charges on a bus, whose parts are a router's: each
// node's bus interface is VCs input buffers (pushed and popped per flit,
// leaking all the time), and every flit drives the whole wire, priced as
// N-1 links of one tile pitch. Noxim has no arbiter energy (its routers'
// switch allocation is uncharged), no crossbar is crossed and no route
// computed, and it charges links no leakage: those cost nothing here.
func noximBus(a Activity, tot Totals, rw noximRows, bits, secs float64) []Component {
	const pj = 1e12
	c := func(count uint64, joules float64) float64 { return float64(count) * joules * pj }
	buffers := float64(tot.BusInterfaces * a.VCs)
	return []Component{
		{"bus interface buffer push", KindDynamic, c(tot.BufferWrites, rw.buf[3])},
		{"bus interface buffer pop", KindDynamic, c(tot.BufferReads, rw.buf[4])},
		{"bus wire", KindDynamic, c(tot.LinkFlits, bits*rw.line[2]) * a.LinkTiles},
		{"bus interface buffer leakage", KindLeakage, buffers * rw.buf[2] * secs * pj},
	}
}
