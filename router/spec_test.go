package router

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
)

func TestDefaultSpecIsValidAndDocumented(t *testing.T) {
	s := DefaultSpec()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	// Keys says the same defaults as DefaultSpec.
	want := map[string]int64{
		"vcs": int64(s.VCs), "vc_buf": int64(s.VCBuf), "route_delay": s.RouteDelay, "vc_alloc_delay": s.VCAllocDelay,
		"switch_alloc_delay": s.SwitchAllocDelay, "switch_delay": s.SwitchDelay, "link_latency": s.LinkLatency,
		"credit_delay": s.CreditDelay, "inject_flits_per_cycle": int64(s.InjectWidth), "eject_flits_per_cycle": int64(s.EjectWidth),
		"inject_latency": s.InjectLatency, "eject_latency": s.EjectLatency,
	}
	if len(Keys) != len(want) {
		t.Fatalf("%d keys documented, %d fields", len(Keys), len(want))
	}
	for _, k := range Keys {
		v, ok := want[k.Name]
		if !ok {
			t.Fatalf("documented key %q is not a Spec field", k.Name)
		}
		if k.Default != strconv.FormatInt(v, 10) {
			t.Errorf("%s: documented default %q, DefaultSpec has %d", k.Name, k.Default, v)
		}
	}
}

// Each key rejects the values just outside its documented range, and the
// error names the key.
func TestValidateEveryKeyRange(t *testing.T) {
	set := map[string]func(*Spec, int64){
		"vcs":                    func(s *Spec, v int64) { s.VCs = int(v) },
		"vc_buf":                 func(s *Spec, v int64) { s.VCBuf = int(v) },
		"route_delay":            func(s *Spec, v int64) { s.RouteDelay = v },
		"vc_alloc_delay":         func(s *Spec, v int64) { s.VCAllocDelay = v },
		"switch_alloc_delay":     func(s *Spec, v int64) { s.SwitchAllocDelay = v },
		"switch_delay":           func(s *Spec, v int64) { s.SwitchDelay = v },
		"link_latency":           func(s *Spec, v int64) { s.LinkLatency = v },
		"credit_delay":           func(s *Spec, v int64) { s.CreditDelay = v },
		"inject_flits_per_cycle": func(s *Spec, v int64) { s.InjectWidth = int(v) },
		"eject_flits_per_cycle":  func(s *Spec, v int64) { s.EjectWidth = int(v) },
		"inject_latency":         func(s *Spec, v int64) { s.InjectLatency = v },
		"eject_latency":          func(s *Spec, v int64) { s.EjectLatency = v },
	}
	for _, k := range Keys {
		var lo, hi int64
		if _, err := fmt.Sscanf(k.Allowed, "%d..%d", &lo, &hi); err != nil {
			t.Fatalf("%s: allowed %q is not lo..hi", k.Name, k.Allowed)
		}
		for _, c := range []struct {
			v  int64
			ok bool
		}{{lo - 1, false}, {lo, true}, {hi, true}, {hi + 1, false}} {
			s := DefaultSpec()
			set[k.Name](&s, c.v)
			err := s.Validate()
			if c.ok != (err == nil) {
				t.Errorf("%s = %d: error %v, want ok=%v", k.Name, c.v, err, c.ok)
			}
			var ke *KeyError
			if err != nil && (!errors.As(err, &ke) || ke.Key != k.Name) {
				t.Errorf("%s = %d: error %v does not name the key", k.Name, c.v, err)
			}
		}
	}
}
