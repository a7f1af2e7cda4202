// Package mpi is an MPI library for the simulated SCMP chip, written, as the
// thesis's was, against the node's real facilities: THREAD messages that
// create handler threads, DATA messages written by DMA, cooperative threads
// and polled completion flags. Its costs come out of the simulation.
//
// A rank program is a plain Go function run as a deterministic coroutine on
// its tile (func(r *mpi.Rank)). Buffers live in the tile's simulated memory
// (Rank.Alloc), so what a receive holds is what the network carried.
//
// A run's communication can be recorded (World.Record, World.Trace) and
// replayed (World.LaunchTrace); the recorded schedule itself, its checks
// and its conversion to and from a GOAL schedule are package mpi/trace.
package mpi
