package mesh

import "testing"

// ringDist is the hop count of the route, computed independently: the
// shorter way round on a bidirectional ring (a tie going East), always
// East on a unidirectional one.
func ringDist(n, src, dst int, uni bool) (hops int, east bool) {
	d := ((dst-src)%n + n) % n
	if uni || d <= n-d {
		return d, true
	}
	return n - d, false
}

// Walking every pair with Neighbor and RouteClass reaches the destination
// in exactly the ring distance, in one direction only, with offsets (0,0)
// at ejection; it takes class 1 exactly on and after the dateline link
// (N-1 -> 0 East, 0 -> N-1 West) and class 0 before it; and Hops agrees.
func TestRingRoutesEveryPair(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7, 8, 16} {
		for _, uni := range []bool{false, true} {
			r, err := NewRing(n, uni)
			if err != nil {
				t.Fatal(err)
			}
			for src := range n {
				for dst := range n {
					want, east := ringDist(n, src, dst, uni)
					if h := r.Hops(src, dst); h != want {
						t.Fatalf("%s: Hops(%d,%d) = %d, want %d", r.Name(), src, dst, h, want)
					}
					dx, dy := r.Offsets(src, dst)
					at, hops, crossed := src, 0, false
					for {
						p, ndx, ndy, class := r.RouteClass(dx, dy)
						if p == Local {
							if at != dst || ndx != 0 || ndy != 0 || class != -1 {
								t.Fatalf("%s %d->%d: ejected at %d with (%d,%d) class %d", r.Name(), src, dst, at, ndx, ndy, class)
							}
							break
						}
						if (p == East) != east {
							t.Fatalf("%s %d->%d: went %v", r.Name(), src, dst, p)
						}
						dateline := (p == East && at == n-1) || (p == West && at == 0)
						crossed = crossed || dateline
						wantClass := 0
						if crossed {
							wantClass = 1
						}
						if class != wantClass {
							t.Fatalf("%s %d->%d: link from %d by %v has class %d, want %d (dateline crossed: %v)", r.Name(), src, dst, at, p, class, wantClass, crossed)
						}
						next, ok := r.Neighbor(at, p)
						if !ok {
							t.Fatalf("%s %d->%d: no link from %d by %v", r.Name(), src, dst, at, p)
						}
						at, dx, dy = next, ndx, ndy
						if hops++; hops > n {
							t.Fatalf("%s %d->%d: no arrival after %d hops", r.Name(), src, dst, hops)
						}
					}
					if hops != want {
						t.Fatalf("%s %d->%d: %d hops, want %d", r.Name(), src, dst, hops, want)
					}
					// Route is RouteClass without the class.
					p1, x1, y1 := r.Route(r.Offsets(src, dst))
					p2, x2, y2, _ := r.RouteClass(r.Offsets(src, dst))
					if p1 != p2 || x1 != x2 || y1 != y2 {
						t.Fatalf("%s %d->%d: Route and RouteClass differ", r.Name(), src, dst)
					}
				}
			}
		}
	}
}

// Neighbors: East wraps from N-1 to 0, West is East's inverse and absent
// on a unidirectional ring, and a single node has no links.
func TestRingNeighbors(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		for _, uni := range []bool{false, true} {
			r, _ := NewRing(n, uni)
			for i := range n {
				e, ok := r.Neighbor(i, East)
				if ok != (n > 1) || (ok && e != (i+1)%n) {
					t.Errorf("%s: East of %d = %d, %v", r.Name(), i, e, ok)
				}
				w, ok := r.Neighbor(i, West)
				if ok != (n > 1 && !uni) || (ok && (w+1)%n != i) {
					t.Errorf("%s: West of %d = %d, %v", r.Name(), i, w, ok)
				}
				for _, p := range []Port{Local, North, South} {
					if _, ok := r.Neighbor(i, p); ok {
						t.Errorf("%s: node %d has a %v link", r.Name(), i, p)
					}
				}
			}
		}
	}
	for _, n := range []int{0, MaxRingNodes + 1} {
		if _, err := NewRing(n, false); err == nil {
			t.Errorf("NewRing(%d) accepted", n)
		}
	}
}

// A bus head's offsets name its destination, for every node of the
// largest bus, and the bus has no links.
func TestBusOffsetsAddressTheDestination(t *testing.T) {
	b, err := NewBus(MaxDim * MaxDim)
	if err != nil {
		t.Fatal(err)
	}
	for dst := range b.Nodes() {
		dx, dy := b.Offsets(3, dst)
		if int(int16(dx)) != dx || int(int16(dy)) != dy || dx+dy<<8 != dst {
			t.Fatalf("dst %d: offsets (%d,%d)", dst, dx, dy)
		}
	}
	for p := range NumPorts {
		if _, ok := b.Neighbor(0, p); ok {
			t.Errorf("bus node 0 has a %v link", p)
		}
	}
}
