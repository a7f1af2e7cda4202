package mpi

import (
	"fmt"
	sched "nocsim/coll"
	"slices"
	"strings"

	"nocsim/config"
)

// Libraries lists the library profiles: "nocsim" runs the algorithms the
// keys below select; "thesis" runs every mechanism of the thesis's library
// as its chapter 4 describes it, and nothing better (thesis.go).
var Libraries = []string{"nocsim", "thesis"}

// thesisLib reports whether the configuration runs the thesis's library.
func (c Config) thesisLib() bool { return c.Library == "thesis" }

// Config is the [mpi] section.
type Config struct {
	Procs      int    `toml:"procs"`
	Library    string `toml:"library"`
	Protocol   string `toml:"protocol"`
	EagerBytes int    `toml:"eager_bytes"`
	MatchCycle int64  `toml:"match_cycles"`
	VectorDMA  bool   `toml:"vector_dma"`

	// Collective algorithms by operation; "auto" (or empty) picks the
	// default for the message size, switching at CollLongBytes.
	Barrier       string `toml:"barrier"`
	Bcast         string `toml:"bcast"`
	Scatter       string `toml:"scatter"`
	Gather        string `toml:"gather"`
	Allgather     string `toml:"allgather"`
	Alltoall      string `toml:"alltoall"`
	Reduce        string `toml:"reduce"`
	Allreduce     string `toml:"allreduce"`
	ReduceScatter string `toml:"reduce_scatter"`
	Scan          string `toml:"scan"`
	CollLongBytes int    `toml:"coll_long_bytes"`

	// LogP parameters the "optimal" bcast builds its tree for (cycles).
	OptimalL float64 `toml:"optimal_L"`
	OptimalO float64 `toml:"optimal_o"`
	OptimalG float64 `toml:"optimal_g"`

	// trace, when set, makes NewWorld record a Chrome trace and Run hand
	// it over (TraceTo); not a key.
	trace *traceTarget
}

// DefaultConfig runs the thesis's protocol on every tile (Procs 0 means
// all of them). The optimal bcast's L, o, g default to the default 4x4
// chip's fit for short messages, rounded (L = 125 + 2.5 hops x 15,
// (o_s+o_r)/2 = 32, g = 178): `nocsim coll --params` replaces them with
// the fit of the run's own message size.
func DefaultConfig() Config {
	return Config{Library: "nocsim", Protocol: "scmp", EagerBytes: 128, MatchCycle: 2, CollLongBytes: 4096,
		Barrier: "auto", Bcast: "auto", Scatter: "auto", Gather: "auto", Allgather: "auto", Alltoall: "auto",
		Reduce: "auto", Allreduce: "auto", ReduceScatter: "auto", Scan: "auto",
		OptimalL: 160, OptimalO: 32, OptimalG: 180}
}

// Keys documents the [mpi] keys.
var Keys = []config.Key{
	{Name: "procs", Unit: "ranks", Default: "0 (every tile)", Allowed: "0..W*H", Doc: "MPI_COMM_WORLD size; rank i runs on tile i"},
	{Name: "library", Unit: "name", Default: "nocsim", Allowed: strings.Join(Libraries, ", "), Doc: "library profile: nocsim (the algorithms the keys below select) or thesis (the thesis's library as chapter 4 describes it: barrierCount barrier, flat broadcast, halving reduce, every internal call charged; only with protocol scmp, vector_dma false and every algorithm key auto)"},
	{Name: "protocol", Unit: "name", Default: "scmp", Allowed: strings.Join(Protocols, ", "), Doc: "point-to-point protocol: scmp (thesis rendezvous with THREAD messages), eager (short messages inside the THREAD message), niu (rendezvous handled by the NIUs), puma_long (Puma's optimistic long protocol: header and data sent at once; the receiver pulls the data when no receive was posted)"},
	{Name: "eager_bytes", Unit: "bytes", Default: "128", Allowed: "0..4*(niu_queue_flits-8)", Doc: "largest message the eager protocol sends inside its THREAD message; larger ones use rendezvous"},
	config.Range("match_cycles", "cycles/entry", "2", 0, 1e6, "processor time per queue entry examined when matching"),
	{Name: "vector_dma", Unit: "bool", Default: "false", Allowed: "true, false", Doc: "send a strided vector of 4-byte elements with the DMA engine's source stride instead of packing it first"},
	config.Range("coll_long_bytes", "bytes", "4096", 0, 1<<30, "message size from which \"auto\" collectives switch to their long-message algorithm"),
	{Name: "barrier", Unit: "algorithm", Default: "auto", Allowed: "auto or a barrier algorithm", Doc: "MPI_Barrier algorithm (see the collectives table)"},
	{Name: "bcast", Unit: "algorithm", Default: "auto", Allowed: "auto or a bcast algorithm", Doc: "MPI_Bcast algorithm"},
	{Name: "scatter", Unit: "algorithm", Default: "auto", Allowed: "auto or a scatter algorithm", Doc: "MPI_Scatter(v) algorithm"},
	{Name: "gather", Unit: "algorithm", Default: "auto", Allowed: "auto or a gather algorithm", Doc: "MPI_Gather(v) algorithm"},
	{Name: "allgather", Unit: "algorithm", Default: "auto", Allowed: "auto or an allgather algorithm", Doc: "MPI_Allgather(v) algorithm"},
	{Name: "alltoall", Unit: "algorithm", Default: "auto", Allowed: "auto or an alltoall algorithm", Doc: "MPI_Alltoall(v, w) algorithm"},
	{Name: "reduce", Unit: "algorithm", Default: "auto", Allowed: "auto or a reduce algorithm", Doc: "MPI_Reduce algorithm"},
	{Name: "allreduce", Unit: "algorithm", Default: "auto", Allowed: "auto or an allreduce algorithm", Doc: "MPI_Allreduce algorithm"},
	{Name: "reduce_scatter", Unit: "algorithm", Default: "auto", Allowed: "auto or a reduce_scatter algorithm", Doc: "MPI_Reduce_scatter(_block) algorithm"},
	{Name: "scan", Unit: "algorithm", Default: "auto", Allowed: "auto or a scan algorithm", Doc: "MPI_Scan and MPI_Exscan algorithm"},
	config.Fractions("optimal_L", "cycles", "160", 0, 1e9, "LogP latency L the optimal bcast builds its tree for (nocsim coll --params sets it from the fit)"),
	config.Fractions("optimal_o", "cycles", "32", 0, 1e9, "LogP overhead o of the optimal bcast's tree"),
	config.Fractions("optimal_g", "cycles", "180", 0, 1e9, "LogP gap g of the optimal bcast's tree"),
}

// eagerHeader is the words an eager THREAD message carries before its data.
const eagerHeader = 6

// Validate checks the configuration against a machine of nodes tiles whose
// NIU queues hold queueFlits flits.
func (c Config) Validate(nodes, queueFlits int) error {
	if c.Procs < 0 || c.Procs > nodes {
		return &config.KeyError{Key: "procs", Value: fmt.Sprint(c.Procs), Allowed: fmt.Sprintf("0..%d (the tiles of the mesh)", nodes)}
	}
	if _, err := c.protocolDef(queueFlits); err != nil {
		return err
	}
	if err := c.checkLibrary(); err != nil {
		return err
	}
	if most := 4 * (queueFlits - 2 - eagerHeader); c.EagerBytes < 0 || c.EagerBytes > most {
		return &config.KeyError{Key: "eager_bytes", Value: fmt.Sprint(c.EagerBytes), Allowed: fmt.Sprintf("0..%d (the payload a THREAD message fits in the NIU queue)", max(most, 0))}
	}
	if err := config.CheckStruct(c, Keys); err != nil {
		return err
	}
	for _, o := range sched.Ops {
		name := c.Algorithm(o)
		if name == "" || name == "auto" {
			continue
		}
		if c.thesisLib() {
			// The profile's algorithms are the thesis's: a key choosing
			// another would be silently ignored, so it is refused.
			return &config.KeyError{Key: o, Value: fmt.Sprintf("%q", name), Allowed: `auto with library = "thesis" (the thesis's library has one algorithm per operation)`}
		}
		if !slices.Contains(sched.Names(o), name) {
			return &config.KeyError{Key: o, Value: fmt.Sprintf("%q", name), Allowed: "auto, " + strings.Join(sched.Names(o), ", ")}
		}
	}
	return nil
}

// checkLibrary checks the library profile and what it cannot run with:
// the thesis's library had only the rendezvous of section 4.2.2 and packed
// every non-contiguous send (section 4.2.1).
func (c Config) checkLibrary() error {
	if c.Library != "" && !slices.Contains(Libraries, c.Library) {
		return &config.KeyError{Key: "library", Value: fmt.Sprintf("%q", c.Library), Allowed: strings.Join(Libraries, ", ")}
	}
	if !c.thesisLib() {
		return nil
	}
	if c.Protocol != "scmp" {
		return &config.KeyError{Key: "protocol", Value: fmt.Sprintf("%q", c.Protocol), Allowed: `scmp with library = "thesis" (the only protocol the thesis's library had, section 4.2.2)`}
	}
	if c.VectorDMA {
		return &config.KeyError{Key: "vector_dma", Value: "true", Allowed: `false with library = "thesis" (the thesis's library packs non-contiguous data, section 4.2.1)`}
	}
	return nil
}

// Algorithm is the configured algorithm for a collective operation.
func (c Config) Algorithm(op string) string {
	if f := c.algField(op); f != nil {
		return *f
	}
	return ""
}

// SetAlgorithm selects the algorithm for op ("auto" for the default).
func (c *Config) SetAlgorithm(op, name string) {
	if f := c.algField(op); f != nil {
		*f = name
	}
}

func (c *Config) algField(op string) *string {
	return map[string]*string{
		"barrier": &c.Barrier, "bcast": &c.Bcast, "scatter": &c.Scatter, "gather": &c.Gather,
		"allgather": &c.Allgather, "alltoall": &c.Alltoall, "reduce": &c.Reduce, "allreduce": &c.Allreduce,
		"reduce_scatter": &c.ReduceScatter, "scan": &c.Scan,
	}[op]
}
