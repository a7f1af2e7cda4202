package trace

import (
	"fmt"
	"slices"
)

// Check verifies that the trace fits procs ranks and that its dependencies
// point at operations of the same rank.
func (t *Trace) Check(procs int) error {
	if len(t.Ranks) != procs {
		return fmt.Errorf("schedule has %d ranks, the run has %d", len(t.Ranks), procs)
	}
	for r, ops := range t.Ranks {
		for i, op := range ops {
			switch {
			case op.Kind > Calc:
				return fmt.Errorf("rank %d op %d: unknown kind %d", r, i, op.Kind)
			case op.Kind == Send && (op.Peer < 0 || int(op.Peer) >= procs):
				return fmt.Errorf("rank %d op %d: send to rank %d: allowed 0..%d", r, i, op.Peer, procs-1)
			case op.Kind == Recv && (op.Peer < -1 || int(op.Peer) >= procs):
				return fmt.Errorf("rank %d op %d: receive from rank %d: allowed -1 (any) or 0..%d", r, i, op.Peer, procs-1)
			case op.Kind != Calc && (op.Bytes < 0 || op.Bytes > 1<<31-1):
				return fmt.Errorf("rank %d op %d: %d bytes: allowed 0..%d", r, i, op.Bytes, 1<<31-1)
			case op.Kind == Calc && op.Cycles < 0:
				return fmt.Errorf("rank %d op %d: calc %d cycles: allowed >= 0", r, i, op.Cycles)
			}
			for _, d := range slices.Concat(op.Requires, op.IRequires) {
				if d < 0 || int(d) >= len(ops) || int(d) == i {
					return fmt.Errorf("rank %d op %d: depends on op %d: allowed another op of the rank (0..%d)", r, i, d, len(ops)-1)
				}
			}
		}
	}
	return nil
}

// DenseTags numbers the trace's distinct tags 0, 1, ... in increasing
// order (wildcards stay -1 and are left out), for formats and calls whose
// tags are narrower than a recorded context-qualified tag.
func (t *Trace) DenseTags() map[int64]int {
	var all []int64
	for _, ops := range t.Ranks {
		for _, op := range ops {
			if op.Kind != Calc && op.Tag >= 0 {
				all = append(all, op.Tag)
			}
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	m := make(map[int64]int, len(all))
	for i, v := range all {
		m[v] = i
	}
	return m
}
