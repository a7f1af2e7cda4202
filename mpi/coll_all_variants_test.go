package mpi

import (
	"fmt"
	"math/rand/v2"

	"nocsim/mpi/datatype"
)

// ---------------------------------------------------------------- variants

func allgatherVariant(P, count int, st, rt allType, inPlace bool, seed uint64) allVariant {
	n := count * rt.size()
	scount := n / st.size()
	rng := allRNG(seed)
	D := make([][]byte, P)
	for i := range D {
		D[i] = allBytes(rng, n)
	}
	ext := rt.dt.Extent()
	return allVariant{
		name: fmt.Sprintf("Allgather(count %d, %s to %s, in place %v)", count, st.name, rt.name, inPlace),
		call: func(r *Rank, c *Comm) error {
			me := c.Rank()
			sb := allFilled(r, st.dt.Span(scount))
			defer r.Free(sb)
			allPlace(sb.Bytes, 0, st, scount, D[me])
			rb := allFilled(r, rt.dt.Span(P*count))
			defer r.Free(rb)
			send := sb
			if inPlace {
				send = InPlace
				allPlace(rb.Bytes, me*count*ext, rt, count, D[me])
			}
			if err := r.Allgather(send, scount, st.dt, rb, count, rt.dt, c); err != nil {
				return err
			}
			exp := make([]allExpect, P)
			for j := range exp {
				exp[j] = allExpect{j * count * ext, rt, count, D[j]}
			}
			return allVerify(rb.Bytes, exp)
		},
	}
}

// allgathervVariant gives rank j up to count elements, its block placed
// in reverse rank order with a one-element hole after it.
func allgathervVariant(P, count int, a allType, inPlace bool, seed uint64) allVariant {
	rng := allRNG(seed)
	counts, displs := make([]int, P), make([]int, P)
	D := make([][]byte, P)
	at := 0
	for j := P - 1; j >= 0; j-- {
		counts[j] = rng.IntN(count + 1)
		displs[j] = at
		at += counts[j] + 1
		D[j] = allBytes(rng, counts[j]*a.size())
	}
	ext := a.dt.Extent()
	return allVariant{
		name: fmt.Sprintf("Allgatherv(counts up to %d, %s, in place %v)", count, a.name, inPlace),
		call: func(r *Rank, c *Comm) error {
			me := c.Rank()
			sb := allFilled(r, a.dt.Span(counts[me]))
			defer r.Free(sb)
			allPlace(sb.Bytes, 0, a, counts[me], D[me])
			rb := allFilled(r, a.dt.Span(at))
			defer r.Free(rb)
			send := sb
			if inPlace {
				send = InPlace
				allPlace(rb.Bytes, displs[me]*ext, a, counts[me], D[me])
			}
			if err := r.Allgatherv(send, counts[me], a.dt, rb, counts, displs, a.dt, c); err != nil {
				return err
			}
			exp := make([]allExpect, P)
			for j := range exp {
				exp[j] = allExpect{displs[j] * ext, a, counts[j], D[j]}
			}
			return allVerify(rb.Bytes, exp)
		},
	}
}

func alltoallVariant(P, count int, st, rt allType, inPlace bool, seed uint64) allVariant {
	n := count * rt.size()
	scount := n / st.size()
	rng := allRNG(seed)
	D := make([][][]byte, P) // D[i][j]: from i to j
	for i := range D {
		D[i] = make([][]byte, P)
		for j := range D[i] {
			D[i][j] = allBytes(rng, n)
		}
	}
	sext, rext := st.dt.Extent(), rt.dt.Extent()
	return allVariant{
		name: fmt.Sprintf("Alltoall(count %d, %s to %s, in place %v)", count, st.name, rt.name, inPlace),
		call: func(r *Rank, c *Comm) error {
			me := c.Rank()
			sb := allFilled(r, st.dt.Span(P*scount))
			defer r.Free(sb)
			rb := allFilled(r, rt.dt.Span(P*count))
			defer r.Free(rb)
			send := sb
			for j := 0; j < P; j++ {
				if inPlace {
					allPlace(rb.Bytes, j*count*rext, rt, count, D[me][j])
				} else {
					allPlace(sb.Bytes, j*scount*sext, st, scount, D[me][j])
				}
			}
			if inPlace {
				send = InPlace
			}
			if err := r.Alltoall(send, scount, st.dt, rb, count, rt.dt, c); err != nil {
				return err
			}
			exp := make([]allExpect, P)
			for j := range exp {
				exp[j] = allExpect{j * count * rext, rt, count, D[j][me]}
			}
			return allVerify(rb.Bytes, exp)
		},
	}
}

// allLayout places blocks of the given sizes (in units) in a random order
// with gaps of 1..3 units: their displacements and the total.
func allLayout(rng *rand.Rand, sizes []int) ([]int, int) {
	displs := make([]int, len(sizes))
	at := 0
	for _, j := range rng.Perm(len(sizes)) {
		displs[j] = at
		at += sizes[j] + 1 + rng.IntN(3)
	}
	return displs, at
}

// allCounts is a P x P matrix of counts 0..most, symmetric if asked.
func allCounts(rng *rand.Rand, P, most int, sym bool) [][]int {
	m := make([][]int, P)
	for i := range m {
		m[i] = make([]int, P)
		for j := range m[i] {
			m[i][j] = rng.IntN(most + 1)
			if sym && j < i {
				m[i][j] = m[j][i]
			}
		}
	}
	return m
}

func alltoallvVariant(P, count int, a allType, inPlace bool, seed uint64) allVariant {
	rng := allRNG(seed)
	cnt := allCounts(rng, P, count, inPlace) // cnt[i][j] elements from i to j
	D := make([][][]byte, P)
	sd, rd := make([][]int, P), make([][]int, P)
	send, recv := make([]int, P), make([]int, P)
	for i := range D {
		D[i] = make([][]byte, P)
		rc := make([]int, P)
		for j := range D[i] {
			D[i][j] = allBytes(rng, cnt[i][j]*a.size())
			rc[j] = cnt[j][i]
		}
		sd[i], send[i] = allLayout(rng, cnt[i])
		rd[i], recv[i] = allLayout(rng, rc)
	}
	ext := a.dt.Extent()
	return allVariant{
		name: fmt.Sprintf("Alltoallv(counts up to %d, %s, in place %v)", count, a.name, inPlace),
		call: func(r *Rank, c *Comm) error {
			me := c.Rank()
			sc, rc := cnt[me], make([]int, P)
			for j := range rc {
				rc[j] = cnt[j][me]
			}
			sb := allFilled(r, a.dt.Span(send[me]))
			defer r.Free(sb)
			rb := allFilled(r, a.dt.Span(recv[me]))
			defer r.Free(rb)
			sbuf := sb
			for j := 0; j < P; j++ {
				if inPlace {
					allPlace(rb.Bytes, rd[me][j]*ext, a, rc[j], D[me][j])
				} else {
					allPlace(sb.Bytes, sd[me][j]*ext, a, sc[j], D[me][j])
				}
			}
			if inPlace {
				sbuf = InPlace
			}
			if err := r.Alltoallv(sbuf, sc, sd[me], a.dt, rb, rc, rd[me], a.dt, c); err != nil {
				return err
			}
			exp := make([]allExpect, P)
			for j := range exp {
				exp[j] = allExpect{rd[me][j] * ext, a, rc[j], D[j][me]}
			}
			return allVerify(rb.Bytes, exp)
		},
	}
}

// alltoallwVariant sends 8k bytes from i to j as int32s, vectors or bytes
// (the receiver using another of the three), at byte displacements that
// are mostly not word-aligned.
func alltoallwVariant(P, count int, inPlace bool, seed uint64) allVariant {
	rng := allRNG(seed)
	k := allCounts(rng, P, count, inPlace) // k[i][j]: 8-byte units from i to j
	sType := func(i, j int) allType { return allTypes3[(i+j)%3] }
	rType := func(i, j int) allType { return allTypes3[(2*i+j+1)%3] } // at j, from i
	if inPlace {
		// Rank i sends to j with the type it receives from j with.
		sType = func(i, j int) allType { return rType(j, i) }
	}
	D := make([][][]byte, P)
	sd, rd := make([][]int, P), make([][]int, P)
	send, recv := make([]int, P), make([]int, P)
	for i := range D {
		D[i] = make([][]byte, P)
		ss, rs := make([]int, P), make([]int, P)
		for j := range D[i] {
			D[i][j] = allBytes(rng, 8*k[i][j])
			ss[j] = sType(i, j).dt.Span(8 * k[i][j] / sType(i, j).size())
			rs[j] = rType(j, i).dt.Span(8 * k[j][i] / rType(j, i).size())
		}
		sd[i], send[i] = allLayout(rng, ss)
		rd[i], recv[i] = allLayout(rng, rs)
	}
	return allVariant{
		name: fmt.Sprintf("Alltoallw(up to %d bytes, in place %v)", 8*count, inPlace),
		call: func(r *Rank, c *Comm) error {
			me := c.Rank()
			sc, rc := make([]int, P), make([]int, P)
			sts, rts := make([]*datatype.Datatype, P), make([]*datatype.Datatype, P)
			sb := allFilled(r, send[me])
			defer r.Free(sb)
			rb := allFilled(r, recv[me])
			defer r.Free(rb)
			exp := make([]allExpect, P)
			for j := 0; j < P; j++ {
				st, rt := sType(me, j), rType(j, me)
				sc[j], sts[j] = 8*k[me][j]/st.size(), st.dt
				rc[j], rts[j] = 8*k[j][me]/rt.size(), rt.dt
				if inPlace {
					allPlace(rb.Bytes, rd[me][j], rt, rc[j], D[me][j])
				} else {
					allPlace(sb.Bytes, sd[me][j], st, sc[j], D[me][j])
				}
				exp[j] = allExpect{rd[me][j], rt, rc[j], D[j][me]}
			}
			sbuf := sb
			if inPlace {
				sbuf = InPlace
			}
			if err := r.Alltoallw(sbuf, sc, sd[me], sts, rb, rc, rd[me], rts, c); err != nil {
				return err
			}
			return allVerify(rb.Bytes, exp)
		},
	}
}
