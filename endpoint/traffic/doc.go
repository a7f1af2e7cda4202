// Package traffic holds synthetic traffic's injection processes and the
// BookSim-style measurement of a network under them: every tile creates
// packets as an independent Bernoulli process with destinations from a
// mesh.Pattern; a point runs a warm-up, a measurement window and a drain
// during which only the window's packets are waited for, and reports
// their latency (mean and quantiles), the accepted throughput, link and
// VC use, and whether the network saturated (packets undelivered after
// the drain, source queues growing, latency diverging). ZeroLoad is the
// analytic latency such a point approaches at low load.
//
// Replay injects the packets of a Netrace trace (read by its sub-package
// netrace) instead: each at its trace cycle or once the packets it depends
// on are delivered, and reports the trace's runtime on the network against
// its recorded one, for the whole trace and per region.
//
// It drives the hardware of package endpoint (Fabric, SendSynthetic) and
// adds no hardware of its own.
package traffic
