package group

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"nocsim/mpi/mpierr"
)

func mustGroup(t *testing.T, world ...int) *Group {
	t.Helper()
	g, err := NewGroup(world)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// randomGroup is a random ordered subset of world ranks 0..n-1.
func randomGroup(t *testing.T, r *rand.Rand, n int) *Group {
	perm := r.Perm(n)
	return mustGroup(t, perm[:r.IntN(n+1)]...)
}

// The reference set operations below work on plain slices, with linear
// membership tests, independently of Group's index.

func has(s []int, x int) bool { return slices.Contains(s, x) }

func refUnion(a, b []int) []int {
	out := slices.Clone(a)
	for _, x := range b {
		if !has(a, x) {
			out = append(out, x)
		}
	}
	return out
}

func refFilter(a, b []int, keep bool) []int {
	var out []int
	for _, x := range a {
		if has(b, x) == keep {
			out = append(out, x)
		}
	}
	return out
}

// refExpand expands (first, last, stride) triplets by stepping, the way the
// MPI standard writes them out.
func refExpand(ranges [][3]int) []int {
	var out []int
	for _, tr := range ranges {
		for r := tr[0]; (tr[2] > 0 && r <= tr[1]) || (tr[2] < 0 && r >= tr[1]); r += tr[2] {
			out = append(out, r)
		}
	}
	return out
}

func sameMembers(t *testing.T, what string, g *Group, want []int) {
	t.Helper()
	got := g.Members()
	if len(got) != len(want) || (len(want) > 0 && !slices.Equal(got, want)) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
	if g.Size() != len(want) {
		t.Fatalf("%s: Size() = %d, want %d", what, g.Size(), len(want))
	}
	if len(want) == 0 && g != GroupEmpty {
		t.Fatalf("%s: empty result is not GroupEmpty", what)
	}
	for r, w := range want {
		if g.Rank(w) != r || g.WorldRank(r) != w {
			t.Fatalf("%s: Rank(%d) = %d, WorldRank(%d) = %d; want %d, %d", what, w, g.Rank(w), r, g.WorldRank(r), r, w)
		}
	}
}

func TestGroupBasics(t *testing.T) {
	g := mustGroup(t, 5, 2, 9)
	sameMembers(t, "NewGroup", g, []int{5, 2, 9})
	if g.Rank(3) != Undefined || g.WorldRank(3) != -1 || g.WorldRank(-1) != -1 {
		t.Error("lookups outside the group")
	}
	m := g.Members()
	m[0] = 7
	if g.WorldRank(0) != 5 {
		t.Error("Members() aliases the group")
	}
	world := []int{1, 0}
	g2 := mustGroup(t, world...)
	world[0] = 4
	if g2.WorldRank(0) != 1 {
		t.Error("NewGroup aliases its argument")
	}
	sameMembers(t, "NewGroup(nil)", mustGroup(t), nil)
	var nilGroup *Group
	if nilGroup.Size() != 0 || nilGroup.Rank(0) != Undefined || nilGroup.WorldRank(0) != -1 || nilGroup.Members() != nil {
		t.Error("nil group is not empty")
	}
}

func TestGroupInclExcl(t *testing.T) {
	g := mustGroup(t, 10, 11, 12, 13, 14, 15)
	tests := []struct {
		ranks []int
	}{
		{nil}, {[]int{0}}, {[]int{5, 0, 3}}, {[]int{1, 2, 3, 4}}, {[]int{5, 4, 3, 2, 1, 0}},
	}
	for _, tc := range tests {
		in, err := GroupIncl(g, tc.ranks)
		if err != nil {
			t.Fatal(err)
		}
		// Incl: rank i of the result is g's rank ranks[i].
		var want []int
		for _, r := range tc.ranks {
			want = append(want, 10+r)
		}
		sameMembers(t, "GroupIncl", in, want)

		ex, err := GroupExcl(g, tc.ranks)
		if err != nil {
			t.Fatal(err)
		}
		// Excl: g's order, without the excluded.
		sameMembers(t, "GroupExcl", ex, refFilter(g.Members(), want, false))
	}
}

func TestGroupRanges(t *testing.T) {
	g := mustGroup(t, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29)
	tests := []struct {
		name   string
		ranges [][3]int
		hand   []int // expansion by hand, to check refExpand too
	}{
		{"none", nil, nil},
		{"single", [][3]int{{4, 4, 1}}, []int{4}},
		{"single negative stride", [][3]int{{4, 4, -3}}, []int{4}},
		{"positive stride", [][3]int{{1, 9, 3}}, []int{1, 4, 7}},
		{"stride past last", [][3]int{{0, 8, 5}}, []int{0, 5}},
		{"negative stride", [][3]int{{9, 0, -4}}, []int{9, 5, 1}},
		{"mixed", [][3]int{{8, 6, -1}, {0, 4, 2}}, []int{8, 7, 6, 0, 2, 4}},
		{"huge stride", [][3]int{{3, 9, 1 << 62}, {2, 0, -1 << 63}}, []int{3, 2}},
		{"all", [][3]int{{0, 9, 1}}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, tc := range tests {
		ranks := refExpand(tc.ranges)
		if !slices.Equal(ranks, tc.hand) {
			t.Fatalf("%s: reference expansion %v, by hand %v", tc.name, ranks, tc.hand)
		}
		in, err := GroupRangeIncl(g, tc.ranges)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var want []int
		for _, r := range ranks {
			want = append(want, 20+r)
		}
		sameMembers(t, tc.name+" incl", in, want)
		ex, err := GroupRangeExcl(g, tc.ranges)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sameMembers(t, tc.name+" excl", ex, refFilter(g.Members(), want, false))
	}
}

func TestGroupSetOps(t *testing.T) {
	a := mustGroup(t, 3, 1, 4, 5, 9)
	b := mustGroup(t, 2, 7, 1, 8, 9, 0)
	// MPI's order rules, by hand.
	sameMembers(t, "union", GroupUnion(a, b), []int{3, 1, 4, 5, 9, 2, 7, 8, 0})
	sameMembers(t, "intersection", GroupIntersection(a, b), []int{1, 9})
	sameMembers(t, "difference", GroupDifference(a, b), []int{3, 4, 5})
	sameMembers(t, "intersection b a", GroupIntersection(b, a), []int{1, 9})
	sameMembers(t, "difference b a", GroupDifference(b, a), []int{2, 7, 8, 0})

	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		a, b := randomGroup(t, r, 12), randomGroup(t, r, 12)
		am, bm := a.Members(), b.Members()
		u, i, d := GroupUnion(a, b), GroupIntersection(a, b), GroupDifference(a, b)
		sameMembers(t, "union", u, refUnion(am, bm))
		sameMembers(t, "intersection", i, refFilter(am, bm, true))
		sameMembers(t, "difference", d, refFilter(am, bm, false))

		if u.Size() != a.Size()+b.Size()-i.Size() {
			t.Fatalf("|A∪B| = %d, |A|+|B|-|A∩B| = %d", u.Size(), a.Size()+b.Size()-i.Size())
		}
		if GroupIntersection(d, b).Size() != 0 {
			t.Fatal("(A\\B) ∩ B is not empty")
		}
		if GroupDifference(i, a).Size() != 0 {
			t.Fatal("A∩B is not a subset of A")
		}
		if GroupCompare(GroupUnion(a, GroupEmpty), a) != Ident || GroupCompare(GroupUnion(GroupEmpty, a), a) != Ident {
			t.Fatal("union with the empty group is not ident")
		}
		if GroupCompare(a, a) != Ident {
			t.Fatal("compare is not reflexive")
		}
		if c := GroupCompare(GroupUnion(a, b), GroupUnion(b, a)); c == Unequal {
			t.Fatal("A∪B and B∪A have different members")
		}
	}
}

func TestGroupTranslateRanks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		a, b := randomGroup(t, r, 10), randomGroup(t, r, 10)
		all := make([]int, a.Size())
		for i := range all {
			all[i] = i
		}
		ab, err := GroupTranslateRanks(a, all, b)
		if err != nil {
			t.Fatal(err)
		}
		for i, rb := range ab {
			w := a.Members()[i]
			if !has(b.Members(), w) {
				if rb != Undefined {
					t.Fatalf("world rank %d not in b translated to %d", w, rb)
				}
				continue
			}
			// Where defined, translating back returns the original rank.
			back, err := GroupTranslateRanks(b, []int{rb}, a)
			if err != nil || back[0] != i {
				t.Fatalf("a→b→a of %d gave %v, %v", i, back, err)
			}
		}
	}
}

func TestGroupCompare(t *testing.T) {
	tests := []struct {
		a, b []int
		want Comparison
	}{
		{[]int{1, 2, 3}, []int{1, 2, 3}, Ident},
		{nil, nil, Ident},
		{[]int{1, 2, 3}, []int{3, 1, 2}, Similar},
		{[]int{1, 2, 3}, []int{1, 2}, Unequal},
		{[]int{1, 2, 3}, []int{1, 2, 4}, Unequal},
		{[]int{5}, nil, Unequal},
	}
	for _, tc := range tests {
		a, b := mustGroup(t, tc.a...), mustGroup(t, tc.b...)
		if got := GroupCompare(a, b); got != tc.want {
			t.Errorf("compare %v %v = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := GroupCompare(b, a); got != tc.want {
			t.Errorf("compare %v %v = %v, want %v (symmetry)", tc.b, tc.a, got, tc.want)
		}
	}
	for c, want := range map[Comparison]string{
		Ident: "MPI_IDENT", Congruent: "MPI_CONGRUENT", Similar: "MPI_SIMILAR", Unequal: "MPI_UNEQUAL", 7: "Comparison(7)",
	} {
		if c.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(c), c.String(), want)
		}
	}
}

func TestGroupErrors(t *testing.T) {
	g := mustGroup(t, 0, 1, 2, 3, 4)
	var nilGroup *Group
	tests := []struct {
		name  string
		f     func() (any, error)
		class mpierr.Class
		op    string
	}{
		{"new negative", func() (any, error) { return NewGroup([]int{0, -1}) }, mpierr.ErrRank, "NewGroup"},
		{"new duplicate", func() (any, error) { return NewGroup([]int{3, 1, 3}) }, mpierr.ErrGroup, "NewGroup"},
		{"incl nil group", func() (any, error) { return GroupIncl(nilGroup, nil) }, mpierr.ErrGroup, "MPI_Group_incl"},
		{"incl out of range", func() (any, error) { return GroupIncl(g, []int{0, 5}) }, mpierr.ErrRank, "MPI_Group_incl"},
		{"incl negative", func() (any, error) { return GroupIncl(g, []int{-1}) }, mpierr.ErrRank, "MPI_Group_incl"},
		{"incl duplicate", func() (any, error) { return GroupIncl(g, []int{2, 2}) }, mpierr.ErrRank, "MPI_Group_incl"},
		{"excl out of range", func() (any, error) { return GroupExcl(g, []int{7}) }, mpierr.ErrRank, "MPI_Group_excl"},
		{"excl duplicate", func() (any, error) { return GroupExcl(g, []int{1, 3, 1}) }, mpierr.ErrRank, "MPI_Group_excl"},
		{"excl nil group", func() (any, error) { return GroupExcl(nil, []int{0}) }, mpierr.ErrGroup, "MPI_Group_excl"},
		{"range zero stride", func() (any, error) { return GroupRangeIncl(g, [][3]int{{0, 4, 0}}) }, mpierr.ErrArg, "MPI_Group_range_incl"},
		{"range wrong sign", func() (any, error) { return GroupRangeIncl(g, [][3]int{{4, 0, 1}}) }, mpierr.ErrArg, "MPI_Group_range_incl"},
		{"range wrong sign negative", func() (any, error) { return GroupRangeExcl(g, [][3]int{{0, 4, -1}}) }, mpierr.ErrArg, "MPI_Group_range_excl"},
		{"range first out", func() (any, error) { return GroupRangeIncl(g, [][3]int{{5, 4, -1}}) }, mpierr.ErrRank, "MPI_Group_range_incl"},
		{"range last out", func() (any, error) { return GroupRangeExcl(g, [][3]int{{0, 6, 2}}) }, mpierr.ErrRank, "MPI_Group_range_excl"},
		{"range negative last", func() (any, error) { return GroupRangeIncl(g, [][3]int{{2, -1, -1}}) }, mpierr.ErrRank, "MPI_Group_range_incl"},
		{"range overlap", func() (any, error) { return GroupRangeIncl(g, [][3]int{{0, 4, 2}, {4, 3, -1}}) }, mpierr.ErrRank, "MPI_Group_range_incl"},
		{"range overlap excl", func() (any, error) { return GroupRangeExcl(g, [][3]int{{1, 1, 1}, {1, 1, 1}}) }, mpierr.ErrRank, "MPI_Group_range_excl"},
		{"range nil group", func() (any, error) { return GroupRangeIncl(nil, nil) }, mpierr.ErrGroup, "MPI_Group_range_incl"},
		{"translate bad rank", func() (any, error) { return GroupTranslateRanks(g, []int{5}, g) }, mpierr.ErrRank, "MPI_Group_translate_ranks"},
		{"translate nil", func() (any, error) { return GroupTranslateRanks(g, nil, nil) }, mpierr.ErrGroup, "MPI_Group_translate_ranks"},
	}
	for _, tc := range tests {
		got, err := tc.f()
		var e *mpierr.Error
		if !errors.As(err, &e) || e.Class != tc.class || e.Op != tc.op {
			t.Errorf("%s: %v, want class %v from %s", tc.name, err, tc.class, tc.op)
		}
		switch v := got.(type) {
		case *Group:
			if v != nil {
				t.Errorf("%s: returned a group with the error", tc.name)
			}
		case []int:
			if v != nil {
				t.Errorf("%s: returned ranks with the error", tc.name)
			}
		}
	}
	// Error-free operations take nil as the empty group.
	sameMembers(t, "union nil", GroupUnion(nil, g), g.Members())
	sameMembers(t, "intersection nil", GroupIntersection(g, nil), nil)
	if GroupCompare(nil, GroupEmpty) != Ident {
		t.Error("nil and GroupEmpty differ")
	}
}
