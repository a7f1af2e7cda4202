// Package router models SCMP's pipelined wormhole router and the network of
// them: input-queued virtual channels with credit-based flow control, route
// computation from the head flit's offsets, separable round-robin VC and
// switch allocation, and the links that delay flits and credits.
//
// What the model means is stated plainly by a reference router in the
// package's tests (reference_test.go): every flit and every credit on a
// channel with a fixed delay, one allocator, every router stepped every
// cycle. The router here computes the same thing faster, and
// TestRouterMatchesReference holds it to that over random specs, topologies
// and traffic: same switch traversals and deliveries at the same cycles,
// same counters.
//
// # Delays
//
// Every channel's delay is at least one cycle (Spec.Validate): a flit a
// router sends in cycle t reaches the next router at t +
// switch_alloc_delay + switch_delay + link_latency and the NIU at t +
// switch_alloc_delay + switch_delay + eject_latency; a flit the NIU sends
// reaches its router at t + inject_latency; every credit (router to router,
// router to NIU, NIU to router) counts from t + credit_delay. Route and VC
// allocation may take zero cycles, so a flit can be received and sent in
// one tick.
//
// # Internals
//
// State masks. A router keeps one bit per input VC (index port*VCs+vc,
// below 64: MaxVCs) for each stage with work: routeMask (idle with a head
// at the front, or routing), waitMask (waiting for an output VC),
// activeMask (holding one) and fullMask (holding flits). A tick visits
// only the set bits. Output VC ownership is a mask per output (held); VC
// allocation takes free VCs as its clear bits.
//
// Signal ring. Router.sig[t mod dueSlots] has a bit for every channel with
// something arriving in cycle t (bits 0-4 flits on an input port, bit 5
// flits injected directly, bits 8-12 credits on an output port), set by
// the sender; a concentrated mesh's routers (eight ports: mesh.LocalPort)
// use bits 5-7 and 13-15 for their further local ports and inject
// nothing directly (allocWide tells receive which); sig[dueSlots] marks channels of delay dueSlots (4) or more,
// whose Pipes the router polls by arrival cycle (Pipe.Next). A router
// ticks while it holds flits and sleeps otherwise until the next cycle
// with a bit.
//
// Slot rings. Each input VC is a ring of vc_buf slots in the router's
// flit store (inVC: base, head, n). The router reads only its n counted
// flits from head. A sender that writes flits straight into the ring
// writes at inVC.tail, past every counted flit and every flit on its way
// (the credit it holds says the slot is free), and the router counts the
// flit (n++) only in its tick at the flit's arrival cycle, told by a ring
// indexed by arrival cycle mod linkSlots (4): inPort.lfull and lvc for a
// ring link (one flit per cycle; two in a cycle panic), Router.inj for
// direct injection (up to maxDirectInject flits a cycle). Credits on their
// way back over a short delay are per-VC counts in the upstream router,
// outPort.back[arrival mod creditSlots], added to its credits in its tick
// at the arrival cycle.
//
// Transports. Build and LocalPort choose, once per spec:
//
//   - flits between routers: a ring link (written into the downstream slot,
//     counted at arrival) when link_flits_per_cycle is 1 and
//     switch_alloc_delay + switch_delay + link_latency < linkSlots (4);
//     otherwise a Pipe;
//   - flits from the NIU (LocalPort.InjectSlot): direct injection, as a
//     ring link, when credit_delay is 1, inject_latency < 4 and
//     inject_flits_per_cycle <= 4; otherwise the Pipe Inject;
//   - flits to the NIU: always the Pipe Eject;
//   - credits between routers: with credit_delay < creditSlots (4), the
//     upstream router's back ring, or, when credit_delay is 1 and the
//     upstream router is asleep or has already ticked in this cycle,
//     straight into its count (outPort.credit); with a longer delay, a
//     Pipe. A router that will have no flit buffered after its tick also
//     counts the credits due in the next cycle at its end (creditEarly),
//     instead of ticking for them;
//   - injection credits (router to NIU), when credit_delay is 1: into the
//     NIU's InjectCredits (LocalPort.Bind): Count if the NIU is asleep
//     (woken for the next cycle if it waits for one, Wait) or has ticked
//     in this cycle, Next if it is still to tick in it (it folds Next into
//     Count at the end of that tick, Fold); otherwise the Pipe
//     InjectCredit;
//   - ejection credits (NIU to router, LocalPort.ReturnEjectCredit), when
//     credit_delay is 1 and the router is asleep or has ticked in this
//     cycle: straight into its count; otherwise the Pipe EjectCredit.
//
// On a concentrated mesh (mesh.Concentrated) every NIU uses the Pipes
// Inject, InjectCredit, Eject and EjectCredit, whichever the spec.
//
// Switch allocation has three paths with one result: a lone VC asking,
// every input port asking once (links one flit wide; allocSwitchOne), and
// the general separable allocator. Router.general turns the fast paths
// off, for the tests that compare. A bus (mesh.Bus) is a shared medium
// with no routers (bus.go), outside all of this.
//
// # Why the visiting order does not matter
//
// Not every transport is a channel any more: a ring link or a direct
// injection writes the flit into the receiver's memory in the cycle it is
// sent, and a credit may be added to the receiver's count in that cycle.
// What "every channel delays by at least one cycle" used to give, the code
// guarantees instead by these rules, for a tick of any router or NIU in
// cycle t:
//
//   - it reads only its own state: its counted flits, its credit counts,
//     its signal and arrival rings' slots for cycle t, and items on its
//     Pipes that arrive by t. The one exception is whether another
//     component has ticked or will tick in t (below), which decides where
//     a credit goes, never when it counts;
//   - it writes another component's state only where that component does
//     not look before the item's arrival cycle (t+1 or later): a VC slot
//     past the counted flits (and inVC.tail, which only the sender uses),
//     or a ring slot for the arrival cycle (every ring delay is below the
//     ring's size, so that slot is not cycle t's);
//     or a count read only in ticks (outPort.credit, InjectCredits.Count)
//     when the owner will not tick again in cycle t: it is asleep (the
//     engine makes every ticker due in cycle t busy before the cycle's
//     pass, and wake-ups made during the pass are for later cycles, so a
//     ticker not busy, des.Engine.Ticking, does not tick in t) or its
//     last tick was in t (Router.tickedAt, InjectCredits.TickedAt). Its
//     next read is then in t+1 or later, and the credit, with a delay of
//     one cycle, is due at t+1;
//   - creditEarly, at the end of a router's tick in t, reads its back
//     ring's slot for t+1, which is then complete: credits due at t+1 with
//     a delay of two or three cycles were sent before t, and with a delay
//     of one those sent in t after this tick are counted in place;
//   - a long channel's bit in sig[dueSlots] may be set before the
//     receiver's tick in t; it only makes the receiver look at a Pipe with
//     nothing due yet.
//
// So each tick in cycle t reads the same whichever ticks ran before it in
// t: the order in which the engine visits routers and NIUs never changes a
// result. TestRouterMatchesReference runs every case in the engine's
// default order, in ticker-id order and in a random order every cycle.
package router
