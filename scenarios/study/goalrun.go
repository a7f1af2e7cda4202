package study

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"nocsim/config"
	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/logp/loggops"
	"nocsim/mpi"
	"nocsim/mpi/trace"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// RunGoalTier simulates the schedule on the LogGOPS tier. A schedule that
// cannot finish returns the tier's *loggops.StuckError. fitted, when set,
// are the fitted parameters p was mapped from (GoalTierParams): when they
// hold an energy model the schedule is priced as coll --tier loggops
// prices a collective's (logp.Params.TierEnergy). progress, when set, is
// called now and then with the ops completed, the schedule's ops and the
// simulated time reached (cycles).
func RunGoalTier(s *goal.Schedule, p loggops.Params, fitted *logp.Params, progress func(done, total int, t float64)) (*report.GoalResult, error) {
	res, err := loggops.Simulate(s, p, loggops.Options{Progress: progress})
	if err != nil {
		return nil, err
	}
	if s.NumOps() >= 1<<20 {
		// The simulator's state, most of the memory, is garbage now:
		// collecting it at once lets the report reuse it, where the
		// collector would let the heap grow to twice its size first.
		runtime.GC()
	}
	out := &report.GoalResult{Tier: "loggops", Ranks: s.NumRanks(), MaxFinish: res.Max, RankFinish: res.Finish,
		Params: &report.TierParamsJSON{L: p.L, Os: p.Os, Or: p.Or, Gap: p.Gap, G: p.G, O: p.O, S: p.S}}
	if fitted != nil {
		out.PredictedEnergyPJ, _ = fitted.TierEnergy(s, p, res.Max)
	}
	return out, nil
}

// GoalTierParams are the LogGOPS tier's parameters for a schedule of
// ranks ranks from LogGP parameters fitted by calibrate (refused unless
// physical): TierParamsFor's, with the rendezvous threshold S when given
// (keepS) and the fitted protocol's otherwise.
func GoalTierParams(fitted logp.Params, ranks int, S uint64, keepS bool) (loggops.Params, error) {
	if err := fitted.Validate(); err != nil {
		return loggops.Params{}, err
	}
	if !keepS {
		S = scenarios.ProtocolThreshold(fitted.Protocol)
	}
	return scenarios.TierParamsFor(fitted, ranks, S)
}

// CheckGoalFlit validates the machine for a run of s on the flit-level
// chip: rank r on tile r, so the schedule's ranks must fit the mesh, and
// each tile's heap must hold the largest send and receive buffers.
func CheckGoalFlit(sc *scenarios.Scenario, s *goal.Schedule, src scenarios.Source) error {
	if err := sc.CheckMachine(src); err != nil {
		return err
	}
	n := s.NumRanks()
	if n < 1 || n > sc.Machine().Tiles() {
		return scenarios.Explain(&config.KeyError{Key: "mesh", Value: sc.Network.Mesh,
			Allowed: fmt.Sprintf("a mesh of at least %d tiles (the schedule's num_ranks = %d; rank r runs on tile r)", max(n, 1), n)}, src)
	}
	if _, err := trace.FromGoal(s); err != nil {
		return err
	}
	// The replay holds one send and one receive buffer of the rank's
	// largest sizes, and a receive temporary as big when a size ends
	// inside a word (the DMA engine writes whole words).
	need := 0
	for r := range s.NumRanks() {
		var sb, rb int
		for _, op := range s.Ops(r) {
			switch op.Kind {
			case goal.Send:
				sb = max(sb, int(op.Bytes))
			case goal.Recv:
				rb = max(rb, int(op.Bytes))
			}
		}
		need = max(need, r4(sb)+2*r4(rb)+fixedNeed(n))
	}
	if words := sc.Network.NodeSpec.MemoryWords; need > heapBytes(words) {
		allowed := fmt.Sprintf("at least %d (the schedule's largest messages need %d heap words per tile; the heap is 3/4 of memory_words)", wordsFor(need), (need+3)/4)
		if wordsFor(need) > maxMemoryWords {
			allowed = fmt.Sprintf("none: the schedule's largest messages need %d heap words per tile, more than the largest memory_words (%d) gives", (need+3)/4, maxMemoryWords)
		}
		return scenarios.Explain(&config.KeyError{Key: "memory_words", Value: fmt.Sprint(words), Allowed: allowed}, src)
	}
	return nil
}

// RunGoalFlit runs the schedule on the flit-level chip described by the
// scenario (rank r on tile r; CheckGoalFlit must have passed): every send
// and receive an MPI_Isend or MPI_Irecv posted once its dependencies are
// met, every calc that many cycles of computation. record, when set, gets
// the run's own recording. The whole chip's energy, from the run's first
// cycle to its last, is priced as coll prices a call's when the scenario's
// energy model is on. A schedule that cannot finish ends with the MPI
// layer's deadlock report.
func RunGoalFlit(sc0 *scenarios.Scenario, s *goal.Schedule, record func(*trace.Trace)) (*report.GoalResult, error) {
	tr, err := trace.FromGoal(s)
	if err != nil {
		return nil, err
	}
	sc := *sc0
	sc.MPI.Procs = s.NumRanks()
	w, err := sc.NewJob()
	if err != nil {
		return nil, err
	}
	defer w.M.Close()
	done := startRecording(w, traceTo(record))
	if err := w.LaunchTrace(tr); err != nil {
		return nil, err
	}
	if err := w.Run(); err != nil {
		return nil, err
	}
	done()
	res := &report.GoalResult{Tier: "flit", Ranks: s.NumRanks(), RankFinish: make([]float64, s.NumRanks()),
		Mesh: sc.Network.Mesh, Cycles: int64(w.M.Eng.Now())}
	if res.Energy, err = sc.JobEnergy(w); err != nil {
		return nil, err
	}
	for i, r := range w.Ranks {
		at, _ := r.Finished()
		res.RankFinish[i] = float64(at)
		res.Messages += r.Received()
	}
	res.MaxFinish = slices.Max(res.RankFinish)
	return res, nil
}

// startRecording makes w record its communication when record is set, and
// returns what hands the trace over once the run has succeeded.
func startRecording(w *mpi.World, record func(*mpi.World)) (done func()) {
	if record == nil {
		return func() {}
	}
	w.Record()
	return func() { record(w) }
}

// traceTo adapts a hook that wants only the recorded schedule.
func traceTo(record func(*trace.Trace)) func(*mpi.World) {
	if record == nil {
		return nil
	}
	return func(w *mpi.World) { record(w.Trace()) }
}

// GoalRecording collects the GOAL schedules of recorded runs, one per
// point of a command, as text, so that they are written only once the
// whole run has succeeded. Record may be called from parallel workers.
type GoalRecording struct {
	mu     sync.Mutex
	points []string
	texts  map[string][]byte
	err    error
}

// NewGoalRecording starts an empty recording.
func NewGoalRecording() *GoalRecording { return &GoalRecording{texts: map[string][]byte{}} }

// Record converts one point's trace to GOAL text and keeps it.
func (g *GoalRecording) Record(point string, t *trace.Trace) {
	var b bytes.Buffer
	s, err := trace.ToGoal(t)
	if err == nil {
		err = goal.Write(&b, s)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		if g.err == nil {
			g.err = fmt.Errorf("recording %s: %w", point, err)
		}
		return
	}
	if _, ok := g.texts[point]; !ok {
		g.points = append(g.points, point)
	}
	g.texts[point] = b.Bytes()
}

// GoalFile is one schedule to write: its path and text.
type GoalFile struct {
	Path string
	Text []byte
}

// Files names the recorded schedules after path: path itself when the run
// recorded one point, else one file per point, the point's name inserted
// before the extension (runs.goal -> runs-binomial-P16-1024B.goal), in
// sorted order of the names.
func (g *GoalRecording) Files(path string) ([]GoalFile, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return nil, g.err
	}
	pts := slices.Clone(g.points)
	slices.Sort(pts)
	var out []GoalFile
	for _, p := range pts {
		name := path
		if len(pts) > 1 {
			name = GoalPointPath(path, p)
		}
		out = append(out, GoalFile{Path: name, Text: g.texts[p]})
	}
	return out, nil
}

// GoalPointPath inserts "-point" before path's extension.
func GoalPointPath(path, point string) string {
	ext := filepath.Ext(path)
	if ext == path || strings.HasSuffix(path, string(filepath.Separator)+ext) {
		ext = "" // a dot file has no extension to keep
	}
	return strings.TrimSuffix(path, ext) + "-" + point + ext
}

// collPoint names a collective run's point: algorithm, P and size.
func collPoint(alg string, procs, size int) string {
	return fmt.Sprintf("%s-P%d-%dB", strings.ReplaceAll(alg, ":", "-"), procs, size)
}

// appPoint names an application run's point: method (when a sweep runs
// several), P and problem size.
func appPoint(method string, several bool, procs, size int) string {
	p := fmt.Sprintf("P%d-N%d", procs, size)
	if several && method != "" {
		p = method + "-" + p
	}
	return p
}

// checkGoalOutput validates [output] goal: a plain file name (it is
// written into the output directory), for the workloads that run MPI on
// the flit level, and not in a sweep (whose points write no files of
// their own).
func checkGoalOutput(sc *scenarios.Scenario, src scenarios.Source) error {
	g := sc.Output.Goal
	if g == "" {
		return nil
	}
	where := "[output] goal"
	if src != nil {
		where = src("output", "goal")
	}
	switch {
	case g != filepath.Base(g) || g == "." || g == ".." || strings.ContainsAny(g, `/\`):
		return fmt.Errorf("%s = %q: allowed a file name without directory (it is written into the output directory)", where, g)
	case !slices.Contains([]string{"pingpong", "coll", "app"}, sc.Workload.Kind):
		return fmt.Errorf("%s = %q: allowed only with [workload] kind pingpong, coll or app (kind is %q, which runs no MPI program)", where, g, sc.Workload.Kind)
	case len(sc.Sweep.Axis) > 0 || sc.Sweep.Reps > 1:
		return fmt.Errorf("%s = %q: allowed only without [sweep] (record single runs with nocsim run)", where, g)
	}
	for _, name := range []string{"config.toml", "meta.json", "results.json", "results.csv", "breakeven.json", "params.json"} {
		if g == name {
			return fmt.Errorf("%s = %q: allowed a name other than the run's own files (config.toml, meta.json, results.*)", where, g)
		}
	}
	return nil
}
