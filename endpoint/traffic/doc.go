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
// It drives the hardware of package endpoint (Fabric, SendSynthetic) and
// adds no hardware of its own.
package traffic
