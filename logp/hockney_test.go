package logp

import (
	"math"
	"strings"
	"testing"
)

func TestHockneyTime(t *testing.T) {
	h := Hockney{Ts: 100, Te: 0.5}
	for _, c := range []struct {
		m    int
		want float64
	}{{0, 100}, {1, 100.5}, {1000, 600}} {
		if got := h.Time(c.m); got != c.want {
			t.Errorf("Time(%d) = %v, want %v", c.m, got, c.want)
		}
	}
}

func TestFitHockneyExact(t *testing.T) {
	for _, want := range []Hockney{{Ts: 100, Te: 0.25}, {Ts: 0, Te: 2}, {Ts: 37.5, Te: 0}} {
		sizes := []int{0, 8, 64, 1024, 65536, 64}
		times := make([]float64, len(sizes))
		for i, m := range sizes {
			times[i] = want.Time(m)
		}
		got, err := FitHockney(sizes, times)
		if err != nil {
			t.Fatalf("FitHockney(%v): %v", want, err)
		}
		if math.Abs(got.Ts-want.Ts) > 1e-6 || math.Abs(got.Te-want.Te) > 1e-9 {
			t.Errorf("FitHockney recovered %+v, want %+v", got, want)
		}
	}
}

// Noise that averages out must not move the fit: symmetric errors at each
// size leave the least-squares line where it was.
func TestFitHockneySymmetricNoise(t *testing.T) {
	want := Hockney{Ts: 50, Te: 1.5}
	var sizes []int
	var times []float64
	for _, m := range []int{16, 256, 4096} {
		sizes = append(sizes, m, m)
		times = append(times, want.Time(m)+7, want.Time(m)-7)
	}
	got, err := FitHockney(sizes, times)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Ts-want.Ts) > 1e-6 || math.Abs(got.Te-want.Te) > 1e-9 {
		t.Errorf("FitHockney = %+v, want %+v", got, want)
	}
}

func TestFitHockneyErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		sizes []int
		times []float64
		want  string
	}{
		{"no data", nil, nil, "2 are needed"},
		{"one point", []int{64}, []float64{10}, "2 are needed"},
		{"one size repeated", []int{64, 64, 64}, []float64{10, 11, 12}, "1 distinct"},
		{"length mismatch", []int{1, 2}, []float64{1}, "2 sizes but 1 times"},
		{"negative size", []int{-1, 2}, []float64{1, 2}, "size -1"},
		{"NaN time", []int{1, 2}, []float64{1, math.NaN()}, "not a finite"},
	} {
		_, err := FitHockney(c.sizes, c.times)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
