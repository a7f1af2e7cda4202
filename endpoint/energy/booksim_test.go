package energy

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

var bookSimParams = Params{Model: "booksim", Tech: "32nm", FlitBits: 32, TileMM: 1, ClockHz: 1e9}

func loadBookSimT(t *testing.T, p Params) *bookSim {
	t.Helper()
	data, err := builtin.ReadFile("models/booksim.toml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadBookSim("booksim", data, p)
	if err != nil {
		t.Fatal(err)
	}
	return m.(*bookSim)
}

// idleMesh is a w x h mesh's activity with no flits over cycles cycles.
func idleMesh(w, h int, cycles int64) Activity {
	n := w * h
	a := Activity{Cycles: cycles, VCs: 2, VCBuf: 8, LinkTiles: 1, Routers: make([]RouterActivity, n),
		Links: make([]uint64, 2*(w-1)*h+2*(h-1)*w), Inject: make([]uint64, n), Eject: make([]uint64, n)}
	for i := range a.Routers {
		a.Routers[i].Ports = 5
	}
	return a
}

func within(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func component(b Breakdown, name string) Component {
	for _, c := range b.Components {
		if c.Name == name {
			return c
		}
	}
	return Component{Name: name, Kind: "missing"}
}

// BookSim's wire for its 2 mm channels, as BookSim 28f43299 prints it
// ("L = 2 K = 8.1 M = 2 N = 1"), and its clock: 1/(20 FO4).
func TestBookSimWireAndClock(t *testing.T) {
	m := loadBookSimT(t, bookSimParams)
	if w := m.wire; w.L != 2 || !within(w.K, 8.1, 1e-12) || w.M != 2 || w.N != 1 {
		t.Errorf("wire %+v, BookSim L = 2 K = 8.1 M = 2 N = 1", w)
	}
	// R (3 Cd + 12 Cg + 12 Cgdl), with the techfile's numbers.
	fo4 := 606.321 * (3*0.267e-15 + 12*0.534e-15 + 12*0.1068e-15)
	if !within(m.fclk, 1/(20*fo4), 1e-12) {
		t.Errorf("fCLK %g Hz, want 1/(20 FO4) = %g", m.fclk, 1/(20*fo4))
	}
}

// With no flits, only the clocks and leakage cost anything, and each is a
// channel's, an input's, a router's or an output's figure, worked out here
// from the techfile as power_module.cpp states it, times how many BookSim
// builds: one injection and one ejection channel per node and four router
// channels per router (the wrap-around ones of KNCube included), five
// inputs and five outputs per router.
func TestBookSimIdleIsCountsTimesHandFigures(t *testing.T) {
	m := loadBookSimT(t, bookSimParams)
	tf := m.t
	const w, depth = 32.0, 16.0
	K, M, N := 8.1, 2.0, 1.0 // BookSim's wire (TestBookSimWireAndClock)
	v2 := tf.Vdd * tf.Vdd
	cw := 2*tf.CwCpl + 2*tf.CwGnd
	ciDelay, coDelay, ci := 3*(tf.Cg+tf.Cgdl), 3*tf.Cd, 3*tf.CgPwr
	pitch := 2 * tf.MetalPitch
	fclk := 1 / (20 * tf.R * (3*tf.Cd + 12*tf.Cg + 12*tf.Cgdl))
	// A bank of w flip-flops' clock per cycle (J): H_DFQD1/2 clock wires
	// across the bank's w channel pitches, the flip-flops' clock gates,
	// a driver chain of 5/16 of that.
	bankClock := (1 + 5.0/16*(1+coDelay/ciDelay)) * (w*pitch*cw*float64(tf.HDFF)/2 + w*ciDelay) * v2
	ioff := 0.5 * (tf.IoffN + 2*tf.IoffP) // A per um of inverter, half the time each way
	chanLeak := w * K * M * N * ioff * tf.Vdd
	inputLeak := w * depth * tf.IoffSRAM * tf.Vdd
	// A 5x5 crossbar of w-bit rows and columns: 25 crosspoints and 10
	// drivers of 1/16 of a row's wire capacitance, in microns of inverter.
	row := 5 * w * pitch * cw
	xbarLeak := ioff * w * (25*row/16 + 10*row/16) / ci

	for _, size := range [][2]int{{8, 8}, {4, 3}} {
		const cycles = 40000
		a := idleMesh(size[0], size[1], cycles)
		nodes, routers := float64(len(a.Inject)), float64(len(a.Routers))
		channels := 2*nodes + 4*routers
		b, err := m.Energy(a)
		if err != nil {
			t.Fatal(err)
		}
		secs := cycles / fclk
		want := map[string]float64{
			"channel clock":   channels * M * bankClock * cycles,
			"channel leakage": channels * chanLeak * secs,
			"input leakage":   routers * 5 * inputLeak * secs,
			"switch leakage":  routers * xbarLeak * secs,
			"output clock":    routers * 5 * bankClock * cycles,
		}
		for _, c := range b.Components {
			e, ok := want[c.Name]
			if !ok {
				if c.PJ != 0 || c.Kind != KindDynamic {
					t.Errorf("%dx%d: %s %s = %g pJ with no flits, want a dynamic 0", size[0], size[1], c.Name, c.Kind, c.PJ)
				}
				continue
			}
			if !within(c.PJ*1e-12, e, 1e-9) {
				t.Errorf("%dx%d: %s = %.9g J, by hand %.9g J", size[0], size[1], c.Name, c.PJ*1e-12, e)
			}
			delete(want, c.Name)
		}
		for name := range want {
			t.Errorf("%dx%d: no component %q", size[0], size[1], name)
		}
		if b.ClockHz != m.fclk || b.Cycles != cycles {
			t.Errorf("%dx%d: clock %g Hz over %d cycles, want BookSim's %g over %d", size[0], size[1], b.ClockHz, b.Cycles, m.fclk, cycles)
		}
		// Areas (mm^2): per channel w x (M flip-flops + M N repeaters of
		// W_INVD2 + 3K pitches) cells, a crossbar's 5w x 5w grid at two
		// pitches, an input's w x depth SRAM cells, a router's 5w output
		// flip-flops.
		p2 := tf.MetalPitch * tf.MetalPitch
		area := channels*w*(M*float64(tf.WDFF*tf.HDFF)+M*N*(float64(tf.WInv)+3*K)*float64(tf.HInv))*p2 +
			routers*(5*w*pitch)*(5*w*pitch) + routers*5*w*float64(tf.HSRAM)*depth*float64(tf.WSRAM)*p2 +
			routers*w*5*float64(tf.WDFF*tf.HDFF)*p2
		if !within(b.AreaMM2, area, 1e-9) {
			t.Errorf("%dx%d: area %.9g mm^2, by hand %.9g", size[0], size[1], b.AreaMM2, area)
		}
	}
}

// One flit's crossbar energy depends on the ports it crosses, through
// BookSim's port numbering (0 +x East, 1 -x West, 2 +y South, 3 -y North,
// 4 the node's): an input below 5/2 drives half the output column, an
// output below 5/2 half the input row. A flit East to West uses both
// halves; one North to Local, neither.
func TestBookSimCrossbarByPort(t *testing.T) {
	m := loadBookSimT(t, bookSimParams)
	tf := m.t
	const w = 32.0
	v2 := tf.Vdd * tf.Vdd
	cw := 2*tf.CwCpl + 2*tf.CwGnd
	ratio := tf.Cd / (tf.Cg + tf.Cgdl) // a driver's output over input capacitance
	pitch := 2 * tf.MetalPitch
	line := 5 * w * pitch * cw // a row's or a column's wire
	drv, xp := line/16, line/16
	cinFull := 5.0/16*(1+ratio)*(0.5*line+drv) + line + drv + 5*xp
	cinHalf := cinFull - (0.5*line + 2.5*xp)
	coutFull := line + 4*drv*ratio + 5*4*xp*ratio
	coutHalf := coutFull - (0.5*line + 2.5*4*xp*ratio)
	// nocsim ports: L 0, N 1, E 2, S 3, W 4.
	cases := []struct {
		name    string
		in, out int
		c       float64
	}{
		{"East to West", 2, 4, cinHalf + coutHalf},
		{"West to South", 4, 3, cinHalf + coutHalf},
		{"South to North", 3, 1, cinFull + coutHalf},
		{"North to Local", 1, 0, cinFull + coutFull},
		{"Local to East", 0, 2, cinHalf + coutFull},
	}
	for _, c := range cases {
		a := idleMesh(2, 2, 0)
		a.Routers[0].Reads[c.in] = 1
		a.Routers[0].Out[c.out] = 1
		b, err := m.Energy(a)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.5 * c.c * v2 * w
		if got := component(b, "switch").PJ * 1e-12; !within(got, want, 1e-9) {
			t.Errorf("%s: switch %.6g J, by hand %.6g J", c.name, got, want)
		}
	}
}

// Every traffic component is the counts times a fixed energy: doubling
// every count doubles each, and leaves the clocks and leakage as they were;
// doubling the cycles doubles those and leaves the traffic's.
func TestBookSimLinear(t *testing.T) {
	m := loadBookSimT(t, bookSimParams)
	rng := rand.New(rand.NewPCG(7, 11))
	a := idleMesh(8, 8, 30000)
	for i := range a.Routers {
		r := &a.Routers[i]
		for p := range 5 {
			r.Writes[p], r.Reads[p], r.Out[p] = rng.Uint64N(5000), rng.Uint64N(5000), rng.Uint64N(5000)
		}
		r.VCAllocs = rng.Uint64N(1000)
		a.Inject[i], a.Eject[i] = rng.Uint64N(2000), rng.Uint64N(2000)
	}
	for i := range a.Links {
		a.Links[i] = rng.Uint64N(5000)
	}
	double := a
	double.Routers = append([]RouterActivity(nil), a.Routers...)
	double.Links = append([]uint64(nil), a.Links...)
	double.Inject = append([]uint64(nil), a.Inject...)
	double.Eject = append([]uint64(nil), a.Eject...)
	for i := range double.Routers {
		r := &double.Routers[i]
		for p := range 5 {
			r.Writes[p] *= 2
			r.Reads[p] *= 2
			r.Out[p] *= 2
		}
	}
	for i := range double.Links {
		double.Links[i] *= 2
	}
	for i := range double.Inject {
		double.Inject[i] *= 2
		double.Eject[i] *= 2
	}
	longer := a
	longer.Cycles *= 2
	b1, err1 := m.Energy(a)
	b2, err2 := m.Energy(double)
	b3, err3 := m.Energy(longer)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	for i, c := range b1.Components {
		dyn := c.Kind == KindDynamic
		if c.PJ <= 0 {
			t.Errorf("%s: %g pJ, want positive", c.Name, c.PJ)
		}
		wantCounts, wantCycles := c.PJ, 2*c.PJ
		if dyn {
			wantCounts, wantCycles = 2*c.PJ, c.PJ
		}
		if got := b2.Components[i].PJ; !within(got, wantCounts, 1e-12) {
			t.Errorf("%s (%s): counts doubled: %g pJ, want %g", c.Name, c.Kind, got, wantCounts)
		}
		if got := b3.Components[i].PJ; !within(got, wantCycles, 1e-12) {
			t.Errorf("%s (%s): cycles doubled: %g pJ, want %g", c.Name, c.Kind, got, wantCycles)
		}
	}
	// Power is BookSim's: energy over cycles at fCLK.
	if p := b1.PowerW(); !within(p, b1.TotalPJ()*1e-12*m.fclk/30000, 1e-12) {
		t.Errorf("PowerW %g", p)
	}
}

// Bad parameters, files and networks are errors naming the key, its value
// and what is allowed; none panics.
func TestBookSimErrors(t *testing.T) {
	data, err := builtin.ReadFile("models/booksim.toml")
	if err != nil {
		t.Fatal(err)
	}
	load := func(file string, p Params) error {
		_, err := loadBookSim("booksim", []byte(file), p)
		return err
	}
	p := bookSimParams
	p45 := p
	p45.Tech = "45nm"
	p0 := p
	p0.FlitBits = 0
	cases := []struct {
		name string
		err  error
		want []string
	}{
		{"tech", load(string(data), p45), []string{"tech", "45nm", "32nm"}},
		{"flit bits", load(string(data), p0), []string{"flit_bits", "0", "channel_width"}},
		{"unknown key", load(string(data)+"\nVddd = 1\n", p), []string{"Vddd", "unknown key"}},
		{"missing key", load(strings.Replace(string(data), "Vdd = 0.9", "", 1), p), []string{"Vdd", "missing"}},
		{"zero", load(strings.Replace(string(data), "R = 606.321", "R = 0", 1), p), []string{"R = 0", "positive"}},
		{"negative", load(strings.Replace(string(data), "IoffN = 0.00000102", "IoffN = -1", 1), p), []string{"IoffN = -1", "at least 0"}},
		{"not an integer", load(strings.Replace(string(data), "H_SRAM = 8", "H_SRAM = 8.5", 1), p), []string{"H_SRAM"}},
		{"no wire", load(strings.Replace(string(data), "wire_length = 2.0", "wire_length = 200.0", 1), p), []string{"wire_length = 200", "timing"}},
	}
	m := loadBookSimT(t, p)
	cm := idleMesh(4, 4, 100)
	for i := range cm.Routers {
		cm.Routers[i].Ports = 8
	}
	torus := idleMesh(4, 4, 100)
	torus.LinkTiles = 2
	short := idleMesh(4, 4, 100)
	short.Inject = short.Inject[:3]
	_, errCM := m.Energy(cm)
	_, errTorus := m.Energy(torus)
	_, errShort := m.Energy(short)
	_, errNone := m.Energy(Activity{})
	cases = append(cases, []struct {
		name string
		err  error
		want []string
	}{
		{"cmesh", errCM, []string{"topology", "8-port", "mesh"}},
		{"torus", errTorus, []string{"topology", "2 tile pitches", "mesh"}},
		{"vcs", m.Check(Network{Ports: 5, LinkTiles: 1, VCs: 0, VCBuf: 8}), []string{"vcs", "0"}},
		{"vc_buf", m.Check(Network{Ports: 5, LinkTiles: 1, VCs: 2, VCBuf: 0}), []string{"vc_buf", "0"}},
		{"channels", errShort, []string{"3 injection"}},
		{"empty", errNone, []string{"topology"}},
	}...)
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, s := range c.want {
			if !strings.Contains(c.err.Error(), s) {
				t.Errorf("%s: %q does not name %q", c.name, c.err, s)
			}
		}
	}
	if err := m.Check(Network{Ports: 5, LinkTiles: 1, VCs: 2, VCBuf: 8}); err != nil {
		t.Errorf("an 8x8 mesh: %v", err)
	}
}
