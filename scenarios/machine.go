package scenarios

import (
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/scenarios/apps"
)

// A scenario is the machine the application kernels run on.
var _ apps.Machine = (*Scenario)(nil)

// CheckMachine validates the sections a run on the simulated chip needs: [network],
// [node] and [mpi], and the [noc] keys' own ranges (its watchdog guards
// every run).
func (sc *Scenario) CheckMachine(src Source) error {
	m, err := ParseMesh(sc.Network.Mesh)
	if err != nil {
		return Explain(err, src)
	}
	if _, err := sc.Network.Topology(); err != nil {
		return Explain(err, src)
	}
	if err := sc.Network.checkPreset(); err != nil {
		return Explain(err, src)
	}
	for _, v := range []interface{ Validate() error }{sc.Network.RouterSpec, sc.Network.NodeSpec, sc.Node} {
		if err := v.Validate(); err != nil {
			return Explain(err, src)
		}
	}
	if err := sc.MPI.Validate(m.Nodes(), sc.Network.QueueFlits); err != nil {
		return Explain(err, src)
	}
	return sc.checkNocKeys(src)
}

// CheckTiles validates the sections a program run needs (CheckMachine,
// keys named without a file) and returns the tiles and the mesh as
// written, for the kernels' own checks.
func (sc *Scenario) CheckTiles() (int, string, error) {
	if err := sc.CheckMachine(nil); err != nil {
		return 0, "", err
	}
	return sc.Tiles(), sc.Network.Mesh, nil
}

// Tiles is the number of tiles (W*H) of a checked scenario's network: the
// one place the workloads read it from, instead of re-parsing the mesh.
func (sc *Scenario) Tiles() int {
	m, _ := ParseMesh(sc.Network.Mesh)
	return m.Nodes()
}

// Net is a checked scenario's network, built from its [network] keys.
func (sc *Scenario) Net() mesh.Topology {
	t, _ := sc.Network.Topology()
	return t
}

// CPU is the [node] section: the processor's costs on every chip built.
func (sc *Scenario) CPU() endpoint.CPUSpec { return sc.Node }

// NewMachine builds a fresh chip from a validated scenario, for native
// SCMP programs (and under every MPI job).
func (sc *Scenario) NewMachine() *endpoint.Machine {
	t := sc.Net()
	eng := des.New()
	eng.SetWatchdog(des.Time(sc.Noc.WatchdogCycles), nil)
	return endpoint.NewMachine(eng, t, sc.Network.RouterSpec, sc.Network.NodeSpec, sc.Node)
}

// NewJob builds a fresh machine and MPI job from a validated scenario.
func (sc *Scenario) NewJob() (*mpi.World, error) {
	return mpi.NewWorld(sc.NewMachine(), sc.MPI)
}

// NewWorld builds a fresh machine and an MPI job of procs ranks on it.
func (sc *Scenario) NewWorld(procs int) (*mpi.World, error) {
	s := *sc
	s.MPI.Procs = procs
	return s.NewJob()
}
