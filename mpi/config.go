package mpi

import (
	"fmt"
	"strings"

	"nocsim/router"
)

// Protocols lists the point-to-point protocols.
var Protocols = []string{"scmp", "eager", "niu"}

// Config is the [mpi] section.
type Config struct {
	Procs      int    `toml:"procs"`
	Protocol   string `toml:"protocol"`
	EagerBytes int    `toml:"eager_bytes"`
	MatchCycle int64  `toml:"match_cycles"`
	VectorDMA  bool   `toml:"vector_dma"`
}

// DefaultConfig runs the thesis's protocol on every tile (Procs 0 means
// all of them).
func DefaultConfig() Config {
	return Config{Protocol: "scmp", EagerBytes: 128, MatchCycle: 2}
}

// Keys documents the [mpi] keys.
var Keys = []router.Key{
	{Name: "procs", Unit: "ranks", Default: "0 (every tile)", Allowed: "0..W*H", Doc: "MPI_COMM_WORLD size; rank i runs on tile i"},
	{Name: "protocol", Unit: "name", Default: "scmp", Allowed: strings.Join(Protocols, ", "), Doc: "point-to-point protocol: scmp (thesis rendezvous with THREAD messages), eager (short messages inside the THREAD message), niu (rendezvous handled by the NIUs)"},
	{Name: "eager_bytes", Unit: "bytes", Default: "128", Allowed: "0..4*(niu_queue_flits-8)", Doc: "largest message the eager protocol sends inside its THREAD message; larger ones use rendezvous"},
	{Name: "match_cycles", Unit: "cycles/entry", Default: "2", Allowed: "0..1000000", Doc: "processor time per queue entry examined when matching"},
	{Name: "vector_dma", Unit: "bool", Default: "false", Allowed: "true, false", Doc: "send a strided vector of 4-byte elements with the DMA engine's source stride instead of packing it first"},
}

// eagerHeader is the words an eager THREAD message carries before its data.
const eagerHeader = 6

// Validate checks the configuration against a machine of nodes tiles whose
// NIU queues hold queueFlits flits.
func (c Config) Validate(nodes, queueFlits int) error {
	if c.Procs < 0 || c.Procs > nodes {
		return &router.KeyError{Key: "procs", Value: fmt.Sprint(c.Procs), Allowed: fmt.Sprintf("0..%d (the tiles of the mesh)", nodes)}
	}
	found := false
	for _, p := range Protocols {
		found = found || p == c.Protocol
	}
	if !found {
		return &router.KeyError{Key: "protocol", Value: fmt.Sprintf("%q", c.Protocol), Allowed: strings.Join(Protocols, ", ")}
	}
	if most := 4 * (queueFlits - 2 - eagerHeader); c.EagerBytes < 0 || c.EagerBytes > most {
		return &router.KeyError{Key: "eager_bytes", Value: fmt.Sprint(c.EagerBytes), Allowed: fmt.Sprintf("0..%d (the payload a THREAD message fits in the NIU queue)", max(most, 0))}
	}
	return router.CheckRange("match_cycles", c.MatchCycle, 0, 1e6)
}
