package collgen

// reduceRing is mpi's reduceRing (coll_reduce_ring.go), Puma's bucket reduce: the
// ring reduce-scatter, then the blocks passed round the ring to the root,
// the rank pos places after the root's successor sending pos+1 blocks.
func (g *gen) reduceRing(count int64, root int) func(me int) {
	P, es := g.P, g.es()
	bo := split(count, P, g.opt.ElemBytes)
	blk := func(i int) int64 {
		i = (i%P + P) % P
		return (bo[i+1] - bo[i]) * es
	}
	return func(me int) {
		g.ringRS(me, bo)
		pos := (me - root - 1 + 2*P) % P
		right, left := (me+1)%P, (me-1+P)%P
		for t := 0; t <= pos && t < P-1; t++ {
			switch {
			case me == root:
				g.recv(left, blk(me-1-t))
			case t < pos:
				g.sendrecv(right, blk(me-t), left, blk(me-1-t))
			default:
				g.send(right, blk(me-t))
			}
		}
	}
}
