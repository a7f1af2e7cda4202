package mpi

// MaxProcessorName is MPI_MAX_PROCESSOR_NAME: no name GetProcessorName
// returns is longer.
const MaxProcessorName = 64

// GetProcessorName is MPI_Get_processor_name: the name of the tile the
// rank runs on, "node(x,y)" with its mesh coordinates (x the column, y
// the row, node id y*W + x). A local query: no time is charged.
func (r *Rank) GetProcessorName() string { return r.node.Name }
