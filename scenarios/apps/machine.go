package apps

import (
	"fmt"

	"nocsim/endpoint"
	"nocsim/mpi"
)

// Machine is what a kernel needs of the configuration it runs on: whether
// it is valid and how many tiles it has, a fresh chip for a native version,
// a fresh MPI job for an MPI version, and the processor's costs. A
// scenario (scenarios.Scenario) is one; the kernels' tests build their own.
type Machine interface {
	// CheckTiles validates the machine's configuration and returns its
	// number of tiles and its mesh as written ("8x8"), for messages.
	CheckTiles() (tiles int, mesh string, err error)
	// NewMachine builds a fresh chip, for a native version.
	NewMachine() *endpoint.Machine
	// NewWorld builds a fresh chip and an MPI job of procs ranks on it.
	NewWorld(procs int) (*mpi.World, error)
	// CPU is the processor's cost model, the one every chip built has.
	CPU() endpoint.CPUSpec
}

// checkProcs validates m and that procs processors fit its tiles: the
// first checks of every kernel's configuration.
func checkProcs(m Machine, app string, procs int) error {
	tiles, mesh, err := m.CheckTiles()
	if err != nil {
		return err
	}
	if procs < 1 || procs > tiles {
		return procsError(app, procs, tiles, mesh)
	}
	return nil
}

// procsError refuses a processor count the machine's tiles do not hold.
func procsError(app string, procs, tiles int, mesh string) error {
	return fmt.Errorf("%s: Procs = %d: allowed 1..%d (the tiles of the %s mesh)", app, procs, tiles, mesh)
}
