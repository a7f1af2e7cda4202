package trace

import (
	"fmt"

	"nocsim/logp/goal"
)

// A recorded run's communication and a GOAL schedule (logp/goal, the
// LogGOPS tier's input) hold the same thing: per rank its sends, receives
// and computation with their dependencies. These convert one to the other,
// so that a run recorded here can be written as GOAL text or predicted on
// the tier, and any GOAL schedule can run on the chip.

// ToGoal writes a recorded run's communication as a GOAL schedule:
// one rank per MPI rank, its sends, receives and computation (cycles) with
// the recorded dependencies. Recorded tags carry the communicator context
// and do not fit GOAL's 32 bits, so they are numbered densely in increasing
// order, which keeps which messages may match which.
func ToGoal(t *Trace) (*goal.Schedule, error) {
	n := 0
	for _, ops := range t.Ranks {
		n += len(ops)
	}
	b := goal.NewBuilder(len(t.Ranks), n)
	tags := t.DenseTags()
	for r, ops := range t.Ranks {
		for _, op := range ops {
			tag := goal.AnyTag
			if op.Tag >= 0 {
				tag = tags[op.Tag]
			}
			switch op.Kind {
			case Send:
				b.AddSend(r, int(op.Peer), uint64(op.Bytes), tag)
			case Recv:
				b.AddRecv(r, int(op.Peer), uint64(op.Bytes), tag)
			case Calc:
				b.AddCalc(r, uint64(op.Cycles))
			default:
				return nil, fmt.Errorf("rank %d: recorded operation of unknown kind %d", r, op.Kind)
			}
		}
		for i, op := range ops {
			for _, d := range op.Requires {
				b.Require(r, int32(i), d)
			}
			for _, d := range op.IRequires {
				b.IRequire(r, int32(i), d)
			}
		}
	}
	return b.Schedule()
}

// FromGoal turns a GOAL schedule into operations the flit-level MPI
// layer can execute (mpi.World.LaunchTrace). A tile has one processor and
// one NIU, so the cpu and nic indices a schedule may name all map to them.
func FromGoal(s *goal.Schedule) (*Trace, error) {
	t := &Trace{Ranks: make([][]Op, s.NumRanks())}
	for r := range s.NumRanks() {
		out := make([]Op, s.Len(r))
		for i, op := range s.Ops(r) {
			o := Op{Peer: op.Peer, Tag: int64(op.Tag)}
			switch op.Kind {
			case goal.Send:
				o.Kind = Send
			case goal.Recv:
				o.Kind = Recv
			case goal.Calc:
				o.Kind, o.Peer, o.Tag = Calc, 0, 0
				if op.Time > 1<<62 {
					return nil, fmt.Errorf("rank %d op %d: calc %d cycles: allowed at most 2^62", r, i, op.Time)
				}
				o.Cycles = int64(op.Time)
			default:
				return nil, fmt.Errorf("rank %d op %d: unknown kind %v", r, i, op.Kind)
			}
			if op.Kind != goal.Calc {
				if op.Bytes > 1<<31-1 {
					return nil, fmt.Errorf("rank %d op %d: %d bytes: allowed at most %d per message on the chip", r, i, op.Bytes, 1<<31-1)
				}
				o.Bytes = int64(op.Bytes)
			}
			if op.Kind == goal.Send && op.Tag < 0 {
				// GOAL lets a send carry the wildcard; an MPI send needs a
				// tag, and -1 cannot collide with a real one once mapped.
				o.Tag = 1<<62 - 1
			}
			o.Requires = append([]int32(nil), s.Requires(r, i)...)
			o.IRequires = append([]int32(nil), s.IRequires(r, i)...)
			out[i] = o
		}
		t.Ranks[r] = out
	}
	return t, nil
}
