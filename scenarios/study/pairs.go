package study

import (
	"fmt"
	"slices"
	"strings"

	"nocsim/config"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// Radke's bandwidth study (seed 003, Figure 4): k processors each copy a
// packet of S bytes into their neighbour's memory at once, and the memory
// bandwidth each achieves is plotted against S, one curve per k. On a
// shared bus the curves fall as k grows; on a network whose pairs use
// disjoint links they coincide. Here a "copy" is a transfer over the
// chip's network: an MPI Send/Recv stream, or the native DMA block
// transfer into the partner's memory (sendDataBlockNB), which is the
// chip's counterpart of memcpy through shared memory.

// PairsPlacements lists how the pairs are laid out over the ranks.
var PairsPlacements = []string{"neighbor", "across"}

// PairsVersions lists the versions of the transfer.
var PairsVersions = []string{"mpi", "native"}

// Pairs is the benchmark: for every version, pair count and size, a fresh
// machine on which the pairs stream Reps transfers of the size at once.
type Pairs struct {
	Pairs     []int // concurrent pairs, each 1..P/2
	Sizes     []int // bytes per transfer
	Reps      int   // measured transfers per pair per size, 1..1000
	Versions  []string
	Placement string
	// Topologies, when set, runs the study on each of these [network]
	// topologies over the same tiles, in turn; unset runs the scenario's.
	Topologies []string
}

// topoScenarios is the scenario once per topology the study runs on.
func (p *Pairs) topoScenarios(sc *scenarios.Scenario) []scenarios.Scenario {
	if len(p.Topologies) == 0 {
		return []scenarios.Scenario{*sc}
	}
	out := make([]scenarios.Scenario, len(p.Topologies))
	for i, t := range p.Topologies {
		out[i] = *sc
		out[i].Network.Topo = t
	}
	return out
}

// pairsMaxBytes bounds a transfer; the memory check refuses less where the
// tile's memory is smaller.
const pairsMaxBytes = 1 << 24

// DefaultPairCounts is 1, 2, 4, ... below P/2, and P/2 itself.
func DefaultPairCounts(procs int) []int {
	var out []int
	for k := 1; k < procs/2; k *= 2 {
		out = append(out, k)
	}
	if procs >= 2 {
		out = append(out, procs/2)
	}
	return out
}

// DefaultPairsSizes are the command's and the workload's default sizes.
var DefaultPairsSizes = []int{16, 64, 256, 1024, 4096, 16384, 65536}

// pairsProcs is the ranks (MPI) or nodes (native) the benchmark lays its
// pairs over: [mpi] procs when set, else every tile.
func pairsProcs(sc *scenarios.Scenario) int {
	if sc.MPI.Procs > 0 {
		return sc.MPI.Procs
	}
	return sc.Machine().Tiles()
}

// Check validates the benchmark and the machine it runs on.
func (p *Pairs) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	for _, t := range p.Topologies {
		if !slices.Contains(scenarios.TopologyNames, t) {
			return &config.KeyError{Key: "topologies", Value: fmt.Sprintf("%q", t), Allowed: strings.Join(scenarios.TopologyNames, ", ")}
		}
	}
	for _, tsc := range p.topoScenarios(sc) {
		if err := tsc.CheckMachine(src); err != nil {
			return err
		}
	}
	procs := pairsProcs(sc)
	bad := func(key string, v any, allowed string) error {
		return &config.KeyError{Key: key, Value: fmt.Sprint(v), Allowed: allowed}
	}
	if procs < 2 {
		return bad("mesh", fmt.Sprintf("%q", sc.Network.Mesh), "a machine of two tiles or more (a pair needs a sender and a receiver)")
	}
	native := slices.Contains(p.Versions, "native")
	switch {
	case len(p.Pairs) == 0:
		return bad("pairs", "[]", fmt.Sprintf("pair counts 1..%d (P/2 with P = %d)", procs/2, procs))
	case len(p.Sizes) == 0:
		return bad("sizes", "[]", "one or more transfer sizes in bytes")
	case p.Reps < 1 || p.Reps > 1000:
		return bad("reps", p.Reps, "1..1000")
	case !slices.Contains(PairsPlacements, p.Placement):
		return bad("placement", fmt.Sprintf("%q", p.Placement), strings.Join(PairsPlacements, ", "))
	case len(p.Versions) == 0:
		return bad("versions", "[]", strings.Join(PairsVersions, ", "))
	}
	for _, k := range p.Pairs {
		if k < 1 || k > procs/2 {
			return bad("pairs", k, fmt.Sprintf("1..%d (P/2 with P = %d)", procs/2, procs))
		}
	}
	for _, v := range p.Versions {
		if !slices.Contains(PairsVersions, v) {
			return bad("versions", fmt.Sprintf("%q", v), strings.Join(PairsVersions, ", "))
		}
	}
	for _, s := range p.Sizes {
		switch {
		case s < 1 || s > pairsMaxBytes:
			return bad("sizes", s, fmt.Sprintf("1..%d bytes", pairsMaxBytes))
		case native && s%4 != 0:
			return bad("sizes", s, "a multiple of 4 bytes with the native version (its DMA moves whole 32-bit words)")
		}
	}
	return p.checkMemory(sc, procs)
}

// pairsNeed is the heap one tile holds: its one buffer of the largest
// size (every tile is in one pair at most), plus the MPI library's small
// blocks and, for a size ending inside a word, a receive temporary as big
// (as for the ping-pong).
func pairsNeed(version string, sizes []int, procs int) int {
	if version == "native" {
		return r4(slices.Max(sizes)) + 64
	}
	return pingPongNeed(sizes, procs)
}

func (p *Pairs) checkMemory(sc *scenarios.Scenario, procs int) error {
	heap := heapBytes(sc.Network.MemoryWords)
	big := slices.Max(p.Sizes)
	for _, v := range p.Versions {
		need := pairsNeed(v, p.Sizes, procs)
		if need > heap {
			step := 1
			if v == "native" {
				step = 4
			}
			largest := largestFitting(0, big/step, func(n int) bool { return pairsNeed(v, []int{n * step}, procs) <= heap })
			if largest > 0 {
				largest *= step
			}
			what := fmt.Sprintf("a %d-byte transfer (%s version: the buffer lives in tile memory, the sender's copy and the receiver's)", big, v)
			return memoryError("sizes", fmt.Sprint(big), " bytes", need, largest, sc.Network.MemoryWords, what)
		}
		if err := hostError("sizes", fmt.Sprint(big), sc.Machine().Tiles(), procs, need, 0); err != nil {
			return err
		}
	}
	return nil
}

// pairOf is pair j's sender and receiver: neighbor puts pair j on ranks
// 2j -> 2j+1 (Radke's processor i copying into i+1's memory); across puts
// it on j -> j + P/2, so that every pair crosses the middle of the rank
// order.
func pairOf(placement string, j, procs int) (from, to int) {
	if placement == "across" {
		return j, j + procs/2
	}
	return 2 * j, 2*j + 1
}

// pairsPoint is one simulated point before it becomes a row: each pair's
// start and last arrival.
type pairsPoint struct {
	start   []des.Time
	arrival []des.Time
	err     error // a wrong payload
	// energy is the chip's over the whole run, warm-up included; nil
	// when energy is not priced (energy_model = none).
	energy *report.Energy
}

// Run simulates every point, in parallel across points; rows come in
// (topology, version, pairs, size) order whatever the number of workers.
func (p *Pairs) Run(sc *scenarios.Scenario, opt scenarios.RunOptions) ([]report.PairsRow, error) {
	type job struct {
		sc        *scenarios.Scenario
		version   string
		pairs, sz int
	}
	var jobs []job
	scs := p.topoScenarios(sc)
	for t := range scs {
		for _, v := range p.Versions {
			for _, k := range p.Pairs {
				for _, n := range p.Sizes {
					jobs = append(jobs, job{&scs[t], v, k, n})
				}
			}
		}
	}
	procs := pairsProcs(sc)
	rows := make([]report.PairsRow, len(jobs))
	errs := make([]error, len(jobs))
	scenarios.ForEach(len(jobs), opt, func(i int) error {
		j := jobs[i]
		var pt pairsPoint
		if j.version == "native" {
			pt, errs[i] = p.runNative(j.sc, procs, j.pairs, j.sz)
		} else {
			run := j.sc
			if opt.Trace != nil { // a process per point (cmd --trace)
				traced := *j.sc
				traced.MPI = traced.MPI.TraceTo(opt.Trace, i, fmt.Sprintf("pairs %s mpi, %d pairs, %d B", j.sc.Network.TopologyName(), j.pairs, j.sz))
				run = &traced
			}
			pt, errs[i] = p.runMPI(run, procs, j.pairs, j.sz)
		}
		if errs[i] != nil {
			errs[i] = fmt.Errorf("pairs %s %s, %d pairs, %d bytes: %w", j.sc.Network.TopologyName(), j.version, j.pairs, j.sz, errs[i])
			return errs[i]
		}
		rows[i] = p.row(j.sc, j.version, procs, j.pairs, j.sz, pt)
		return nil
	})
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	return rows, nil
}

// row turns a point's times into bandwidths.
func (p *Pairs) row(sc *scenarios.Scenario, version string, procs, k, size int, pt pairsPoint) report.PairsRow {
	proto := sc.MPI.Protocol
	if version == "native" {
		proto = "dma"
	}
	r := report.PairsRow{Topology: sc.Network.TopologyName(), Version: version, Protocol: proto, Placement: p.Placement, Pairs: k, Procs: procs, SizeBytes: size,
		Messages: p.Reps, PairCycles: make([]des.Time, k), Correct: pt.err == nil}
	if pt.err != nil {
		r.Error = pt.err.Error()
	}
	per := float64(p.Reps) * float64(size)
	r.TotalBytes = int64(p.Reps) * int64(size) * int64(k)
	if e := pt.energy; e != nil {
		// Every byte the run moved, an MPI run's warm-up transfer too.
		moved := r.TotalBytes
		if version != "native" {
			moved += int64(size) * int64(k)
		}
		r.EnergyPJ, r.PowerMW = e.TotalPJ, e.PowerMW
		if moved > 0 {
			r.EnergyPerBytePJ = e.TotalPJ / float64(moved)
		}
	}
	first, late := slices.Min(pt.start), slices.Max(pt.start)
	r.StartSkewCycles = late - first
	for j, a := range pt.arrival {
		c := max(a-pt.start[j], 1) // a window of at least one cycle
		r.PairCycles[j] = c
		r.WindowCycles = max(r.WindowCycles, a-first)
		bw := per / float64(c)
		r.MeanPairBW += bw / float64(k)
		if j == 0 || bw < r.MinPairBW {
			r.MinPairBW = bw
		}
	}
	r.WindowCycles = max(r.WindowCycles, 1)
	r.AggregateBW = float64(r.TotalBytes) / float64(r.WindowCycles)
	r.MeanPairMBps = r.MeanPairBW * sc.Node.ClockHz / 1e6
	r.AggregateMBps = r.AggregateBW * sc.Node.ClockHz / 1e6
	return r
}

// pairsPattern is byte i of pair j's payload: the receiver's buffer is
// compared with it after the run, so a lost or misplaced word shows.
func pairsPattern(j, i int) byte { return byte(i*7 + j*31 + 1) }

func fillPattern(b []byte, j, size int) {
	for i := 0; i < size; i++ {
		b[i] = pairsPattern(j, i)
	}
}

func checkPattern(b []byte, j, size int) error {
	for i := 0; i < size; i++ {
		if b[i] != pairsPattern(j, i) {
			return fmt.Errorf("pair %d: byte %d of %d is %d, sent %d", j, i, size, b[i], pairsPattern(j, i))
		}
	}
	return nil
}

// runMPI streams Reps Sends of size bytes from every pair's sender to its
// receiver, which receives them in turn with Recv. One warm-up transfer
// per pair, then a barrier of every rank, then the measured stream. A
// pair starts when both its ranks have left the barrier; its arrival is
// when its receiver's last Recv returns.
func (p *Pairs) runMPI(sc0 *scenarios.Scenario, procs, k, size int) (pairsPoint, error) {
	sc := *sc0
	sc.MPI.Procs = procs
	w, err := sc.NewJob()
	if err != nil {
		return pairsPoint{}, err
	}
	defer w.M.Close()
	role := make([]int, procs) // pair index + 1 for senders, -(pair index + 1) for receivers
	partner := make([]int, procs)
	for j := 0; j < k; j++ {
		from, to := pairOf(p.Placement, j, procs)
		role[from], role[to] = j+1, -(j + 1)
		partner[from], partner[to] = to, from
	}
	started := make([]des.Time, procs)
	pt := pairsPoint{start: make([]des.Time, k), arrival: make([]des.Time, k)}
	bad := make([]error, k)
	w.Launch(func(r *mpi.Rank) {
		me, c := r.Rank(), r.CommWorld()
		var buf datatype.Buffer
		if role[me] != 0 {
			buf = r.MustAlloc(size)
		}
		switch {
		case role[me] > 0:
			fillPattern(buf.Bytes, role[me]-1, size)
			mustOK(r.Send(buf, size, datatype.Byte, partner[me], 0, c))
		case role[me] < 0:
			_, err := r.Recv(buf, size, datatype.Byte, partner[me], 0, c)
			mustOK(err)
			clear(buf.Bytes)
		}
		mustOK(r.Barrier(c))
		started[me] = r.Now()
		switch {
		case role[me] > 0:
			for range p.Reps {
				mustOK(r.Send(buf, size, datatype.Byte, partner[me], 1, c))
			}
		case role[me] < 0:
			for range p.Reps {
				_, err := r.Recv(buf, size, datatype.Byte, partner[me], 1, c)
				mustOK(err)
			}
			j := -role[me] - 1
			pt.arrival[j] = r.Now()
			bad[j] = checkPattern(buf.Bytes, j, size)
		}
	})
	if err := w.Run(); err != nil {
		return pt, err
	}
	if err := w.CheckQuiet(); err != nil {
		return pt, err
	}
	if pt.energy, err = sc.JobEnergy(w); err != nil {
		return pt, err
	}
	for j := range k {
		from, to := pairOf(p.Placement, j, procs)
		pt.start[j] = max(started[from], started[to])
	}
	pt.err = firstError(bad)
	return pt, nil
}

// runNative has every pair's sender issue Reps DMA block transfers
// (sendDataBlockNB) of its buffer into the receiver's, all senders
// starting at cycle 0. The DMA engine has no state to warm, so there is
// no warm-up transfer. Ordered delivery makes the last block's tail the
// last byte to land; its delivery cycle, which the chip records on the
// transfer, is the pair's arrival.
func (p *Pairs) runNative(sc *scenarios.Scenario, procs, k, size int) (pairsPoint, error) {
	m := sc.NewMachine()
	defer m.Close()
	words := size / 4
	pt := pairsPoint{start: make([]des.Time, k), arrival: make([]des.Time, k)}
	xfers := make([][]endpoint.Transfer, k)
	recv := make([][]byte, k)
	for j := 0; j < k; j++ {
		from, to := pairOf(p.Placement, j, procs)
		sAddr, sBuf, err := m.Nodes[from].Alloc(size)
		if err != nil {
			return pt, err
		}
		fillPattern(sBuf, j, size)
		rAddr, rBuf, err := m.Nodes[to].Alloc(size)
		if err != nil {
			return pt, err
		}
		recv[j] = rBuf
		xs := make([]endpoint.Transfer, p.Reps)
		xfers[j] = xs
		m.Nodes[from].Start("pairs sender", func(t *endpoint.Thread) {
			for i := range xs {
				mustOK(t.SendBlockNBTo(&xs[i], to, rAddr, 1, sAddr, 1, words))
			}
		})
	}
	if err := m.Run(-1); err != nil {
		return pt, err
	}
	if err := m.CheckQuiescent(); err != nil {
		return pt, err
	}
	var err error
	if pt.energy, err = sc.ChipsEnergy([]*endpoint.Machine{m}); err != nil {
		return pt, err
	}
	bad := make([]error, k)
	for j, xs := range xfers {
		last := xs[len(xs)-1]
		if !last.Delivered {
			return pt, fmt.Errorf("pair %d: the last block was never delivered", j)
		}
		pt.arrival[j] = last.DeliveredAt
		bad[j] = checkPattern(recv[j], j, size)
	}
	pt.err = firstError(bad)
	return pt, nil
}

func firstError(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
