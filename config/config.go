// Package config holds what every configuration key shares, whichever
// section it sits in: its documentation row (name, unit, default, allowed
// values), its range, declared once in that row, and the one-line error a
// value outside it gives. The packages that own a section (router,
// endpoint, mpi, scenarios) list their keys here-typed, check their
// structs against the list (CheckStruct) and the docs' configuration
// tables are written from the same list, so a range cannot say one thing
// in the docs and another in the check.
//
// It imports nothing of nocsim: every package may use it.
package config

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Key documents one configuration key; the table drives validation
// messages, docs/configuration.md and the effective-config dump.
type Key struct {
	Name, Unit, Default string
	// Allowed says what the key accepts. For a bounded key it is written
	// from the bounds (see Allowed); set it only where the bounds cannot
	// say it all (a list of names, a range that depends on the machine).
	Allowed string
	Doc     string
	// Lo and Hi bound a numeric key when Bounded: CheckStruct refuses a
	// value outside them (and NaN).
	Lo, Hi  float64
	Bounded bool
	// Note follows the bounds in Allowed ("fractions allowed").
	Note string
}

// Range is a bounded numeric key: Allowed is written from lo and hi.
func Range(name, unit, def string, lo, hi float64, doc string) Key {
	return Key{Name: name, Unit: unit, Default: def, Doc: doc, Lo: lo, Hi: hi, Bounded: true}
}

// Fractions is Range for a key that accepts non-integers.
func Fractions(name, unit, def string, lo, hi float64, doc string) Key {
	k := Range(name, unit, def, lo, hi, doc)
	k.Note = "fractions allowed"
	return k
}

// AllowedText is what the key accepts, as the docs and errors say it.
func (k Key) AllowedText() string {
	if k.Allowed != "" || !k.Bounded {
		return k.Allowed
	}
	s := Number(k.Lo) + ".." + Number(k.Hi)
	if k.Note != "" {
		s += ", " + k.Note
	}
	return s
}

// Number writes a bound as people read it: whole numbers in digits, a
// power of ten from a million up as 1eN.
func Number(v float64) string {
	if v >= 1e6 && v == math.Trunc(v) {
		if e := math.Log10(v); e == math.Trunc(e) {
			return "1e" + strconv.Itoa(int(e))
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// KeyError is a configuration value outside what is allowed. It names the
// key, so that the caller can report it as the flag or file entry the user
// wrote.
type KeyError struct {
	Key, Value, Allowed string
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("%s = %s: allowed %s", e.Key, e.Value, e.Allowed)
}

// CheckRange returns a KeyError unless lo <= v <= hi, for a bound that
// depends on the run (a rank below the mesh's tiles) and so has no row of
// its own.
func CheckRange(key string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return &KeyError{key, fmt.Sprint(v), fmt.Sprintf("%d..%d", lo, hi)}
	}
	return nil
}

// CheckStruct checks every bounded key of keys against the field of v (a
// struct, searched through its embedded structs) whose toml tag is the
// key's name, in the order of keys; the first value outside its bounds is
// the error. A bounded key with no such field is a programming error and
// panics, so that a renamed field cannot silently go unchecked (every
// section's test calls CheckStruct on its defaults).
func CheckStruct(v any, keys []Key) error {
	fields := map[string]reflect.Value{}
	collect(reflect.ValueOf(v), fields)
	for _, k := range keys {
		if !k.Bounded {
			continue
		}
		f, ok := fields[k.Name]
		if !ok {
			panic("config: no field tagged " + k.Name)
		}
		var x float64
		switch f.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			x = float64(f.Int())
		case reflect.Float32, reflect.Float64:
			x = f.Float()
		default:
			panic("config: field " + k.Name + " is not a number")
		}
		if !(x >= k.Lo && x <= k.Hi) { // NaN fails both
			return &KeyError{Key: k.Name, Value: fmt.Sprint(f.Interface()), Allowed: k.AllowedText()}
		}
	}
	return nil
}

func collect(v reflect.Value, into map[string]reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			collect(v.Field(i), into)
			continue
		}
		if tag := TOMLName(sf); tag != "" && tag != "-" {
			into[tag] = v.Field(i)
		}
	}
}

// TOMLName is the key a struct field is written as: its toml tag without
// options such as omitempty.
func TOMLName(sf reflect.StructField) string {
	name, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
	return name
}
