// Package goal reads and writes GOAL schedules (Group Operation Assembly
// Language, Hoefler et al.) in the text form that LogGOPSim's txt2bin
// accepts, and builds them programmatically for generators. It imports
// nothing of the simulator.
//
// # Text format
//
// A schedule is
//
//	num_ranks N
//	rank 0 {
//	label: send <bytes>b to <dst> [tag <t>] [cpu <c>] [nic <n>]
//	label: recv <bytes>b from <src> [tag <t>] [cpu <c>] [nic <n>]
//	label: calc <cycles> [cpu <c>]
//	a requires b
//	a irequires b
//	}
//	rank 1 { ... }
//
// one item per line. "a requires b" means a starts after b completes, "a
// irequires b" that a starts after b has started. A recv's src and any tag
// may be -1 (any); a send's destination may not. The "label:" is optional,
// but only labelled ops can appear in dependencies, and a dependency may
// only name labels defined earlier in the same rank block (labels are
// local to their rank). tag, cpu and nic are optional but, when present,
// come in that order; calc takes only cpu. Numbers are decimal; bytes and
// cycles fit in 64 bits, ranks and tags in 31, cpu and nic in 8. A tag of
// 18446744073709551615 (2^64-1, what Schedgen's trace converter writes
// for MPI_ANY_TAG) is read as -1, any tag.
//
// As in txt2bin's scanner: blanks are spaces and tabs; a line ends with
// "\n" or "\r\n" and the end of the input counts as one; keywords after
// the first word of a line need no blank after them ("send 4bto1" is
// valid); "//" and "/* */" comments may stand where an item may start
// (not after an item on its line); "rank r {" may be followed by an item
// on the same line and "}" by the next rank's header; the words send,
// recv, calc, rank and num_ranks cannot be labels.
//
// Stricter than txt2bin, which mis-serialises such files instead of
// rejecting them: num_ranks comes once, before the first rank; every rank
// 0..N-1 has exactly one block, in order (an empty block is fine); ranks
// and peers must be below N; nothing but comments follows the last block;
// a label is defined once per rank; numbers out of range are errors, not
// truncated. Every error names the line and column (1-based, in bytes)
// and what was expected or allowed.
//
// # Representation
//
// A Schedule holds every rank's ops in one array of 24-byte Packed
// records, rank 0's first (a message's size and a calc's cycles share a
// field); NumRanks, Len, Op and Ops read it, Packed hands it to a
// simulator. An op's dependencies are a range of one int32 array of op
// indices in its rank, reached through Schedule.Requires and
// Schedule.IRequires; its label, through Schedule.Label, is a bit when it
// is "l" and the op's index (what Write generates) and an entry of a
// sparse table of interned names otherwise. Read streams the text in 1 MB
// pieces straight into these arrays, sized once from the text's keywords:
// a 2^20-rank binomial broadcast (2,097,150 ops, 80 MB of text) holds
// 67 MB, 32 bytes per op, dependencies and labels included.
//
// Write emits the canonical text (defaults omitted, each rank's
// dependencies after its ops); reading it back gives the same schedule.
package goal
