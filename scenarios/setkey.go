package scenarios

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"nocsim/config"
	"nocsim/router"
)

// Set assigns a value written as text (a flag's argument) to the key of a
// section, parsed as the key's type: lists are comma-separated. It is how
// flags override a scenario, so flags and files share one set of keys.
func (sc *Scenario) Set(section, key, text string) error {
	if section == "network" && key == "preset" {
		return sc.Network.setPreset(strings.TrimSpace(text))
	}
	var v reflect.Value
	switch section {
	case "network":
		v = reflect.ValueOf(&sc.Network).Elem()
	case "noc":
		v = reflect.ValueOf(&sc.Noc).Elem()
	case "node":
		v = reflect.ValueOf(&sc.Node).Elem()
	case "mpi":
		v = reflect.ValueOf(&sc.MPI).Elem()
	case "workload":
		v = reflect.ValueOf(&sc.Workload).Elem()
	case "output":
		v = reflect.ValueOf(&sc.Output).Elem()
	case "energy":
		v = reflect.ValueOf(&sc.Energy).Elem()
	default:
		return fmt.Errorf("unknown section %q", section)
	}
	f, ok := field(v, key)
	if !ok {
		return fmt.Errorf("unknown key %s.%s", section, key)
	}
	return parseInto(f, key, text)
}

func field(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			if f, ok := field(v.Field(i), key); ok {
				return f, true
			}
			continue
		}
		if config.TOMLName(sf) == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

var kindNames = map[reflect.Kind]string{
	reflect.String: "names", reflect.Int: "integers", reflect.Int64: "integers",
	reflect.Uint64: "non-negative integers", reflect.Float64: "numbers", reflect.Bool: "true or false",
}

func parseInto(f reflect.Value, key, text string) error {
	bad := func(want string) error {
		return &config.KeyError{Key: key, Value: strconv.Quote(text), Allowed: want}
	}
	text = strings.TrimSpace(text)
	switch f.Kind() {
	case reflect.String:
		f.SetString(text)
	case reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return bad("true or false")
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return bad("an integer")
		}
		f.SetInt(n)
	case reflect.Uint64:
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return bad("a non-negative integer")
		}
		f.SetUint(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return bad("a finite number")
		}
		f.SetFloat(x)
	case reflect.Slice:
		var parts []string
		if text != "" {
			parts = strings.Split(text, ",")
		}
		s := reflect.MakeSlice(f.Type(), len(parts), len(parts))
		for i, p := range parts {
			if err := parseInto(s.Index(i), key, p); err != nil {
				return bad("a comma-separated list of " + kindNames[f.Type().Elem().Kind()])
			}
		}
		f.Set(s)
	default:
		return fmt.Errorf("key %s has an unsupported type %s", key, f.Type())
	}
	return nil
}

// setPreset switches the router preset. Keys still at the old preset's
// values take the new preset's; keys that differ were set on purpose and
// keep their values. (Decode and flags know exactly which keys the user
// wrote; this is for sweep axes over network.preset.)
func (n *Network) setPreset(name string) error {
	to, err := router.Preset(name)
	if err != nil {
		return err
	}
	from, err := router.Preset(cmp.Or(n.Preset, router.PresetSCMP))
	if err != nil {
		return err
	}
	cur := reflect.ValueOf(&n.RouterSpec).Elem()
	for _, k := range router.PresetKeys {
		f, _ := field(cur, k)
		old, _ := field(reflect.ValueOf(from), k)
		if f.Equal(old) {
			nv, _ := field(reflect.ValueOf(to), k)
			f.Set(nv)
		}
	}
	n.Preset = name
	return nil
}

// checkPreset rejects an unknown preset name (empty means scmp).
func (n *Network) checkPreset() error {
	_, err := router.Preset(cmp.Or(n.Preset, router.PresetSCMP))
	return err
}
