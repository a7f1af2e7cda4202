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

// barrier writes the barrier algorithms that are not coll programs yet.
func (g *gen) barrier(alg string) func(me int) {
	d := g.meshDims() // mesh
	return func(me int) { g.meshDimsRun(d, me, 0, true) }
}

// bcast writes the broadcasts that are not coll programs yet.
func (g *gen) bcast(alg string) func(me int) {
	P, n, root := g.P, g.n, g.opt.Root
	if alg == "mesh" {
		t := g.meshTree(root)
		return func(me int) { g.meshBcast(t, me, n) }
	}
	// optimal
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
