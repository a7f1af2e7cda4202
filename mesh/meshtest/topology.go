package meshtest

import (
	"testing"

	"nocsim/mesh"
)

// Ring is mesh.NewRing(n, uni), failing t if n is not a ring size.
func Ring(t testing.TB, n int, uni bool) mesh.Ring {
	t.Helper()
	r, err := mesh.NewRing(n, uni)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Bus is mesh.NewBus(n), failing t if n is not a bus size.
func Bus(t testing.TB, n int) mesh.Bus {
	t.Helper()
	b, err := mesh.NewBus(n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Torus is mesh.NewTorus(w, h), failing t if w x h is not a torus size.
func Torus(t testing.TB, w, h int) mesh.Torus {
	t.Helper()
	tr, err := mesh.NewTorus(w, h)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// CMesh is mesh.NewCMesh(w, h), failing t if w x h is not a cmesh size.
func CMesh(t testing.TB, w, h int) mesh.CMesh {
	t.Helper()
	c, err := mesh.NewCMesh(w, h)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
