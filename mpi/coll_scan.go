package mpi

import "nocsim/mpi/datatype"

// scanChain is the thesis's scan: rank i waits for the prefix from rank
// i-1, combines it with its own data and passes the result to rank i+1.
func (rd *redColl) scanChain(in, out datatype.Buffer, count int, ex bool) error {
	P, me, n := rd.c.Size(), rd.c.Rank(), count*rd.es
	if !ex {
		if !redSame(in, out) {
			rd.copy(out, in, n)
		}
		if me > 0 {
			tmp, err := rd.newBuf(n)
			if err != nil {
				return err
			}
			if err := rd.recv(tmp, n, me-1); err != nil {
				return err
			}
			if err := rd.combine(tmp, out, count); err != nil {
				return err
			}
		}
		if me < P-1 {
			return rd.send(out, n, me+1)
		}
		return nil
	}
	if me == 0 {
		if P > 1 {
			return rd.send(in, n, 1)
		}
		return nil
	}
	// out gets the prefix; the next rank needs the prefix op my data.
	var w datatype.Buffer
	if me < P-1 {
		b, err := rd.newBuf(n)
		if err != nil {
			return err
		}
		w = b
		rd.copy(w, in, n)
	}
	if err := rd.recv(out, n, me-1); err != nil {
		return err
	}
	if me == P-1 {
		return nil
	}
	if err := rd.combine(out, w, count); err != nil {
		return err
	}
	return rd.send(w, n, me+1)
}

// scanRD is the Hillis-Steele scan: in round k rank i sends its partial
// x_{i-2^k+1..i} to rank i+2^k and prepends the partial from rank i-2^k,
// which covers the ranks just below its own, so rank order is kept.
// Exscan also keeps the exclusive prefix, built from the same messages.
func (rd *redColl) scanRD(in, out datatype.Buffer, count int, ex bool) error {
	P, me, n := rd.c.Size(), rd.c.Rank(), count*rd.es
	y := out // the inclusive partial
	if ex {
		y = in
		if redSame(in, out) && me+1 < P {
			// out receives the prefix while y is being sent.
			b, err := rd.newBuf(n)
			if err != nil {
				return err
			}
			rd.copy(b, in, n)
			y = b
		}
	} else if !redSame(in, out) {
		rd.copy(out, in, n)
	}
	var tmp datatype.Buffer
	first := true
	for d := 1; d < P; d <<= 1 {
		var qs []*Request
		rb := tmp
		if me-d >= 0 {
			if ex && first {
				rb = out
			} else if tmp.Bytes == nil {
				b, err := rd.newBuf(n)
				if err != nil {
					return err
				}
				tmp, rb = b, b
			}
			q, err := rd.irecv(rb, n, me-d)
			if err != nil {
				return err
			}
			qs = append(qs, q)
		}
		if me+d < P {
			q, err := rd.isend(y, n, me+d)
			if err != nil {
				return err
			}
			qs = append(qs, q)
		}
		if err := rd.waitall(qs...); err != nil {
			return err
		}
		if me-d < 0 {
			continue
		}
		if !ex {
			if err := rd.combine(rb, y, count); err != nil {
				return err
			}
			continue
		}
		if !first {
			if err := rd.combine(rb, out, count); err != nil {
				return err
			}
		}
		first = false
		if me+2*d < P { // y is sent again
			if redSame(y, in) {
				b, err := rd.newBuf(n)
				if err != nil {
					return err
				}
				rd.copy(b, in, n)
				y = b
			}
			if err := rd.combine(rb, y, count); err != nil {
				return err
			}
		}
	}
	return nil
}
