package collgen

// Allgather and alltoall: the patterns of mpi/coll_all*.go.

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
