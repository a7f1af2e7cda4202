package config

import (
	"errors"
	"math"
	"testing"
)

type inner struct {
	Depth int `toml:"depth"`
}

type section struct {
	inner
	Rate  float64 `toml:"rate"`
	Name  string  `toml:"name"`
	Delay int64   `toml:"delay"`
}

var keys = []Key{
	Range("depth", "flits", "8", 1, 1024, "embedded field"),
	Fractions("rate", "cycles", "1", 0, 1e6, "a fraction"),
	{Name: "name", Unit: "name", Default: "a", Allowed: "a, b", Doc: "not bounded"},
	Range("delay", "cycles", "1", 0, 1e9, "int64"),
}

// Every bound admits its ends and refuses one step past them (and NaN),
// through embedded structs; the error names the key, the value as the
// field holds it and the documented allowed text.
func TestCheckStruct(t *testing.T) {
	ok := section{inner{8}, 1, "a", 1}
	if err := CheckStruct(ok, keys); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, c := range []struct {
		set     func(*section)
		key     string
		value   string
		allowed string
	}{
		{func(s *section) { s.Depth = 0 }, "depth", "0", "1..1024"},
		{func(s *section) { s.Depth = 1025 }, "depth", "1025", "1..1024"},
		{func(s *section) { s.Rate = -0.5 }, "rate", "-0.5", "0..1e6, fractions allowed"},
		{func(s *section) { s.Rate = math.NaN() }, "rate", "NaN", "0..1e6, fractions allowed"},
		{func(s *section) { s.Delay = 1e9 + 1 }, "delay", "1000000001", "0..1e9"},
	} {
		s := ok
		c.set(&s)
		var ke *KeyError
		if err := CheckStruct(s, keys); !errors.As(err, &ke) || ke.Key != c.key || ke.Value != c.value || ke.Allowed != c.allowed {
			t.Errorf("%s: got %v, want %s = %s: allowed %s", c.key, err, c.key, c.value, c.allowed)
		}
	}
	for _, edge := range []section{{inner{1}, 0, "", 0}, {inner{1024}, 1e6, "", 1e9}} {
		if err := CheckStruct(edge, keys); err != nil {
			t.Errorf("%+v: the bounds themselves are allowed, got %v", edge, err)
		}
	}
}

// A bounded key naming no field is a programming error, caught at once.
func TestCheckStructMissingField(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a bounded key with no field did not panic")
		}
	}()
	CheckStruct(section{}, []Key{Range("nope", "", "", 0, 1, "")})
}

func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 16: "16", 1000: "1000", 1e6: "1e6", 1e9: "1e9", 1e12: "1e12", 1 << 28: "268435456", 0.5: "0.5", 2e6: "2000000"} {
		if got := Number(v); got != want {
			t.Errorf("Number(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestCheckRange(t *testing.T) {
	if err := CheckRange("k", 5, 0, 5); err != nil {
		t.Error(err)
	}
	if err := CheckRange("k", 6, 0, 5); err == nil || err.Error() != "k = 6: allowed 0..5" {
		t.Errorf("got %v", err)
	}
}
