package mpi

import (
	sched "nocsim/coll"
	"nocsim/mesh"
	"nocsim/mpi/group"
)

// The mesh ("dimensional") collectives (package coll: bcast.go,
// mesh_dims.go) run on the communicator's ranks placed by their tiles'
// actual coordinates, not by rank order: rows are the mesh (or torus) rows
// that hold members (top to bottom), and a row's members are ordered by
// column.

// meshGridOf builds the grid of group g once per World: groups are
// immutable and placement never changes, as a library would work it out
// when the communicator is created (no simulated time).
func (w *World) meshGridOf(g *group.Group) *sched.Grid {
	if mg := w.meshGrids[g]; mg != nil {
		return mg
	}
	mg := sched.GridOf(g.Size(), func(i int) (int, int) {
		// Rank i runs on tile g.WorldRank(i); offsets from tile 0 are its
		// column and row.
		node := w.Ranks[g.WorldRank(i)].node.ID
		switch t := w.M.Topo.(type) {
		case mesh.Mesh:
			return t.Offsets(0, node)
		case mesh.Torus:
			// A torus has the mesh's rows and columns (its offsets
			// are packed routing state, not coordinates).
			return t.XY(node)
		case mesh.CMesh:
			// So has a cmesh: its tiles' rows and columns (its
			// offsets are its routers').
			return t.XY(node)
		}
		// A ring or a bus has no rows: the whole communicator is one
		// row in station order, and the family runs as its row phase's
		// tree alone.
		return node, 0
	})
	if w.meshGrids == nil {
		w.meshGrids = map[*group.Group]*sched.Grid{}
	}
	w.meshGrids[g] = mg
	return mg
}
