// Package energy turns what a run did into energy and power: Activity is
// the run's event counts (flits written into and read out of each router
// input's buffers, switched to each output, heads granted a VC, carried
// by each link and each NIU channel) over a number of cycles, and a Model
// prices them. The models are data: a TOML file each, embedded (models/),
// with the source of every row, or a file the user names. The per-event
// models (dsent, noxim) charge each event its table energy and each router
// its clock and leakage per cycle; the booksim model evaluates BookSim2's
// power-module equations on its technology file.
//
// Snapshot reads the counters of a fabric; Activity.Sub gives a window's.
// Nothing here changes a simulation: the counts are the routers' and the
// NIUs' own, read when asked.
package energy
