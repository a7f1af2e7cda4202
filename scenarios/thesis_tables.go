package scenarios

// ThesisRow is one row of the thesis's Table 5.1 (conjugate gradient,
// sized by nonzeros) or Table 5.2 (QR decomposition, sized by the matrix
// order): what J. H. Poole measured on the SCMP simulator, in thousands of
// processor cycles ("thousands of clock ticks (or microseconds, assuming
// a 1 GHz system clock)", chapter 5).
type ThesisRow struct {
	// Table is "5.1" or "5.2".
	Table string
	// Nonzeros is the CG matrix's nonzero count (Table 5.1; 0 in 5.2).
	Nonzeros int
	// Matrix is the QR matrix order N of an N x N matrix (Table 5.2; 0
	// in 5.1).
	Matrix int
	// Procs is the processor count.
	Procs int
	// NativeK and MPIK are the thesis's native SCMP and MPI times, in
	// thousands of cycles.
	NativeK, MPIK float64
	// Distribute is how a Table 5.1 run's MPI version distributes p: ""
	// (a loop of packed broadcasts, as written) or "alltoall" (one
	// MPI_Alltoallw, the thesis's section 6.1 future work). Not a thesis
	// figure: the caller sets it to compare the two.
	Distribute string
}

// Ratio is the thesis's MPI/native ratio, from its two times (the table's
// own Ratio column agrees to its three decimals).
func (r ThesisRow) Ratio() float64 { return r.MPIK / r.NativeK }

// Size is the row's problem size: nonzeros (5.1) or matrix order (5.2).
func (r ThesisRow) Size() int { return r.Nonzeros + r.Matrix }

// ThesisTables are the two tables as printed in the thesis (seed 000,
// pages 54 and 58). Table 5.1 lists MPI before native; both are kept as
// measured. Nothing in nocsim is tuned to Table 5.2: it is predicted.
var ThesisTables = map[string][]ThesisRow{
	"5.1": {
		{"5.1", 2000, 0, 4, 1695, 2717, ""},
		{"5.1", 5000, 0, 4, 2178, 3203, ""},
		{"5.1", 10000, 0, 4, 2983, 4005, ""},
		{"5.1", 50000, 0, 4, 9451, 10462, ""},
		{"5.1", 500000, 0, 4, 81293, 82306, ""},
		{"5.1", 2000, 0, 8, 1267, 3146, ""},
		{"5.1", 5000, 0, 8, 1516, 3397, ""},
		{"5.1", 10000, 0, 8, 1921, 3797, ""},
		{"5.1", 50000, 0, 8, 5150, 6958, ""},
		{"5.1", 500000, 0, 8, 41262, 43064, ""},
		{"5.1", 2000, 0, 16, 1055, 5586, ""},
		{"5.1", 5000, 0, 16, 1190, 5712, ""},
		{"5.1", 10000, 0, 16, 1402, 5920, ""},
		{"5.1", 50000, 0, 16, 3048, 7493, ""},
		{"5.1", 500000, 0, 16, 21150, 25508, ""},
	},
	"5.2": {
		{"5.2", 0, 8, 64, 77, 556, ""},
		{"5.2", 0, 16, 64, 164, 1181, ""},
		{"5.2", 0, 128, 4, 17277, 22340, ""},
		{"5.2", 0, 128, 16, 5580, 14205, ""},
		{"5.2", 0, 128, 32, 3524, 12479, ""},
		{"5.2", 0, 128, 64, 2648, 17576, ""},
		{"5.2", 0, 256, 4, 126760, 143258, ""},
		{"5.2", 0, 256, 16, 35626, 64229, ""},
		{"5.2", 0, 256, 32, 19791, 47988, ""},
		{"5.2", 0, 256, 64, 11993, 61566, ""},
		{"5.2", 0, 512, 4, 974639, 1033072, ""},
		{"5.2", 0, 512, 16, 257151, 360416, ""},
		{"5.2", 0, 512, 32, 134709, 233885, ""},
		{"5.2", 0, 512, 64, 73206, 248394, ""},
		{"5.2", 0, 1024, 4, 7652352, 7872544, ""},
	},
}

// thesisPrintedRatios are the Ratio columns as printed, to check the
// transcription of the times above (Ratio recomputes them).
var thesisPrintedRatios = map[string][]float64{
	"5.1": {1.603, 1.471, 1.343, 1.107, 1.012, 2.483, 2.241, 1.977, 1.351, 1.044, 5.295, 4.800, 4.223, 2.458, 1.206},
	"5.2": {7.221, 7.201, 1.293, 2.546, 3.541, 6.637, 1.130, 1.803, 2.425, 5.133, 1.060, 1.402, 1.736, 3.393, 1.029},
}
