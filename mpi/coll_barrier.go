package mpi

import "nocsim/mpi/datatype"

// Barrier algorithms.

// rtBarrierCentral: every rank reports to rank 0, which releases them all
// once its count of arrivals is complete.
func (x *coll) rtBarrierCentral() error {
	P, me := x.c.Size(), x.c.Rank()
	s := x.rtStep()
	if me != 0 {
		s.recv(datatype.Buffer{}, 0, 0, 0)
		s.send(datatype.Buffer{}, 0, 0, 0)
		return s.wait()
	}
	for i := 1; i < P; i++ {
		s.recv(datatype.Buffer{}, 0, 0, i)
	}
	if err := s.wait(); err != nil {
		return err
	}
	for i := 1; i < P; i++ {
		s.send(datatype.Buffer{}, 0, 0, i)
	}
	return s.wait()
}

// rtBarrierTree4: arrivals climb a four-way tree rooted at rank 0; the
// root's last arrival starts a single release down the same tree.
func (x *coll) rtBarrierTree4() error {
	P, me := x.c.Size(), x.c.Rank()
	var kids []int
	for k := 4*me + 1; k <= 4*me+4 && k < P; k++ {
		kids = append(kids, k)
	}
	parent := (me - 1) / 4
	arrive, release := x.rtStep(), x.rtStep()
	for _, k := range kids {
		arrive.recv(datatype.Buffer{}, 0, 0, k)
	}
	if me != 0 {
		release.recv(datatype.Buffer{}, 0, 0, parent) // posted early: the release finds it waiting
	}
	if err := arrive.wait(); err != nil {
		return err
	}
	if me != 0 {
		release.send(datatype.Buffer{}, 0, 0, parent)
		if err := release.wait(); err != nil {
			return err
		}
	}
	for _, k := range kids {
		release.send(datatype.Buffer{}, 0, 0, k)
	}
	return release.wait()
}

// rtBarrierDissemination: in round k every rank signals rank+2^k and
// waits for rank-2^k; after ceil(log2 P) rounds everyone has heard,
// indirectly, from everyone.
func (x *coll) rtBarrierDissemination() error {
	P, me := x.c.Size(), x.c.Rank()
	for k := 1; k < P; k <<= 1 {
		if err := x.sendrecv(datatype.Buffer{}, 0, (me+k)%P, datatype.Buffer{}, 0, (me-k+P)%P); err != nil {
			return err
		}
	}
	return nil
}
