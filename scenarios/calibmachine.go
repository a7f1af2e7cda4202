package scenarios

import (
	"fmt"
	"nocsim/calibrate"
	"nocsim/logp"
	"nocsim/mesh"
)

// WorldFactory builds fresh jobs of procs ranks from the scenario, for the
// microbenchmarks.
func (sc *Scenario) WorldFactory() calibrate.NewWorld {
	return sc.NewWorld
}

// FitOptions describes the machine to a simulator calibration's fit: the
// job's ranks and protocol, the clock, the mean hops, the mesh and what the
// handshake costs.
func (sc *Scenario) FitOptions() calibrate.Options {
	m := sc.Machine().Topology
	procs := sc.MPI.Procs
	if procs == 0 {
		procs = m.Nodes()
	}
	hops := 0.0
	for s := 0; s < procs; s++ {
		for d := 0; d < procs; d++ {
			hops += float64(m.Hops(s, d))
		}
	}
	return calibrate.Options{P: procs, Protocol: sc.MPI.Protocol, ClockHz: sc.Node.ClockHz,
		AvgHops: hops / float64(procs*procs), Source: logp.SourceSimulator, Mesh: fittedMesh(m),
		Machine: calibrate.Machine{
			Word: 4, // the DMA engine moves whole words; other sizes are copied
			// Under scmp the clear-to-send is a thread on the sender; on a
			// cooperative processor it waits until the program does, which
			// the handshake's legs model (with preempt_threads it runs at
			// once and LogGOPSim's rendezvous fits within 1.5%).
			Handshake: sc.MPI.Protocol == "scmp" && !sc.Node.PreemptThreads, Cooperative: !sc.Node.PreemptThreads}}
}

// AvgHops is the mean hop count between the ranks of the scenario's MPI
// job (every tile when [mpi] procs is 0), as a simulator calibration
// records it.
func (sc *Scenario) AvgHops() float64 { return sc.FitOptions().AvgHops }

// ParamsAgainstRun compares parameters with the machine a run simulates:
// a protocol that differs is an error (the model would describe another
// protocol's costs); a mesh that differs, or provenance the file does not
// record, gives a warning. Parameters without a mesh (a CSV fit) get the
// run's average hop count for predictions that do not name the pair.
func (sc *Scenario) ParamsAgainstRun(p *logp.Params) (warnings []string, err error) {
	run := sc.FitOptions()
	switch {
	case !p.HasProvenance():
		warnings = append(warnings, fmt.Sprintf("the parameters' provenance is unknown (source %q, no mesh or sizes: written by an older nocsim); recalibrate to have it checked against this run", p.Source))
	case p.Protocol != "" && p.Protocol != run.Protocol:
		return nil, fmt.Errorf("fitted to protocol %q (%s %s mesh), but the run's [mpi] protocol is %q: allowed parameters of the run's protocol (calibrate with --protocol %s, or run with --protocol %s)", p.Protocol, p.Source, p.Mesh, run.Protocol, run.Protocol, p.Protocol)
	case p.Protocol == "":
		warnings = append(warnings, fmt.Sprintf("the parameters (%s) do not say which protocol they describe; assuming the run's %q", p.Source, run.Protocol))
	}
	if p.Mesh != "" && p.Mesh != run.Mesh {
		warnings = append(warnings, fmt.Sprintf("the parameters were fitted on a %s mesh (avg_hops %.3g), the run is on %s (avg_hops %.3g): predictions use the file's parameters", p.Mesh, p.AvgHops, run.Mesh, run.AvgHops))
	}
	for _, g := range p.Segments {
		if g.Handshake && p.Cooperative == sc.Node.PreemptThreads {
			warnings = append(warnings, fmt.Sprintf("the parameters' handshake was fitted with cooperative = %v, but the run's preempt_threads = %v: the tier still holds clear-to-sends as the file says; recalibrate on the run's machine", p.Cooperative, sc.Node.PreemptThreads))
			break
		}
	}
	if p.HasProvenance() && p.Mesh == "" {
		p.AvgHops = run.AvgHops
		warnings = append(warnings, fmt.Sprintf("the parameters (%s) carry no mesh: predictions use this run's average of %.3g hops", p.Source, run.AvgHops))
	}
	return warnings, nil
}

// fittedMesh is the mesh a simulator calibration records, "WxH", which
// TierParamsFor reads back to place ranks with hop-aware latency. On a
// torus, ring or bus it records none, so that the hops are not taken for
// a mesh's (a torus's wrap-around makes them shorter): the parameters
// then use the fit's average hop count.
func fittedMesh(t mesh.Topology) string {
	if m, ok := t.(mesh.Mesh); ok {
		return fmt.Sprintf("%dx%d", m.W, m.H)
	}
	return ""
}
