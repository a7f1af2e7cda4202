package logp

import (
	"cmp"
	"fmt"
	"nocsim/coll"
	"slices"
)

// The dimensional ("mesh") collectives (coll/bcast.go, coll/mesh_dims.go):
// a broadcast along the root's mesh row by a binomial tree, then down
// every column by binomial trees (the hybrid collectives of Puma; the
// SCMP thesis's topology-aware collectives, §6.4). Reduce walks the same
// tree up; the allreduce and barrier are dimensional exchanges, predicted
// on the tier with hops per message (predict_tier.go). The forms take ranks 0..P-1 on tiles
// 0..P-1 of a mesh MeshWidth(P) tiles wide (row-major, as nocsim places
// them), and cost every message of the tree over its own hop count (its
// row or column distance), not the machine's average: that is what the
// algorithms are for. They are the critical paths of the tree with
// LogGOPS's rules, so at 0 cycles per hop they equal the LogGOPS tier on
// logp/collgen's schedules. Contention is not modelled (the phases are
// built to avoid it).

// MeshWidth is the mesh width the mesh forms place P ranks on: the
// machine's (Params.Mesh "WxH") when the ranks fit it, else the smallest
// square that holds them.
func (p Params) MeshWidth(P int) int {
	var w, h int
	if _, err := fmt.Sscanf(p.Mesh, "%dx%d", &w, &h); err == nil && w >= 1 && h >= 1 && P <= w*h {
		return w
	}
	return coll.SquareWidth(P)
}

// meshEnv is the tree of one mesh prediction and its ranks' hop counts.
type meshEnv struct {
	*env
	W      int
	parent []int
	kids   [][]int
	order  []int // ranks, every parent before its children
}

func (e *env) meshTree(root int) *meshEnv {
	W := e.p.MeshWidth(e.P)
	parent, kids := coll.RowMajor(e.P, W).TreeAll(root)
	order := []int{root}
	for i := 0; i < len(order); i++ {
		order = append(order, kids[order[i]]...)
	}
	return &meshEnv{env: e, W: W, parent: parent, kids: kids, order: order}
}

// cost is the message of m bytes from rank a to rank b, over their hops.
func (t *meshEnv) cost(m, a, b int) cost {
	dx, dy := a%t.W-b%t.W, a/t.W-b/t.W
	return t.p.cost(m, float64(abs(dx)+abs(dy)))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// up is the reduction up the tree: a rank handles its children's m
// bytes as they arrive (LogGOPS: an arriving message is handled once the
// processor and receive interface are free, whether or not its receive
// is posted yet), then sends to its parent. ready[r] is when r has
// handled its children (and starts its send).
func (t *meshEnv) up(m int) (ready []pathTime) {
	ready = make([]pathTime, t.P)
	var arr []pathTime
	for _, r := range slices.Backward(t.order) {
		arr = arr[:0]
		for _, k := range t.kids[r] {
			arr = append(arr, ready[k].arrive(t.cost(m, k, r)))
		}
		// Same-size messages: their order among equal times changes no
		// time (only a per-hop latency makes them differ).
		slices.SortStableFunc(arr, func(a, b pathTime) int { return cmp.Compare(a.t, b.t) })
		var cpu, nic pathTime
		for _, a := range arr {
			c := t.cost(m, 0, 0) // o_r, g and G do not depend on the hops
			h := latest(a, cpu, nic)
			cpu, nic = h.handle(c), h.add(c.g+c.gm)
		}
		ready[r] = cpu
	}
	return ready
}

// down is the broadcast down the tree of m bytes from the root at 0,
// each rank sending to its children back to back once it has the data.
// It returns the last rank's finish.
func (t *meshEnv) down(m int) pathTime {
	start := make([]pathTime, t.P) // when r's parent starts sending to r
	var end pathTime
	for _, r := range t.order {
		var first pathTime
		if p := t.parent[r]; p >= 0 {
			first = start[r].arrive(t.cost(m, p, r)).handle(t.cost(m, p, r))
			end = latest(end, first)
		}
		s := first
		for _, k := range t.kids[r] {
			c := t.cost(m, r, k)
			start[k] = s
			end = latest(end, s.add(c.os+c.om))
			s = s.add(c.sendIv())
		}
	}
	return end
}

// upEnd is the finish of an up pass alone: the root's, or a rank's send
// to its parent.
func (t *meshEnv) upEnd(m int, ready []pathTime) pathTime {
	var end pathTime
	for r, x := range ready {
		if p := t.parent[r]; p >= 0 {
			c := t.cost(m, r, p)
			x = x.add(c.os + c.om)
		}
		end = latest(end, x)
	}
	return end
}

const meshWait = "waits: sends to earlier children, queued receives, the interfaces"

func bcastMesh(e *env) {
	t := e.meshTree(0)
	e.path("", t.down(e.m), meshWait)
}

func reduceMesh(e *env) {
	t := e.meshTree(0)
	ready := t.up(e.m)
	e.path("", t.upEnd(e.m, ready), meshWait)
	e.add(noCompute, 0)
}
