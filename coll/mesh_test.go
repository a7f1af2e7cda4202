package coll

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// meshTreeCheck checks the tree from root over ranks on tiles of a W-wide
// mesh: every rank but the root has one parent, which lists it as a
// child; every rank is reached from the root; and every edge joins ranks
// of one mesh row or one mesh column when every occupied row holds the
// same columns (otherwise of one row, or of the same position in rows).
func meshTreeCheck(t *testing.T, W int, tiles []int, root int) {
	t.Helper()
	P := len(tiles)
	mg := GridOf(P, func(i int) (int, int) { return tiles[i] % W, tiles[i] / W })
	sameCols := true
	for _, row := range mg.Rows {
		if len(row) != len(mg.Rows[0]) {
			sameCols = false
			break
		}
		for j, r := range row {
			if tiles[r]%W != tiles[mg.Rows[0][j]]%W {
				sameCols = false
			}
		}
	}
	parent := make([]int, P)
	kids := make([][]int, P)
	for me := range P {
		parent[me], kids[me] = mg.Tree(me, root, nil)
	}
	name := fmt.Sprintf("W=%d tiles=%v root=%d", W, tiles, root)
	if parent[root] != -1 {
		t.Fatalf("%s: root has parent %d", name, parent[root])
	}
	seen := make([]bool, P)
	queue := []int{root}
	seen[root] = true
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		for _, k := range kids[r] {
			if seen[k] || parent[k] != r {
				t.Fatalf("%s: rank %d lists child %d (seen %v, its parent %d)", name, r, k, seen[k], parent[k])
			}
			seen[k] = true
			queue = append(queue, k)
			ax, ay := tiles[r]%W, tiles[r]/W
			bx, by := tiles[k]%W, tiles[k]/W
			switch {
			case ay == by:
			case sameCols && ax == bx:
			case !sameCols && mg.Col[r] == mg.Col[k]:
			default:
				t.Fatalf("%s: edge %d (%d,%d) -> %d (%d,%d) crosses row and column", name, r, ax, ay, k, bx, by)
			}
		}
	}
	for i, s := range seen {
		if !s {
			t.Fatalf("%s: rank %d never reached", name, i)
		}
	}
}

// TestMeshTree checks the tree on whole meshes, leading rows, a column
// split, ragged last rows and random subsets of tiles in random rank
// order, from every root.
func TestMeshTree(t *testing.T) {
	seq := func(n, step int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i * step
		}
		return out
	}
	cases := []struct {
		W     int
		tiles []int
	}{
		{4, seq(16, 1)}, {4, seq(12, 1)}, {4, seq(13, 1)}, {4, seq(8, 2)}, {8, seq(64, 1)},
		{5, seq(23, 1)}, {3, seq(1, 1)}, {6, seq(6, 1)}, {1, seq(7, 1)},
	}
	rng := rand.New(rand.NewPCG(14, 4))
	for range 30 {
		W := 1 + rng.IntN(8)
		tiles := rng.Perm(W * (1 + rng.IntN(8)))
		cases = append(cases, struct {
			W     int
			tiles []int
		}{W, tiles[:1+rng.IntN(len(tiles))]})
	}
	for _, c := range cases {
		for root := range c.tiles {
			meshTreeCheck(t, c.W, c.tiles, root)
		}
	}
}

// TestMeshTreeRowsThenColumns: on a whole W x H mesh every tree edge
// joins tiles of one row (the root's) or one column, the root's row has
// W-1 edges and the columns P-W, and every rank is reached once.
func TestMeshTreeRowsThenColumns(t *testing.T) {
	for _, c := range []struct{ W, H int }{{4, 4}, {8, 8}, {5, 3}, {1, 6}, {6, 1}} {
		P := c.W * c.H
		for _, root := range []int{0, P - 1, P / 2} {
			parent, kids := RowMajor(P, c.W).TreeAll(root)
			row, col := 0, 0
			seen := map[int]bool{root: true}
			for r := range P {
				for _, k := range kids[r] {
					if parent[k] != r || seen[k] {
						t.Fatalf("%dx%d root %d: %d -> %d (parent %d, seen %v)", c.W, c.H, root, r, k, parent[k], seen[k])
					}
					seen[k] = true
					switch {
					case r/c.W == k/c.W && r/c.W == root/c.W:
						row++
					case r%c.W == k%c.W:
						col++
					default:
						t.Errorf("%dx%d root %d: edge %d -> %d is neither the root's row nor a column", c.W, c.H, root, r, k)
					}
				}
			}
			if len(seen) != P || row != c.W-1 || col != P-c.W {
				t.Errorf("%dx%d root %d: %d reached, %d row and %d column edges; want %d, %d, %d", c.W, c.H, root, len(seen), row, col, P, c.W-1, P-c.W)
			}
		}
	}
}
