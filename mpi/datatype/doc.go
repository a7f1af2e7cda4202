// Package datatype holds what the bytes of an MPI message mean: datatypes
// (MPI_Datatype: the predefined types, the constructors of MPI-3.1 section
// 4.1, bounds and extents, Pack and Unpack), reduction operations (MPI_Op)
// and Buffer, a block of tile memory seen as typed elements.
//
// It is separate from package mpi because none of it needs a world, a
// rank or the network: a typemap is data, and an operation combines bytes.
// The library moves the bytes these types describe; it asks a type only
// for its layout (WordStride and ElemLayout, the layouts the DMA engine
// and one-sided Accumulate take unpacked) and an operation only to combine
// elements (Op.Apply, Op.ApplyKind).
package datatype
