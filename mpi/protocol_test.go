package mpi

import "testing"

// TestProtocolChosenOncePerWorld checks that NewWorld builds the
// configured protocol: the one whose name the requests record.
func TestProtocolChosenOncePerWorld(t *testing.T) {
	for _, proto := range Protocols {
		w := job(t, 2, 1, cfgFor(proto), nil)
		if got := w.proto.name(); got != proto {
			t.Errorf("protocol = %q: the world runs %q", proto, got)
		}
	}
}

// TestRendezvousThreshold checks the largest message completed at the
// sender alone: eager_bytes under eager, none under the rendezvous
// protocols (every send waits for its receiver).
func TestRendezvousThreshold(t *testing.T) {
	for _, tc := range []struct {
		proto string
		eager int
		want  int
	}{
		{"scmp", 128, 0},
		{"niu", 128, 0},
		{"puma_long", 128, 0},
		{"eager", 128, 128},
		{"eager", 40, 40},
	} {
		c := cfgFor(tc.proto)
		c.EagerBytes = tc.eager
		if got := c.RendezvousThreshold(); got != tc.want {
			t.Errorf("protocol %s, eager_bytes %d: threshold %d, want %d", tc.proto, tc.eager, got, tc.want)
		}
	}
}
