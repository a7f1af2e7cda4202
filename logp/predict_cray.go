package logp

// The Cray X1 collectives of nocsim's mpi/coll_cray.go, which run on SCMP's
// native primitives: a remote store is a message whose receive overhead
// is the waiting rank's poll noticing it; a fetch-add, a check-in or a
// getBlock request is a message whose receive overhead is its handler
// thread's start on the remote processor; a getBlock is that request, the
// block sent back by the handler and a one-word completion flag. Message
// sizes are the words the primitives carry. These are critical paths of
// the ranks all entering together, not replays: the forms are checked
// against the chip (scenarios TestCrayPredictions), not against a
// generated schedule, since the algorithms send no MPI messages for
// logp/collgen to describe. With parameters fitted to the primitives
// (scenarios' nativeParams) the barrier and the pulls from one root come
// within 15% of the chip at P = 4..16. With parameters fitted to MPI messages they
// overestimate: the primitives skip the MPI protocol.

// Words each primitive carries (mpi/coll_cray.go and endpoint/native.go).
const (
	crayFaddBytes  = 4 * 6 // context, holder, level, group size, requester, its climb word
	crayStoreBytes = 4 * 3 // address, count, start flag
	crayGetBytes   = 4 * 7 // getBlock's arguments
	crayWordBytes  = 4     // a resume store, a reply, a completion flag, a check-in
)

// barrierTree4Scatter: at each level of the four-way tree whose group has
// n >= 2 participants, the last fetch-add crosses the network and waits
// behind the other n-2 at the word's holder (the group's first rank adds
// its own locally), and the reply goes back to its sender; then the last
// arriver sends P-1 resume stores back to back, and the last one is seen.
func barrierTree4Scatter(e *env) {
	cf, cw := e.cost(crayFaddBytes), e.cost(crayWordBytes)
	levels, queued := 0.0, 0.0
	for span := 1; span < e.P; span *= 4 {
		if n := min(4, ceilDiv(e.P, span)); n >= 2 {
			levels++
			queued += float64(n - 2)
		}
	}
	e.msg("levels x fetch-add ", levels, cf)
	e.add("fetch-adds queued at the holder x o_r", queued*cf.or)
	e.msg("levels x reply ", levels, cw)
	e.add("(P-2) x max(o_s, g): resume stores", float64(e.P-2)*cw.sendIv())
	e.msg("last resume store ", 1, cw)
}

// crayPulls is the path of P-1 ranks pulling m bytes each from one root:
// the root stores their start flags back to back; each then sends its
// getBlock, and the root's tile serves the requests one after the other,
// each taking the longer of its processor's part (a handler's start, the
// block's send, the flag's send) and its NIU's (the block's words); the
// last block's flag follows once the DMA has read the block, and the last
// puller, seeing it, sends its check-in. With wait (the root's data is
// its user buffer), the root leaves after the last check-in's handler.
// 0 bytes: no getBlock, only the stores and the check-ins.
func crayPulls(e *env, m int, wait bool) {
	n := float64(e.P - 1)
	cs, cg, cb, cw := e.cost(crayStoreBytes), e.cost(crayGetBytes), e.cost(pad4(m)), e.cost(crayWordBytes)
	get := 1.0
	if m == 0 {
		get = 0
	}
	cpu := cg.or + cb.os + cb.om + cw.os
	e.add("(P-2) x max(o_s, g): start stores", (n-1)*cs.sendIv())
	e.msg("last start store ", 1, cs)
	e.msg("getBlock request ", get, cg)
	e.add("(P-2) x root serves a getBlock: max(o_r + 2 o_s, g + (m-1)G)", get*(n-1)*max(cpu, cb.g+cb.gm))
	e.add("last getBlock: o_r + o_s + (m-1)max(G,O)", get*(cg.or+cb.os+cb.om+cb.bytes()))
	e.msg("flag ", get, cw)
	e.add("check-in o_s", cw.os)
	back := 0.0
	if wait {
		back = 1
	}
	e.add("root waits: check-in L + o_r", back*(cw.l+cw.or))
}

// bcastPullRMA: data under 32 bytes is pulled from the root's own small
// buffer and the root leaves after its stores; more, and it waits.
func bcastPullRMA(e *env) { crayPulls(e, e.m, e.m >= 32) }

// scatterPullRMA: every rank pulls its m-byte block; the root waits.
func scatterPullRMA(e *env) { crayPulls(e, e.m, true) }

// alltoallPullScan: every rank stores P-1 start flags back to back, then
// pulls its P-1 blocks one at a time (from me+1 on, so each source serves
// one puller at a time), each a round trip (the request, the handler's
// start, the block and its flag back, then the check-in sent; the flag's
// L includes the poll that sees it), while its processor also serves the
// P-1 getBlocks and check-ins of the others, which the chip shows to be on
// the path. All ranks move blocks at once: with large blocks the mesh's
// contention, not modelled, makes the chip slower (about twice, 1 KiB
// blocks on 8 to 16 ranks of 4x4).
func alltoallPullScan(e *env) {
	n := float64(e.P - 1)
	m := e.m
	cs, cg, cb, cw := e.cost(crayStoreBytes), e.cost(crayGetBytes), e.cost(pad4(m)), e.cost(crayWordBytes)
	get := 1.0
	if m == 0 {
		get = 0
	}
	e.add("(P-2) x max(o_s, g): start stores", (n-1)*cs.sendIv())
	e.msg("last start store ", 1, cs)
	e.add("(P-1) x getBlock round trip: request, o_r, block o_s + (m-1)max(G,O), flag o_s + L", get*n*(cg.os+cg.l+cg.or+cb.os+cb.om+cb.bytes()+cw.os+cw.l))
	e.add("(P-1) x check-in o_s", n*cw.os)
	e.add("(P-1) x serving the others: getBlock o_r + 2 o_s, check-in o_r", n*(get*(cg.or+cb.os+cb.om+cw.os)+cw.or))
}

func pad4(m int) int { return (m + 3) &^ 3 }
