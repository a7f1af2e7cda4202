package logp

import (
	"errors"
	"slices"
	"testing"
)

// Select's crossover is the last size of the smaller choice, found by
// bisection between neighbouring grid sizes, per P.
func TestSelectFindsCrossoverByBisection(t *testing.T) {
	edge := map[int]int{4: 100, 16: 1000} // "small" up to edge-1 bytes at P
	pick := func(P, n int) (string, error) {
		if n < edge[P] {
			return "small", nil
		}
		return "large", nil
	}
	s, err := Select([]int{4, 16}, []int{8, 4096}, pick)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"small", "large"}, {"small", "large"}}; !slices.EqualFunc(s.Choice, want, slices.Equal) {
		t.Errorf("grid %v, want %v", s.Choice, want)
	}
	want := []Crossover{{P: 4, Below: "small", Above: "large", Last: 99}, {P: 16, Below: "small", Above: "large", Last: 999}}
	if !slices.Equal(s.Crossovers, want) {
		t.Errorf("crossovers %+v, want %+v", s.Crossovers, want)
	}
}

// A failed choice leaves its cell empty, the rest of the grid filled, the
// first error returned and no crossovers searched.
func TestSelectKeepsGridOnError(t *testing.T) {
	bad := errors.New("no model")
	s, err := Select([]int{2, 8}, []int{1, 2}, func(P, n int) (string, error) {
		if P == 8 {
			return "", bad
		}
		return "x", nil
	})
	if !errors.Is(err, bad) {
		t.Fatalf("error %v, want %v", err, bad)
	}
	if len(s.Choice) != 2 || s.Choice[0][1] != "x" || s.Choice[1][0] != "" || s.Crossovers != nil {
		t.Errorf("selection %+v: want the P=2 row filled, P=8 empty, no crossovers", s)
	}
}
