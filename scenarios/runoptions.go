package scenarios

import (
	"errors"
	"runtime"
	"slices"
	"sync"

	"nocsim/mpi/chrome"
	"nocsim/mpi/trace"
)

// RunOptions controls how a sweep is run. Results never depend on them.
// It sits here, beside the configuration, because every package that runs
// points (study, thesis, sweep) takes it and none of them imports another.
type RunOptions struct {
	Workers  int                   // parallel points; 0 means GOMAXPROCS
	Progress func(done, total int) // called after each point, serialised
	// Record, when set, makes every flit-level MPI run record its
	// communication and hands the trace over with the point's name once
	// the point has run; it may be called from parallel workers.
	Record func(point string, t *trace.Trace)
	// Speed, when set, makes study.Run measure its speed from the
	// meter's start and write it into meta.json and Summary.Speed.
	Speed *SpeedMeter
	// Trace, when set, gets a Chrome trace of every flit-level MPI run,
	// one process per point in point order (coll, app, pingpong).
	Trace *chrome.TraceSet
	// Report makes study.Run write report.html, the directory as one
	// HTML page, beside the results (the main job always does).
	Report bool
}

// ForEach runs fn(0..n-1) on a pool of workers (opt.Workers, GOMAXPROCS
// when 0), reporting progress after each; the errors of all that failed
// are joined.
func ForEach(n int, opt RunOptions, fn func(i int) error) error {
	w := opt.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = min(w, n)
	next := make(chan int)
	var mu sync.Mutex
	var errs []error
	done := 0
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				err := fn(i)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				done++
				if opt.Progress != nil {
					opt.Progress(done, n)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(slices.Clip(errs)...)
}
