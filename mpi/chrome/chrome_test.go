package chrome

import (
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"nocsim/des"
)

// exactUs is c cycles at hz in microseconds, as an exact rational.
func exactUs(c int64, hz float64) *big.Rat {
	r := new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(c), big.NewInt(1_000_000)))
	return r.Quo(r, new(big.Rat).SetFloat64(hz))
}

// Trace times are decimals with a fixed number of places: exact for every
// clock that divides 10^12 Hz (1 GHz: 3 places), rounded to the picosecond
// otherwise; never a float's noise (12300000000.001 was written as
// 12300000000.000002 or 12.300000000001).
func TestTraceTimesAreExactDecimals(t *testing.T) {
	for _, c := range []struct {
		cycles int64
		hz     float64
		want   string
	}{
		{12300000000001, 1e9, "12300000000.001"},
		{12300, 1e9, "12.300"},
		{1, 1e9, "0.001"},
		{0, 1e9, "0.000"},
		{3, 2.5e8, "0.012"},
		{7, 1e6, "7"},
		{1, 1e12, "0.000001"},
		{1, 3e8, "0.003333"},
		{2, 3e8, "0.006667"},
		{1, 1500000.5, "0.666666"},
		{9_000_000_000_000, 1e12, "9000000.000000"},
	} {
		got := string(Microseconds(des.Time(c.cycles), c.hz, Decimals(c.hz)))
		if got != c.want {
			t.Errorf("%d cycles at %g Hz: %s us, want %s", c.cycles, c.hz, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, hz := range []float64{1e9, 2.5e8, 1e6, 1e12, 4e9, 1.6e7, 3e8, 7e8, 1234567.25} {
		d := Decimals(hz)
		shape := regexp.MustCompile(`^[0-9]+$`)
		if d > 0 {
			shape = regexp.MustCompile(`^[0-9]+\.[0-9]{` + strconv.Itoa(d) + `}$`)
		}
		exact := new(big.Int).Mod(big.NewInt(1e12), big.NewInt(int64(hz))).Sign() == 0 && hz == float64(int64(hz))
		for range 200 {
			c := rng.Int64N(1e13)
			s := string(Microseconds(des.Time(c), hz, d))
			got, ok := new(big.Rat).SetString(s)
			if !shape.MatchString(s) || !ok {
				t.Fatalf("%d cycles at %g Hz: %q is not a decimal with %d places", c, hz, s, d)
			}
			diff := new(big.Rat).Sub(got, exactUs(c, hz))
			if exact && diff.Sign() != 0 {
				t.Fatalf("%d cycles at %g Hz: %s us, exact %s", c, hz, s, exactUs(c, hz).FloatString(12))
			}
			if diff.Abs(diff).Cmp(big.NewRat(1, 2_000_000)) > 0 {
				t.Fatalf("%d cycles at %g Hz: %s us, off by more than half a picosecond from %s", c, hz, s, exactUs(c, hz).FloatString(12))
			}
		}
	}
}
