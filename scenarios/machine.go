package scenarios

import (
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/router"
	"nocsim/scenarios/apps"
)

// A scenario is the machine the application kernels run on.
var _ apps.Machine = (*Scenario)(nil)

// CheckMachine validates the sections a run on the simulated chip needs:
// [network], [node] and [mpi], the [energy] keys, and the [noc] keys' own
// ranges (its watchdog guards every run).
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
	if err := sc.checkEnergy(src); err != nil {
		return err
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
	return sc.Machine().Tiles(), sc.Network.Mesh, nil
}

// Machine is the chip and the MPI job a checked scenario describes, built
// once by Scenario.Machine from its [network], [node], [mpi] and watchdog
// keys: a runner reads the tiles and the network from it instead of
// parsing the mesh key again at every use.
type Machine struct {
	Mesh     mesh.Mesh     // the tiles, W x H
	Topology mesh.Topology // the network over them
	Router   router.Spec
	NIU      endpoint.Spec
	CPU      endpoint.CPUSpec
	MPI      mpi.Config
	Watchdog des.Time // cycles without progress before a run is stopped
}

// Machine builds the machine of a scenario whose machine passed
// CheckMachine.
func (sc *Scenario) Machine() Machine {
	m, _ := ParseMesh(sc.Network.Mesh)
	t, _ := sc.Network.Topology()
	return Machine{Mesh: m, Topology: t, Router: sc.Network.RouterSpec, NIU: sc.Network.NodeSpec, CPU: sc.Node, MPI: sc.MPI,
		Watchdog: des.Time(sc.Noc.WatchdogCycles)}
}

// Tiles is the number of tiles (W*H).
func (m Machine) Tiles() int { return m.Mesh.Nodes() }

// NewChip builds a fresh chip, for native SCMP programs (and under every
// MPI job).
func (m Machine) NewChip() *endpoint.Machine {
	eng := des.New()
	eng.SetWatchdog(m.Watchdog, nil)
	return endpoint.NewMachine(eng, m.Topology, m.Router, m.NIU, m.CPU)
}

// NewJob builds a fresh chip and the MPI job m.MPI on it.
func (m Machine) NewJob() (*mpi.World, error) { return mpi.NewWorld(m.NewChip(), m.MPI) }

// CPU is the [node] section: the processor's costs on every chip built.
func (sc *Scenario) CPU() endpoint.CPUSpec { return sc.Node }

// NewMachine builds a fresh chip from a validated scenario (apps.Machine).
func (sc *Scenario) NewMachine() *endpoint.Machine { return sc.Machine().NewChip() }

// NewJob builds a fresh chip and the scenario's MPI job on it.
func (sc *Scenario) NewJob() (*mpi.World, error) { return sc.Machine().NewJob() }

// NewWorld builds a fresh chip and an MPI job of procs ranks on it
// (apps.Machine).
func (sc *Scenario) NewWorld(procs int) (*mpi.World, error) {
	m := sc.Machine()
	m.MPI.Procs = procs
	return m.NewJob()
}

// Ranks is the scenario's rank count: [mpi] procs, else every tile; false
// when the mesh does not parse (CheckMachine says why). Commands derive
// their defaults from it (pairs' pair counts, pingpong's far rank) before
// the checks run.
func (sc *Scenario) Ranks() (int, bool) {
	m, err := ParseMesh(sc.Network.Mesh)
	if err != nil {
		return 0, false
	}
	if sc.MPI.Procs > 0 {
		return sc.MPI.Procs, true
	}
	return m.Nodes(), true
}
