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
