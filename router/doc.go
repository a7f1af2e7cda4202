// Package router models SCMP's pipelined wormhole router and the network of
// them: input-queued virtual channels with credit-based flow control, route
// computation from the head flit's offsets, separable round-robin VC and
// switch allocation, and channels (links) that delay flits and credits.
//
// Every channel delays by at least one cycle, so a router's cycle reads only
// what arrived before and writes only what arrives later: the order in which
// routers are visited never changes a result.
package router
