package calibrate

import (
	"fmt"
	"slices"

	"nocsim/des"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// FanoutCompute is the root's computation between its Isends and its
// Waitall in the fan-out benchmark, cycles: long enough for every
// clear-to-send to be back at the root before it waits, on any mesh the
// simulator builds (a round trip across 30 hops is about 1,000 cycles).
const FanoutCompute = 5000

// RunFanout measures the fan-out benchmark (KindFanout) for each size:
// root Isends one message to each of the ranks to (distinct, all hops
// away, so that the data legs differ only in when they leave), computes
// FanoutCompute cycles and waits for all; each receiver posted its
// receive first. The measurement is the mean spacing of the receives'
// completions, in the order sent: on a processor that runs the
// clear-to-sends one after another once the root waits, the larger of
// their handler's time and the NIC's time per data leg. Median of reps.
func RunFanout(nw NewWorld, root int, to []int, hops int, sizes []int, reps int) ([]Measurement, error) {
	switch {
	case len(to) < 2:
		return nil, fmt.Errorf("calibrate: fan-out to %d rank(s): need at least two", len(to))
	case reps < 1:
		return nil, fmt.Errorf("calibrate: reps = %d: allowed >= 1", reps)
	case hops < 0:
		return nil, fmt.Errorf("calibrate: hops = %d: allowed >= 0", hops)
	case root < 0 || slices.Contains(to, root) || slices.Min(to) < 0:
		return nil, fmt.Errorf("calibrate: fan-out from rank %d to %v: need distinct ranks >= 0 other than the root", root, to)
	}
	seen := map[int]bool{}
	for _, r := range to {
		if seen[r] {
			return nil, fmt.Errorf("calibrate: fan-out to %v: rank %d twice", to, r)
		}
		seen[r] = true
	}
	var out []Measurement
	for _, m := range sizes {
		if m < 0 {
			return nil, fmt.Errorf("calibrate: message size %d bytes: allowed >= 0", m)
		}
		sp, err := fanoutSize(nw, root, to, m, reps)
		if err != nil {
			return nil, fmt.Errorf("calibrate: fan-out, %d bytes: %w", m, err)
		}
		out = append(out, Measurement{Kind: KindFanout, Bytes: m, Hops: hops, N: len(to), Delay: FanoutCompute, Cycles: medianOf(sp)})
	}
	return out, nil
}

// fanoutSize runs reps fan-outs of m bytes and returns, per repetition,
// the mean spacing (last completion - first) / (n - 1), in cycles.
func fanoutSize(nw NewWorld, root int, to []int, m, reps int) ([]float64, error) {
	w, err := nw(max(root, slices.Max(to)) + 1)
	if err != nil {
		return nil, err
	}
	defer w.M.Close()
	done := make([][]des.Time, reps) // per repetition, each receiver's completion
	for i := range done {
		done[i] = make([]des.Time, len(to))
	}
	var firstErr error
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	w.Launch(func(r *mpi.Rank) {
		c := r.CommWorld()
		buf := r.MustAlloc(max(m, 1))
		me := slices.Index(to, r.Rank())
		for rep := range reps {
			switch {
			case r.Rank() == root:
				for _, d := range to { // every receiver has posted its receive
					if _, err := r.Recv(buf, 0, datatype.Byte, d, tagSync, c); err != nil {
						fail(err)
						return
					}
				}
				qs := make([]*mpi.Request, len(to))
				for i, d := range to {
					q, err := r.Isend(buf, m, datatype.Byte, d, tagFanout, c)
					if err != nil {
						fail(err)
						return
					}
					qs[i] = q
				}
				r.Compute(FanoutCompute)
				if _, err := r.Waitall(qs); err != nil {
					fail(err)
					return
				}
			case me >= 0:
				q, err := r.Irecv(buf, m, datatype.Byte, root, tagFanout, c)
				if err == nil {
					err = r.Send(buf, 0, datatype.Byte, root, tagSync, c)
				}
				if err == nil {
					_, err = r.Wait(q)
				}
				if err != nil {
					fail(err)
					return
				}
				done[rep][me] = r.Now()
			}
		}
	})
	runErr := w.Run()
	if firstErr != nil {
		return nil, firstErr
	}
	if runErr != nil {
		return nil, runErr
	}
	sp := make([]float64, reps)
	for i, d := range done {
		sp[i] = float64(d[len(d)-1]-d[0]) / float64(len(d)-1)
	}
	return sp, nil
}
