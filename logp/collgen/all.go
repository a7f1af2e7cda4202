package collgen

import "nocsim/coll"

// Allgather and alltoall: the patterns of mpi/coll_all*.go.

func (g *gen) allgather(alg string) func(me int) {
	P, n := g.P, g.n
	// Every rank works on one buffer of the P blocks, each padded to whole
	// words; the user's buffer is that layout when blocks are whole words.
	// Blocks a..b-1 travel as one message of spanAB(a, b) bytes.
	direct := n%4 == 0
	spanAB := func(a, b int) int64 { return span(n, b-a) }
	body := func(me int) {}
	switch alg {
	case "gather_bcast":
		body = func(me int) {
			var s step
			mask := 1
			for ; mask < P && me&mask == 0; mask <<= 1 {
				if child := me + mask; child < P {
					g.irecv(&s, child, spanAB(child, min(child+mask, P)))
				}
			}
			g.wait(&s)
			if me != 0 {
				g.send(me-mask, spanAB(me, min(me+mask, P)))
			}
			_ = coll.BinomialBcast(g, P, me, 0, coll.Data.At(0, int(spanAB(0, P))))
		}
	case "ring":
		body = func(me int) {
			right, left := (me+1)%P, (me+P-1)%P
			for k := 0; k < P-1; k++ {
				g.sendrecv(right, n, left, n)
			}
		}
	default: // recursive_doubling
		p := 1
		for p*2 <= P {
			p *= 2
		}
		rem := P - p
		lo := func(v int) int {
			if v < rem {
				return 2 * v
			}
			return v + rem
		}
		real := func(v int) int {
			if v < rem {
				return 2*v + 1
			}
			return v + rem
		}
		body = func(me int) {
			all := spanAB(0, P)
			if me < 2*rem && me%2 == 0 {
				g.send(me+1, n)
				g.recv(me+1, all)
				return
			}
			v := me - rem
			if me < 2*rem {
				v = me / 2
				g.recv(me-1, n)
			}
			for mask := 1; mask < p; mask <<= 1 {
				pv := v ^ mask
				mine, theirs := v&^(mask-1), pv&^(mask-1)
				g.sendrecv(real(pv), spanAB(lo(mine), lo(mine+mask)), real(pv), spanAB(lo(theirs), lo(theirs+mask)))
			}
			if me < 2*rem {
				g.send(me-1, all)
			}
		}
	}
	return func(me int) {
		g.copies(n) // the rank's own block into the working buffer
		body(me)
		if !direct {
			for range P {
				g.copies(n) // every block out of the working buffer
			}
		}
	}
}

func (g *gen) alltoall(alg string) func(me int) {
	P, n := g.P, g.n
	if alg == "bruck" {
		s := pad4(n)
		return func(me int) {
			for range P {
				g.copies(n) // rotate every block into the work area
			}
			for k := 1; k < P; k <<= 1 {
				m := 0
				for j := k; j < P; j++ {
					if j&k != 0 {
						m++
					}
				}
				for range m {
					g.copies(n)
				}
				bytes := int64(m-1)*s + n
				g.sendrecv((me+k)%P, bytes, (me-k+P)%P, bytes)
				for range m {
					g.copies(n)
				}
			}
			for range P {
				g.copies(n) // rotate back
			}
		}
	}
	// post_all and pairwise send blocks straight from the user's buffer
	// when they start on a word, else through packed scratch; the rank's
	// own block is copied.
	staged := func(j int) bool { return n > 0 && int64(j)*n%4 != 0 }
	stage := func(me int) {
		for j := range P {
			if j != me && staged(j) {
				g.copies(n) // pack outgoing block j
			}
		}
		g.copies(n) // own block
	}
	unstage := func(me int) {
		for j := range P {
			if j != me && staged(j) {
				g.copies(n)
			}
		}
	}
	if alg == "post_all" {
		return func(me int) {
			stage(me)
			var s step
			for k := 1; k < P; k++ {
				g.irecv(&s, (me-k+P)%P, n)
			}
			for k := 1; k < P; k++ {
				g.isend(&s, (me+k)%P, n)
			}
			g.wait(&s)
			unstage(me)
		}
	}
	return func(me int) { // pairwise
		stage(me)
		for k := 1; k < P; k++ {
			g.sendrecv((me+k)%P, n, (me-k+P)%P, n)
		}
		unstage(me)
	}
}
