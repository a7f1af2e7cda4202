package scenarios

import (
	"nocsim/logp"
	"nocsim/logp/loggops"
)

// TierParamsFor maps fitted parameters for a schedule of ranks ranks with
// no machine named (goal run --params): the ranks sit in order on the mesh
// the parameters were fitted on when they fit it (hop-aware latency,
// loggops.FromFitted), otherwise - more ranks than that mesh, or
// parameters from a CSV with no mesh - every message crosses the fit's
// average distance (loggops.FromFittedAvgHops). The mesh is parsed here:
// the tier knows no mesh names.
func TierParamsFor(p logp.Params, ranks int, S uint64) (loggops.Params, error) {
	if m, err := ParseMesh(p.Mesh); err == nil && p.Mesh != "" && ranks <= m.Nodes() {
		place := make([]int, ranks)
		for r := range place {
			place[r] = r
		}
		return loggops.FromFitted(p, m, place, S)
	}
	return loggops.FromFittedAvgHops(p, S)
}

// ProtocolThreshold is the tier's S for a protocol named in a parameters
// file: 0 under the rendezvous protocols, the default eager_bytes under
// eager (RendezvousThreshold, for a scenario's own configuration).
func ProtocolThreshold(protocol string) uint64 {
	sc := Defaults()
	sc.MPI.Protocol = protocol
	return sc.RendezvousThreshold()
}

// RendezvousThreshold is the tier's S for the scenario's protocol: the
// largest message completed at the sender without the receiver. Under
// scmp and niu every message goes through the rendezvous (RTS, CTS, then
// the data), so S is 0; under eager it is [mpi] eager_bytes. Under
// puma_long no send completes before the receiver acknowledges or pulls
// it, so S is 0 too: the tier charges the rendezvous, exact for the pull
// path and pessimistic for puts into posted receives, which the LogGOPS
// model has no segment for (docs/mpi.md).
func (sc *Scenario) RendezvousThreshold() uint64 {
	if sc.MPI.Protocol == "eager" {
		return uint64(sc.MPI.EagerBytes)
	}
	return 0
}

// Placement is the tile of each of the scenario's ranks: rank r runs on
// tile r (mpi.NewWorld's placement).
func (sc *Scenario) Placement() []int {
	m, _ := ParseMesh(sc.Network.Mesh)
	n := sc.MPI.Procs
	if n == 0 {
		n = m.Nodes()
	}
	place := make([]int, n)
	for r := range place {
		place[r] = r
	}
	return place
}
