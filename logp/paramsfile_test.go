package logp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// fixtureParams is a parameters file as calibrate writes it, for a 4x4
// scmp machine (values of the order calibrate fits there), from before
// the handshake's keys existed.
const fixtureParams = `P = 16
protocol = "scmp"
clock_hz = 1e9
avg_hops = 2.5
source = "simulator"
mesh = "4x4"
sizes = [8, 64, 1024]
word_bytes = 4

[[segment]]
  max_bytes = 0
  L = 107
  L_per_hop = 15
  o_s = 44
  o_r = 20
  g = 158
  G = 0.25
  O = 0.5
`

// A parameters file with the handshake's keys loads back as written; an
// older file without them loads with no handshake and cooperative false,
// so the tier runs LogGOPSim's rendezvous.
func TestParamsFileHandshakeKeys(t *testing.T) {
	p := Params{P: 16, Protocol: "scmp", Source: SourceSimulator, Mesh: "4x4", Cooperative: true,
		Segments: []Segment{{L: 107.25, Lh: 15, Os: 44, Or: 20, Gap: 158.375, G: 0.25,
			Handshake: true, Lpost: 23, Lcts: 49, LctsH: 5, Ldata: 58.25, LdataH: 5, Octs: 54, GapData: 2.9}}}
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(p); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"cooperative = true", "handshake = true", "L_post = 23", "L_cts_per_hop = 5", "o_cts = 54", "g_data = 2.9"} {
		if !strings.Contains(b.String(), key) {
			t.Errorf("written file lacks %q:\n%s", key, b.String())
		}
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"new.toml": b.String(), "old.toml": fixtureParams} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadParams(path)
		if err != nil {
			t.Fatal(err)
		}
		if name == "new.toml" && !reflect.DeepEqual(got, p) {
			t.Errorf("read back %+v, wrote %+v", got, p)
		}
		if name == "old.toml" && (got.Cooperative || got.Segments[0].Handshake) {
			t.Errorf("old file: cooperative %v, handshake %v", got.Cooperative, got.Segments[0].Handshake)
		}
	}
}
