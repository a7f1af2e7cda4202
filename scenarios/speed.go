package scenarios

import (
	"fmt"
	"time"

	"nocsim/des"
	"nocsim/scenarios/report"
)

// Speed is how fast a whole command simulated, per second of the process's
// CPU time (user plus system, all threads). CPU time, not wall time: on a
// shared machine other processes inflate wall time many times over. The
// counts are kept so that the shards of a sweep can be added up. Speed
// depends on the machine, so it is written only where determinism
// comparisons leave it out (stderr, and meta.json's "speed" key, listed in
// MetaWallClockKeys).
type Speed struct {
	CPUSeconds            float64 `json:"cpu_seconds"`
	SimCycles             uint64  `json:"sim_cycles"` // simulated cycles, summed over the runs
	Events                uint64  `json:"events"`     // events handled plus ticker invocations
	FlitHops              uint64  `json:"flit_hops"`  // flit-router traversals; 0 when not counted
	SimCyclesPerCPUSecond float64 `json:"sim_cycles_per_cpu_second"`
	EventsPerCPUSecond    float64 `json:"events_per_cpu_second"`
	FlitHopsPerCPUSecond  float64 `json:"flit_hops_per_cpu_second,omitempty"` // network runs only
}

// SpeedMeter measures a command from the moment it is started.
type SpeedMeter struct {
	cpu   time.Duration
	ok    bool
	total des.Totals
}

// StartSpeed starts measuring: CPU time and simulated work from here on.
func StartSpeed() SpeedMeter {
	des.CountWork(true)
	cpu, ok := des.ProcessCPUTime()
	return SpeedMeter{cpu: cpu, ok: ok, total: des.ProcessTotals()}
}

// Speed is the work done since StartSpeed per CPU second; flitHops, when the
// run counted them (network runs), is added. ok is false where the platform
// has no process CPU time.
func (m SpeedMeter) Speed(flitHops uint64) (Speed, bool) {
	cpu, ok := des.ProcessCPUTime()
	if !ok || !m.ok {
		return Speed{}, false
	}
	t := des.ProcessTotals()
	return NewSpeed((cpu - m.cpu).Seconds(), t.Cycles-m.total.Cycles, t.Events-m.total.Events, flitHops), true
}

// NewSpeed derives the per-CPU-second figures from the counts.
func NewSpeed(cpuSeconds float64, cycles, events, flitHops uint64) Speed {
	return Speed{CPUSeconds: cpuSeconds, SimCycles: cycles, Events: events, FlitHops: flitHops,
		SimCyclesPerCPUSecond: report.PerSecond(float64(cycles), cpuSeconds),
		EventsPerCPUSecond:    report.PerSecond(float64(events), cpuSeconds),
		FlitHopsPerCPUSecond:  report.PerSecond(float64(flitHops), cpuSeconds)}
}

// Add is the speed of two measured pieces of one job (shards of a sweep).
func (s Speed) Add(o Speed) Speed {
	return NewSpeed(s.CPUSeconds+o.CPUSeconds, s.SimCycles+o.SimCycles, s.Events+o.Events, s.FlitHops+o.FlitHops)
}

// String is the one line printed on stderr at the end of a run.
func (s Speed) String() string {
	t := fmt.Sprintf("speed: %.2f CPU s, %d cycles, %s cycles/CPU s, %s events/CPU s", s.CPUSeconds, s.SimCycles,
		siText(s.SimCyclesPerCPUSecond), siText(s.EventsPerCPUSecond))
	if s.FlitHops > 0 {
		t += fmt.Sprintf(", %s flit-hops/CPU s", siText(s.FlitHopsPerCPUSecond))
	}
	return t
}

// siText writes a rate with three significant digits and an SI prefix:
// 38.5k, 3.92M.
func siText(v float64) string {
	for _, p := range []struct {
		scale  float64
		prefix string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= p.scale {
			return fmt.Sprintf("%.3g%s", v/p.scale, p.prefix)
		}
	}
	return fmt.Sprintf("%.3g", v)
}
