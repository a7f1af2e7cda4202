package apps

import (
	"fmt"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/router"
)

// chip is the Machine of the kernels' tests: the hardware packages'
// default SCMP on a WxH mesh (what a default scenario builds), with the
// processor costs and MPI configuration a test sets. The kernels' own
// package cannot use scenarios, which sits above it.
type chip struct {
	mesh string
	cpu  endpoint.CPUSpec
	mpi  mpi.Config
}

func newChip(mesh string) *chip {
	return &chip{mesh: mesh, cpu: endpoint.DefaultCPUSpec(), mpi: mpi.DefaultConfig()}
}

func (c *chip) topology() (mesh.Mesh, error) {
	var w, h int
	if _, err := fmt.Sscanf(c.mesh, "%dx%d", &w, &h); err != nil {
		return mesh.Mesh{}, fmt.Errorf("mesh %q: %w", c.mesh, err)
	}
	return mesh.New(w, h)
}

func (c *chip) CheckTiles() (int, string, error) {
	m, err := c.topology()
	if err != nil {
		return 0, "", err
	}
	if err := c.cpu.Validate(); err != nil {
		return 0, "", err
	}
	if err := c.mpi.Validate(m.Nodes(), endpoint.DefaultSpec().QueueFlits); err != nil {
		return 0, "", err
	}
	return m.Nodes(), c.mesh, nil
}

func (c *chip) NewMachine() *endpoint.Machine {
	m, _ := c.topology()
	eng := des.New()
	eng.SetWatchdog(10000, nil)
	return endpoint.NewMachine(eng, m, router.DefaultSpec(), endpoint.DefaultSpec(), c.cpu)
}

func (c *chip) NewWorld(procs int) (*mpi.World, error) {
	cfg := c.mpi
	cfg.Procs = procs
	return mpi.NewWorld(c.NewMachine(), cfg)
}

func (c *chip) CPU() endpoint.CPUSpec { return c.cpu }
