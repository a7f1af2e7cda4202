package coll

// The Cray X1's own collectives (Nicholson & Goozen, "Cray X1 MPI
// Implementation", section 4) run on SCMP's native primitives - remote
// stores, getBlock, THREAD handlers - instead of MPI messages: no static
// pattern of messages describes them, so they are registered Native, with
// no Program, and mpi keeps their code (mpi/coll_cray.go); a recording
// sees none of their traffic and logp/collgen writes no schedule for them.

// SrcCrayX1 is the section the native algorithms follow.
const SrcCrayX1 = "Nicholson & Goozen, Cray X1 MPI §4"

func init() {
	Register(
		&Algorithm{Op: "barrier", Name: "tree4_scatter", Source: SrcCrayX1 + " (MPI_Barrier)", Native: true,
			Messages: "P-1 release stores + per 4-way group of n >= 2, n-1 (level 0) or n (above) fetch-adds and 1 reply: 36 at P = 16 (ranks arriving in rank order)"},
		&Algorithm{Op: "bcast", Name: "pull_rma", Source: SrcCrayX1 + " (MPI_Bcast)", Native: true,
			Messages: "5(P-1): a start store, a getBlock (request, data, flag) and a check-in per non-root; 3(P-1) for 0 bytes"},
		&Algorithm{Op: "scatter", Name: "pull_rma", Source: SrcCrayX1 + " (MPI_Scatter)", Native: true,
			Messages: "5(P-1), as bcast pull_rma; 3 per empty block"},
		&Algorithm{Op: "alltoall", Name: "pull_scan", Source: SrcCrayX1 + " (MPI_Alltoall)", Native: true,
			Messages: "5P(P-1), as bcast pull_rma per pair; 3 per empty block"},
	)
}
