// Package mpierr holds the MPI error classes and the error every MPI call
// of nocsim returns: its class (MPI_ERR_TYPE, MPI_ERR_RANK, ...), the call
// and what went wrong.
//
// It is a leaf of its own because every part of the library reports these
// errors, the parts that need no world (datatypes, reduction operations,
// groups) as much as the world itself, and callers test for a class
// without importing the rest of the library.
package mpierr
