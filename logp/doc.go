// Package logp holds the analytic models of message passing that nocsim
// calibrates against its simulations: Hockney (t_s, t_e), LogP (L, o, g,
// P) and LogGP (plus G per byte), with separate send and receive overheads,
// a hop-aware latency for the mesh and a parameter set per protocol
// segment. It imports nothing of the simulator: the models are pure
// functions of their parameters.
//
// It also reads and writes the parameters file (ReadParams, EncodeParams):
// the fitted Params that `nocsim calibrate --out` writes and --params or a
// scenario's [workload] params reads, TOML or JSON.
package logp
