// Package mesh is nocsim's network geometry: tiles, ports, the signed X/Y
// offsets a head flit carries, and routing as a pure function of those
// offsets (an SCMP router knows nothing of where it is). Topology is an
// interface so that a torus or ring can be added beside the mesh.
//
// It also defines the synthetic traffic patterns, which are pure functions of
// the geometry.
package mesh
