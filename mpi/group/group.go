package group

import (
	"fmt"

	"nocsim/mpi/mpierr"
)

// Group is an ordered set of processes, named by their rank in
// MPI_COMM_WORLD. Groups are immutable, so they may be shared freely.
//
// Functions that return no error treat a nil *Group as the empty group;
// functions that return an error report it as ErrGroup.
type Group struct {
	ranks []int       // world ranks in group order
	index map[int]int // world rank -> rank in the group
}

// GroupEmpty is MPI_GROUP_EMPTY. Every operation whose result has no
// members returns it.
var GroupEmpty = &Group{}

// Undefined is MPI_UNDEFINED: the rank of a process outside a group, and
// what the library's calls return for a count or index that does not exist
// (Waitany with no active request, GetCount of a partial element).
const Undefined = -32766

// Comparison is the result of comparing two groups or communicators.
type Comparison int

// Groups compare Ident, Similar or Unequal; Congruent is for communicators
// with identical groups but different contexts.
const (
	Ident Comparison = iota
	Congruent
	Similar
	Unequal
)

func (c Comparison) String() string {
	switch c {
	case Ident:
		return "MPI_IDENT"
	case Congruent:
		return "MPI_CONGRUENT"
	case Similar:
		return "MPI_SIMILAR"
	case Unequal:
		return "MPI_UNEQUAL"
	}
	return fmt.Sprintf("Comparison(%d)", int(c))
}

// newGroup builds a group from world ranks the caller knows to be distinct
// and non-negative; it takes ownership of ranks.
func newGroup(ranks []int) *Group {
	if len(ranks) == 0 {
		return GroupEmpty
	}
	index := make(map[int]int, len(ranks))
	for i, w := range ranks {
		index[w] = i
	}
	return &Group{ranks: ranks, index: index}
}

// NewGroup makes the group whose rank i is world rank worldRanks[i].
func NewGroup(worldRanks []int) (*Group, error) {
	const op = "NewGroup"
	if len(worldRanks) == 0 {
		return GroupEmpty, nil
	}
	index := make(map[int]int, len(worldRanks))
	for i, w := range worldRanks {
		if w < 0 {
			return nil, mpierr.Errorf(mpierr.ErrRank, op, "world rank %d at index %d is negative", w, i)
		}
		if _, dup := index[w]; dup {
			return nil, mpierr.Errorf(mpierr.ErrGroup, op, "world rank %d appears twice", w)
		}
		index[w] = i
	}
	return &Group{ranks: append([]int(nil), worldRanks...), index: index}, nil
}

// Size is the number of processes in g.
func (g *Group) Size() int {
	if g == nil {
		return 0
	}
	return len(g.ranks)
}

// Rank is the rank in g of the process with world rank worldRank, or
// Undefined if it is not a member. MPI_Group_rank is g.Rank(caller's world
// rank).
func (g *Group) Rank(worldRank int) int {
	if g == nil {
		return Undefined
	}
	if r, ok := g.index[worldRank]; ok {
		return r
	}
	return Undefined
}

// WorldRank is the world rank of g's rank rank, or -1 if rank is out of
// range.
func (g *Group) WorldRank(rank int) int {
	if rank < 0 || rank >= g.Size() {
		return -1
	}
	return g.ranks[rank]
}

// Members returns the world ranks of g in group order; the slice is a copy.
func (g *Group) Members() []int {
	if g == nil {
		return nil
	}
	return append([]int(nil), g.ranks...)
}

func (g *Group) contains(worldRank int) bool {
	return g.Rank(worldRank) != Undefined
}

// pick validates ranks as distinct ranks of g and marks them in a slice
// indexed by rank.
func pick(op string, g *Group, ranks []int) ([]bool, error) {
	if g == nil {
		return nil, mpierr.Errorf(mpierr.ErrGroup, op, "group is nil")
	}
	picked := make([]bool, g.Size())
	for i, r := range ranks {
		if r < 0 || r >= len(picked) {
			return nil, mpierr.Errorf(mpierr.ErrRank, op, "rank %d at index %d outside a group of size %d", r, i, len(picked))
		}
		if picked[r] {
			return nil, mpierr.Errorf(mpierr.ErrRank, op, "rank %d appears twice", r)
		}
		picked[r] = true
	}
	return picked, nil
}

// GroupIncl is MPI_Group_incl: the group whose rank i is g's rank ranks[i].
func GroupIncl(g *Group, ranks []int) (*Group, error) {
	if _, err := pick("MPI_Group_incl", g, ranks); err != nil {
		return nil, err
	}
	return include(g, ranks), nil
}

func include(g *Group, ranks []int) *Group {
	world := make([]int, len(ranks))
	for i, r := range ranks {
		world[i] = g.ranks[r]
	}
	return newGroup(world)
}

// GroupExcl is MPI_Group_excl: g without the processes of rank ranks, in g's
// order.
func GroupExcl(g *Group, ranks []int) (*Group, error) {
	picked, err := pick("MPI_Group_excl", g, ranks)
	if err != nil {
		return nil, err
	}
	return exclude(g, picked), nil
}

func exclude(g *Group, picked []bool) *Group {
	var world []int
	for r, w := range g.ranks {
		if !picked[r] {
			world = append(world, w)
		}
	}
	return newGroup(world)
}

// expand turns (first, last, stride) triplets into the ranks first,
// first+stride, ... not passing last. MPI only requires the computed ranks to
// be valid; nocsim is stricter and also requires last to be a rank of g and
// the stride to lead from first towards last, so every triplet names at
// least one rank and no step can overflow. Duplicates are errors, which also
// bounds the expansion by g's size.
func expand(op string, g *Group, ranges [][3]int) ([]int, []bool, error) {
	if g == nil {
		return nil, nil, mpierr.Errorf(mpierr.ErrGroup, op, "group is nil")
	}
	n := g.Size()
	picked := make([]bool, n)
	var ranks []int
	for i, tr := range ranges {
		first, last, stride := tr[0], tr[1], tr[2]
		switch {
		case first < 0 || first >= n:
			return nil, nil, mpierr.Errorf(mpierr.ErrRank, op, "range %d: first %d outside a group of size %d", i, first, n)
		case last < 0 || last >= n:
			return nil, nil, mpierr.Errorf(mpierr.ErrRank, op, "range %d: last %d outside a group of size %d", i, last, n)
		case stride == 0:
			return nil, nil, mpierr.Errorf(mpierr.ErrArg, op, "range %d: stride is 0", i)
		case (stride > 0 && first > last) || (stride < 0 && first < last):
			return nil, nil, mpierr.Errorf(mpierr.ErrArg, op, "range %d: stride %d does not lead from %d to %d", i, stride, first, last)
		}
		for k := range (last-first)/stride + 1 {
			r := first + k*stride
			if picked[r] {
				return nil, nil, mpierr.Errorf(mpierr.ErrRank, op, "range %d: rank %d is already in an earlier range", i, r)
			}
			picked[r] = true
			ranks = append(ranks, r)
		}
	}
	return ranks, picked, nil
}

// GroupRangeIncl is MPI_Group_range_incl: GroupIncl of the ranks the
// (first, last, stride) triplets expand to, in order.
func GroupRangeIncl(g *Group, ranges [][3]int) (*Group, error) {
	ranks, _, err := expand("MPI_Group_range_incl", g, ranges)
	if err != nil {
		return nil, err
	}
	return include(g, ranks), nil
}

// GroupRangeExcl is MPI_Group_range_excl: GroupExcl of the ranks the
// triplets expand to.
func GroupRangeExcl(g *Group, ranges [][3]int) (*Group, error) {
	_, picked, err := expand("MPI_Group_range_excl", g, ranges)
	if err != nil {
		return nil, err
	}
	return exclude(g, picked), nil
}

// GroupUnion is MPI_Group_union: a's members in a's order, then b's members
// not in a in b's order.
func GroupUnion(a, b *Group) *Group {
	world := a.Members()
	for _, w := range b.Members() {
		if !a.contains(w) {
			world = append(world, w)
		}
	}
	return newGroup(world)
}

// GroupIntersection is MPI_Group_intersection: a's members that are in b,
// in a's order.
func GroupIntersection(a, b *Group) *Group {
	return filter(a, b, true)
}

// GroupDifference is MPI_Group_difference: a's members that are not in b,
// in a's order.
func GroupDifference(a, b *Group) *Group {
	return filter(a, b, false)
}

func filter(a, b *Group, inB bool) *Group {
	var world []int
	for _, w := range a.Members() {
		if b.contains(w) == inB {
			world = append(world, w)
		}
	}
	return newGroup(world)
}

// GroupTranslateRanks is MPI_Group_translate_ranks: the rank in b of each of
// a's ranks ranks, or Undefined where that process is not in b.
func GroupTranslateRanks(a *Group, ranks []int, b *Group) ([]int, error) {
	const op = "MPI_Group_translate_ranks"
	if a == nil || b == nil {
		return nil, mpierr.Errorf(mpierr.ErrGroup, op, "group is nil")
	}
	out := make([]int, len(ranks))
	for i, r := range ranks {
		w := a.WorldRank(r)
		if w < 0 {
			return nil, mpierr.Errorf(mpierr.ErrRank, op, "rank %d at index %d outside a group of size %d", r, i, a.Size())
		}
		out[i] = b.Rank(w)
	}
	return out, nil
}

// GroupCompare is MPI_Group_compare: Ident for the same members in the same
// order, Similar for the same members in another order, else Unequal.
func GroupCompare(a, b *Group) Comparison {
	if a.Size() != b.Size() {
		return Unequal
	}
	same := true
	for r, w := range a.Members() {
		switch b.Rank(w) {
		case Undefined:
			return Unequal
		case r:
		default:
			same = false
		}
	}
	if same {
		return Ident
	}
	return Similar
}
