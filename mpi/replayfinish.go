package mpi

import (
	"fmt"

	"nocsim/des"
	"nocsim/mpi/trace"
)

// LaunchTraceFinish is LaunchTrace that also reports when each rank ends
// its schedule: after Run, finish[r] is the cycle rank r's last operation
// completed (its program's end), for comparing ranks with a model.
func (w *World) LaunchTraceFinish(t *trace.Trace) (finish []des.Time, err error) {
	if err := t.Check(len(w.Ranks)); err != nil {
		return nil, err
	}
	tags := t.DenseTags()
	finish = make([]des.Time, len(w.Ranks))
	w.Launch(func(r *Rank) {
		if err := r.runTrace(t.Ranks[r.rank], tags); err != nil {
			w.fail(fmt.Errorf("rank %d: %w", r.rank, err))
		}
		finish[r.rank] = r.Now()
	})
	return finish, nil
}
