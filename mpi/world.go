package mpi

import (
	"errors"
	"fmt"
	"strings"

	sched "nocsim/coll"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi/chrome"
	"nocsim/mpi/datatype"
	"nocsim/mpi/group"
	"nocsim/mpi/mpierr"
)

// World is one MPI job: Procs ranks, rank i on tile i of the machine.
type World struct {
	M     *endpoint.Machine
	Cfg   Config
	Ranks []*Rank

	h         handlers
	proto     protocol // Cfg.Protocol's (protocol.go)
	nextCtx   uint32   // context ids handed out by the highest-numbered tile
	err       error
	trace     *chrome.Recorder
	collArgs  map[collKey]collCall         // collective calls some ranks have made, for the mismatch check
	optTrees  map[int]*sched.Tree          // optimal bcast trees by communicator size (coll_bcast_optimal.go)
	meshGrids map[*group.Group]*sched.Grid // communicators' ranks by mesh row (coll_mesh.go)
	logMsgs   bool                         // ranks keep their Messages
	rma       rmaState                     // one-sided communication's windows and handlers (win.go)

	cray      []datatype.Buffer      // each rank's Cray collective structures (coll_cray.go)
	craySyncs map[craySyncKey]uint32 // the Cray barrier's level words (coll_cray.go)
}

type handlers struct {
	postSend, requestData, eager endpoint.HandlerID // THREAD messages
	ctlPostSend, ctlRequestData  endpoint.HandlerID // NIU control messages
	ctxRequest                   endpoint.HandlerID

	// The thesis profile's (thesis.go).
	barrierArrive, barrierRelease, ctxAsk endpoint.HandlerID

	// The Cray X1 collectives' (coll_cray.go).
	crayFadd, crayCheckIn endpoint.HandlerID

	// The puma_long protocol's put message (protocol_puma.go).
	pumaPut endpoint.HandlerID
}

// NewWorld prepares an MPI job on m. Nothing runs until Launch and Run.
func NewWorld(m *endpoint.Machine, cfg Config) (*World, error) {
	if err := cfg.Validate(len(m.Nodes), m.Spec.QueueFlits); err != nil {
		return nil, err
	}
	if cfg.Procs == 0 {
		cfg.Procs = len(m.Nodes)
	}
	w := &World{M: m, Cfg: cfg, nextCtx: firstFreeContext, collArgs: map[collKey]collCall{}}
	def, _ := cfg.protocolDef(m.Spec.QueueFlits) // Validate accepted it
	w.proto = def.build(w)
	if cfg.trace != nil {
		w.EnableTrace()
	}
	w.h = handlers{
		postSend:       m.Register("_MPI_Post_send", w.threadPostSend),
		requestData:    m.Register("_MPI_Request_data", w.threadRequestData),
		eager:          m.Register("_MPI_Eager", w.threadEager),
		ctlPostSend:    m.RegisterControl("NIU RTS", w.ctlPostSend),
		ctlRequestData: m.RegisterControl("NIU CTS", w.ctlRequestData),
		ctxRequest:     m.Register("_MPI_Context_request", w.threadContextRequest),
	}
	if cfg.thesisLib() {
		w.thesisHandlers()
	}
	w.rmaHandlers()
	all := make([]int, cfg.Procs)
	for i := range all {
		all[i] = i
	}
	worldGroup, _ := group.NewGroup(all)
	for i := 0; i < cfg.Procs; i++ {
		r := &Rank{w: w, rank: i, node: m.Nodes[i], sends: map[uint32]*Request{}}
		r.world = &Comm{r: r, ctx: worldContext, group: worldGroup, rank: i, name: "MPI_COMM_WORLD"}
		w.Ranks = append(w.Ranks, r)
	}
	w.proto.register()
	if cfg.usesCray() {
		// Only then, and last: every other handler keeps its id, and
		// other jobs' memory is as it was.
		if err := w.crayInit(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// Launch starts prog as the main thread of every rank.
func (w *World) Launch(prog func(r *Rank)) {
	for _, r := range w.Ranks {
		r.node.Start(fmt.Sprintf("rank %d", r.rank), func(t *endpoint.Thread) {
			r.t = t
			r.recStart()
			defer func() {
				// An MPI error the program chose not to handle (MustAlloc
				// out of memory, a benchmark's check of a call) ends the
				// run with that error, on one line: it is about the run's
				// configuration, not a bug, so no Go stack. Anything else
				// goes on to the thread, which reports it with its stack.
				if v := recover(); v != nil {
					e, ok := v.(*mpierr.Error)
					if !ok {
						panic(v)
					}
					r.call = textCall("failed: " + e.Error())
					w.fail(fmt.Errorf("rank %d: %w", r.rank, e))
				}
			}()
			prog(r)
			r.end, r.ended = r.t.Now(), true
			r.recFlush()
			if r.call == (callDesc{}) {
				r.call = textCall("finished")
			}
		})
	}
}

// Run simulates the job to its end. A job whose ranks wait on each other
// ends with a *DeadlockError listing what each blocked rank waits for and
// the sends nobody received.
func (w *World) Run() error {
	err := w.M.Run(-1)
	if w.err != nil {
		return w.err
	}
	if t := w.Cfg.trace; t != nil && err == nil {
		w.addTrace(t.set, t.order, t.name)
	}
	var dl *endpoint.DeadlockError
	if errors.As(err, &dl) {
		return &DeadlockError{At: dl.At, Report: w.report()}
	}
	return err
}

func (w *World) fail(err error) {
	if w.err == nil {
		w.err = err
		w.M.Eng.Stop()
	}
}

// DeadlockError is an MPI program that cannot finish.
type DeadlockError struct {
	At     des.Time
	Report string
}

func (e *DeadlockError) Error() string {
	return fmt.Sprintf("MPI deadlock at cycle %d: every rank still running is blocked\n%s", e.At, e.Report)
}

func (w *World) report() string {
	var b strings.Builder
	for _, r := range w.Ranks {
		if r.call != textCall("finished") {
			fmt.Fprintf(&b, "  rank %d in %s\n", r.rank, r.call)
		}
	}
	for _, r := range w.Ranks {
		for _, q := range r.sendOrder {
			if !q.done && !q.matched {
				fmt.Fprintf(&b, "  unmatched: rank %d %s\n", r.rank, q.describe())
			}
		}
	}
	return b.String()
}

// Seconds converts cycles to seconds at the machine's clock.
func (w *World) Seconds(c des.Time) float64 { return w.M.Seconds(c) }

// CheckQuiet verifies that a finished job left nothing behind: every
// message matched, every send completed, no receive still posted, and the
// network empty with every credit home.
func (w *World) CheckQuiet() error {
	for _, r := range w.Ranks {
		switch {
		case len(r.posted) > 0:
			return fmt.Errorf("rank %d: %d receives still posted, first %s", r.rank, len(r.posted), r.posted[0].describe())
		case len(r.unexpected) > 0:
			e := r.unexpected[0]
			return fmt.Errorf("rank %d: %d messages never received, first from rank %d tag %d", r.rank, len(r.unexpected), e.src, e.tag)
		case len(r.sends) > 0:
			return fmt.Errorf("rank %d: %d sends never asked for their data", r.rank, len(r.sends))
		}
		for _, q := range r.sendOrder {
			if !q.arrived() {
				return fmt.Errorf("rank %d: %s never completed", r.rank, q.describe())
			}
		}
	}
	return w.M.CheckQuiescent()
}
