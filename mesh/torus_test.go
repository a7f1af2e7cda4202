package mesh

import (
	"strings"
	"testing"
)

// torusLeg is one dimension's leg computed independently of the code
// under test: the ring distance and direction from s to d on a ring of k,
// the shorter way with a tie going up (East or South).
func torusLeg(k, s, d int) (hops int, up bool) {
	return ringDist(k, s, d, false)
}

// walkTorus follows a head from src to dst with Neighbor and RouteClass,
// checking every hop against the rules Torus documents; it returns the
// hops taken.
func walkTorus(t *testing.T, tr Torus, src, dst int) int {
	t.Helper()
	sx, sy := tr.XY(src)
	tx, ty := tr.XY(dst)
	wantX, east := torusLeg(tr.W, sx, tx)
	wantY, south := torusLeg(tr.H, sy, ty)
	dx, dy := tr.Offsets(src, dst)
	at, hops := src, 0
	var crossX, crossY int // dateline links taken per dimension
	inY := false
	for {
		// The offsets are what the head flit stores: 16-bit signed.
		if int(int16(dx)) != dx || int(int16(dy)) != dy {
			t.Fatalf("%s %d->%d: offsets (%d,%d) do not fit 16 bits", tr.Name(), src, dst, dx, dy)
		}
		p, ndx, ndy, class := tr.RouteClass(dx, dy)
		if q, qx, qy := tr.Route(dx, dy); q != p || qx != ndx || qy != ndy {
			t.Fatalf("%s %d->%d: Route and RouteClass differ", tr.Name(), src, dst)
		}
		if p == Local {
			if at != dst || ndx != 0 || ndy != 0 || class != -1 {
				t.Fatalf("%s %d->%d: ejected at %d with (%d,%d) class %d", tr.Name(), src, dst, at, ndx, ndy, class)
			}
			break
		}
		x, y := tr.XY(at)
		var dateline bool
		var crossed *int
		switch p {
		case East, West:
			if inY {
				t.Fatalf("%s %d->%d: X hop %v after Y", tr.Name(), src, dst, p)
			}
			if (p == East) != east || wantX == 0 {
				t.Fatalf("%s %d->%d: went %v (leg %d hops, east %v)", tr.Name(), src, dst, p, wantX, east)
			}
			dateline = (p == East && x == tr.W-1) || (p == West && x == 0)
			crossed = &crossX
		case North, South:
			inY = true
			if (p == South) != south || wantY == 0 {
				t.Fatalf("%s %d->%d: went %v (leg %d hops, south %v)", tr.Name(), src, dst, p, wantY, south)
			}
			dateline = (p == South && y == tr.H-1) || (p == North && y == 0)
			crossed = &crossY
		}
		if dateline {
			*crossed++
		}
		wantClass := 0
		if *crossed > 0 {
			wantClass = 1
		}
		if class != wantClass {
			t.Fatalf("%s %d->%d: link from %s by %v has class %d, want %d", tr.Name(), src, dst, tr.Label(at), p, class, wantClass)
		}
		next, ok := tr.Neighbor(at, p)
		if !ok {
			t.Fatalf("%s %d->%d: no link from %s by %v", tr.Name(), src, dst, tr.Label(at), p)
		}
		at, dx, dy = next, ndx, ndy
		if hops++; hops > tr.W+tr.H {
			t.Fatalf("%s %d->%d: no arrival after %d hops", tr.Name(), src, dst, hops)
		}
	}
	if crossX > 1 || crossY > 1 {
		t.Fatalf("%s %d->%d: crossed the X dateline %d times, the Y one %d", tr.Name(), src, dst, crossX, crossY)
	}
	if hops != wantX+wantY {
		t.Fatalf("%s %d->%d: %d hops, torus distance %d", tr.Name(), src, dst, hops, wantX+wantY)
	}
	if h := tr.Hops(src, dst); h != hops {
		t.Fatalf("%s %d->%d: Hops %d, route took %d", tr.Name(), src, dst, h, hops)
	}
	return hops
}

// Every route on tori of odd, even, degenerate and rectangular sizes is
// minimal (the torus distance, each dimension the shorter way, ties East
// and South), uses only links that exist, goes X before Y, crosses each
// dimension's dateline at most once, takes class 1 exactly on and after
// the current dimension's dateline link (restarting at class 0 in Y), and
// ejects at the destination with offsets (0,0) and class -1.
func TestTorusRoutesEveryPair(t *testing.T) {
	for _, dims := range [][2]int{{1, 1}, {1, 5}, {6, 1}, {2, 2}, {2, 3}, {3, 3}, {4, 4}, {5, 3}, {8, 8}, {7, 4}} {
		tr, err := NewTorus(dims[0], dims[1])
		if err != nil {
			t.Fatal(err)
		}
		maxHops := 0
		for src := range tr.Nodes() {
			for dst := range tr.Nodes() {
				maxHops = max(maxHops, walkTorus(t, tr, src, dst))
			}
		}
		if want := tr.W/2 + tr.H/2; maxHops != want {
			t.Errorf("%s: diameter %d, want %d", tr.Name(), maxHops, want)
		}
	}
}

// At the largest torus the packing still holds: a sample of pairs whose
// legs are the longest (k/2 = 127 hops) and cross the dateline at every
// position route correctly with offsets that fit the head.
func TestTorusLargestDimension(t *testing.T) {
	tr, err := NewTorus(MaxTorusDim, MaxTorusDim)
	if err != nil {
		t.Fatal(err)
	}
	k := MaxTorusDim
	for _, s := range []int{0, 1, 63, 127, 128, 200, k - 1} {
		for _, d := range []int{0, (s + k/2) % k, (s + k/2 + 1) % k, (s + 1) % k, (s + k - 1) % k} {
			walkTorus(t, tr, tr.ID(s, d), tr.ID(d, s))
		}
	}
	for _, dims := range [][2]int{{0, 4}, {4, 0}, {MaxTorusDim + 1, 2}, {2, MaxTorusDim + 1}} {
		_, err := NewTorus(dims[0], dims[1])
		if err == nil || !strings.Contains(err.Error(), "MaxTorusDim") || strings.Contains(err.Error(), "\n") {
			t.Errorf("NewTorus(%d,%d): %v, want a one-line error naming MaxTorusDim", dims[0], dims[1], err)
		}
	}
}

// Neighbors wrap in both dimensions, every link has its reverse (the
// opposite port of the node reached leads back), a dimension of size 1
// has no links and Local is never a link.
func TestTorusNeighbors(t *testing.T) {
	for _, dims := range [][2]int{{1, 1}, {1, 3}, {2, 2}, {4, 3}} {
		tr, _ := NewTorus(dims[0], dims[1])
		for n := range tr.Nodes() {
			x, y := tr.XY(n)
			for _, c := range []struct {
				p      Port
				exists bool
				want   int
			}{
				{East, tr.W > 1, tr.ID((x+1)%tr.W, y)},
				{West, tr.W > 1, tr.ID((x-1+tr.W)%tr.W, y)},
				{South, tr.H > 1, tr.ID(x, (y+1)%tr.H)},
				{North, tr.H > 1, tr.ID(x, (y-1+tr.H)%tr.H)},
				{Local, false, 0},
			} {
				got, ok := tr.Neighbor(n, c.p)
				if ok != c.exists || (ok && got != c.want) {
					t.Fatalf("%s: %v of %s = %d, %v; want %d, %v", tr.Name(), c.p, tr.Label(n), got, ok, c.want, c.exists)
				}
				if ok {
					if back, ok := tr.Neighbor(got, c.p.Opposite()); !ok || back != n {
						t.Fatalf("%s: %v of %s then %v leads to %d", tr.Name(), c.p, tr.Label(n), c.p.Opposite(), back)
					}
				}
			}
		}
	}
}

// The coordinate patterns number a torus's tiles as the mesh's (Grid), so
// they mean the same nodes on both; on the torus the permutations whose
// shift is the same for every tile (tornado, neighbor) take the same hops
// from every source, which the mesh, with its edges, cannot give.
func TestTorusPatternsUseTheGrid(t *testing.T) {
	for _, dims := range [][2]int{{4, 4}, {8, 8}, {5, 3}} {
		tr, _ := NewTorus(dims[0], dims[1])
		for _, c := range []struct {
			name string
			hops int
		}{
			{"tornado", (tr.W+1)/2 - 1 + (tr.H+1)/2 - 1},
			{"neighbor", 2},
		} {
			p, err := NewPattern(c.name, tr.Grid(), HotspotSpec{})
			if err != nil {
				t.Fatal(err)
			}
			for s := range tr.Nodes() {
				d := p.Dest(s, nil)
				x, y := tr.XY(s)
				dx, dy := tr.XY(d)
				if c.name == "neighbor" && (dx != (x+1)%tr.W || dy != (y+1)%tr.H) {
					t.Fatalf("%s %s: %s -> %s", tr.Name(), c.name, tr.Label(s), tr.Label(d))
				}
				if h := tr.Hops(s, d); h != c.hops {
					t.Fatalf("%s %s: %s -> %s takes %d hops, want %d", tr.Name(), c.name, tr.Label(s), tr.Label(d), h, c.hops)
				}
			}
		}
	}
}
