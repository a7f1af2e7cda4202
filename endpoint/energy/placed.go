package energy

import "fmt"

// Placed is an activity's dynamic network energy by where it was spent:
// each router's (its buffers, crossbar and allocators, from its own
// counts) and each link's (from its own flits). A breakdown says how much
// a network spends; Placed says where, for a map of the chip. Clock and
// leakage are charged per router alike, whatever a router does, so they
// are left out: they would only shift every router by the same amount.
type Placed struct {
	// Routers is each router's dynamic energy (pJ, Activity.Routers
	// order), Links each link's (pJ, Activity.Links order).
	Routers, Links []float64
	// RouterComponents and LinkComponents name the breakdown's components
	// they divide: summed over the routers (the links), the energies are
	// those components' energy summed.
	RouterComponents, LinkComponents []string
	// Seconds is the activity's duration at the model's clock: a part's
	// energy over it is its average power.
	Seconds float64
}

// PowerMW is the average power (mW) of pj picojoules spent over the
// activity; 0 over no time.
func (p Placed) PowerMW(pj float64) float64 {
	if !(p.Seconds > 0) {
		return 0
	}
	return pj * 1e-9 / p.Seconds
}

// Place divides activity a's dynamic network energy under model m among
// its routers and links, each part its own counts times the model's
// per-event energies, as the model's Energy charges the totals. The
// per-event models only (dsent, noxim, a per_event file); the tiles'
// processors, memories and NIUs are not placed, nor a bus's energy.
func Place(m Model, a Activity) (Placed, error) {
	if a.Bus != nil {
		return Placed{}, fmt.Errorf("energy: a bus has no routers or links to place its energy on")
	}
	switch m := m.(type) {
	case *table:
		return m.place(a), nil
	case *noxim:
		return m.place(a)
	}
	return Placed{}, fmt.Errorf("energy: model %T charges no events per router, so its energy cannot be placed", m)
}

// place is table's Energy, router by router and link by link.
func (t *table) place(a Activity) Placed {
	r := t.row
	p := Placed{Routers: make([]float64, len(a.Routers)), Links: make([]float64, len(a.Links)),
		RouterComponents: []string{"buffer write", "buffer read", "crossbar", "switch allocation", "VC allocation", "route computation"},
		LinkComponents:   []string{"links"}, Seconds: float64(a.Cycles) / t.p.ClockHz}
	for i, ra := range a.Routers {
		var w, rd, out uint64
		for q := range ra.Ports {
			w, rd, out = w+ra.Writes[q], rd+ra.Reads[q], out+ra.Out[q]
		}
		p.Routers[i] = float64(w)*r.BufferWrite + float64(rd)*r.BufferRead + float64(out)*(r.Crossbar+r.SwitchAlloc) +
			float64(ra.VCAllocs)*(r.VCAlloc+r.Route)
	}
	perFlit := r.LinkPerMM * t.p.TileMM * a.LinkTiles
	for j, n := range a.Links {
		p.Links[j] = float64(n) * perFlit
	}
	return p
}

// place is noxim's Energy, router by router and link by link.
func (n *noxim) place(a Activity) (Placed, error) {
	rw, err := n.rows(NetworkOf(a))
	if err != nil {
		return Placed{}, err
	}
	const pj = 1e12
	p := Placed{Routers: make([]float64, len(a.Routers)), Links: make([]float64, len(a.Links)),
		RouterComponents: []string{"buffer push", "buffer pop", "crossbar", "routing", "selection"},
		LinkComponents:   []string{"links"}, Seconds: float64(a.Cycles) / n.p.ClockHz}
	for i, ra := range a.Routers {
		var w, rd, out uint64
		for q := range ra.Ports {
			w, rd, out = w+ra.Writes[q], rd+ra.Reads[q], out+ra.Out[q]
		}
		p.Routers[i] = (float64(w)*rw.buf[3] + float64(rd)*rw.buf[4] + float64(out)*rw.xbar[3] +
			float64(ra.VCAllocs)*(rw.route[1]+rw.sel[1])) * pj
	}
	perFlit := float64(n.p.FlitBits) * rw.line[2] * pj
	for j, c := range a.Links {
		p.Links[j] = float64(c) * perFlit
	}
	return p, nil
}
