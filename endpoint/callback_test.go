package endpoint

import (
	"slices"
	"testing"

	"nocsim/des"
)

// createThread with a callback, as thesis table 2.2 has it: the function
// runs on the destination with all the additional parameters, and only
// when it is done does the callback run, on the calling node, with none.
func TestCreateThreadCallback(t *testing.T) {
	m := newTestMachine(t, 3, 3, nil)
	var workAt, workEnd, cbAt des.Time
	var workArgs, cbArgs []uint32
	workNode, cbNode := -1, -1
	work := m.Register("work", func(th *Thread, a []uint32) {
		workAt, workNode, workArgs = th.Now(), th.Node().ID, slices.Clone(a)
		th.Compute(500)
		workEnd = th.Now()
	})
	cb := m.Register("callback", func(th *Thread, a []uint32) {
		cbAt, cbNode, cbArgs = th.Now(), th.Node().ID, slices.Clone(a)
		if err := th.Write(200, 1); err != nil {
			t.Error(err)
		}
	})
	m.Nodes[4].Start("main", func(th *Thread) {
		if err := th.CreateThreadCallback(8, work, cb, 11, 22, 33); err != nil {
			t.Error(err)
		}
		th.Poll(200, 1)
	})
	if err := m.Run(-1); err != nil {
		t.Fatal(err)
	}
	if workNode != 8 || !slices.Equal(workArgs, []uint32{11, 22, 33}) {
		t.Errorf("function ran on node %d with %v, want node 8 with [11 22 33]", workNode, workArgs)
	}
	if cbNode != 4 || len(cbArgs) != 0 {
		t.Errorf("callback ran on node %d with %v, want the caller (4) with no parameters", cbNode, cbArgs)
	}
	if !(workAt > 0 && workEnd == workAt+500 && cbAt > workEnd) {
		t.Errorf("function %d..%d, callback at %d: want the callback after the function is done", workAt, workEnd, cbAt)
	}
	if err := m.CheckQuiescent(); err != nil {
		t.Fatal(err)
	}
}

func TestCreateThreadCallbackUnknownHandler(t *testing.T) {
	m := newTestMachine(t, 2, 1, nil)
	ok := m.Register("ok", func(*Thread, []uint32) {})
	m.Nodes[0].Start("main", func(th *Thread) {
		if err := th.CreateThreadCallback(1, ok, 999); err == nil {
			t.Error("callback 999 accepted")
		}
		if err := th.CreateThreadCallback(1, 999, ok); err == nil {
			t.Error("function 999 accepted")
		}
	})
	if err := m.Run(-1); err != nil {
		t.Fatal(err)
	}
}
