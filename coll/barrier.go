package coll

// Barrier algorithms: empty messages only.

func init() {
	Register(
		&Algorithm{Op: "barrier", Name: "central", Source: SrcThesisLike, Messages: "2(P-1)", Program: barrierCentral},
		&Algorithm{Op: "barrier", Name: "tree4", Auto: AutoAlways, Source: SrcCray, Messages: "2(P-1)", Program: barrierTree4},
		&Algorithm{Op: "barrier", Name: "dissemination", Growth: Log, Source: SrcMPICH, Messages: "P ceil(log2 P)", Program: barrierDissemination},
	)
}

// barrierCentral: every rank reports to rank 0, which releases them all
// once its count of arrivals is complete.
func barrierCentral(r Rank, a Args) error {
	s := r.Step()
	if a.Me != 0 {
		s.Recv(0, Empty)
		s.Send(0, Empty)
		return s.Wait()
	}
	for i := 1; i < a.P; i++ {
		s.Recv(i, Empty)
	}
	if err := s.Wait(); err != nil {
		return err
	}
	for i := 1; i < a.P; i++ {
		s.Send(i, Empty)
	}
	return s.Wait()
}

// barrierTree4: arrivals climb a four-way tree rooted at rank 0; the
// root's last arrival starts a single release down the same tree.
func barrierTree4(r Rank, a Args) error {
	kids := Tree4Kids(a.Me, a.P)
	arrive, release := r.Step(), r.Step()
	for _, k := range kids {
		arrive.Recv(k, Empty)
	}
	if a.Me != 0 {
		release.Recv(Tree4Parent(a.Me), Empty) // posted early: the release finds it waiting
	}
	if err := arrive.Wait(); err != nil {
		return err
	}
	if a.Me != 0 {
		release.Send(Tree4Parent(a.Me), Empty)
		if err := release.Wait(); err != nil {
			return err
		}
	}
	for _, k := range kids {
		release.Send(k, Empty)
	}
	return release.Wait()
}

// barrierDissemination: in round k every rank signals rank+2^k and waits
// for rank-2^k; after ceil(log2 P) rounds everyone has heard, indirectly,
// from everyone.
func barrierDissemination(r Rank, a Args) error {
	P, me := a.P, a.Me
	for k := 1; k < P; k <<= 1 {
		if err := r.SendRecv((me+k)%P, Empty, (me-k+P)%P, Empty); err != nil {
			return err
		}
	}
	return nil
}
