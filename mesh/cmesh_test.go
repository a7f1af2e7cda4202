package mesh

import "testing"

// Following Route from a tile's router, link by link through Neighbor,
// reaches the destination's router in Hops steps, by the XY route of the
// router grid, and leaves by the local port the destination tile is on,
// with offsets (0, 0); for every pair of tiles of 2x2, 6x4 and 4x8
// cmeshes, two tiles of one router included.
func TestCMeshRoutesEveryPair(t *testing.T) {
	for _, d := range [][2]int{{2, 2}, {6, 4}, {4, 8}} {
		c, err := NewCMesh(d[0], d[1])
		if err != nil {
			t.Fatal(err)
		}
		g := c.RouterGrid()
		for src := range c.Nodes() {
			for dst := range c.Nodes() {
				r, _ := c.RouterOf(src)
				end, endPort := c.RouterOf(dst)
				dx, dy := c.Offsets(src, dst)
				hops := 0
				for {
					p, ndx, ndy := c.Route(dx, dy)
					if p.IsLocal() {
						if r != end || p != endPort || ndx != 0 || ndy != 0 {
							t.Fatalf("%s %d->%d: left router %d by %v with offsets (%d,%d); want router %d port %v, (0,0)", c.Name(), src, dst, r, p, ndx, ndy, end, endPort)
						}
						break
					}
					// XY: no X move once Y has begun.
					rx, _ := g.XY(r)
					ex, _ := g.XY(end)
					if (p == North || p == South) && rx != ex {
						t.Fatalf("%s %d->%d: Y move at router %d before X is done", c.Name(), src, dst, r)
					}
					next, ok := c.Neighbor(r, p)
					if !ok {
						t.Fatalf("%s %d->%d: router %d has no %v link", c.Name(), src, dst, r, p)
					}
					r, dx, dy = next, ndx, ndy
					if hops++; hops > c.W+c.H {
						t.Fatalf("%s %d->%d: no arrival", c.Name(), src, dst)
					}
				}
				if hops != c.Hops(src, dst) {
					t.Fatalf("%s %d->%d: %d hops, Hops says %d", c.Name(), src, dst, hops, c.Hops(src, dst))
				}
			}
		}
	}
}

// Each router serves its 2x2 block of tiles on four distinct local ports,
// which are the ports LocalPort numbers and IsLocal recognises.
func TestCMeshTilesAndPorts(t *testing.T) {
	c, _ := NewCMesh(6, 4)
	seen := map[[2]int]bool{}
	for tile := range c.Nodes() {
		r, p := c.RouterOf(tile)
		if !p.IsLocal() || seen[[2]int{r, int(p)}] {
			t.Fatalf("tile %d: router %d port %v (local %v, taken %v)", tile, r, p, p.IsLocal(), seen[[2]int{r, int(p)}])
		}
		seen[[2]int{r, int(p)}] = true
		x, y := c.XY(tile)
		if rx, ry := c.RouterGrid().XY(r); rx != x/2 || ry != y/2 {
			t.Fatalf("tile (%d,%d) on router (%d,%d)", x, y, rx, ry)
		}
	}
	if len(seen) != 4*c.Routers() || c.Routers() != 6 {
		t.Fatalf("%d attachments on %d routers", len(seen), c.Routers())
	}
	for _, p := range []Port{North, East, South, West} {
		if p.IsLocal() {
			t.Fatalf("%v is a link", p)
		}
	}
	for _, d := range [][2]int{{3, 4}, {4, 1}, {0, 2}, {258, 2}} {
		if _, err := NewCMesh(d[0], d[1]); err == nil {
			t.Errorf("NewCMesh(%d, %d) accepted", d[0], d[1])
		}
	}
}
