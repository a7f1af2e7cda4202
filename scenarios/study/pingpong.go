package study

import (
	"fmt"
	"io"

	"nocsim/config"
	"nocsim/des"
	"nocsim/endpoint/energy"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// PingPong is a ping-pong between two ranks over several message sizes.
type PingPong struct {
	From, To int
	Sizes    []int // bytes
	Reps     int   // measured round trips per size, after one warm-up
	Trace    io.Writer
	// Record, when set, gets the run's recorded communication.
	Record func(*mpi.World)
}

// Check validates the ping-pong and the scenario it runs on.
func (p *PingPong) Check(sc *scenarios.Scenario, src scenarios.Source) error {
	if err := sc.CheckMachine(src); err != nil {
		return err
	}
	tiles := sc.Machine().Tiles()
	procs := sc.MPI.Procs
	if procs == 0 {
		procs = tiles
	}
	bad := func(key string, v any, allowed string) error {
		return &config.KeyError{Key: key, Value: fmt.Sprint(v), Allowed: allowed}
	}
	switch {
	case p.From < 0 || p.From >= procs:
		return bad("from", p.From, fmt.Sprintf("a rank 0..%d", procs-1))
	case p.To < 0 || p.To >= procs || p.To == p.From:
		return bad("to", p.To, fmt.Sprintf("a rank 0..%d other than --from", procs-1))
	case len(p.Sizes) == 0:
		return bad("sizes", "[]", "one or more message sizes in bytes")
	case p.Reps < 1 || p.Reps > 1000:
		return bad("reps", p.Reps, "1..1000")
	}
	for _, s := range p.Sizes {
		if s < 0 || s > 1<<24 {
			return bad("sizes", s, "0..16777216 bytes")
		}
	}
	return p.checkMemory(sc, tiles, procs)
}

// Run performs the ping-pong: for each size one warm-up round trip, then
// Reps measured ones, all in one simulated program.
func (p *PingPong) Run(sc *scenarios.Scenario) ([]report.PingRow, *mpi.World, error) {
	w, err := sc.NewJob()
	if err != nil {
		return nil, nil, err
	}
	defer w.M.Close()
	if p.Trace != nil {
		w.EnableTrace()
	}
	biggest := 1
	for _, s := range p.Sizes {
		biggest = max(biggest, s)
	}
	rtt := make([]des.Time, len(p.Sizes))
	// Each size's measured round trips, priced: the chip's counters when
	// the first measured one starts and when the last ends, read at the
	// sender (the echo's tail has arrived there by then).
	priced := sc.EnergyOn()
	begin, end := make([]energy.Activity, len(p.Sizes)), make([]energy.Activity, len(p.Sizes))
	var snapErr error
	snap := func(into *energy.Activity) {
		if a, err := energy.SnapshotMachine(w.M); err != nil {
			snapErr = err
		} else {
			*into = a
		}
	}
	done := startRecording(w, p.Record)
	w.Launch(func(r *mpi.Rank) {
		if r.Rank() != p.From && r.Rank() != p.To {
			return
		}
		c := r.CommWorld()
		buf := r.MustAlloc(biggest)
		for i, n := range p.Sizes {
			for k := 0; k <= p.Reps; k++ {
				if priced && k == 1 && r.Rank() == p.From {
					snap(&begin[i])
				}
				start := r.Now()
				if r.Rank() == p.From {
					mustOK(r.Send(buf, n, datatype.Byte, p.To, i, c))
					_, err := r.Recv(buf, n, datatype.Byte, p.To, i, c)
					mustOK(err)
				} else {
					_, err := r.Recv(buf, n, datatype.Byte, p.From, i, c)
					mustOK(err)
					mustOK(r.Send(buf, n, datatype.Byte, p.From, i, c))
				}
				if k > 0 && r.Rank() == p.From {
					rtt[i] += r.Now() - start
				}
			}
			if priced && r.Rank() == p.From {
				snap(&end[i])
			}
		}
	})
	if err := w.Run(); err != nil {
		return nil, w, err
	}
	done()
	if snapErr != nil {
		return nil, w, snapErr
	}
	m := sc.Machine().Topology
	rows := make([]report.PingRow, len(p.Sizes))
	for i, n := range p.Sizes {
		rt := float64(rtt[i]) / float64(p.Reps)
		one := rt / 2
		rows[i] = report.PingRow{SizeBytes: n, Protocol: sc.MPI.Protocol, From: p.From, To: p.To, Hops: m.Hops(p.From, p.To),
			RoundTripCycles: rt, OneWayCycles: one, OneWaySeconds: one / sc.Node.ClockHz,
			BandwidthBytesPS: float64(n) / (one / sc.Node.ClockHz)}
		if priced {
			e, err := sc.WindowEnergy(begin[i], end[i])
			if err != nil {
				return nil, w, err
			}
			rows[i].Energy, rows[i].EnergyPerMessagePJ = e, e.TotalPJ/float64(2*p.Reps)
		}
	}
	if p.Trace != nil {
		if err := w.WriteTrace(p.Trace); err != nil {
			return nil, w, err
		}
	}
	return rows, w, nil
}

// mustOK turns an MPI error inside a benchmark program into a failed run
// (the panic is caught by the thread and reported with its rank).
func mustOK(err error) {
	if err != nil {
		panic(err)
	}
}
