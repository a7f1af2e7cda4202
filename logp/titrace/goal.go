package titrace

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"nocsim/logp/collgen"
	"nocsim/logp/goal"
)

// Options say how actions become GOAL operations.
type Options struct {
	// FlopsPerCycle converts compute amounts (flops) to cycles: a calc of
	// ceil(flops/FlopsPerCycle). 0 leaves compute out (communication
	// only).
	FlopsPerCycle float64
	// Algs names the algorithm of each collective op (collgen's op names:
	// barrier, bcast, reduce, allreduce, alltoall, gather, scatter,
	// allgather); ops not named take DefaultAlgs'.
	Algs map[string]string
	// Coll are collgen's options (the root and tag are the trace's).
	Coll collgen.Options
}

// DefaultAlgs are the algorithms collectives are expanded with unless
// Options.Algs names others.
var DefaultAlgs = map[string]string{
	"barrier": "dissemination", "bcast": "binomial", "reduce": "binomial", "allreduce": "recursive_doubling",
	"alltoall": "pairwise", "gather": "binomial", "scatter": "binomial", "allgather": "ring",
}

// collOp is collgen's name of a collective action.
func collOp(k Kind) string { return k.String() }

// collTagBase is the first collective tag: the trace's own tags are below
// it (Read refuses larger ones), and the k-th collective call of the run
// tags its messages collTagBase+k, so consecutive collectives never match
// each other's messages.
const collTagBase = 1 << 30

// RankCounts are one rank's figures: the trace's point-to-point messages
// (as recorded) and collective calls, and the schedule's sends in all
// (point-to-point and the collectives' expansion).
type RankCounts struct {
	Rank           int    `json:"rank"`
	SentMsgs       int    `json:"p2p_sent_msgs"`
	SentBytes      uint64 `json:"p2p_sent_bytes"`
	RecvMsgs       int    `json:"p2p_recv_msgs"`
	RecvBytes      uint64 `json:"p2p_recv_bytes"`
	Collectives    int    `json:"collective_calls"`
	ComputeCycles  uint64 `json:"compute_cycles"`
	ScheduleSends  int    `json:"schedule_sends"`
	ScheduleSendsB uint64 `json:"schedule_sent_bytes"`
}

// Counts tallies a trace per rank (the recording's figures, before any
// simulation).
func (t *Trace) Counts() []RankCounts {
	out := make([]RankCounts, len(t.Ranks))
	for r, acts := range t.Ranks {
		c := &out[r]
		c.Rank = r
		for _, a := range acts {
			switch {
			case a.Kind == Send || a.Kind == Isend:
				c.SentMsgs++
				c.SentBytes += a.Bytes
			case a.Kind == Recv || a.Kind == Irecv:
				c.RecvMsgs++
				c.RecvBytes += a.Bytes
			case a.Kind.Collective():
				c.Collectives++
			}
		}
	}
	return out
}

type request struct {
	send     bool
	peer     int
	tag      int
	op       int32
	file     string
	line     int
	finished bool
}

// check is what ToGoal refuses before building: ranks without actions,
// peers outside the run, collectives that do not match across ranks.
func (t *Trace) check() error {
	n := len(t.Ranks)
	if n == 0 {
		return fmt.Errorf("the trace has no actions")
	}
	var colls [][]Action
	for r, acts := range t.Ranks {
		if len(acts) == 0 {
			return fmt.Errorf("rank %d has no actions (the trace names ranks up to %d): allowed ranks 0..%d each with its actions", r, n-1, n-1)
		}
		var mine []Action
		for _, a := range acts {
			switch a.Kind {
			case Send, Isend, Recv, Irecv, Wait:
				if a.Peer >= n || a.Peer == r {
					return &SyntaxError{a.File, a.Line, fmt.Sprintf("%s: peer %d: allowed another rank of 0..%d", a.Kind, a.Peer, n-1)}
				}
			}
			if a.Kind.Collective() {
				if a.Root >= n {
					return &SyntaxError{a.File, a.Line, fmt.Sprintf("%s: root %d: allowed 0..%d", a.Kind, a.Root, n-1)}
				}
				mine = append(mine, a)
			}
		}
		colls = append(colls, mine)
	}
	for r := 1; r < n; r++ {
		if len(colls[r]) != len(colls[0]) {
			a := t.Ranks[r][len(t.Ranks[r])-1]
			return &SyntaxError{a.File, a.Line, fmt.Sprintf("rank %d makes %d collective calls, rank 0 %d: allowed the same calls on every rank", r, len(colls[r]), len(colls[0]))}
		}
		for k, a := range colls[r] {
			b := colls[0][k]
			if a.Kind != b.Kind || a.Bytes != b.Bytes || a.Root != b.Root || a.Elem != b.Elem {
				return &SyntaxError{a.File, a.Line, fmt.Sprintf("collective call %d is %s of %d bytes root %d, rank 0's (%s:%d) %s of %d bytes root %d: allowed the same call on every rank",
					k+1, a.Kind, a.Bytes, a.Root, b.File, b.Line, b.Kind, b.Bytes, b.Root)}
			}
		}
	}
	return nil
}

// ToGoal builds the GOAL schedule of the trace: rank r of the trace is
// rank r of the schedule. Each rank's actions run in order: a blocking
// send, receive or compute waits for what came before it, a non-blocking
// send or receive is posted after it and completed by the wait (or
// waitall) that names it, and a collective's messages, from collgen's
// expansion with the chosen algorithm, start once the rank's earlier
// blocking actions and waits are done and end it before the next action.
func ToGoal(t *Trace, opt Options) (*goal.Schedule, []RankCounts, error) {
	if err := t.check(); err != nil {
		return nil, nil, err
	}
	n := len(t.Ranks)
	if opt.Coll.ElemBytes == 0 {
		opt.Coll = collgen.DefaultOptions()
	}
	gens := map[string]*goal.Schedule{}
	counts := t.Counts()
	b := goal.NewBuilder(n, t.NumActions())
	var pending []request
	var cursor []int32
	for r, acts := range t.Ranks {
		pending, cursor = pending[:0], cursor[:0]
		after := func(i int32) {
			for _, c := range cursor {
				b.Require(r, i, c)
			}
		}
		k := 0 // collective calls so far
		for _, a := range acts {
			switch a.Kind {
			case Init, Finalize, CommSize:
			case Compute:
				if opt.FlopsPerCycle <= 0 {
					continue
				}
				cyc := uint64(math.Ceil(a.Flops / opt.FlopsPerCycle))
				if cyc == 0 {
					continue
				}
				i := b.AddCalc(r, cyc)
				after(i)
				cursor = append(cursor[:0], i)
				counts[r].ComputeCycles += cyc
			case Send, Recv:
				i := addP2P(b, r, a)
				after(i)
				cursor = append(cursor[:0], i)
			case Isend, Irecv:
				i := addP2P(b, r, a)
				after(i)
				pending = append(pending, request{send: a.Kind == Isend, peer: a.Peer, tag: a.Tag, op: i, file: a.File, line: a.Line})
			case Wait:
				j := slices.IndexFunc(pending, func(q request) bool {
					return !q.finished && q.send == a.WaitSend && q.peer == a.Peer && q.tag == a.Tag
				})
				if j < 0 {
					what := "irecv from"
					if a.WaitSend {
						what = "isend to"
					}
					return nil, nil, &SyntaxError{a.File, a.Line, fmt.Sprintf("wait: no pending %s %d tag %d on rank %d: allowed a wait for a request posted before it", what, a.Peer, a.Tag, r)}
				}
				pending[j].finished = true
				cursor = append(cursor, pending[j].op)
			case WaitAll:
				for j := range pending {
					if !pending[j].finished {
						pending[j].finished = true
						cursor = append(cursor, pending[j].op)
					}
				}
			default: // a collective
				op := collOp(a.Kind)
				alg := opt.Algs[op]
				if alg == "" {
					alg = DefaultAlgs[op]
				}
				bytes := int64(a.Bytes)
				if a.Kind == Barrier {
					bytes = 0
				}
				key := fmt.Sprint(op, alg, bytes, a.Root, a.Elem)
				g := gens[key]
				if g == nil {
					co := opt.Coll
					co.Root, co.Tag = 0, 0
					if collgen.Rooted(op) {
						co.Root = a.Root
					}
					if collgen.IsReduction(op) {
						co.ElemBytes = a.Elem
					}
					var err error
					if g, err = collgen.Generate(op, alg, n, bytes, co); err != nil {
						return nil, nil, &SyntaxError{a.File, a.Line, fmt.Sprintf("%s with algorithm %s on %d ranks: %v", op, alg, n, strings.TrimPrefix(err.Error(), "collgen: "))}
					}
					gens[key] = g
				}
				if err := splice(b, r, g, collTagBase+k, cursor); err != nil {
					return nil, nil, &SyntaxError{a.File, a.Line, err.Error()}
				}
				k++
				// The next action waits for all of this rank's part.
				first := int32(b.Len(r) - g.Len(r))
				cursor = cursor[:0]
				for i := first; i < int32(b.Len(r)); i++ {
					cursor = append(cursor, i)
				}
				if len(cursor) > 1 {
					j := b.AddCalc(r, 0)
					after(j)
					cursor = append(cursor[:0], j)
				}
				if opt.FlopsPerCycle > 0 && a.Flops > 0 {
					cyc := uint64(math.Ceil(a.Flops / opt.FlopsPerCycle))
					i := b.AddCalc(r, cyc)
					after(i)
					cursor = append(cursor[:0], i)
					counts[r].ComputeCycles += cyc
				}
			}
		}
	}
	s, err := b.Schedule()
	if err != nil {
		return nil, nil, err
	}
	for r := range n {
		for _, op := range s.Ops(r) {
			if op.Kind == goal.Send {
				counts[r].ScheduleSends++
				counts[r].ScheduleSendsB += op.Bytes
			}
		}
	}
	return s, counts, nil
}

func addP2P(b *goal.Builder, r int, a Action) int32 {
	if a.Kind == Send || a.Kind == Isend {
		return b.AddSend(r, a.Peer, a.Bytes, a.Tag)
	}
	return b.AddRecv(r, a.Peer, a.Bytes, a.Tag)
}

// splice appends rank r's part of the collective's schedule g to b, its
// messages tagged tag, its first operations after cursor.
func splice(b *goal.Builder, r int, g *goal.Schedule, tag int, cursor []int32) error {
	base := int32(b.Len(r))
	for i, op := range g.Ops(r) {
		if (op.Kind == goal.Send || op.Kind == goal.Recv) && op.Tag != goal.AnyTag {
			op.Tag = int32(tag)
		}
		j := b.Add(r, op)
		req, ireq := g.Requires(r, i), g.IRequires(r, i)
		for _, d := range req {
			b.Require(r, j, base+d)
		}
		for _, d := range ireq {
			b.IRequire(r, j, base+d)
		}
		if len(req) == 0 && len(ireq) == 0 {
			for _, c := range cursor {
				b.Require(r, j, c)
			}
		}
	}
	return b.Err()
}
