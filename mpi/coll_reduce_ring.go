package mpi

import "nocsim/mpi/datatype"

// The ring ("bucket") reduce of Puma's native collectives (Brightwell and
// Shuler, "Design and Implementation of MPI on Puma Portals", section 3.2:
// bucket algorithms "are also natural for MPI_Reduce()"): the vector is cut
// into P blocks; a ring reduce-scatter leaves block k, reduced over every
// rank, at rank k after P-1 steps; the blocks then travel round the same
// ring to the root in P-1 more lock steps, each rank passing one block a
// step to its successor. Every message goes from a rank to its successor.

func init() {
	register(algEntry{Algorithm: Algorithm{Op: "reduce", Name: "ring", Source: "Brightwell & Shuler, MPI on Puma Portals §3.2 (bucket reduce)",
		Messages: "P(P-1) + P(P-1)/2: ring reduce-scatter, then a ring gather to the root"}, run: reduceRun((*redColl).reduceRing), reorders: true})
}

// reduceRing is the ring reduce (commutative ops only). in holds this
// rank's vector of count elements; out, at the root, gets the result
// (in and out are the same buffer with InPlace).
func (rd *redColl) reduceRing(in, out datatype.Buffer, count, root int) error {
	P, me, es := rd.c.Size(), rd.c.Rank(), rd.es
	acc := out
	if me != root {
		b, err := rd.newBuf(count * es)
		if err != nil {
			return err
		}
		acc = b
	}
	bo := redSplit(count, P, es)
	blk := func(i int) (datatype.Buffer, error) {
		i = (i%P + P) % P
		return acc.Slice(bo[i]*es, (bo[i+1]-bo[i])*es)
	}
	mine, err := blk(me)
	if err != nil {
		return err
	}
	if err := rd.ringRS(in, bo, mine, redSame(in, acc)); err != nil {
		return err
	}
	// The gather: the rank i places after the root's successor (pos i)
	// sends blocks me, me-1, ..., me-i in steps 0..i and receives blocks
	// me-1, ..., me-i from its predecessor in steps 0..i-1; the root (pos
	// P-1) only receives.
	pos := (me - root - 1 + 2*P) % P
	right, left := (me+1)%P, (me-1+P)%P
	for t := 0; t <= pos && t < P-1; t++ {
		sb, err := blk(me - t)
		if err != nil {
			return err
		}
		rb, err := blk(me - 1 - t)
		if err != nil {
			return err
		}
		switch {
		case me == root:
			err = rd.recv(rb, rb.Len(), left)
		case t < pos:
			err = rd.sendrecv(sb, sb.Len(), right, rb, rb.Len(), left)
		default:
			err = rd.send(sb, sb.Len(), right)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
