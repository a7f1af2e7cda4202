package collgen

import (
	"nocsim/logp"
)

// Barrier, broadcast, scatter and gather: the patterns of mpi/coll_rooted*.go,
// function by function (rtBarrierCentral is barrierCentral here, and so on).

// Binomial tree over ranks relative to the root, as mpi's rtParent,
// rtSubtree and rtKids: a node's parent clears its lowest set bit, its
// children add the lower powers of two, biggest subtree first.

func parent(rel int) int { return rel & (rel - 1) }

func subtree(rel, P int) int {
	if rel == 0 {
		return P
	}
	return min(rel&-rel, P-rel)
}

// kids calls f(child, subtree size) for rel's children, biggest first.
func kids(rel, P int, f func(c, size int)) {
	top := 1
	for top < P && (rel == 0 || top < rel&-rel) {
		top <<= 1
	}
	for m := top >> 1; m >= 1; m >>= 1 {
		if c := rel + m; c < P {
			f(c, min(m, P-c))
		}
	}
}

func abs(rel, root, P int) int { return (rel + root) % P }

func (g *gen) barrier(alg string) func(me int) {
	P := g.P
	switch alg {
	case "mesh":
		d := g.meshDims()
		return func(me int) { g.meshDimsRun(d, me, 0, true) }
	case "central":
		return func(me int) {
			var s step
			if me != 0 {
				g.irecv(&s, 0, 0)
				g.isend(&s, 0, 0)
				g.wait(&s)
				return
			}
			for i := 1; i < P; i++ {
				g.irecv(&s, i, 0)
			}
			g.wait(&s)
			for i := 1; i < P; i++ {
				g.isend(&s, i, 0)
			}
			g.wait(&s)
		}
	case "tree4":
		return func(me int) {
			var arrive, release step
			for k := 4*me + 1; k <= 4*me+4 && k < P; k++ {
				g.irecv(&arrive, k, 0)
			}
			parent := (me - 1) / 4
			if me != 0 {
				g.irecv(&release, parent, 0)
			}
			g.wait(&arrive)
			if me != 0 {
				g.isend(&release, parent, 0)
				g.wait(&release)
			}
			for k := 4*me + 1; k <= 4*me+4 && k < P; k++ {
				g.isend(&release, k, 0)
			}
			g.wait(&release)
		}
	default: // dissemination
		return func(me int) {
			for k := 1; k < P; k <<= 1 {
				g.sendrecv((me+k)%P, 0, (me-k+P)%P, 0)
			}
		}
	}
}

func (g *gen) bcast(alg string) func(me int) {
	P, n, root := g.P, g.n, g.opt.Root
	switch alg {
	case "mesh":
		t := g.meshTree(root)
		return func(me int) { g.meshBcast(t, me, n) }
	case "flat":
		return func(me int) {
			if me != root {
				g.recv(root, n)
				return
			}
			var s step
			for i := range P {
				if i != root {
					g.isend(&s, i, n)
				}
			}
			g.wait(&s)
		}
	case "binomial":
		return func(me int) { g.bcastBinomial(me, n, root) }
	case "optimal":
		// Karp et al.'s tree for the options' L, o, g (logp builds it as
		// mpi does): receive from the parent, then send to the children in
		// the order the tree informs them, and wait for all.
		_, parent, _ := logp.OptimalBroadcast(P, g.opt.OptimalL, g.opt.OptimalO, g.opt.OptimalG)
		kids := make([][]int, P)
		for j := 1; j < P; j++ {
			kids[parent[j]] = append(kids[parent[j]], j)
		}
		return func(me int) {
			rel := (me - root + P) % P
			if rel != 0 {
				g.recv((parent[rel]+root)%P, n)
			}
			var s step
			for _, k := range kids[rel] {
				g.isend(&s, (k+root)%P, n)
			}
			g.wait(&s)
		}
	case "pull":
		// The root answers requests in the order they arrive (Waitany):
		// here each answer requires its request, so it goes out when
		// that request is in, which is the same rule where the order of
		// arrival is decided by the model's timing.
		return func(me int) {
			var s step
			if me != root {
				g.irecv(&s, root, n)
				g.isend(&s, root, 0)
				g.wait(&s)
				return
			}
			asks := make([]int32, 0, P-1)
			for i := range P {
				if i != root {
					var a step
					g.irecv(&a, i, 0)
					asks = append(asks, a[0].op)
				}
			}
			k := 0
			for i := range P {
				if i == root {
					continue
				}
				g.isend(&s, i, n)
				g.b.Require(me, s[len(s)-1].op, asks[k])
				k++
			}
			for _, a := range asks {
				s = append(s, pend{a, -1})
			}
			g.wait(&s)
		}
	default: // scatter_allgather
		chunk := pad4((n + int64(P) - 1) / int64(P))
		piece := func(lo, cnt int) int64 {
			off, end := min(int64(lo)*chunk, n), min(int64(lo+cnt)*chunk, n)
			return end - off
		}
		return func(me int) {
			rel := (me - root + P) % P
			var s step
			if rel != 0 {
				if l := piece(rel, subtree(rel, P)); l > 0 {
					g.irecv(&s, abs(parent(rel), root, P), l)
					g.wait(&s)
				}
			}
			kids(rel, P, func(c, size int) {
				if l := piece(c, size); l > 0 {
					g.isend(&s, abs(c, root, P), l)
				}
			})
			g.wait(&s)
			left, right := abs((rel-1+P)%P, root, P), abs((rel+1)%P, root, P)
			for i := 0; i < P-1; i++ {
				if l := piece((rel-i+P)%P, 1); l > 0 {
					g.isend(&s, right, l)
				}
				if l := piece((rel-i-1+2*P)%P, 1); l > 0 {
					g.irecv(&s, left, l)
				}
				g.wait(&s)
			}
		}
	}
}

// bcastBinomial is rtBcastBinomial: n bytes from root down the binomial tree.
func (g *gen) bcastBinomial(me int, n int64, root int) {
	P := g.P
	rel := (me - root + P) % P
	if rel != 0 {
		g.recv(abs(parent(rel), root, P), n)
	}
	var s step
	kids(rel, P, func(c, _ int) { g.isend(&s, abs(c, root, P), n) })
	g.wait(&s)
}

// span is the length of the message carrying cnt consecutive blocks of n
// bytes, each padded to whole words but the last (mpi's rtSpan for a
// regular scatter or gather).
func span(n int64, cnt int) int64 { return int64(cnt-1)*pad4(n) + n }

func (g *gen) scatter(alg string) func(me int) {
	P, n, root := g.P, g.n, g.opt.Root
	if alg == "flat" {
		return func(me int) {
			if me != root {
				g.recv(root, n)
				return
			}
			var s step
			for i := range P {
				if i != root {
					if int64(i)*n%4 != 0 {
						g.copies(n) // an unaligned block is staged for the DMA engine
					}
					g.isend(&s, i, n)
				}
			}
			g.copies(n) // the root's own block
			g.wait(&s)
		}
	}
	// binomial: the root sends each child its subtree's blocks as one
	// message in tree layout, packing first unless the buffer already is
	// that layout (root 0 and whole-word blocks).
	direct := root == 0 && n%4 == 0 || n == 0
	return func(me int) {
		rel := (me - root + P) % P
		var s step
		if rel == 0 {
			if !direct {
				for j := 1; j < P; j++ {
					g.copies(n)
				}
			}
			kids(0, P, func(c, size int) { g.isend(&s, abs(c, root, P), span(n, size)) })
			g.copies(n) // own block
			g.wait(&s)
			return
		}
		size := subtree(rel, P)
		if size == 1 {
			g.recv(abs(parent(rel), root, P), n)
			return
		}
		g.recv(abs(parent(rel), root, P), span(n, size))
		kids(rel, P, func(c, size int) { g.isend(&s, abs(c, root, P), span(n, size)) })
		g.copies(n) // its own block out of the subtree's
		g.wait(&s)
	}
}

func (g *gen) gather(alg string) func(me int) {
	P, n, root := g.P, g.n, g.opt.Root
	// recvBlocks posts the root's receives of every block; the unaligned
	// ones land in scratch and are copied in after the wait.
	recvBlocks := func(s *step) (unaligned int) {
		for i := range P {
			if i != root {
				g.irecv(s, i, n)
				if int64(i)*n%4 != 0 && n > 0 {
					unaligned++
				}
			}
		}
		return unaligned
	}
	switch alg {
	case "flat":
		return func(me int) {
			if me != root {
				g.send(root, n)
				return
			}
			var s step
			u := recvBlocks(&s)
			g.copies(n)
			g.wait(&s)
			for range u {
				g.copies(n)
			}
		}
	case "push":
		return func(me int) {
			if me != root {
				g.recv(root, 0)
				g.send(root, n)
				return
			}
			var s step
			u := recvBlocks(&s)
			for i := range P {
				if i != root {
					g.isend(&s, i, 0)
				}
			}
			g.copies(n)
			g.wait(&s)
			for range u {
				g.copies(n)
			}
		}
	}
	// binomial
	direct := root == 0 && n%4 == 0 || n == 0
	return func(me int) {
		rel := (me - root + P) % P
		var s step
		if rel == 0 {
			kids(0, P, func(c, size int) { g.irecv(&s, abs(c, root, P), span(n, size)) })
			g.copies(n)
			g.wait(&s)
			if !direct {
				for j := 1; j < P; j++ {
					g.copies(n)
				}
			}
			return
		}
		par := abs(parent(rel), root, P)
		leaf := true
		kids(rel, P, func(c, size int) {
			leaf = false
			g.irecv(&s, abs(c, root, P), span(n, size))
		})
		if leaf {
			g.isend(&s, par, n)
			g.wait(&s)
			return
		}
		g.copies(n)
		g.wait(&s)
		g.isend(&s, par, span(n, subtree(rel, P)))
		g.wait(&s)
	}
}
