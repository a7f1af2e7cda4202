package router

import (
	"errors"
	"fmt"
	"nocsim/config"
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
		"credit_delay": s.CreditDelay, "link_flits_per_cycle": int64(s.LinkWidth), "inject_flits_per_cycle": int64(s.InjectWidth), "eject_flits_per_cycle": int64(s.EjectWidth),
		"inject_latency": s.InjectLatency, "eject_latency": s.EjectLatency,
	}
	names := map[string]string{"vc_alloc": s.VCAlloc, "allocator": s.Allocator, "routing": s.Routing}
	if len(Keys) != len(want)+len(names) {
		t.Fatalf("%d keys documented, %d fields", len(Keys), len(want)+len(names))
	}
	for _, k := range Keys {
		if d, ok := names[k.Name]; ok {
			if k.Default != d {
				t.Errorf("%s: documented default %q, DefaultSpec has %q", k.Name, k.Default, d)
			}
			continue
		}
		v, ok := want[k.Name]
		if !ok {
			t.Fatalf("documented key %q is not a Spec field", k.Name)
		}
		if k.Default != strconv.FormatInt(v, 10) {
			t.Errorf("%s: documented default %q, DefaultSpec has %d", k.Name, k.Default, v)
		}
	}
}

// vc_alloc accepts exactly the documented policies, and an error names
// the key and what is allowed.
func TestValidateVCAlloc(t *testing.T) {
	var doc config.Key
	for _, k := range Keys {
		if k.Name == "vc_alloc" {
			doc = k
		}
	}
	for _, c := range []struct {
		v  string
		ok bool
	}{{VCAllocRoundRobin, true}, {VCAllocLowest, true}, {"", false}, {"Lowest", false}, {"random", false}, {"round-robin", false}} {
		s := DefaultSpec()
		s.VCAlloc = c.v
		err := s.Validate()
		if c.ok != (err == nil) {
			t.Errorf("vc_alloc = %q: error %v, want ok=%v", c.v, err, c.ok)
		}
		var ke *config.KeyError
		if err != nil && (!errors.As(err, &ke) || ke.Key != "vc_alloc" || ke.Allowed != doc.Allowed) {
			t.Errorf("vc_alloc = %q: error %v does not name the key and the documented values %q", c.v, err, doc.Allowed)
		}
	}
}

// allocator accepts exactly the documented allocators; BookSim's need
// every width of one flit, and a wider one is refused naming its key.
func TestValidateAllocator(t *testing.T) {
	for _, c := range []struct {
		alloc   string
		widen   func(*Spec)
		wantKey string // "" for valid
	}{
		{AllocGreedy, nil, ""},
		{AllocISLIP, nil, ""},
		{AllocSeparable, nil, ""},
		{"iSLIP", nil, "allocator"},
		{"wavefront", nil, "allocator"},
		{AllocGreedy, func(s *Spec) { s.LinkWidth = 2 }, ""},
		{AllocISLIP, func(s *Spec) { s.LinkWidth = 2 }, "link_flits_per_cycle"},
		{AllocSeparable, func(s *Spec) { s.InjectWidth = 2 }, "inject_flits_per_cycle"},
		{AllocISLIP, func(s *Spec) { s.EjectWidth = 4 }, "eject_flits_per_cycle"},
	} {
		s, _ := Preset(PresetBookSim)
		s.Allocator = c.alloc
		if c.widen != nil {
			c.widen(&s)
		}
		err := s.Validate()
		var ke *config.KeyError
		switch {
		case c.wantKey == "" && err != nil:
			t.Errorf("allocator %q: unexpected error %v", c.alloc, err)
		case c.wantKey != "" && (!errors.As(err, &ke) || ke.Key != c.wantKey):
			t.Errorf("allocator %q: error %v, want one naming %s", c.alloc, err, c.wantKey)
		}
	}
}

// routing accepts the documented algorithms; adaptive needs a VC beside
// the escape VC.
func TestValidateRouting(t *testing.T) {
	for _, c := range []struct {
		routing string
		vcs     int
		wantKey string
	}{
		{"xy", 1, ""}, {"west_first", 1, ""}, {"adaptive", 2, ""},
		{"adaptive", 1, "vcs"}, {"XY", 2, "routing"}, {"odd_even", 2, "routing"},
	} {
		s := DefaultSpec()
		s.Routing, s.VCs = c.routing, c.vcs
		err := s.Validate()
		var ke *config.KeyError
		switch {
		case c.wantKey == "" && err != nil:
			t.Errorf("routing %q, %d VCs: unexpected error %v", c.routing, c.vcs, err)
		case c.wantKey != "" && (!errors.As(err, &ke) || ke.Key != c.wantKey):
			t.Errorf("routing %q, %d VCs: error %v, want one naming %s", c.routing, c.vcs, err, c.wantKey)
		}
	}
}

// Every preset is a valid spec that leaves the buffers alone; booksim's
// zero-load latency is BookSim's 5*D + 7 + (L-1); unknown names are
// KeyErrors naming the key.
func TestPresets(t *testing.T) {
	for _, name := range PresetNames {
		s, err := Preset(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		d := DefaultSpec()
		if s.VCs != d.VCs || s.VCBuf != d.VCBuf {
			t.Errorf("%s sets the buffers (vcs %d, vc_buf %d), which are not preset keys", name, s.VCs, s.VCBuf)
		}
		if s.CreditLoop() > s.VCBuf {
			t.Errorf("%s: vc_buf %d below the credit loop %d: worms would not stream", name, s.VCBuf, s.CreditLoop())
		}
	}
	if s, _ := Preset(PresetSCMP); s != DefaultSpec() {
		t.Errorf("scmp preset %+v differs from DefaultSpec", s)
	}
	bs, _ := Preset(PresetBookSim)
	for d := 0; d <= 30; d++ {
		for _, l := range []int{1, 2, 5, 20} {
			if got, want := bs.ZeroLoadLatency(d, l), int64(5*d+7+l-1); got != want {
				t.Fatalf("booksim preset: %d hops, %d flits: zero-load %d, BookSim %d", d, l, got, want)
			}
		}
	}
	for _, bad := range []string{"", "BookSim", "noxim"} {
		_, err := Preset(bad)
		var ke *config.KeyError
		if !errors.As(err, &ke) || ke.Key != "preset" {
			t.Errorf("Preset(%q) = %v, want a KeyError for preset", bad, err)
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
		"link_flits_per_cycle":   func(s *Spec, v int64) { s.LinkWidth = int(v) },
		"inject_flits_per_cycle": func(s *Spec, v int64) { s.InjectWidth = int(v) },
		"eject_flits_per_cycle":  func(s *Spec, v int64) { s.EjectWidth = int(v) },
		"inject_latency":         func(s *Spec, v int64) { s.InjectLatency = v },
		"eject_latency":          func(s *Spec, v int64) { s.EjectLatency = v },
	}
	for _, k := range Keys {
		if k.Name == "vc_alloc" || k.Name == "allocator" || k.Name == "routing" {
			continue // a name, not a range: TestValidateVCAlloc, TestValidateAllocator
		}
		var lo, hi int64
		if _, err := fmt.Sscanf(k.AllowedText(), "%d..%d", &lo, &hi); err != nil {
			t.Fatalf("%s: allowed %q is not lo..hi", k.Name, k.AllowedText())
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
			var ke *config.KeyError
			if err != nil && (!errors.As(err, &ke) || ke.Key != k.Name) {
				t.Errorf("%s = %d: error %v does not name the key", k.Name, c.v, err)
			}
		}
	}
}
