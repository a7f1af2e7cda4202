package study

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"nocsim/coll"
	"nocsim/config"
	"nocsim/des"
	"nocsim/logp"
	"nocsim/logp/collgen"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/mpi/trace"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// CollSweep runs an operation for every algorithm x procs x size.
type CollSweep struct {
	Op    string
	Algs  []string // "auto" allowed
	Procs []int
	Sizes []int // bytes per rank (docs/commands/coll.md gives each operation's meaning)
	Root  int
	// Params, when set, resolves "auto" to the algorithm the LogGP model
	// predicts fastest for each P and size (reported as "model:NAME"), or
	// the least energy or energy-delay product under Objective
	// (logp.Objectives; "" is time).
	Params    *logp.Params
	Objective string
	// MapRow, when above 0, is the row (counted from 1 in the table's
	// order) whose chip's traffic Run keeps: the network's load over the
	// call (MapLoad) and the bytes each rank sent each (Matrix[src][dst]).
	MapRow  int
	MapLoad *report.LinkMapPoint
	Matrix  [][]int64
}

// Check validates the sweep against the scenario.
func (s *CollSweep) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	if err := sc.CheckMachine(src); err != nil {
		return err
	}
	tiles := sc.Machine().Tiles()
	bad := func(key string, v any, allowed string) error {
		return &config.KeyError{Key: key, Value: fmt.Sprint(v), Allowed: allowed}
	}
	if !slices.Contains(collgen.Ops, s.Op) {
		return bad("op", s.Op, strings.Join(collgen.Ops, ", "))
	}
	names := coll.Names(scenarios.RegistryOp(s.Op))
	if len(s.Algs) == 0 {
		return bad("algs", "[]", "auto, "+strings.Join(names, ", "))
	}
	for _, a := range s.Algs {
		if a != "auto" && sc.MPI.Library == "thesis" {
			return bad("algs", a, `auto with library = "thesis" (the thesis's library has one algorithm per operation)`)
		}
		if a != "auto" && !slices.Contains(names, a) {
			return bad("algs", a, "auto, "+strings.Join(names, ", "))
		}
	}
	if len(s.Procs) == 0 {
		return bad("procs", "[]", fmt.Sprintf("rank counts 1..%d", tiles))
	}
	for _, p := range s.Procs {
		if p < 1 || p > tiles {
			return bad("procs", p, fmt.Sprintf("1..%d (the tiles of the mesh)", tiles))
		}
		if s.Root < 0 || s.Root >= p {
			return bad("root", s.Root, fmt.Sprintf("0..%d (every --procs value must include the root)", p-1))
		}
	}
	if len(s.Sizes) == 0 {
		return bad("sizes", "[]", "byte counts")
	}
	for _, n := range s.Sizes {
		if n < 0 || n > 1<<22 || needsWords(s.Op) && n%8 != 0 {
			allowed := "0..4194304 bytes"
			if needsWords(s.Op) {
				allowed += ", a multiple of 8 (float64 elements)"
			}
			return bad("sizes", n, allowed)
		}
	}
	return s.checkMemory(sc, tiles)
}

func needsWords(op string) bool {
	switch op {
	case "reduce", "allreduce", "reduce_scatter", "scan", "exscan":
		return true
	}
	return false
}

// Run simulates every combination, in parallel across them; rows come in
// (algorithm, procs, size) order whatever the number of workers.
func (s *CollSweep) Run(sc *scenarios.Scenario, opt scenarios.RunOptions) ([]report.CollRow, error) {
	type job struct {
		alg       string
		procs, sz int
	}
	var jobs []job
	for _, a := range s.Algs {
		for _, p := range s.Procs {
			for _, n := range s.Sizes {
				alg := a
				if a == "auto" && s.Params != nil && sc.MPI.Library != "thesis" {
					best, _, err := ChooseAlgorithmFor(*s.Params, s.Op, p, n, cmp.Or(s.Objective, logp.ObjectiveTime))
					if err != nil {
						return nil, err
					}
					alg = "model:" + best
				}
				jobs = append(jobs, job{alg, p, n})
			}
		}
	}
	rows := make([]report.CollRow, len(jobs))
	errs := make([]error, len(jobs))
	scenarios.ForEach(len(jobs), opt, func(i int) error {
		j := jobs[i]
		var rec func(*trace.Trace)
		if opt.Record != nil {
			point := collPoint(j.alg, j.procs, j.sz)
			rec = func(t *trace.Trace) { opt.Record(point, t) }
		}
		run := sc
		if opt.Trace != nil {
			traced := *sc
			traced.MPI = traced.MPI.TraceTo(opt.Trace, i, fmt.Sprintf("%s %s, P=%d, %d B", s.Op, j.alg, j.procs, j.sz))
			run = &traced
		}
		var keep *collKeep
		if i == s.MapRow-1 {
			keep = &collKeep{}
			rec0 := rec
			rec = func(t *trace.Trace) {
				keep.matrix = SentMatrix(t)
				if rec0 != nil {
					rec0(t)
				}
			}
		}
		rows[i], errs[i] = s.runOne(run, j.alg, j.procs, j.sz, rec, keep)
		if keep != nil && errs[i] == nil {
			keep.load.Title = fmt.Sprintf("%s %s, P=%d, %d B per rank: %s", s.Op, rows[i].Algorithm, j.procs, j.sz, sc.NocTitle())
			s.MapLoad, s.Matrix = &keep.load, keep.matrix
		}
		return errs[i]
	})
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	return rows, nil
}

// collKeep is what Run keeps of the MapRow's run.
type collKeep struct {
	load   report.LinkMapPoint
	matrix [][]int64
}

// SentMatrix is the bytes each rank of t sent each: m[src][dst].
func SentMatrix(t *trace.Trace) [][]int64 {
	m := make([][]int64, len(t.Ranks))
	for r, ops := range t.Ranks {
		m[r] = make([]int64, len(t.Ranks))
		for _, op := range ops {
			if op.Kind == trace.Send {
				m[r][op.Peer] += op.Bytes
			}
		}
	}
	return m
}

func (s *CollSweep) runOne(sc0 *scenarios.Scenario, alg string, procs, size int, record func(*trace.Trace), keep *collKeep) (report.CollRow, error) {
	sc := *sc0
	sc.MPI.Procs = procs
	sc.MPI.SetAlgorithm(scenarios.RegistryOp(s.Op), baseAlg(alg))
	if s.Params != nil {
		// The optimal bcast's tree for the fitted machine at this size, as
		// the model predicts it (logp's bcast/optimal).
		sc.MPI.OptimalL, sc.MPI.OptimalO, sc.MPI.OptimalG = s.Params.OptimalLogP(size)
	}
	w, err := sc.NewJob()
	if err != nil {
		return report.CollRow{}, err
	}
	defer w.M.Close()
	row := report.CollRow{Op: s.Op, Algorithm: alg, Procs: procs, SizeBytes: size, Root: s.Root, RankCycles: make([]des.Time, procs)}
	check := newCollCheck(s.Op, procs, size, s.Root)
	done := startRecording(w, traceTo(record))
	w.Launch(func(r *mpi.Rank) {
		err := check.run(r)
		row.RankCycles[r.Rank()] = r.Now()
		if r.Rank() == s.Root {
			row.Chosen = r.LastAlgorithm()
		}
		if err != nil {
			check.fail(r.Rank(), err)
		}
	})
	if err := w.Run(); err != nil {
		return row, fmt.Errorf("%s %s, P=%d, %d bytes: %w", s.Op, alg, procs, size, err)
	}
	if err := w.CheckQuiet(); err != nil {
		check.fail(0, err)
	}
	done()
	if row.Energy, err = sc.JobEnergy(w); err != nil {
		return row, err
	}
	row.Cycles = slices.Max(row.RankCycles)
	if keep != nil {
		if keep.load, err = chipLoad(&sc, w, row.Cycles); err != nil {
			return row, err
		}
	}
	row.Seconds = w.Seconds(row.Cycles)
	if row.Energy != nil {
		row.EDP = row.Energy.TotalPJ * float64(row.Cycles)
	}
	row.Correct = check.err == nil
	if check.err != nil {
		row.Error = check.err.Error()
	}
	return row, nil
}

// collCheck drives one operation on every rank with inputs from a fixed
// seed and checks the outputs against a serial computation.
type collCheck struct {
	op               string
	procs, size, rt  int
	err              error
	inputs           [][]byte // per rank: its send data
	words            int      // float64 elements per rank, for reductions
	reduceInputsVals [][]float64
}

func newCollCheck(op string, procs, size, root int) *collCheck {
	c := &collCheck{op: op, procs: procs, size: size, rt: root}
	rng := rand.New(rand.NewPCG(uint64(procs), uint64(size)))
	per := size
	switch op {
	case "scatter", "gather", "allgather":
		per = size // each rank's block
	case "alltoall":
		per = size * procs
	}
	c.inputs = make([][]byte, procs)
	for i := range c.inputs {
		c.inputs[i] = make([]byte, per)
		for k := range c.inputs[i] {
			c.inputs[i][k] = byte(rng.IntN(256))
		}
	}
	if needsWords(op) {
		c.words = size / 8
		c.reduceInputsVals = make([][]float64, procs)
		for i := range c.reduceInputsVals {
			v := make([]float64, c.words)
			for k := range v {
				v[k] = float64(rng.IntN(1000)) // integers: sums are exact in any order
			}
			c.reduceInputsVals[i] = v
		}
	}
	return c
}

func (c *collCheck) fail(rank int, err error) {
	if c.err == nil {
		c.err = fmt.Errorf("rank %d: %w", rank, err)
	}
}

func (c *collCheck) expect(rank int, what string, got, want []byte) {
	if !slices.Equal(got, want) && c.err == nil {
		c.err = fmt.Errorf("rank %d: %s differs from the serial result", rank, what)
	}
}

func (c *collCheck) run(r *mpi.Rank) error {
	me, p, n, comm := r.Rank(), c.procs, c.size, r.CommWorld()
	alloc := func(k int) datatype.Buffer { return r.MustAlloc(max(k, 1)) }
	switch c.op {
	case "barrier":
		return r.Barrier(comm)
	case "bcast":
		b := alloc(n)
		if me == c.rt {
			copy(b.Bytes, c.inputs[c.rt])
		}
		if err := r.Bcast(b, n, datatype.Byte, c.rt, comm); err != nil {
			return err
		}
		c.expect(me, "bcast buffer", b.Bytes[:n], c.inputs[c.rt])
	case "scatter":
		s, d := alloc(n*p), alloc(n)
		if me == c.rt {
			for i := 0; i < p; i++ {
				copy(s.Bytes[i*n:], c.inputs[i])
			}
		}
		if err := r.Scatter(s, n, datatype.Byte, d, n, datatype.Byte, c.rt, comm); err != nil {
			return err
		}
		c.expect(me, "scattered block", d.Bytes[:n], c.inputs[me])
	case "gather":
		s, d := alloc(n), alloc(n*p)
		copy(s.Bytes, c.inputs[me])
		if err := r.Gather(s, n, datatype.Byte, d, n, datatype.Byte, c.rt, comm); err != nil {
			return err
		}
		if me == c.rt {
			c.expect(me, "gathered buffer", d.Bytes[:n*p], slices.Concat(c.inputs...))
		}
	case "allgather":
		s, d := alloc(n), alloc(n*p)
		copy(s.Bytes, c.inputs[me])
		if err := r.Allgather(s, n, datatype.Byte, d, n, datatype.Byte, comm); err != nil {
			return err
		}
		c.expect(me, "allgathered buffer", d.Bytes[:n*p], slices.Concat(c.inputs...))
	case "alltoall":
		s, d := alloc(n*p), alloc(n*p)
		copy(s.Bytes, c.inputs[me])
		if err := r.Alltoall(s, n, datatype.Byte, d, n, datatype.Byte, comm); err != nil {
			return err
		}
		var want []byte
		for i := 0; i < p; i++ {
			want = append(want, c.inputs[i][me*n:(me+1)*n]...)
		}
		c.expect(me, "alltoall buffer", d.Bytes[:n*p], want)
	default:
		return c.runReduction(r)
	}
	return nil
}

func (c *collCheck) runReduction(r *mpi.Rank) error {
	me, p, k, comm := r.Rank(), c.procs, c.words, r.CommWorld()
	in := r.MustAlloc(max(8*k, 1))
	for i, v := range c.reduceInputsVals[me] {
		in.SetFloat64(i, v)
	}
	sum := func(ranks []int, lo, hi int) []byte {
		out := make([]byte, 8*(hi-lo))
		b := datatype.Buffer{Bytes: out}
		for i := lo; i < hi; i++ {
			t := 0.0
			for _, rk := range ranks {
				t += c.reduceInputsVals[rk][i]
			}
			b.SetFloat64(i-lo, t)
		}
		return out
	}
	upTo := func(n int) []int {
		rs := make([]int, n)
		for i := range rs {
			rs[i] = i
		}
		return rs
	}
	out := r.MustAlloc(max(8*k, 1))
	switch c.op {
	case "reduce":
		if err := r.Reduce(in, out, k, datatype.Float64, datatype.OpSum, c.rt, comm); err != nil {
			return err
		}
		if me == c.rt {
			c.expect(me, "reduced vector", out.Bytes[:8*k], sum(upTo(p), 0, k))
		}
	case "allreduce":
		if err := r.Allreduce(in, out, k, datatype.Float64, datatype.OpSum, comm); err != nil {
			return err
		}
		c.expect(me, "allreduced vector", out.Bytes[:8*k], sum(upTo(p), 0, k))
	case "reduce_scatter":
		// Every rank contributes k elements; rank i keeps block i of
		// k/p elements (the last takes the remainder).
		counts := make([]int, p)
		for i := range counts {
			counts[i] = k / p
		}
		counts[p-1] += k - p*(k/p)
		if err := r.ReduceScatter(in, out, counts, datatype.Float64, datatype.OpSum, comm); err != nil {
			return err
		}
		lo := me * (k / p)
		c.expect(me, "reduce_scatter block", out.Bytes[:8*counts[me]], sum(upTo(p), lo, lo+counts[me]))
	case "scan":
		if err := r.Scan(in, out, k, datatype.Float64, datatype.OpSum, comm); err != nil {
			return err
		}
		c.expect(me, "scan prefix", out.Bytes[:8*k], sum(upTo(me+1), 0, k))
	case "exscan":
		if err := r.Exscan(in, out, k, datatype.Float64, datatype.OpSum, comm); err != nil {
			return err
		}
		if me > 0 {
			c.expect(me, "exscan prefix", out.Bytes[:8*k], sum(upTo(me), 0, k))
		}
	}
	return nil
}
