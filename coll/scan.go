package coll

// Scan algorithms (MPI_Scan, and MPI_Exscan with a.Ex): rank i's Result
// gets the reduction of the Input of ranks 0..i (0..i-1 for Exscan), in
// rank order, so non-commutative operations are kept; a.N bytes each.

func init() {
	Register(
		&Algorithm{Op: "scan", Name: "chain", Thesis: true, Source: "Poole 2004 (SCMP thesis) §4.2.4; Nicholson & Goozen, Cray X1 MPI", Messages: "P-1", Program: scanChain},
		&Algorithm{Op: "scan", Name: "recursive_doubling", Auto: AutoAlways, Growth: Log, Source: SrcMPICH, Messages: "P log2 P - P + 1 (P a power of two)", Program: scanRecursiveDoubling},
	)
}

// same reports whether x and y are the same memory: one buffer, or Input
// and Result of an in-place call.
func same(a Args, x, y Buf) bool {
	return x == y || a.InPlace && (x == Input && y == Result || x == Result && y == Input)
}

// scanChain is the thesis's scan: rank i waits for the prefix from rank
// i-1, combines it with its own data and passes the result to rank i+1.
func scanChain(r Rank, a Args) error {
	P, me, n := a.P, a.Me, a.N
	in, out := Input.At(0, n), Result.At(0, n)
	if !a.Ex {
		if !same(a, Input, Result) {
			if err := r.Copy(out, in); err != nil {
				return err
			}
		}
		if me > 0 {
			if err := r.Alloc(Tmp, n); err != nil {
				return err
			}
			if err := r.Recv(me-1, Tmp.At(0, n)); err != nil {
				return err
			}
			if err := r.Combine(out, Tmp.At(0, n)); err != nil {
				return err
			}
		}
		if me < P-1 {
			return r.Send(me+1, out)
		}
		return nil
	}
	if me == 0 {
		if P > 1 {
			return r.Send(1, in)
		}
		return nil
	}
	// Result gets the prefix; the next rank needs the prefix op my data.
	w := Work.At(0, n)
	if me < P-1 {
		if err := r.Alloc(Work, n); err != nil {
			return err
		}
		if err := r.Copy(w, in); err != nil {
			return err
		}
	}
	if err := r.Recv(me-1, out); err != nil {
		return err
	}
	if me == P-1 {
		return nil
	}
	if err := r.Combine(w, out); err != nil {
		return err
	}
	return r.Send(me+1, w)
}

// scanRecursiveDoubling is the Hillis-Steele scan: in round k rank i
// sends its partial x_{i-2^k+1..i} to rank i+2^k and prepends the partial
// from rank i-2^k, which covers the ranks just below its own, so rank
// order is kept. Exscan also keeps the exclusive prefix, built from the
// same messages.
func scanRecursiveDoubling(r Rank, a Args) error {
	P, me, n := a.P, a.Me, a.N
	in, out := Input.At(0, n), Result.At(0, n)
	y := out // the inclusive partial
	if a.Ex {
		y = in
		if same(a, Input, Result) && me+1 < P {
			// Result receives the prefix while y is being sent.
			if err := r.Alloc(Tmp2, n); err != nil {
				return err
			}
			if err := r.Copy(Tmp2.At(0, n), in); err != nil {
				return err
			}
			y = Tmp2.At(0, n)
		}
	} else if !same(a, Input, Result) {
		if err := r.Copy(out, in); err != nil {
			return err
		}
	}
	haveTmp, first := false, true
	s := r.Step()
	for d := 1; d < P; d <<= 1 {
		rb := Tmp.At(0, n)
		if me-d >= 0 {
			if a.Ex && first {
				rb = out
			} else if !haveTmp {
				if err := r.Alloc(Tmp, n); err != nil {
					return err
				}
				haveTmp = true
			}
			s.Recv(me-d, rb)
		}
		if me+d < P {
			s.Send(me+d, y)
		}
		if err := s.WaitAll(); err != nil {
			return err
		}
		if me-d < 0 {
			continue
		}
		if !a.Ex {
			if err := r.Combine(y, rb); err != nil {
				return err
			}
			continue
		}
		if !first {
			if err := r.Combine(out, rb); err != nil {
				return err
			}
		}
		first = false
		if me+2*d < P { // y is sent again
			if same(a, y.Buf, Input) {
				if err := r.Alloc(Work, n); err != nil {
					return err
				}
				if err := r.Copy(Work.At(0, n), in); err != nil {
					return err
				}
				y = Work.At(0, n)
			}
			if err := r.Combine(y, rb); err != nil {
				return err
			}
		}
	}
	return nil
}
