package trace

import "testing"

// TestTraceCheckRejects checks that schedules a run cannot execute are
// refused before it starts.
func TestTraceCheckRejects(t *testing.T) {
	for name, tr := range map[string]*Trace{
		"send to a missing rank": {Ranks: [][]Op{{{Kind: Send, Peer: 2}}, nil}},
		"self dependency":        {Ranks: [][]Op{{{Kind: Calc, Requires: []int32{0}}}, nil}},
		"negative bytes":         {Ranks: [][]Op{{{Kind: Recv, Peer: 1, Bytes: -1}}, nil}},
		"rank count":             {Ranks: [][]Op{nil}},
	} {
		if err := tr.Check(2); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
