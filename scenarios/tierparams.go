package scenarios

import (
	"nocsim/logp"
	"nocsim/logp/loggops"
)

// TierParamsFor maps fitted parameters for a schedule of ranks ranks with
// no machine named (goal run --params): the ranks sit in order on the mesh
// the parameters were fitted on when they fit it (hop-aware latency,
// logp.Params.Tier), otherwise - more ranks than that mesh, or
// parameters from a CSV with no mesh - every message crosses the fit's
// average distance (logp.Params.TierAvgHops). The mesh is parsed here:
// the tier knows no mesh names.
func TierParamsFor(p logp.Params, ranks int, S uint64) (loggops.Params, error) {
	if m, err := ParseMesh(p.Mesh); err == nil && p.Mesh != "" && ranks <= m.Nodes() {
		place := make([]int, ranks)
		for r := range place {
			place[r] = r
		}
		return p.Tier(m, place, S)
	}
	return p.TierAvgHops(S)
}

// ProtocolThreshold is the tier's S for a protocol named in a parameters
// file: 0 under the rendezvous protocols, the default eager_bytes under
// eager (RendezvousThreshold, for a scenario's own configuration).
func ProtocolThreshold(protocol string) uint64 {
	sc := Defaults()
	sc.MPI.Protocol = protocol
	return sc.RendezvousThreshold()
}

// RendezvousThreshold is the tier's S for the scenario's protocol
// (mpi.Config.RendezvousThreshold).
func (sc *Scenario) RendezvousThreshold() uint64 {
	return uint64(sc.MPI.RendezvousThreshold())
}

// Placement is the tile of each of the scenario's ranks: rank r runs on
// tile r (mpi.NewWorld's placement).
func (sc *Scenario) Placement() []int {
	n := sc.MPI.Procs
	if n == 0 {
		n = sc.Machine().Tiles()
	}
	place := make([]int, n)
	for r := range place {
		place[r] = r
	}
	return place
}
