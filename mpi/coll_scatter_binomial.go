package mpi

import (
	"slices"

	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// The binomial scatter and gather move, between a node and its parent, the
// blocks of the node's whole subtree as one message, laid out in relative
// rank order with each block padded to whole words (rtLayout) so every
// block starts where the DMA engine can address it. Only the root knows a
// vector operation's sizes: it sends them down, ahead of the data, to the
// inner nodes of the scatter tree, and in the gather tree the inner nodes
// learn them from their children's headers.

// rtLayout gives block offsets for sizes sz: off[j] is where block j starts,
// off[len(sz)] the total.
func rtLayout(sz []int) []int {
	off := make([]int, len(sz)+1)
	for j, n := range sz {
		off[j+1] = off[j] + rtPad(n)
	}
	return off
}

// rtSpan is the length of the message carrying blocks lo..lo+cnt-1.
func rtSpan(sz, off []int, lo, cnt int) int {
	return off[lo+cnt-1] + sz[lo+cnt-1] - off[lo]
}

// treeView is the root's buffer seen as the tree layout when it already
// is one (a contiguous type, every block at its tree offset, and no block
// but the last a part word, so no padding lands in the user's buffer).
func (bl *rtBlocks) treeView(root int, sz, off []int) (datatype.Buffer, bool) {
	P := len(sz)
	base := bl.disp[root]
	if !bl.dt.Contiguous() || base%4 != 0 {
		return datatype.Buffer{}, false
	}
	for j := 0; j < P; j++ {
		i := (root + j) % P
		if sz[j] == 0 {
			continue
		}
		if bl.disp[i]-base != off[j] || j < P-1 && sz[j]%4 != 0 || bl.disp[i]+sz[j] > bl.buf.Len() {
			return datatype.Buffer{}, false
		}
	}
	b, err := bl.buf.Slice(base, bl.buf.Len()-base)
	return b, err == nil
}

func (x *coll) rtScatterBinomial(p rtPart) error {
	bl, rb, mine, root, vec, own, late := p.bl, p.b, p.mine, p.root, p.vec, p.own, p.late
	P := x.c.Size()
	rel := x.rtRel(root)
	abs := func(j int) int { return rtAbs(j, root, P) }
	s := x.rtStep()
	if rel == 0 {
		sz := make([]int, P)
		for j := range sz {
			sz[j] = bl.size(abs(j))
		}
		off := rtLayout(sz)
		t, direct := bl.treeView(root, sz, off)
		if !direct {
			var err error
			if t, err = x.alloc(off[P]); err != nil {
				return err
			}
			defer x.free(t)
			for j := 1; j < P; j++ {
				if err := x.rtPack(bl, abs(j), t.Bytes[off[j]:]); err != nil {
					return err
				}
			}
		}
		var hdr datatype.Buffer
		if vec {
			var err error
			if hdr, err = x.rtSizes(sz); err != nil {
				return err
			}
			defer x.free(hdr)
		}
		for _, k := range rtKids(0, P) {
			if vec && k.size > 1 {
				s.send(hdr, 4*k.rel, 4*k.size, abs(k.rel))
			}
			s.send(t, off[k.rel], rtSpan(sz, off, k.rel, k.size), abs(k.rel))
		}
		err := own()
		if e := s.wait(); err == nil {
			err = e
		}
		return err
	}
	parent, size := abs(rtParent(rel)), rtSubtree(rel, P)
	if size == 1 {
		return x.recv(rb, mine, parent)
	}
	sz := make([]int, size)
	var hdr datatype.Buffer
	if vec {
		var err error
		if hdr, err = x.alloc(4 * size); err != nil {
			return err
		}
		defer x.free(hdr)
		if err := x.recv(hdr, 4*size, parent); err != nil {
			return err
		}
		for j := range sz {
			sz[j] = int(hdr.Int32(j))
		}
	} else {
		for j := range sz {
			sz[j] = mine
		}
	}
	off := rtLayout(sz)
	t, err := x.alloc(off[size])
	if err != nil {
		return err
	}
	defer x.free(t)
	if err := x.recv(t, rtSpan(sz, off, 0, size), parent); err != nil {
		return err
	}
	for _, k := range rtKids(rel, P) {
		j := k.rel - rel
		if vec && k.size > 1 {
			s.send(hdr, 4*j, 4*k.size, abs(k.rel))
		}
		s.send(t, off[j], rtSpan(sz, off, j, k.size), abs(k.rel))
	}
	if sz[0] != mine && *late == nil {
		*late = mpierr.Errorf(mpierr.ErrTruncate, x.name, "rank %d: the root sends %d bytes into a %d-byte receive", x.r.rank, sz[0], mine)
	}
	x.copy(rb, t, min(sz[0], mine))
	return s.wait()
}

func (x *coll) rtGatherBinomial(p rtPart) error {
	bl, sb, mine, root, vec, own := p.bl, p.b, p.mine, p.root, p.vec, p.own
	P := x.c.Size()
	rel := x.rtRel(root)
	abs := func(j int) int { return rtAbs(j, root, P) }
	s := x.rtStep()
	if rel == 0 {
		sz := make([]int, P)
		for j := range sz {
			sz[j] = bl.size(abs(j))
		}
		off := rtLayout(sz)
		t, direct := bl.treeView(root, sz, off)
		if !direct {
			var err error
			if t, err = x.alloc(off[P]); err != nil {
				return err
			}
			defer x.free(t)
		}
		for _, k := range rtKids(0, P) {
			s.recv(t, off[k.rel], rtSpan(sz, off, k.rel, k.size), abs(k.rel))
		}
		err := own()
		if e := s.wait(); err == nil {
			err = e
		}
		if err != nil || direct {
			return err
		}
		for j := 1; j < P; j++ {
			if err := x.rtUnpack(bl, abs(j), t.Bytes[off[j]:]); err != nil {
				return err
			}
		}
		return nil
	}
	parentRel := rtParent(rel)
	parent, size := abs(parentRel), rtSubtree(rel, P)
	tell := vec && parentRel != 0 // the root knows every size already
	sz := make([]int, size)
	for j := range sz {
		sz[j] = mine
	}
	var hdr datatype.Buffer
	if vec {
		var err error
		if hdr, err = x.alloc(4 * size); err != nil {
			return err
		}
		defer x.free(hdr)
		hdr.SetInt32(0, int32(mine))
	}
	kids := rtKids(rel, P)
	if vec && len(kids) > 0 {
		for _, k := range kids {
			s.recv(hdr, 4*(k.rel-rel), 4*k.size, abs(k.rel))
		}
		if err := s.wait(); err != nil {
			return err
		}
		for j := range sz {
			sz[j] = int(hdr.Int32(j))
		}
	}
	if len(kids) == 0 {
		if tell {
			s.send(hdr, 0, 4, parent)
		}
		s.send(sb, 0, mine, parent)
		return s.wait()
	}
	off := rtLayout(sz)
	t, err := x.alloc(off[size])
	if err != nil {
		return err
	}
	defer x.free(t)
	for _, k := range kids {
		j := k.rel - rel
		s.recv(t, off[j], rtSpan(sz, off, j, k.size), abs(k.rel))
	}
	x.copy(t, sb, mine)
	if err := s.wait(); err != nil {
		return err
	}
	if tell {
		s.send(hdr, 0, 4*size, parent)
	}
	s.send(t, 0, rtSpan(sz, off, 0, size), parent)
	return s.wait()
}

// rtSizes puts sizes in a scratch buffer as int32s, to send as headers.
func (x *coll) rtSizes(sz []int) (datatype.Buffer, error) {
	b, err := x.alloc(4 * len(sz))
	if err != nil {
		return datatype.Buffer{}, err
	}
	for j, n := range sz {
		b.SetInt32(j, int32(n))
	}
	x.r.t.Compute(x.r.w.M.CPU.CopyCyclesPerWord * int64(len(sz)))
	return b, nil
}

// Binomial tree over ranks relative to the root (relative rank 0): a
// node's parent clears its lowest set bit; its children add the lower
// powers of two.

type rtKid struct{ rel, size int } // relative rank and subtree size

func (x *coll) rtRel(root int) int { return (x.c.Rank() - root + x.c.Size()) % x.c.Size() }

func rtAbs(rel, root, P int) int { return (rel + root) % P }

func rtParent(rel int) int { return rel & (rel - 1) }

func rtSubtree(rel, P int) int {
	if rel == 0 {
		return P
	}
	return min(rel&-rel, P-rel)
}

// rtKids lists a node's children, biggest subtree first, so the longest
// branch starts earliest.
func rtKids(rel, P int) []rtKid {
	var out []rtKid
	for m := 1; m < P && (rel == 0 || m < rel&-rel); m <<= 1 {
		if c := rel + m; c < P {
			out = append(out, rtKid{c, min(m, P-c)})
		}
	}
	slices.Reverse(out)
	return out
}

func rtPad(n int) int { return (n + 3) &^ 3 }

// abs is the absolute value of a.
func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}
