package scenarios

import "testing"

// Ranks is [mpi] procs when set, else every tile of the mesh, and false
// for a mesh that does not parse.
func TestScenarioRanks(t *testing.T) {
	sc := Defaults()
	sc.Network.Mesh = "4x3"
	if n, ok := sc.Ranks(); !ok || n != 12 {
		t.Errorf("4x3 mesh: %d, %v; want 12 ranks", n, ok)
	}
	sc.MPI.Procs = 5
	if n, ok := sc.Ranks(); !ok || n != 5 {
		t.Errorf("procs 5: %d, %v; want 5 ranks", n, ok)
	}
	sc.Network.Mesh = "four"
	if _, ok := sc.Ranks(); ok {
		t.Errorf("mesh \"four\": ok, want false")
	}
}

// KeySection finds a key's section, and none for a key of no section.
func TestKeySection(t *testing.T) {
	for key, want := range map[string]string{"mesh": "network", "call_cycles": "node", "protocol": "mpi"} {
		if got, ok := KeySection(key); !ok || got != want {
			t.Errorf("KeySection(%s) = %q, %v; want %s", key, got, ok, want)
		}
	}
	if s, ok := KeySection("kind"); ok {
		t.Errorf("KeySection(kind) = %q: want none", s)
	}
}
