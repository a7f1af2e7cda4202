// Package endpoint models what sits at each tile beside the router: the
// network interface unit (NIU) that injects and ejects flits, its DMA engine
// that sends strided blocks from local memory and writes arriving DATA
// messages into memory at the destination stride, and the SCMP message
// kinds a head flit carries. Synthetic traffic and its BookSim-style
// measurement, which drive this hardware, are in endpoint/traffic.
package endpoint
