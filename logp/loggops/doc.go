// Package loggops simulates a GOAL schedule (package goal) event by event
// under the LogGOPS model, with the semantics of LogGOPSim (Hoefler,
// Schneider, Lumsdaine, HPDC 2010) without its network and noise models.
// It imports nothing of the simulator. Times are float64 cycles.
//
// # Model
//
// Each rank has, per CPU index its ops name (default 0), a CPU clock, and
// per NIC index a send-NIC and a receive-NIC clock; all start at 0. With
// s the message size and (s-1) read as 0 for an empty message:
//
//   - a send may start at t >= max(CPU free, send NIC free); it occupies
//     the CPU until t + o_s + (s-1)O and the send NIC until t + g + (s-1)G,
//     and its first byte reaches the receiver at t + o_s + L;
//   - an arriving message is handled at a' = max(arrival, CPU free,
//     receive NIC free), using the CPU and NIC indices of the send op; the
//     CPU is then busy until a' + o_r + max((s-1)O, (s-1)G) and the receive
//     NIC until a' + g + (s-1)G. It completes the first matching posted
//     receive, or else joins the rank's unexpected queue;
//   - a receive is posted when it starts (it costs no CPU): it completes at
//     once on the first matching unexpected message, or waits in the
//     rank's receive queue;
//   - matching is by source and tag, first match in posting order; -1 on
//     either side (a receive's source or tag, a send's tag) matches all;
//   - a send of s <= S bytes (eager) completes when it starts, so what
//     requires it starts when its CPU is free again; one of s > S bytes
//     (rendezvous) completes when the receiver matches it, at a' if the
//     receive was posted, else when the receive is posted, and the
//     sender's CPU and send-NIC clocks are raised to that time. As in
//     LogGOPSim, the rendezvous test uses the receive's size and the
//     clocks of the receive's CPU and NIC indices when the message was
//     waiting, the send's otherwise;
//   - "calc c" starts when its CPU is free and occupies it for c; it
//     completes (for its dependents) when it starts, which on one CPU means
//     they start after it;
//   - an op whose dependencies are met is due when its CPU is free (a send:
//     its CPU and send NIC). Events are processed in time order, exact ties
//     first-in first-out; ops that become ready on the same event are
//     queued rank by rank, sends before receives before calcs (LogGOPSim's
//     type order), then in schedule order (LogGOPSim: the order the
//     dependency lines were given); an op whose CPU or NIC turns out busy
//     is retried when it frees, keeping its place among equals.
//
// Two optional extensions (Params.Segments and Params.Hops) take the
// parameters from the message's size and add a per-hop latency for the
// pair of ranks, for a machine calibrated per protocol segment and per
// distance; with neither, the semantics are exactly the above.
//
// A rank's finish time is the latest of its CPU clocks after its last
// operation; Result.Max is the largest. Options.Trace also records every
// op's start and end (Result.OpTimes).
//
// A schedule that cannot finish (a receive nothing matches, a message
// nothing receives, a rendezvous send never received, a dependency cycle)
// ends, when no event is left, with a *StuckError naming for each stuck
// rank its first unfinished op (label, kind, peer, tag) and what it waits
// for. Simulation never hangs: every event either completes work or is
// retried at a strictly later time.
//
// Memory is proportional to the schedule: per op about 20 bytes beyond
// the schedule's own 48 (dependency counts and reverse lists), per rank 48
// bytes of clocks and queue heads, and a queue of 32-byte events stored by
// value, so processing an event allocates nothing.
package loggops
