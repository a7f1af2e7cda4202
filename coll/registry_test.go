package coll

import "testing"

// TestRegistryRules checks Register's two refusals: a second entry for an
// op and name, and an entry whose program and Native flag disagree.
func TestRegistryRules(t *testing.T) {
	prog := func(Rank, Args) error { return nil }
	cases := []struct {
		name string
		a    *Algorithm
	}{
		{"duplicate", &Algorithm{Op: "bcast", Name: "binomial", Program: prog}},
		{"native with a program", &Algorithm{Op: "bcast", Name: "x_native", Native: true, Program: prog}},
		{"neither", &Algorithm{Op: "bcast", Name: "x_none"}},
	}
	for _, c := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", c.name)
				}
			}()
			Register(c.a)
		}()
		if c.name != "duplicate" && Lookup(c.a.Op, c.a.Name) != nil {
			t.Errorf("%s: left in the registry", c.name)
		}
	}
}

// TestAlgorithmsOrder checks the listing order the docs use: operations
// in Ops order, names sorted within one.
func TestAlgorithmsOrder(t *testing.T) {
	as := Algorithms()
	for i := 1; i < len(as); i++ {
		p, q := as[i-1], as[i]
		if opOrder(p.Op) > opOrder(q.Op) || p.Op == q.Op && p.Name >= q.Name {
			t.Errorf("%s/%s listed before %s/%s", p.Op, p.Name, q.Op, q.Name)
		}
	}
}
