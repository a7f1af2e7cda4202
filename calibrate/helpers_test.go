package calibrate

import (
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/mpi"
	"nocsim/router"
)

// simWorld is the NewWorld of a w x h mesh with the default router, node
// and CPU under an MPI protocol.
func simWorld(w, h int, proto string) NewWorld {
	return func(procs int) (*mpi.World, error) {
		m, err := mesh.New(w, h)
		if err != nil {
			return nil, err
		}
		es := endpoint.DefaultSpec()
		eng := des.New()
		eng.SetWatchdog(1_000_000, nil)
		mc := endpoint.NewMachine(eng, m, router.DefaultSpec(), es, endpoint.DefaultCPUSpec())
		cfg := mpi.DefaultConfig()
		cfg.Protocol, cfg.Procs = proto, procs
		wd, err := mpi.NewWorld(mc, cfg)
		if err != nil {
			mc.Close()
			return nil, err
		}
		return wd, nil
	}
}
