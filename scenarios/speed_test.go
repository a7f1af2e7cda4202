package scenarios

import (
	"math"
	"testing"
)

// The rates are the counts over the CPU time; adding two pieces adds the
// counts and the time, so the rates of the sum are not the sum of rates.
func TestSpeedRatesAndAdd(t *testing.T) {
	a := NewSpeed(2, 1000, 5000, 300)
	if a.SimCyclesPerCPUSecond != 500 || a.EventsPerCPUSecond != 2500 || a.FlitHopsPerCPUSecond != 150 {
		t.Fatalf("rates %+v, want counts / 2 s", a)
	}
	b := NewSpeed(3, 4000, 0, 0)
	s := a.Add(b)
	if s.CPUSeconds != 5 || s.SimCycles != 5000 || s.Events != 5000 || s.FlitHops != 300 {
		t.Fatalf("sum %+v", s)
	}
	if s.SimCyclesPerCPUSecond != 1000 || math.Abs(s.EventsPerCPUSecond-1000) > 1e-12 {
		t.Fatalf("rates of the sum %+v, want 5000/5 and 5000/5", s)
	}
	if z := NewSpeed(0, 10, 10, 10); z.SimCyclesPerCPUSecond != 0 {
		t.Fatalf("no CPU time gave a rate %v", z.SimCyclesPerCPUSecond)
	}
}

func TestSIText(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 950: "950", 38_500: "38.5k", 3_920_000: "3.92M", 1.5e9: "1.5G"} {
		if got := siText(v); got != want {
			t.Errorf("siText(%v) = %q, want %q", v, got, want)
		}
	}
}
