package mpi

import (
	"container/heap"
	"fmt"
	"slices"

	"nocsim/mpi/datatype"
	"nocsim/mpi/trace"
)

// LaunchTrace starts, on every rank, the execution of its operations in t
// (rank i runs t.Ranks[i]): each operation starts once the operations it
// requires have completed (and those it irequires have started), in
// schedule order among those ready; sends and receives are MPI_Isend and
// MPI_Irecv (each charged as a call), computation is charged in cycles, and
// when nothing is ready the rank waits, without a call's charge, for the
// posted operations that the first waiting operation needs (or for any).
// Message contents are not meaningful: every send reads one scratch buffer
// and every receive writes one.
//
// Tags are renumbered densely (in increasing order of the schedule's
// tags), so recorded tags above MPI_TAG_UB replay unchanged in meaning.
func (w *World) LaunchTrace(t *trace.Trace) error {
	if err := t.Check(len(w.Ranks)); err != nil {
		return err
	}
	tags := t.DenseTags()
	w.Launch(func(r *Rank) {
		if err := r.runTrace(t.Ranks[r.rank], tags); err != nil {
			w.fail(fmt.Errorf("rank %d: %w", r.rank, err))
		}
	})
	return nil
}

// readyHeap holds operation indices ready to start, lowest first.
type readyHeap []int32

func (h readyHeap) Len() int           { return len(h) }
func (h readyHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h readyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)        { *h = append(*h, x.(int32)) }
func (h *readyHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// traceRun is one rank's execution state.
type traceRun struct {
	ops      []trace.Op
	waitDone []int32   // per op: completions it still needs
	waitInit []int32   // per op: starts it still needs
	after    [][]int32 // per op: ops that require its completion
	iafter   [][]int32 // per op: ops that require its start
	ready    readyHeap
	done     int
}

func newTraceRun(ops []trace.Op) *traceRun {
	x := &traceRun{ops: ops, waitDone: make([]int32, len(ops)), waitInit: make([]int32, len(ops)),
		after: make([][]int32, len(ops)), iafter: make([][]int32, len(ops))}
	for i, op := range ops {
		for _, d := range op.Requires {
			x.after[d] = append(x.after[d], int32(i))
			x.waitDone[i]++
		}
		for _, d := range op.IRequires {
			x.iafter[d] = append(x.iafter[d], int32(i))
			x.waitInit[i]++
		}
		if x.waitDone[i] == 0 && x.waitInit[i] == 0 {
			x.ready = append(x.ready, int32(i))
		}
	}
	heap.Init(&x.ready)
	return x
}

func (x *traceRun) release(list []int32, counts []int32) {
	for _, j := range list {
		if counts[j]--; counts[j] == 0 && x.waitDone[j] == 0 && x.waitInit[j] == 0 {
			heap.Push(&x.ready, j)
		}
	}
}

func (x *traceRun) started(i int32)   { x.release(x.iafter[i], x.waitInit) }
func (x *traceRun) completed(i int32) { x.done++; x.release(x.after[i], x.waitDone) }

func (r *Rank) runTrace(ops []trace.Op, tags map[int64]int) error {
	x := newTraceRun(ops)
	var sbytes, rbytes int64
	for _, op := range ops {
		switch op.Kind {
		case trace.Send:
			sbytes = max(sbytes, op.Bytes)
		case trace.Recv:
			rbytes = max(rbytes, op.Bytes)
		}
	}
	sbuf, err := r.Alloc(int(max(sbytes, 1)))
	if err != nil {
		return err
	}
	rbuf, err := r.Alloc(int(max(rbytes, 1)))
	if err != nil {
		return err
	}
	c := r.CommWorld()
	state := make([]uint8, len(ops)) // 0 not started, 1 posted, 2 done
	reqs := make([]*Request, len(ops))
	var pend []int32 // posted operations, in posting order
	for {
		for x.ready.Len() > 0 {
			i := heap.Pop(&x.ready).(int32)
			op := &ops[i]
			if op.Kind == trace.Calc {
				state[i] = 2
				x.started(i)
				r.Compute(op.Cycles)
				x.completed(i)
				continue
			}
			tag := AnyTag
			if op.Tag >= 0 {
				tag = tags[op.Tag]
			}
			var q *Request
			if op.Kind == trace.Send {
				q, err = r.Isend(sbuf, int(op.Bytes), datatype.Byte, int(op.Peer), tag, c)
			} else {
				src := int(op.Peer)
				if src < 0 {
					src = AnySource
				}
				q, err = r.Irecv(rbuf, int(op.Bytes), datatype.Byte, src, tag, c)
			}
			if err != nil {
				return err
			}
			reqs[i], state[i] = q, 1
			pend = append(pend, i)
			x.started(i)
		}
		if x.done == len(ops) {
			return nil
		}
		if len(pend) == 0 {
			return fmt.Errorf("schedule cannot finish: %d of %d operations never became ready (a dependency cycle)", len(ops)-x.done, len(ops))
		}
		// Wait for what the first operation that only waits for posted
		// ones needs, as the program's own wait did; else for any.
		target := int32(-1)
		for _, p := range pend {
			for _, j := range x.after[p] {
				if state[j] == 0 && x.waitInit[j] == 0 && (target < 0 || j < target) && onlyPosted(ops[j].Requires, state) {
					target = j
				}
			}
		}
		var need []int32
		if target >= 0 {
			for _, d := range ops[target].Requires {
				if state[d] == 1 {
					need = append(need, d)
				}
			}
		}
		// A recorded replay records its waits as the completions they
		// are, so the schedule it writes keeps the dependencies.
		r.recBegin()
		got, err := r.waitQuiet(pend, need, reqs)
		if r.rec != nil {
			qs := make([]*Request, len(got))
			for k, i := range got {
				qs[k] = reqs[i]
			}
			r.recJoin(qs...)
		}
		r.recEnd()
		if err != nil {
			return err
		}
		for _, i := range got {
			state[i] = 2
			x.completed(i)
		}
		pend = slices.DeleteFunc(pend, func(i int32) bool { return state[i] == 2 })
	}
}

func onlyPosted(deps []int32, state []uint8) bool {
	for _, d := range deps {
		if state[d] == 0 {
			return false
		}
	}
	return true
}

// waitQuiet waits, without charging a call, until every request of need
// has arrived (or, with need empty, any of pend), completes the arrived
// ones and returns their operations.
func (r *Rank) waitQuiet(pend, need []int32, reqs []*Request) ([]int32, error) {
	r.call = textCall(fmt.Sprintf("replaying a schedule: waiting for %d of %d posted operations", max(len(need), 1), len(pend)))
	r.wait(func() bool {
		if len(need) == 0 {
			return slices.ContainsFunc(pend, func(i int32) bool { return reqs[i].arrived() })
		}
		return !slices.ContainsFunc(need, func(i int32) bool { return !reqs[i].arrived() })
	})
	var got []int32
	var first error
	for _, i := range pend {
		if q := reqs[i]; q.arrived() {
			r.complete(q)
			got = append(got, i)
			if first == nil {
				first = q.err
			}
		}
	}
	return got, first
}
