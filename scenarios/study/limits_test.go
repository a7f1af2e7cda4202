package study_test

import (
	"fmt"
	"strings"
	"testing"

	"nocsim/logp/collgen"
	"nocsim/scenarios"
	"nocsim/scenarios/study"
)

// tight is a tile memory small enough that the largest accepted sizes run
// in milliseconds: a 12 KiB heap.
const tight = 4096

func tightScenario(mesh string) scenarios.Scenario {
	sc := scenarios.Defaults()
	sc.Network.Mesh = mesh
	sc.Network.MemoryWords = tight
	return sc
}

// largestAccepted is the largest n in 0..hi (by step) that check accepts,
// found by bisection: the memory check is monotone in the size.
func largestAccepted(t *testing.T, step, hi int, check func(n int) error) int {
	t.Helper()
	lo := 0
	if check(lo) != nil {
		t.Fatalf("size 0 refused: %v", check(0))
	}
	hi /= step
	for hi > lo {
		mid := lo + (hi-lo+1)/2
		if check(mid*step) == nil {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo * step
}

func memoryRefusal(t *testing.T, err error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted", what)
	}
	for _, s := range []string{"sizes", "memory_words", "at least"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("%s: refusal %q does not mention %s", what, err, s)
		}
	}
}

// The largest size the memory check accepts for each collective
// algorithm runs to a correct result in a tile of that memory, and the
// next size is refused before anything runs: the check's bound is never
// below what the simulation needs.
func TestCollMemoryLimitIsSafe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every algorithm at its memory limit")
	}
	for _, op := range collgen.Ops {
		algs := append([]string{"auto"}, study.AlgorithmsFor(op)...)
		for _, alg := range algs {
			for _, P := range []int{3, 4, 8} {
				if op == "barrier" {
					continue // no data: no size limit
				}
				sc := tightScenario("4x4")
				step := 1
				if op == "reduce" || op == "allreduce" || op == "reduce_scatter" || op == "scan" || op == "exscan" {
					step = 8
				}
				sweep := func(n int) *study.CollSweep {
					return &study.CollSweep{Op: op, Algs: []string{alg}, Procs: []int{P}, Sizes: []int{n}}
				}
				check := func(n int) error { return sweep(n).Check(&sc, nil) }
				n := largestAccepted(t, step, 1<<16, check)
				sizes := []int{n}
				if step == 1 {
					// Sizes ending inside a word need receive temporaries:
					// the largest odd size accepted runs too.
					odd := 2*largestAccepted(t, 1, 1<<15, func(k int) error { return check(2*k + 1) }) + 1
					sizes = append(sizes, odd)
				}
				for _, s := range sizes {
					rows, err := sweep(s).Run(&sc, scenarios.RunOptions{Workers: 1})
					if err != nil || !rows[0].Correct {
						t.Errorf("%s %s P=%d: largest accepted size %d failed: %v %+v", op, alg, P, s, err, rows)
					}
				}
				memoryRefusal(t, check(n+step), fmt.Sprintf("%s %s P=%d size %d", op, alg, P, n+step))
			}
		}
	}
}

func TestPingPongMemoryLimitIsSafe(t *testing.T) {
	for _, proto := range []string{"scmp", "eager", "niu"} {
		sc := tightScenario("2x2")
		sc.MPI.Protocol = proto
		pp := func(n int) *study.PingPong {
			return &study.PingPong{From: 0, To: 3, Sizes: []int{4, n}, Reps: 1}
		}
		check := func(n int) error { return pp(n).Check(&sc, nil) }
		n := largestAccepted(t, 1, 1<<16, check)
		odd := 2*largestAccepted(t, 1, 1<<15, func(k int) error { return check(2*k + 1) }) + 1
		for _, s := range []int{n, odd} {
			if _, _, err := pp(s).Run(&sc); err != nil {
				t.Errorf("%s: largest accepted size %d failed: %v", proto, s, err)
			}
		}
		memoryRefusal(t, check(n+1), fmt.Sprintf("%s size %d", proto, n+1))
	}
}

func TestAppMemoryLimitIsSafe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every application at its memory limit")
	}
	for _, c := range []struct {
		app, variant string
		P            int
	}{{"cg", "", 4}, {"qr", "1d", 4}, {"qr", "2d", 4}, {"matmul", "1d", 4}, {"matmul", "2d", 4},
		{"globalsum", "serial", 4}, {"globalsum", "hypercube", 4}, {"globalsum", "breakeven", 8}} {
		for _, version := range []string{"mpi", "native"} {
			sc := tightScenario("4x4")
			sw := func(n int) *study.AppSweep {
				return &study.AppSweep{App: c.app, Variant: c.variant, Procs: []int{c.P}, Sizes: []int{n}, Versions: []string{version}, Seed: 1}
			}
			// The largest size the application accepts below the first
			// the memory check refuses.
			last, refused := 0, 0
			for n := 1; n <= 1<<16; n++ {
				err := sw(n).Check(&sc, nil)
				if err == nil {
					last = n
				} else if strings.Contains(err.Error(), "memory_words") {
					refused = n
					break
				}
			}
			name := fmt.Sprintf("%s %s %s P=%d", c.app, c.variant, version, c.P)
			if last == 0 || refused == 0 {
				t.Fatalf("%s: no accepted size (%d) or no refused size (%d)", name, last, refused)
			}
			t.Logf("%s: largest accepted size %d, first refused %d", name, last, refused)
			rows, err := sw(last).Run(&sc, scenarios.RunOptions{Workers: 1})
			if err != nil {
				t.Errorf("%s: largest accepted size %d failed: %v", name, last, err)
				continue
			}
			for _, r := range rows {
				if !r.Correct {
					t.Errorf("%s: largest accepted size %d: wrong result %s", name, last, r.Detail)
				}
			}
			memoryRefusal(t, sw(refused).Check(&sc, nil), fmt.Sprintf("%s size %d", name, refused))
		}
	}
}

func TestCalibrationMemoryLimitIsSafe(t *testing.T) {
	sc := tightScenario("2x2")
	check := func(n int) error { return study.CheckCalibration(&sc, []int{8, n}, 1) }
	n := largestAccepted(t, 1, 1<<16, check)
	odd := 2*largestAccepted(t, 1, 1<<15, func(k int) error { return check(2*k + 1) }) + 1
	for _, s := range []int{n, odd} {
		if _, err := study.Calibrate(&sc, []int{8, s}, 1); err != nil {
			t.Errorf("largest accepted size %d failed: %v", s, err)
		}
	}
	memoryRefusal(t, check(n+1), fmt.Sprintf("calibration size %d", n+1))
}
