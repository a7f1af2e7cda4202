// Package netrace reads Netrace trace files: the dependency-annotated
// on-chip packet traces of Hestness, Grot and Keckler ("Netrace:
// Dependency-Driven Trace-Based Network-on-Chip Simulation", NoCArc 2010),
// bzip2-compressed, format version 1.0. It holds the format alone (header,
// regions, packets with their dependencies, packet types and their sizes
// in bytes) and knows nothing of a network; package traffic replays what
// it reads on one.
//
// The reader is strict: a header, region table or packet record that
// breaks the format is refused with an error naming the byte offset in
// the decompressed stream and what was expected there, so that a damaged
// trace is never half-simulated.
package netrace
