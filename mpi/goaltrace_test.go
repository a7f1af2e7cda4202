package mpi

import (
	"bytes"
	"testing"

	"nocsim/logp/goal"
	"nocsim/mpi/datatype"
	"nocsim/mpi/trace"
)

// A recorded collective written as GOAL text and read back replays on the
// chip in exactly the recorded time: the text keeps every message, every
// computation and every dependency.
func TestRecordedScheduleThroughGoalText(t *testing.T) {
	for _, alg := range []string{"binomial", "scatter_allgather"} {
		cfg := DefaultConfig()
		cfg.SetAlgorithm("bcast", alg)
		w := job(t, 4, 4, cfg, nil)
		w.Record()
		w.Launch(func(r *Rank) {
			b := r.MustAlloc(3000)
			r.Compute(int64(50 * r.Rank()))
			r.Bcast(b, 3000, datatype.Byte, 0, r.CommWorld())
		})
		if err := w.Run(); err != nil {
			t.Fatal(err)
		}
		rec := w.M.Eng.Now()
		s, err := trace.ToGoal(w.Trace())
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		if err := goal.Write(&text, s); err != nil {
			t.Fatal(err)
		}
		back, err := goal.Read(&text)
		if err != nil {
			t.Fatalf("%s: the written schedule does not read back: %v", alg, err)
		}
		tr, err := trace.FromGoal(back)
		if err != nil {
			t.Fatal(err)
		}
		w2 := job(t, 4, 4, cfg, nil)
		if err := w2.LaunchTrace(tr); err != nil {
			t.Fatal(err)
		}
		if err := w2.Run(); err != nil {
			t.Fatalf("%s: replay: %v", alg, err)
		}
		if got := w2.M.Eng.Now(); got != rec {
			t.Errorf("%s: recorded %d cycles, replay through GOAL text %d", alg, rec, got)
		}
	}
}
