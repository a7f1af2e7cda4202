// Package group holds MPI process groups (MPI_Group): ordered sets of
// processes named by their MPI_COMM_WORLD rank, the set operations of
// MPI-3.1 section 6.3 on them, their comparison and MPI_UNDEFINED.
//
// It is separate from package mpi because a group is plain data: building,
// combining and comparing groups needs no world and sends no message. The
// library gives each communicator a group and maps ranks through it.
package group
