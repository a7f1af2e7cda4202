// Package endpoint models what sits at each tile beside the router: the
// network interface unit (NIU) that injects and ejects flits, its DMA engine
// that sends strided blocks from local memory and writes arriving DATA
// messages into memory at the destination stride, and the synthetic traffic
// generator that characterises the network the way BookSim does.
package endpoint
