package scenarios_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"nocsim/config"
	"nocsim/mesh"
	"nocsim/scenarios"
)

func FuzzParseMesh(f *testing.F) {
	for _, s := range []string{"8x8", "4x3", " 16X2 ", "0x4", "8by8", "300x2", "256x256", "257x1", "+4x-0",
		"x", "", "1x1", "08x008", "9223372036854775807x2", "\x00x\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := scenarios.ParseMesh(s)
		if err != nil {
			var ke *config.KeyError
			if !errors.As(err, &ke) || ke.Key != "mesh" || ke.Allowed == "" {
				t.Fatalf("ParseMesh(%q) error %v is not a KeyError for mesh", s, err)
			}
			return
		}
		if m.W < 1 || m.H < 1 || m.W > mesh.MaxDim || m.H > mesh.MaxDim {
			t.Fatalf("ParseMesh(%q) = %dx%d, outside 1..%d", s, m.W, m.H, mesh.MaxDim)
		}
		text := fmt.Sprintf("%dx%d", m.W, m.H)
		again, err := scenarios.ParseMesh(text)
		if err != nil || again != m {
			t.Fatalf("ParseMesh(%q) = %v, but ParseMesh(%q) = %v, %v", s, m, text, again, err)
		}
	})
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(scenarios.DefaultTOML()))
	f.Add([]byte(""))
	f.Add([]byte("[network]\nmesh = \"4x3\"\n[noc]\ntraffic = [\"transpose\"]\n"))
	f.Add([]byte("[noc]\ntraffic = [\"hotspot\"]\nhotspot_nodes = [0, 63]\nhotspot_fraction = 1.0\nrates = [0, 2]\n"))
	f.Add([]byte("[noc]\nrates = [nan, inf, -0.0]\nseed = -1\n"))
	f.Add([]byte("[network]\nvcs = 9223372036854775807\nvc_buf = -9223372036854775808\n"))
	f.Add([]byte("[network]\nmesh = \"256x256\"\n[noc]\ntraffic = [\"bitrev\", \"shuffle\"]\n"))
	f.Add([]byte("name = 1\n[[noc]]\n"))
	f.Add([]byte("[network]\nbogus = 1\n"))
	f.Add([]byte("[network]\npreset = \"booksim\"\ninject_latency = 3\nvc_alloc = \"lowest\"\n"))
	f.Add([]byte("[network]\npreset = \"x\"\nvc_alloc = \"\"\n"))
	f.Add([]byte("[network]\npreset = \"booksim\"\nlink_flits_per_cycle = 2\n"))
	f.Add([]byte("[network]\nlink_flits_per_cycle = 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, src, err := scenarios.Decode(bytes.NewReader(data), "fuzz.toml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.toml: ") {
				t.Fatalf("Decode error %q does not name the file", err)
			}
			return
		}
		if src == nil {
			t.Fatal("Decode succeeded with a nil Source")
		}
		pts, err := sc.NocPoints(src)
		if err != nil {
			return
		}
		if len(pts) != len(sc.Noc.Traffic)*len(sc.Noc.Rates) {
			t.Fatalf("%d points for %d traffic x %d rates", len(pts), len(sc.Noc.Traffic), len(sc.Noc.Rates))
		}
		for i := range pts {
			if err := pts[i].Validate(); err != nil {
				t.Fatalf("NocPoints returned point %d that does not validate: %v", i, err)
			}
		}
	})
}

func FuzzSet(f *testing.F) {
	for _, k := range allKeys() {
		f.Add(k.section, k.key, flagValue[k.key])
	}
	for _, s := range [][3]string{
		{"network", "vcs", "1.5"}, {"noc", "rates", "0.1,NaN"}, {"noc", "rates", ""}, {"noc", "rates", ","},
		{"noc", "seed", "-1"}, {"noc", "seed", "18446744073709551616"}, {"network", "mesh", "\xff"},
		{"noc", "traffic", "a\"b,\\c"}, {"noc", "hotspot_fraction", "1e400"}, {"", "", ""}, {"network", "RouterSpec", "x"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, section, key, text string) {
		sc := scenarios.Defaults()
		err := sc.Set(section, key, text)
		if err != nil {
			if !reflect.DeepEqual(sc, scenarios.Defaults()) {
				t.Fatalf("Set(%q, %q, %q) failed (%v) but changed the scenario", section, key, text, err)
			}
			var ke *config.KeyError
			if errors.As(err, &ke) && ke.Key != key {
				t.Fatalf("Set(%q, %q, %q): KeyError names %q", section, key, text, ke.Key)
			}
			return
		}
		// A value Set accepts (within int64, in valid UTF-8) is one a
		// scenario file can hold: --print-config output reads back.
		if !utf8.ValidString(text) || sc.Noc.Seed > 1<<63-1 {
			return
		}
		var b bytes.Buffer
		if err := toml.NewEncoder(&b).Encode(sc); err != nil {
			t.Fatalf("Set(%q, %q, %q) gave a scenario that does not encode: %v", section, key, text, err)
		}
		back, _, err := scenarios.Decode(bytes.NewReader(b.Bytes()), "printed.toml")
		if err != nil {
			t.Fatalf("Set(%q, %q, %q): encoded scenario does not decode: %v\n%s", section, key, text, err, b.Bytes())
		}
		if !sameScenario(back, sc) {
			t.Fatalf("Set(%q, %q, %q): round trip gave\n%+v\nwant\n%+v", section, key, text, back, sc)
		}
	})
}

// sameScenario compares scenarios, treating nil and empty lists alike.
func sameScenario(a, b scenarios.Scenario) bool {
	norm := func(s *scenarios.Scenario) {
		if len(s.Noc.Traffic) == 0 {
			s.Noc.Traffic = nil
		}
		if len(s.Noc.Rates) == 0 {
			s.Noc.Rates = nil
		}
		if len(s.Noc.HotspotNodes) == 0 {
			s.Noc.HotspotNodes = nil
		}
	}
	norm(&a)
	norm(&b)
	return reflect.DeepEqual(a, b)
}
