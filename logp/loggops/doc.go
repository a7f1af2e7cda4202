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
//     is retried when it frees, keeping its place among equals. (The
//     events waiting for the same CPU and NIC wait in one list, tried
//     smallest insertion number first, with the same result as retrying
//     each on its own as LogGOPSim does, in O(log n) per event instead of
//     LogGOPSim's n²/2 retries for n ops ready on one rank; see wait.go.)
//
// Two optional extensions (Params.Segments and Params.Hops) take the
// parameters from the message's size and add a per-hop latency for the
// pair of ranks, for a machine calibrated per protocol segment and per
// distance; with neither, the semantics are exactly the above.
//
// # Handshake (Segment.Handshake)
//
// A third, opt-in per segment, replaces LogGOPSim's rendezvous by the
// handshake of a machine whose clear-to-send runs on the sender's CPU
// (SCMP's MPI: the request to send and the clear-to-send are threads).
// With h the pair's hops, Lc = L_cts + h·L_cts_per_hop and Ld = L_data +
// h·L_data_per_hop, a send of s > S bytes of such a segment started at t:
//
//   - occupies the CPU until t + o_s + (s-1)O and the send NIC until
//     t + g_data (the request carries no data); the request reaches the
//     receiver at t + o_s + (L + h·L_per_hop - Lc - Ld);
//   - the request is a handler at the receiver: it runs when the
//     receiver's CPU is free (and, with Params.Cooperative, its rank
//     blocked: no op ready or waiting to start), costs nothing, and
//     matches a posted receive, else waits as an unexpected message; a
//     receive posted later matches it when posted. The clear-to-send
//     leaves, when the request's handler matched a posted receive, at
//     max(m, p + L_post), m the match and p the receive's posting
//     (L_post: the receiver's posting and its switch to the handler,
//     which a request arriving meanwhile waits for); when a receive
//     found the request waiting, at p + o_r (the receive call answers
//     it). It reaches the sender at c = that + Lc;
//   - the sender takes it at c' >= c, the first time its CPU is free
//     (with Cooperative: and its rank blocked); the CPU is busy until
//     c' + o_cts; the data leaves at d = max(c', send NIC free), holds
//     the send NIC until d + g_data + (s-1)G and reaches the receiver at
//     d + Ld. The send completes at the later of c' + o_cts and the
//     data leaving the NIC, d + g_data + (s-1)G (the CPU clock raised to
//     it then, as LogGOPSim does at a match; not to the match itself);
//   - there it is handled as any arriving message (at a' = max(arrival,
//     CPU free, receive NIC free): CPU until a' + o_r + max((s-1)O,
//     (s-1)G), receive NIC until a' + g_data + (s-1)G) and completes the
//     matched receive at the CPU's end.
//
// An isolated message to a receiver waiting since before t + o_s + L -
// Lc - Ld - L_post thus takes o_s + L +
// h·L_per_hop + (s-1)G + o_r, the plain one-way time; a sender that
// posts k sends and then blocks answers their clear-to-sends o_cts apart
// (or g_data + (s-1)G apart when the NIC is slower), after its last
// post under Cooperative. With zero legs, o_cts and gaps, and every
// clear-to-send finding its sender free, it is LogGOPSim's rendezvous.
//
// A rank's finish time is the latest of its CPU clocks after its last
// operation; Result.Max is the largest. Options.Trace also records every
// op's start and end (Result.OpTimes).
//
// A schedule that cannot finish (a receive nothing matches, a message
// nothing receives, a rendezvous send never received, a dependency cycle)
// ends, when no event is left, with a *StuckError naming for each stuck
// rank its first unfinished op (label, kind, peer, tag) and what it waits
// for (a handshake send: its receive, or its clear-to-send). Simulation never hangs: every event either completes work or is
// retried at a strictly later time.
//
// Memory is proportional to the schedule: per op about 20 bytes beyond
// the schedule's own 48 (dependency counts and reverse lists), per rank 48
// bytes of clocks and queue heads (12 more once an event has waited), and
// a queue and wait lists of 32-byte events stored by value and reused, so
// processing an event allocates nothing beyond their growth.
//
// # Fitted parameters
//
// logp.Params.Tier maps the LogGP parameters `nocsim calibrate` fitted
// (the parameters file) to the tier's, for ranks placed on the tiles of a
// Topology (per-hop latency, the fitted segments, the handshake);
// logp.Params.TierAvgHops takes every latency at the fit's average
// distance instead. (The mapping lives in logp, which uses the tier for
// the predictions no closed form gives; the tier imports nothing of logp.) Either way an isolated message takes exactly the
// fitted one-way time.
package loggops
