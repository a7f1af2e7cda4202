package study

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"nocsim/calibrate"
	"nocsim/coll"
	"nocsim/logp"
	"nocsim/mesh"
	"nocsim/plots"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// DefaultCalibrationSizes spans 8 B to 64 KiB, both sides of the eager
// threshold.
var DefaultCalibrationSizes = []int{8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384, 65536}

// Calibration is what `nocsim calibrate` produces. Machine is what the
// fit was told about the machine besides the measurements; --save-csv
// writes it with them, so that the CSV fits as the chip did.
type Calibration struct {
	Measurements []calibrate.Measurement
	Machine      calibrate.Machine
	Report       calibrate.Report
}

// Calibrate runs the microbenchmarks between neighbouring tiles (0 and 1)
// and across the network (0 and the tile farthest from it: the last on a
// mesh, the opposite station on a ring), then fits LogGP with a hop term.
func Calibrate(sc *scenarios.Scenario, sizes []int, reps int) (Calibration, error) {
	m := sc.Machine().Topology
	n := m.Nodes()
	if n < 2 {
		return Calibration{}, fmt.Errorf("calibration needs at least two tiles, mesh %s has one", sc.Network.Mesh)
	}
	far := n - 1
	for t := 1; t < n; t++ {
		if m.Hops(0, t) > m.Hops(0, far) {
			far = t
		}
	}
	var ms []calibrate.Measurement
	for _, to := range []int{1, far} {
		got, err := calibrate.Run(sc.WorldFactory(), 0, to, m.Hops(0, to), sizes, reps)
		if err != nil {
			return Calibration{}, err
		}
		ms = append(ms, got...)
		if n == 2 {
			break
		}
	}
	opt := sc.FitOptions()
	if to, hops := fanoutReceivers(m); opt.Handshake && len(to) >= 2 {
		got, err := calibrate.RunFanout(sc.WorldFactory(), 0, to, hops, sizes, reps)
		if err != nil {
			return Calibration{}, err
		}
		ms = append(ms, got...)
	}
	t := calibrate.Table{Machine: opt.Machine, Measurements: ms}
	rep, err := calibrate.FitTable(t, opt)
	if err == nil && sc.EnergyOn() {
		var e logp.EnergyParams
		var bounds []int
		for _, s := range rep.Params.Segments {
			bounds = append(bounds, s.MaxBytes)
		}
		var samples []calibrate.EnergySample
		if e, samples, err = calibrateEnergy(sc, []int{1, far}, sizes, reps, rep.Params.Word, bounds); err == nil {
			rep.Params.Energy = &e
			rep.AddEnergy(samples)
		}
	}
	return Calibration{Measurements: ms, Machine: t.Machine, Report: rep}, err
}

// calibrateEnergy prices ping-pongs from tile 0 to each of to at every
// size (the chip's dynamic energy over the measured round trips, two
// messages each) and fits the energy model's per-message terms to them;
// the static power is the pricing's own leakage and clock over time. The
// samples are returned too, for the report's per-size table.
func calibrateEnergy(sc *scenarios.Scenario, to, sizes []int, reps, word int, bounds []int) (logp.EnergyParams, []calibrate.EnergySample, error) {
	var samples []calibrate.EnergySample
	staticMW := 0.0
	hops := sc.Machine().Topology
	for _, t := range to {
		if t >= hops.Nodes() || t == 0 {
			continue
		}
		p := PingPong{From: 0, To: t, Sizes: sizes, Reps: reps}
		rows, w, err := p.Run(sc)
		if w != nil {
			w.M.Close()
		}
		if err != nil {
			return logp.EnergyParams{}, nil, fmt.Errorf("energy ping-pong 0 -> %d: %w", t, err)
		}
		for _, r := range rows {
			e := r.Energy
			samples = append(samples, calibrate.EnergySample{Bytes: r.SizeBytes, Hops: r.Hops, Messages: 2 * reps, DynamicPJ: e.DynamicPJ})
			// Static energy per cycle is the same in every window:
			// leakage and clock do not depend on what runs. The
			// model may count cycles at a clock of its own (booksim's
			// derived 9.7 GHz), while predictions turn cycles into
			// time at the chip's: the power recorded is the static
			// energy per cycle at the chip's clock.
			cycles := e.TotalPJ * 1e-12 / (e.PowerMW * 1e-3) * e.ClockHz
			staticMW = (e.ClockPJ + e.LeakagePJ) / cycles * sc.Node.ClockHz * 1e-9
		}
	}
	e := sc.Energy
	fit, err := calibrate.FitEnergy(samples, staticMW, hops.Nodes(), word, bounds, fmt.Sprintf("%s %s %d-bit %gmm", e.Model, e.Tech, e.FlitBits, e.TileMM))
	return fit, samples, err
}

// fanoutReceivers are the fan-out benchmark's receivers: up to four tiles
// at one distance from tile 0, the distance with the most (the nearer on
// a tie), so that their data legs differ only in when they leave.
func fanoutReceivers(m mesh.Topology) (to []int, hops int) {
	by := map[int][]int{}
	for t := 1; t < m.Nodes(); t++ {
		h := m.Hops(0, t)
		if len(by[h]) < 4 {
			by[h] = append(by[h], t)
		}
	}
	for h := 1; h <= scenarios.Diameter(m); h++ {
		if len(by[h]) > len(to) {
			to, hops = by[h], h
		}
	}
	return to, hops
}

// FitMeasured fits measurements read from the CSV file path (a real
// machine's, or calibrate --save-csv's) through the same fit as
// Calibrate, on the machine the CSV describes (its word_bytes, handshake
// and cooperative columns, or their fallbacks). The parameters record
// only what the CSV holds: no mesh, protocol, P or average hop count
// (those of the scenario describe the simulator, not the measured
// machine); the clock converts cycles to seconds.
func FitMeasured(sc *scenarios.Scenario, t calibrate.Table, path string) (Calibration, error) {
	rep, err := calibrate.FitTable(t, calibrate.Options{ClockHz: sc.Node.ClockHz, Source: logp.SourceCSVPrefix + path})
	return Calibration{Measurements: t.Measurements, Machine: t.Machine, Report: rep}, err
}

// hopsText is "1 hop" or "n hops".
func hopsText(h int) string {
	if h == 1 {
		return "1 hop"
	}
	return fmt.Sprintf("%d hops", h)
}

// CalibrationChart draws the measured one-way times (RTT/2) against size
// for each hop count, with the fitted model dashed beside them; the first
// size of every segment after the first is marked. The title names the
// machine (Scenario.MachineText) and params, the file the fit was written
// to ("" when it was not written).
func CalibrationChart(c Calibration, machine, params string) plots.Chart {
	kind := "simulated"
	if strings.HasPrefix(c.Report.Params.Source, logp.SourceCSVPrefix) {
		kind = "measured" // a real machine's times, read from a CSV file
	}
	saved := "fit not saved"
	if params != "" {
		saved = "fit saved as " + params
	}
	ch := plots.Chart{Title: fmt.Sprintf("one-way time: %s and LogGP fit (%s; %s)", kind, machine, saved), XLabel: "message size (bytes, log scale)",
		YLabel: "one-way time (cycles, log scale)", LogX: true, LogY: true, MarkLegend: "segment start"}
	byHops := map[int][]calibrate.Measurement{}
	var order []int
	for _, m := range c.Measurements {
		if m.Kind != calibrate.KindRTT {
			continue
		}
		if _, ok := byHops[m.Hops]; !ok {
			order = append(order, m.Hops)
		}
		byHops[m.Hops] = append(byHops[m.Hops], m)
	}
	p := c.Report.Params
	for _, h := range order {
		sim := plots.Series{Name: kind + ", " + hopsText(h), JoinMarked: true}
		model := plots.Series{Name: "LogGP, " + hopsText(h), Dashed: true, Companion: true}
		for _, m := range byHops[h] {
			x := math.Max(float64(m.Bytes), 1)
			sim.X = append(sim.X, x)
			if !slices.Contains(ch.XTicks, x) {
				ch.XTicks = append(ch.XTicks, x)
			}
			sim.Y = append(sim.Y, m.Cycles/2)
			start := false
			for _, b := range c.Report.Breakpoints {
				start = start || prevSize(byHops[h], m.Bytes) == b
			}
			sim.Marks = append(sim.Marks, start)
			model.X = append(model.X, x)
			model.Y = append(model.Y, p.PointToPoint(m.Bytes, float64(h)))
		}
		ch.Series = append(ch.Series, sim, model)
	}
	// Ticked at every size run, even past the ten the chart would tick by
	// itself (the default sizes are eleven).
	slices.Sort(ch.XTicks)
	return ch
}

func prevSize(ms []calibrate.Measurement, b int) int {
	prev := -1
	for _, m := range ms {
		if m.Bytes == b {
			return prev
		}
		prev = m.Bytes
	}
	return -1
}

// PredictRows adds the model's prediction to collective runs and picks,
// for "auto" runs, nothing: the caller resolves auto with ChooseAlgorithm.
func PredictRows(p logp.Params, rows []report.CollRow) error {
	for i := range rows {
		r := &rows[i]
		pr, err := p.Predict(scenarios.RegistryOp(r.Op), baseAlg(r.Algorithm), r.Procs, r.SizeBytes)
		if err != nil {
			return err
		}
		r.Predicted = pr.Cycles
		if r.Cycles > 0 {
			r.RelError = (pr.Cycles - float64(r.Cycles)) / float64(r.Cycles)
		}
	}
	return nil
}

// AlgorithmsFor lists the registered algorithms of a `nocsim coll`
// operation.
func AlgorithmsFor(op string) []string { return coll.Names(scenarios.RegistryOp(op)) }

// ChooseAlgorithm is the registered algorithm the model predicts fastest
// for op at P ranks and size bytes (ties keep registry order), among those
// that run on MPI messages, whose costs the parameters were fitted to.
func ChooseAlgorithm(p logp.Params, op string, procs, size int) (string, float64, error) {
	return ChooseAlgorithmFor(p, op, procs, size, logp.ObjectiveTime)
}

// ChooseAlgorithmFor is ChooseAlgorithm minimising objective (time,
// energy or edp: logp.Score) instead of time; it returns the choice's
// predicted cycles.
func ChooseAlgorithmFor(p logp.Params, op string, procs, size int, objective string) (string, float64, error) {
	best, bestT, bestS := "", math.Inf(1), math.Inf(1)
	for _, a := range coll.Names(scenarios.RegistryOp(op)) {
		if coll.IsNative(scenarios.RegistryOp(op), a) {
			// Parameters fitted to MPI messages do not describe the
			// native primitives these run on (their forms overestimate).
			continue
		}
		pr, err := p.Predict(scenarios.RegistryOp(op), a, procs, size)
		var big *logp.TooManyRanksError
		if errors.As(err, &big) {
			continue // too costly to predict at this P: not a candidate
		}
		if err != nil {
			return "", 0, err
		}
		e := 0.0
		if objective != logp.ObjectiveTime {
			if e, err = p.PredictEnergy(scenarios.RegistryOp(op), a, procs, size, pr); err != nil {
				return "", 0, err
			}
		}
		if s := logp.Score(objective, pr, e); s < bestS {
			best, bestT, bestS = a, pr.Cycles, s
		}
	}
	return best, bestT, nil
}

// PredictOp is `nocsim predict`'s prediction: op a one-way message (p2p)
// or a round trip (pingpong) over hops, both named "LogGP", or a
// collective by its algorithm alg (ChooseAlgorithm's, for "auto").
func PredictOp(p logp.Params, op, alg string, procs, size int, hops float64) (string, logp.Prediction, error) {
	switch op {
	case "p2p":
		return "LogGP", p.OneWay(size, hops), nil
	case "pingpong":
		return "LogGP", p.PingPong(size, hops), nil
	}
	pr, err := p.Predict(scenarios.RegistryOp(op), alg, procs, size)
	return alg, pr, err
}

// baseAlg strips the "model:" marker of algorithms chosen by the model.
func baseAlg(a string) string {
	if len(a) > 6 && a[:6] == "model:" {
		return a[6:]
	}
	return a
}
