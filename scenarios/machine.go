package scenarios

import (
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi"
)

// checkMachine validates the sections a program run needs: [network],
// [node] and [mpi], and the [noc] keys' own ranges (its watchdog guards
// every run).
func (sc *Scenario) checkMachine(src Source) error {
	m, err := ParseMesh(sc.Network.Mesh)
	if err != nil {
		return explain(err, src)
	}
	if _, err := sc.Network.Topology(); err != nil {
		return explain(err, src)
	}
	if err := sc.Network.checkPreset(); err != nil {
		return explain(err, src)
	}
	for _, v := range []interface{ Validate() error }{sc.Network.RouterSpec, sc.Network.NodeSpec, sc.Node} {
		if err := v.Validate(); err != nil {
			return explain(err, src)
		}
	}
	if err := sc.MPI.Validate(m.Nodes(), sc.Network.QueueFlits); err != nil {
		return explain(err, src)
	}
	return sc.checkNocKeys(src)
}

// newMachine builds a fresh chip from a validated scenario, for native
// SCMP programs (and under every MPI job).
func (sc *Scenario) newMachine() *endpoint.Machine {
	t, _ := sc.Network.Topology()
	eng := des.New()
	eng.SetWatchdog(des.Time(sc.Noc.WatchdogCycles), nil)
	return endpoint.NewMachine(eng, t, sc.Network.RouterSpec, sc.Network.NodeSpec, sc.Node)
}

// newWorld builds a fresh machine and MPI job from a validated scenario.
func (sc *Scenario) newWorld() (*mpi.World, error) {
	return mpi.NewWorld(sc.newMachine(), sc.MPI)
}
