package energy

import (
	"fmt"
	"strconv"

	"github.com/BurntSushi/toml"
)

// The booksim model is BookSim2's power module (src/power/power_module.cpp,
// commit 28f43299), the summary BookSim prints with sim_power = 1, evaluated
// on nocsim's counts. BookSim reports each component as a power: an
// activity factor (events per cycle over the whole run) times a per-event
// figure that already carries the clock fCLK, plus powers that do not
// depend on activity (clock trees, leakage). Here each event's figure is
// turned back into an energy (divided by fCLK) and charged per counted
// event, and each constant power is charged over the activity's cycles at
// fCLK, so that the breakdown's PowerW over any window is the figure
// BookSim would print for a run at that window's rates.
//
// The equations are BookSim's, with what looks like its slips kept (noted
// where they are), since the point is to print what BookSim prints.

// bookSimTech is models/booksim.toml: BookSim2's technology file, the keys
// named as there. Units are those power_module.cpp gives them.
type bookSimTech struct {
	Kind   string `toml:"kind"`
	Model  string `toml:"model"`
	Source string `toml:"source"`
	Tech   string `toml:"tech"`

	// Cell heights and widths in metal pitches (BookSim reads integers).
	HInv  int `toml:"H_INVD2"`
	WInv  int `toml:"W_INVD2"`
	HDFF  int `toml:"H_DFQD1"`
	WDFF  int `toml:"W_DFQD1"`
	HNand int `toml:"H_ND2D1"` // read by BookSim, used by none of its equations
	WNand int `toml:"W_ND2D1"`
	HSRAM int `toml:"H_SRAM"`
	WSRAM int `toml:"W_SRAM"`

	Vdd        float64 `toml:"Vdd"`      // V
	R          float64 `toml:"R"`        // ohm, a 1 um inverter
	IoffSRAM   float64 `toml:"IoffSRAM"` // A per bit cell
	IoffP      float64 `toml:"IoffP"`    // A/um
	IoffN      float64 `toml:"IoffN"`    // A/um
	CgPwr      float64 `toml:"Cg_pwr"`   // F/um
	CdPwr      float64 `toml:"Cd_pwr"`   // F/um
	Cgdl       float64 `toml:"Cgdl"`     // F/um
	Cg         float64 `toml:"Cg"`       // F/um
	Cd         float64 `toml:"Cd"`       // F/um
	Lambda     float64 `toml:"LAMBDA"`   // um
	MetalPitch float64 `toml:"MetalPitch"`
	Rw         float64 `toml:"Rw"`     // ohm/mm
	CwGnd      float64 `toml:"Cw_gnd"` // F/mm
	CwCpl      float64 `toml:"Cw_cpl"` // F/mm
	WireLength float64 `toml:"wire_length"`
}

// check says which key of the file is missing or out of range: every
// constant the equations divide by or scale with must be positive, the
// leakage currents not negative.
func (t *bookSimTech) check(name string, defined func(key string) bool) error {
	for _, key := range []string{"tech", "H_INVD2", "W_INVD2", "H_DFQD1", "W_DFQD1", "H_ND2D1", "W_ND2D1", "H_SRAM", "W_SRAM",
		"Vdd", "R", "IoffSRAM", "IoffP", "IoffN", "Cg_pwr", "Cd_pwr", "Cgdl", "Cg", "Cd", "LAMBDA", "MetalPitch", "Rw", "Cw_gnd", "Cw_cpl", "wire_length"} {
		if !defined(key) {
			return fmt.Errorf("energy model %s: key %s is missing (every key of models/booksim.toml is needed)", name, key)
		}
	}
	pos := []struct {
		key string
		v   float64
	}{
		{"H_INVD2", float64(t.HInv)}, {"W_INVD2", float64(t.WInv)}, {"H_DFQD1", float64(t.HDFF)}, {"W_DFQD1", float64(t.WDFF)},
		{"H_SRAM", float64(t.HSRAM)}, {"W_SRAM", float64(t.WSRAM)},
		{"Vdd", t.Vdd}, {"R", t.R}, {"Cg_pwr", t.CgPwr}, {"Cd_pwr", t.CdPwr}, {"Cg", t.Cg}, {"Cd", t.Cd},
		{"LAMBDA", t.Lambda}, {"MetalPitch", t.MetalPitch}, {"Rw", t.Rw}, {"Cw_gnd", t.CwGnd}, {"wire_length", t.WireLength},
	}
	for _, k := range pos {
		if !(k.v > 0) {
			return fmt.Errorf("energy model %s: %s = %v: allowed a positive number", name, k.key, k.v)
		}
	}
	nonneg := []struct {
		key string
		v   float64
	}{{"IoffSRAM", t.IoffSRAM}, {"IoffP", t.IoffP}, {"IoffN", t.IoffN}, {"Cgdl", t.Cgdl}, {"Cw_cpl", t.CwCpl}, {"H_ND2D1", float64(t.HNand)}, {"W_ND2D1", float64(t.WNand)}}
	for _, k := range nonneg {
		if !(k.v >= 0) {
			return fmt.Errorf("energy model %s: %s = %v: allowed a number of at least 0", name, k.key, k.v)
		}
	}
	if t.Tech == "" {
		return fmt.Errorf("energy model %s: tech = \"\": allowed the node the technology file describes (\"32nm\")", name)
	}
	return nil
}

// repeatedWire is a channel's wire as BookSim's optimisation sizes it:
// length L (mm), repeaters K times a minimum inverter, N repeaters per
// pipeline stage and M stages (flip-flops), so M x N segments in all.
type repeatedWire struct {
	L, K, M, N float64
}

// bookSim is the model with the techfile's derived quantities.
type bookSim struct {
	name string
	t    bookSimTech
	p    Params

	cw               float64 // wire capacitance per mm: two neighbours and two planes (F/mm)
	ciDelay, coDelay float64 // a 1 um inverter's input and output capacitance, for delay (F)
	ci, co           float64 // the same, for power (F)
	fo4              float64 // fan-out-of-4 delay (s)
	tclk, fclk       float64 // BookSim's clock: 20 FO4 (s), and its frequency (Hz)
	pitch            float64 // channel and crossbar wire pitch: two metal pitches (mm)
	wire             repeatedWire
}

// bookSimPorts is the BookSim port number of each nocsim port of a mesh
// router (mesh.Port order L, N, E, S, W). KNCube adds a router's channels
// dimension by dimension, the +1 neighbour's before the -1 neighbour's,
// then injection and ejection: 0 = +x (East), 1 = -x (West), 2 = +y
// (South: nocsim's y, like BookSim's, grows with the node id), 3 = -y
// (North), 4 = the node's own channel.
var bookSimPorts = [5]int{4, 3, 0, 2, 1}

// bookSimRouterPorts is a k-ary 2-cube router's inputs and outputs (2n+1).
const bookSimRouterPorts = 5

func loadBookSim(name string, data []byte, p Params) (Model, error) {
	var t bookSimTech
	md, err := toml.Decode(string(data), &t)
	if err != nil {
		return nil, fmt.Errorf("energy model %s: %v", name, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("energy model %s: unknown key %s (allowed: the keys of models/booksim.toml)", name, u[0])
	}
	if t.Model != "" {
		name = t.Model
	}
	if err := t.check(name, func(key string) bool { return md.IsDefined(key) }); err != nil {
		return nil, err
	}
	if p.Tech != t.Tech {
		return nil, bad("tech", strconv.Quote(p.Tech), fmt.Sprintf("%q with model %s (its technology file describes that node only)", t.Tech, name))
	}
	if p.FlitBits < 1 {
		return nil, bad("flit_bits", p.FlitBits, "a positive width (bits): BookSim's channel_width")
	}
	m := &bookSim{name: name, t: t, p: p}
	m.derive()
	// Every channel BookSim builds on a mesh has a latency of one cycle
	// (injection and ejection too), so one wire serves them all.
	w, ok := m.optimiseWire(1 * t.WireLength)
	if !ok {
		return nil, fmt.Errorf("energy model %s: wire_length = %g mm: no repeated wire of that length meets BookSim's timing (a pipeline stage within 0.8 of 20 FO4) with up to 39 stages", name, t.WireLength)
	}
	m.wire = w
	return m, nil
}

// derive computes what the power module's constructor derives from the
// techfile.
func (m *bookSim) derive() {
	t := &m.t
	m.cw = 2.0*t.CwCpl + 2.0*t.CwGnd
	// A minimum inverter is a 1 um NMOS and a 2 um PMOS: three microns of
	// gate (with its overlap, for delay) and of drain.
	m.ciDelay = (1.0 + 2.0) * (t.Cg + t.Cgdl)
	m.coDelay = (1.0 + 2.0) * t.Cd
	m.ci = (1.0 + 2.0) * t.CgPwr
	m.co = (1.0 + 2.0) * t.CdPwr
	// FO4: an inverter driving its own drain and four inverters' gates.
	m.fo4 = t.R * (3.0*t.Cd + 12*t.Cg + 12*t.Cgdl)
	m.tclk = 20 * m.fo4
	m.fclk = 1.0 / m.tclk
	m.pitch = 2.0 * t.MetalPitch
}

// optimiseWire is BookSim's wireOptimize. A wire of length L is M pipeline
// stages (flip-flop banks) of N repeated segments each, the repeaters K
// times a minimum inverter; a stage's N segment delays must fit in 0.8
// tCLK. Over K = 1, 1.1, ... while below 10 (stepped by adding 0.1, as
// BookSim does: 91 sizes, the last the float sum 9.99999999999998), and N
// and M from 1 to 39, it keeps the wire of least M^4 x power, power being
// that of a 64-bit bus at activity 0.2 (wire plus flip-flops); the first
// such wire on a tie. The expressions keep BookSim's order of operations,
// and each product is rounded on its own (the float64 conversions: Go may
// fuse a multiply and an add, C++ compiled for x86-64 does not), so that a
// wire near the timing bound falls on the same side as in BookSim (Go
// folds constant factors such as 2.0/3.0*0.8 exactly where C++ rounds each
// step: an ulp in the metric, which could only matter to an exact tie). On its
// techfile no one-stage 2 mm wire meets the bound, and K = 8.1 (the sum
// 8.099999999999989) is the smallest two-stage size that does, by 0.3%.
func (m *bookSim) optimiseWire(L float64) (repeatedWire, bool) {
	const busBits, alpha = 64.0, 0.2
	t := &m.t
	best := repeatedWire{L: L, K: -1, M: -1, N: -1}
	bestMetric := 100000000.0 // BookSim's starting bound
	// Delay of one segment of length l (Elmore): the driver's own load, the
	// driver through the wire and the next repeater's gate, the wire's own
	// distributed RC.
	k0 := t.R * (m.coDelay + m.ciDelay)
	k2 := float64(0.5*t.Rw) * m.cw
	for K := 1.0; K < 10; K += 0.1 {
		k1 := float64(float64(t.R/K)*m.cw) + float64(float64(K*t.Rw)*m.ciDelay)
		for N := 1.0; N < 40; N += 1.0 {
			for M := 1.0; M < 40.0; M += 1.0 {
				l := 1.0 * L / (N * M)
				tw := float64(k0+float64(k1*l)) + float64(k2*float64(l*l))
				power := float64(float64(alpha*busBits)*m.wirePower(L, K, M, N)) + m.dffPower(M, busBits, alpha)
				metric := M * M * M * M * power
				if N*tw < 0.8*m.tclk && metric < bestMetric {
					bestMetric = metric
					best.K, best.M, best.N = K, M, N
				}
			}
		}
	}
	return best, best.K > 0
}

// The per-bit and per-bus figures below are BookSim's powers at activity 1
// (an event every cycle): a switched capacitance times Vdd^2 times fCLK.

// wirePower is one bit of a repeated wire: M x N segments, each switching
// its repeater (K minimum inverters' input and output) and its length of
// wire, half of the time (0.5 C V^2: a transition charges or discharges).
func (m *bookSim) wirePower(L, K, M, N float64) float64 {
	segments := 1.0 * M * N
	c := float64(K*(m.ci+m.co)) + float64(m.cw*float64(L/segments))
	perSegment := 0.5 * c * m.t.Vdd * m.t.Vdd * m.fclk
	return perSegment * M * N
}

// wireLeak is one bit's repeaters leaking: half the time the NMOS is off,
// half the PMOS (twice as wide), K microns each, M x N of them.
func (m *bookSim) wireLeak(K, M, N float64) float64 {
	perRepeater := K * 0.5 * (m.t.IoffN + 2.0*m.t.IoffP) * m.t.Vdd
	return perRepeater * M * N
}

// clockPower is the clock of M banks of W flip-flops: in each bank, a clock
// wire across the W bit pitches for each column of flip-flops (a DFF's
// height in channel pitches) loaded by the W flip-flops' clock inputs, with
// its driver chain (the 5/16 factor: a tapered buffer's own capacitance).
// Charged every cycle.
func (m *bookSim) clockPower(M, W float64) float64 {
	columns := float64(m.t.HDFF) * m.t.MetalPitch / m.pitch
	length := W * m.pitch
	c := (1 + 5.0/16.0*(1+m.coDelay/m.ciDelay)) * (length*m.cw*columns + W*m.ciDelay)
	return M * c * (m.t.Vdd * m.t.Vdd) * m.fclk
}

// dffPower is M banks of W flip-flops retiming data of activity alpha: the
// data input's internal nodes switch half as often as the data, the
// clocked nodes as often as it.
func (m *bookSim) dffPower(M, W, alpha float64) float64 {
	din := 2*0.8*(m.ci+m.co) + 2*(2.0/3.0*0.8*m.co)
	clk := 2*0.8*(m.ci+m.co) + 2*(2.0/3.0*0.8*m.t.CgPwr)
	c := float64((alpha*0.5)*din) + float64(alpha*clk)
	return c * M * W * (m.t.Vdd * m.t.Vdd) * m.fclk
}

// wordLine is an access's row circuits of a buffer width bits wide and
// depth words deep: the wordline across the cells (two access gates and
// six pitches of wire per bit), its predecoder and decoder, and the
// bitline precharge and write-enable drivers across the array's height.
// BookSim's predecoder term multiplies the wire's capacitance by a gate's
// (F^2, so next to nothing) and adds the depth in words to a length in mm
// (Warray); both are kept, as is its use of the channel width, not the
// memory's, for the precharge and write-enable loads (the same here).
func (m *bookSim) wordLine(width, depth float64) float64 {
	t := &m.t
	cell := 2*(4.0*t.Lambda)*t.CgPwr + 6*t.MetalPitch*m.cw
	wl := width * cell
	wArray := 8*t.MetalPitch + depth
	x := 1.0 + (5.0/16.0)*(1+m.co/m.ci)
	predecode := x * (m.cw * wArray * m.ci)
	decode := x * wl
	hArray := 6 * width * t.MetalPitch
	y := (1 + 0.25) * (1 + m.co/m.ci)
	chw := float64(m.p.FlitBits)
	precharge := y * (m.cw*hArray + 3*chw*m.ci)
	writeEnable := y * (m.cw*hArray + 2*chw*m.ci)
	return (precharge + writeEnable + 2*predecode + decode) * t.Vdd * t.Vdd * m.fclk
}

// bitlineCap is one bitline's capacitance: a cell's access drain and eight
// pitches of wire per word.
func (m *bookSim) bitlineCap(depth float64) float64 {
	return depth * (4.0*m.t.Lambda*m.t.CdPwr + 8*m.t.MetalPitch*m.cw)
}

// bitRead is one bit read: its bitline swung through the full Vdd.
func (m *bookSim) bitRead(depth float64) float64 {
	return m.bitlineCap(depth) * (m.t.Vdd * m.t.Vdd) * m.fclk
}

// bitWrite is one bit written: the bitline, and the cell's own cross-coupled
// inverters flipping. BookSim adds the cell's 0.5 C V^2 without fCLK (an
// energy added to a power); kept, it is about 1e-11 of the term beside it.
func (m *bookSim) bitWrite(depth float64) float64 {
	cell := 2 * (m.co + m.ci)
	return 0.5*cell*(m.t.Vdd*m.t.Vdd) + m.bitlineCap(depth)*(m.t.Vdd*m.t.Vdd)*m.fclk
}

// bitLeak is one bit column of a buffer depth words deep leaking.
func (m *bookSim) bitLeak(depth float64) float64 {
	return depth * m.t.IoffSRAM * m.t.Vdd
}

// crossbarWires are a width-bit crossbar's input and output wire
// capacitances: an input row spans every output's columns, an output
// column every input's rows, at the crossbar pitch.
func (m *bookSim) crossbarWires(width, inputs, outputs float64) (cwIn, cwOut, wXbar, hXbar float64) {
	wXbar = width * outputs * m.pitch
	hXbar = width * inputs * m.pitch
	return wXbar * m.cw, hXbar * m.cw, wXbar, hXbar
}

// crossbarTo and crossbarFrom are the two halves of BookSim's per-bit
// traversal power, which is 0.5 (Cin + Cout) V^2 fCLK: Cin (the input row:
// its driver, its wire, the crosspoints' inputs) depends only on the
// output index, Cout (the output column: wire, driver, crosspoints'
// outputs) only on the input's. A flit to an output in the lower half of
// the numbering (index below outputs/2) drives only half the input row,
// and from an input in the lower half only half the output column: BookSim
// places the ports on both sides of the array. crossbarTo(to) +
// crossbarFrom(from) is BookSim's powerCrossbar(from, to).
func (m *bookSim) crossbarTo(width, inputs, outputs, to float64) float64 {
	cwIn, cwOut, wXbar, _ := m.crossbarWires(width, inputs, outputs)
	xIn := (1.0 / 16.0) * cwOut // a crosspoint's input: 1/16 of the column it drives
	drv := (1.0 / 16.0) * cwIn  // the row's driver
	inDriver := 5.0 / 16.0 * (1 + m.coDelay/m.ciDelay) * (0.5*m.cw*wXbar + drv)
	cin := inDriver + cwIn + drv + (outputs * xIn)
	if to < outputs/2 {
		cin -= 0.5*cwIn + outputs/2*xIn
	}
	return 0.5 * cin * (m.t.Vdd * m.t.Vdd * m.fclk)
}

func (m *bookSim) crossbarFrom(width, inputs, outputs, from float64) float64 {
	cwIn, cwOut, _, _ := m.crossbarWires(width, inputs, outputs)
	// A crosspoint's and the column driver's outputs: four times their
	// inputs' sizes, in drain capacitance.
	xOut := 4.0 * ((1.0 / 16.0) * cwOut) * (m.coDelay / m.ciDelay)
	drvOut := 4.0 * ((1.0 / 16.0) * cwIn) * (m.coDelay / m.ciDelay)
	cout := cwOut + drvOut + (inputs * xOut)
	if from < inputs/2 {
		cout -= 0.5*cwOut + (inputs / 2 * xOut)
	}
	return 0.5 * cout * (m.t.Vdd * m.t.Vdd * m.fclk)
}

// crossbarCtrl is a traversal's control: BookSim's estimate of the select
// wires, width drivers of 5/16 of an input row each plus a wire across and
// down the array, with their drivers.
func (m *bookSim) crossbarCtrl(width, inputs, outputs float64) float64 {
	cwIn, _, wXbar, hXbar := m.crossbarWires(width, inputs, outputs)
	drv := (5.0 / 16.0) * cwIn
	ctrl := width*drv + (wXbar+hXbar)*m.cw
	drive := (5.0 / 16.0) * (1 + m.coDelay/m.ciDelay) * ctrl
	return (drive + ctrl) * (m.t.Vdd * m.t.Vdd) * m.fclk
}

// crossbarLeak is a crossbar's leakage: its crosspoints' and drivers'
// transistor widths (their capacitance over a minimum inverter's, in
// microns) leaking as an inverter does.
func (m *bookSim) crossbarLeak(width, inputs, outputs float64) float64 {
	cwIn, cwOut, _, _ := m.crossbarWires(width, inputs, outputs)
	xIn := (1.0 / 16.0) * cwOut
	drv := (1.0 / 16.0) * cwIn
	return 0.5 * (m.t.IoffN + 2*m.t.IoffP) * width * (inputs*outputs*xIn + inputs*drv + outputs*drv) / m.ci
}

// outputCtrl is an output's enable per flit: a wire across the channel's
// width loaded by each bit's enable gate, with its driver chain.
func (m *bookSim) outputCtrl(width float64) float64 {
	w := float64(m.p.FlitBits) * m.pitch
	c := (1 + 5.0/16.0) * (1.0 + m.co/m.ci) * (w*m.cw + width*m.ci)
	return c * (m.t.Vdd * m.t.Vdd) * m.fclk
}

// Areas (mm^2: MetalPitch is in mm, the cells' sides in metal pitches).

// channelArea is a channel's M flip-flops and M x N repeaters per bit.
func (m *bookSim) channelArea(w repeatedWire) float64 {
	t := &m.t
	dff := w.M * float64(t.WDFF) * float64(t.HDFF)
	inv := w.M * w.N * (float64(t.WInv) + 3*w.K) * float64(t.HInv)
	return float64(m.p.FlitBits) * (dff + inv) * t.MetalPitch * t.MetalPitch
}

// crossbarArea is the wire grid of an inputs x outputs crossbar.
func (m *bookSim) crossbarArea(inputs, outputs float64) float64 {
	chw := float64(m.p.FlitBits)
	return (inputs * chw * m.pitch) * (outputs * chw * m.pitch)
}

// inputArea is one input's buffer: words x channel-width SRAM cells.
func (m *bookSim) inputArea(words float64) float64 {
	t := &m.t
	chw := float64(m.p.FlitBits)
	return (chw * float64(t.HSRAM)) * (words * float64(t.WSRAM)) * (t.MetalPitch * t.MetalPitch)
}

// outputArea is a router's output registers: a flip-flop per bit per output.
func (m *bookSim) outputArea(outputs float64) float64 {
	t := &m.t
	return float64(m.p.FlitBits) * outputs * float64(t.WDFF) * float64(t.HDFF) * t.MetalPitch * t.MetalPitch
}

// Check accepts what BookSim's power module can be read for here: a 2D
// mesh of 5-port routers whose channels take one cycle (a cmesh's routers
// have 8 ports and its links are two tiles long; a torus's or ring's links
// are folded, two tiles: BookSim gives those channels other lengths),
// with buffers; and tiles at the techfile's node.
func (m *bookSim) Check(n Network) error {
	if n.Bus {
		return bad("topology", "bus", "mesh with model booksim (BookSim's k-ary 2-mesh: a bus has no routers for its equations)")
	}
	if n.Ports != bookSimRouterPorts {
		return bad("topology", fmt.Sprintf("a network of %d-port routers", n.Ports), "mesh with model booksim (BookSim's k-ary 2-mesh: 5-port routers)")
	}
	if n.LinkTiles != 1 {
		return bad("topology", fmt.Sprintf("links of %g tile pitches (a torus or ring)", n.LinkTiles), "mesh with model booksim (BookSim's k-ary 2-mesh: channels of one cycle)")
	}
	if n.VCs < 1 {
		return bad("vcs", n.VCs, "at least 1 with model booksim (its buffers are VCs x vc_buf words)")
	}
	if n.VCBuf < 1 {
		return bad("vc_buf", n.VCBuf, "at least 1 with model booksim (its buffers are VCs x vc_buf words)")
	}
	if n.Tiles {
		_, err := tileScale(m.t.Tech)
		return err
	}
	return nil
}

// Energy prices an activity as BookSim's summary would a run with the
// activity's rates. BookSim's activity factors are its counts over the
// whole run, warm-up and drain included, divided by the run's cycles
// (GetSimTime at the end); a window's counts over its own cycles are the
// same rates in steady state (see docs/energy-booksim.md).
//
// The channels are those BookSim builds for a k-ary 2-mesh: one injection
// and one ejection channel per node and four router channels per router
// (KNCube makes 2n channels per router, the wrap-around ones too, which a
// mesh's routing never uses: they carry no flits but are clocked, leak
// and take area). A router has 5 inputs and 5 outputs.
func (m *bookSim) Energy(a Activity) (Breakdown, error) {
	if err := m.Check(NetworkOf(a)); err != nil {
		return Breakdown{}, err
	}
	if len(a.Inject) != len(a.Routers) || len(a.Eject) != len(a.Routers) {
		return Breakdown{}, fmt.Errorf("energy model %s: %d routers, %d injection and %d ejection channels: allowed a mesh, one node per router", m.name, len(a.Routers), len(a.Inject), len(a.Eject))
	}
	for i, r := range a.Routers {
		if r.Ports != bookSimRouterPorts {
			return Breakdown{}, fmt.Errorf("energy model %s: router %d has %d ports: allowed %d (a mesh router)", m.name, i, r.Ports, bookSimRouterPorts)
		}
	}
	width := float64(m.p.FlitBits)
	routers := float64(len(a.Routers))
	ports := float64(bookSimRouterPorts)
	depth := float64(a.VCs * a.VCBuf) // an input's buffer, words
	w := m.wire

	// Energy (pJ) of count events each worth BookSim's power at activity 1
	// (W): that power divided by fCLK is the event's energy.
	events := func(count, watts float64) float64 { return count * watts / m.fclk * 1e12 }
	// Energy (pJ) of a constant power over the activity's cycles at fCLK.
	steady := func(watts float64) float64 { return watts * float64(a.Cycles) / m.fclk * 1e12 }

	var chanFlits, writes, reads, outs, xbar float64
	for _, n := range a.Links {
		chanFlits += float64(n)
	}
	for i := range a.Inject {
		chanFlits += float64(a.Inject[i]) + float64(a.Eject[i])
	}
	for _, r := range a.Routers {
		for p := range bookSimRouterPorts {
			bp := float64(bookSimPorts[p])
			writes += float64(r.Writes[p])
			reads += float64(r.Reads[p])
			outs += float64(r.Out[p])
			// A flit read from input p has crossed the switch from it; one
			// switched to output p, to it.
			xbar += float64(r.Reads[p])*m.crossbarFrom(width, ports, ports, bp) + float64(r.Out[p])*m.crossbarTo(width, ports, ports, bp)
		}
	}
	channels := float64(len(a.Inject)+len(a.Eject)) + 4*routers
	inputs := routers * ports

	// An input buffer access drives a row (wordLine) and width bitlines.
	readW := m.wordLine(width, depth) + m.bitRead(depth)*width
	writeW := m.wordLine(width, depth) + m.bitWrite(depth)*width

	b := Breakdown{Model: m.name, Tech: m.t.Tech, FlitBits: m.p.FlitBits, ClockHz: m.fclk, Cycles: a.Cycles}
	b.Components = []Component{
		// Each flit on a channel switches its width of repeated wire and
		// is retimed by the channel's M flip-flops per bit.
		{"channel wire", KindDynamic, events(chanFlits, m.wirePower(w.L, w.K, w.M, w.N)*width)},
		{"channel clock", KindClock, steady(channels * m.clockPower(w.M, width))},
		{"channel retiming", KindDynamic, events(chanFlits, m.dffPower(w.M, width, 1))},
		{"channel leakage", KindLeakage, steady(channels * m.wireLeak(w.K, w.M, w.N) * width)},
		{"input read", KindDynamic, events(reads, readW)},
		{"input write", KindDynamic, events(writes, writeW)},
		{"input leakage", KindLeakage, steady(inputs * m.bitLeak(depth) * width)},
		{"switch", KindDynamic, events(xbar, width)},
		{"switch control", KindDynamic, events(outs, m.crossbarCtrl(width, ports, ports))},
		{"switch leakage", KindLeakage, steady(routers * m.crossbarLeak(width, ports, ports))},
		// Each output registers what it sends: one flip-flop bank, its
		// own clock every cycle, an enable per flit.
		{"output DFF", KindDynamic, events(outs, m.dffPower(1, width, 1.0))},
		{"output clock", KindClock, steady(routers * ports * m.clockPower(1, width))},
		{"output control", KindDynamic, events(outs, m.outputCtrl(width))},
	}
	b.AreaMM2 = channels*m.channelArea(w) + routers*m.crossbarArea(ports, ports) +
		inputs*m.inputArea(depth) + routers*m.outputArea(ports)

	if len(a.Tiles) > 0 {
		scale, err := tileScale(m.t.Tech)
		if err != nil {
			return Breakdown{}, err
		}
		// An NIU queue's flit is priced as a buffer write and read.
		tile, err := tileComponents(a, scale, (readW+writeW)/m.fclk*1e12)
		if err != nil {
			return Breakdown{}, err
		}
		b.Components = append(b.Components, tile...)
	}
	return b, nil
}
