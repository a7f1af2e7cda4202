package mpi

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"nocsim/mpi/datatype"
)

// Derived datatypes over the network: sends and collectives place
// consecutive elements an extent apart and touch no padding.

// layout is every byte offset of count elements of dt placed at base, in
// typemap order, as Pack reads them (mpi/datatype checks Pack against its
// own model of the typemap): two Packs of buffers whose bytes hold the low
// and the high byte of their offset give each packed byte's offset.
func layout(t *testing.T, dt *datatype.Datatype, count, base int) []int {
	n := dt.Span(count)
	lo, hi := make([]byte, n), make([]byte, n)
	for i := range n {
		lo[i], hi[i] = byte(i), byte(i>>8)
	}
	plo, phi := make([]byte, count*dt.Size()), make([]byte, count*dt.Size())
	var p1, p2 int
	if err := errors.Join(datatype.Pack(lo, count, dt, plo, &p1), datatype.Pack(hi, count, dt, phi, &p2)); err != nil || n > 1<<16 {
		t.Errorf("layout of %d elements (%d bytes): %v", count, n, err)
		return nil
	}
	offs := make([]int, len(plo))
	for k := range plo {
		offs[k] = base + int(plo[k]) + int(phi[k])<<8
	}
	return offs
}

// typeMaker returns mk, which commits the type a constructor returned and
// fails the test on the constructor's or Commit's error.
func typeMaker(t *testing.T) func(*datatype.Datatype, error) *datatype.Datatype {
	return func(dt *datatype.Datatype, err error) *datatype.Datatype {
		t.Helper()
		if err == nil {
			err = dt.Commit()
		}
		if err != nil {
			t.Fatal(err)
		}
		return dt
	}
}

// dtPiece is one message as a receiver sees it: the bytes at recv in its
// buffer must be the bytes at send in the sender src's buffer, message seq.
type dtPiece struct {
	src, seq   int
	send, recv []int
}

// checkPieces checks a receive buffer: every piece's bytes arrived in
// order, and every byte outside the pieces still holds the sentinel.
func checkPieces(t *testing.T, what string, got []byte, pieces []dtPiece) {
	t.Helper()
	in := make(map[int]bool)
	for _, p := range pieces {
		if len(p.send) != len(p.recv) {
			t.Fatalf("%s: %d bytes sent, %d expected", what, len(p.send), len(p.recv))
		}
		for k, o := range p.recv {
			in[o] = true
			if want := semByte(p.src, p.seq, p.send[k]); got[o] != want {
				t.Errorf("%s: byte %d = %#x, want byte %d from rank %d (%#x)", what, o, got[o], p.send[k], p.src, want)
				return
			}
		}
	}
	for o, b := range got {
		if !in[o] && b != dtSentinel {
			t.Errorf("%s: byte %d outside the typemap changed to %#x", what, o, b)
			return
		}
	}
}

const dtSentinel = 0xee

// TestDerivedSendsUseExtents sends count > 1 elements of a padded struct and
// of resized types between two ranks, under every protocol with and without
// vector DMA, and checks where each byte lands: consecutive elements sit an
// extent apart (16 for the padded struct, the resized extent otherwise), the
// padding is never touched, and a receive with another layout of the same
// type signature gets the same bytes in the same order.
func TestDerivedSendsUseExtents(t *testing.T) {
	// {double, int32, char}: size 13, extent 16 after padding.
	mk := typeMaker(t)
	padded := mk(datatype.TypeCreateStruct([]int{1, 1, 1}, []int{0, 8, 12}, []*datatype.Datatype{datatype.Float64, datatype.Int32, datatype.Byte}))
	unpadded := mk(datatype.TypeCreateResized(padded, 0, 13))
	type pair struct {
		name       string
		send, recv *datatype.Datatype
		count      int
		stride     int // the send type's extent, from the standard's rule
	}
	pairs := []pair{
		{"padded struct x3", padded, padded, 3, 16},
		{"padded struct into unpadded", padded, unpadded, 3, 16},
		{"unpadded into padded", unpadded, padded, 4, 13},
		{"resized double, every third", mk(datatype.TypeCreateResized(datatype.Float64, 0, 24)), datatype.Float64, 4, 24},
		{"resized double, lb below the data", mk(datatype.TypeCreateResized(datatype.Float64, -8, 16)), mk(datatype.TypeCreateResized(datatype.Float64, 0, 12)), 3, 16},
		{"resized int32 words (vector DMA)", mk(datatype.TypeCreateResized(datatype.Int32, 0, 12)), datatype.Int32, 40, 12},
		{"contiguous of resized", mk(datatype.TypeContiguous(2, mk(datatype.TypeCreateResized(datatype.Int32, 0, 12)))), mk(datatype.TypeContiguous(2, mk(datatype.TypeCreateResized(datatype.Int32, 4, 8)))), 3, 24},
	}
	for _, proto := range Protocols {
		for _, vdma := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/vector_dma=%v", proto, vdma), func(t *testing.T) {
				cfg := semProcs(cfgFor(proto), 2)
				cfg.VectorDMA = vdma
				w := job(t, 2, 1, cfg, nil)
				st, rt := make([]*datatype.Datatype, len(pairs)), make([]*datatype.Datatype, len(pairs))
				for i, p := range pairs {
					st[i], rt[i] = p.send, p.recv
					if st[i].Extent() != p.stride {
						t.Fatalf("%s: send extent %d, want %d", p.name, st[i].Extent(), p.stride)
					}
				}
				w.Launch(func(r *Rank) {
					c := r.CommWorld()
					for i, p := range pairs {
						if r.Rank() == 0 {
							n := st[i].Span(p.count)
							b := r.MustAlloc(n)
							semFill(b, n, 0, i)
							if err := r.Ssend(b, p.count, st[i], 1, i, c); err != nil {
								t.Errorf("%s: Ssend: %v", p.name, err)
							}
							r.Free(b)
							continue
						}
						n := rt[i].Span(p.count)
						b := r.MustAlloc(n + 8)
						semSet(b.Bytes, dtSentinel)
						s, err := r.Recv(b, p.count, rt[i], 0, i, c)
						if err != nil || s.Bytes != p.count*st[i].Size() {
							t.Errorf("%s: Recv: %+v, %v", p.name, s, err)
						}
						checkPieces(t, p.name, b.Bytes, []dtPiece{{0, i, layout(t, p.send, p.count, 0), layout(t, p.recv, p.count, 0)}})
						r.Free(b)
					}
				})
				if err := w.Run(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestCollectivesUseExtents runs collectives on derived types with padding
// or resized bounds and checks every received byte against the model's
// layout of both sides: Bcast, Allgather, Alltoall and Alltoallw (whose
// receivers use a different layout of the same signature).
func TestCollectivesUseExtents(t *testing.T) {
	const P = 4
	mk := typeMaker(t)
	padded := mk(datatype.TypeCreateStruct([]int{1, 1, 1}, []int{0, 8, 12}, []*datatype.Datatype{datatype.Float64, datatype.Int32, datatype.Byte}))
	unpadded := mk(datatype.TypeCreateResized(padded, 0, 13))
	spread := mk(datatype.TypeCreateResized(datatype.Float64, 0, 16))
	dense := datatype.Float64
	pt, ut, st, dt := padded, unpadded, spread, dense
	// Alltoallw: rank j receives type recvOf[j%2] from everyone, sent as
	// sendOf[j%2], at byte displacement 64*i for sender i.
	sendOf, recvOf := []*datatype.Datatype{padded, spread}, []*datatype.Datatype{unpadded, dense}
	sendT, recvT := []*datatype.Datatype{pt, st}, []*datatype.Datatype{ut, dt}
	const count = 2
	got := make([][4][]byte, P)
	w := job(t, 2, 2, semProcs(DefaultConfig(), P), nil)
	w.Launch(func(r *Rank) {
		me, c := r.Rank(), r.CommWorld()
		sent := func(seq, n int) datatype.Buffer {
			b := r.MustAlloc(n)
			semFill(b, n, me, seq)
			return b
		}
		blank := func(n int) datatype.Buffer {
			b := r.MustAlloc(n)
			semSet(b.Bytes, dtSentinel)
			return b
		}
		// Bcast of 3 padded structs from rank 2.
		b := blank(pt.Span(3))
		if me == 2 {
			semFill(b, b.Len(), me, 0)
		}
		if err := r.Bcast(b, 3, pt, 2, c); err != nil {
			t.Error(err)
		}
		got[me][0] = bytes.Clone(b.Bytes)
		// Allgather of 2 padded structs each.
		s, rb := sent(1, pt.Span(count)), blank(pt.Span(P*count))
		if err := r.Allgather(s, count, pt, rb, count, pt, c); err != nil {
			t.Error(err)
		}
		got[me][1] = bytes.Clone(rb.Bytes)
		// Alltoall of 2 resized doubles per peer.
		s, rb = sent(2, st.Span(P*count)), blank(st.Span(P*count))
		if err := r.Alltoall(s, count, st, rb, count, st, c); err != nil {
			t.Error(err)
		}
		got[me][2] = bytes.Clone(rb.Bytes)
		// Alltoallw, types per peer.
		counts, sd, rd := make([]int, P), make([]int, P), make([]int, P)
		sts, rts := make([]*datatype.Datatype, P), make([]*datatype.Datatype, P)
		for j := range P {
			counts[j], sd[j], rd[j] = count, 64*j, 64*j
			sts[j], rts[j] = sendT[j%2], recvT[me%2]
		}
		s, rb = sent(3, 64*P), blank(64*P)
		if err := r.Alltoallw(s, counts, sd, sts, rb, counts, rd, rts, c); err != nil {
			t.Error(err)
		}
		got[me][3] = bytes.Clone(rb.Bytes)
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	for me := range P {
		var bc, ag, aa, aw []dtPiece
		if me != 2 {
			bc = append(bc, dtPiece{2, 0, layout(t, padded, 3, 0), layout(t, padded, 3, 0)})
		}
		for i := range P {
			ext := pt.Extent() * count
			ag = append(ag, dtPiece{i, 1, layout(t, padded, count, 0), layout(t, padded, count, i*ext)})
			ext = st.Extent() * count
			aa = append(aa, dtPiece{i, 2, layout(t, spread, count, me*ext), layout(t, spread, count, i*ext)})
			aw = append(aw, dtPiece{i, 3, layout(t, sendOf[me%2], count, 64*me), layout(t, recvOf[me%2], count, 64*i)})
		}
		if me == 2 {
			// The root's buffer is its own message, untouched.
			if !bytes.Equal(got[me][0], msgBytes(me, 0, len(got[me][0]))) {
				t.Errorf("Bcast changed the root's buffer")
			}
		} else {
			checkPieces(t, fmt.Sprintf("Bcast rank %d", me), got[me][0], bc)
		}
		checkPieces(t, fmt.Sprintf("Allgather rank %d", me), got[me][1], ag)
		checkPieces(t, fmt.Sprintf("Alltoall rank %d", me), got[me][2], aa)
		checkPieces(t, fmt.Sprintf("Alltoallw rank %d", me), got[me][3], aw)
	}
}

// msgBytes is message (src, seq) as semFill writes it.
func msgBytes(src, seq, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = semByte(src, seq, i)
	}
	return b
}
