package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"nocsim/coll"
	"nocsim/logp"
)

// The broadcast schedule lists every rank but the root once, with its
// parent, the send's start (arrival less L and both overheads) and the
// arrival; the gather's lists every sender with its three times.
func TestWriteSchedules(t *testing.T) {
	const P, L, o, g = 8, 6.0, 2.0, 4.0
	_, parent, at := coll.OptimalBroadcast(P, L, o, g)
	var b bytes.Buffer
	if err := WriteBroadcastSchedule(&b, parent, at, L, o); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != P {
		t.Fatalf("%d lines, want a header and %d ranks:\n%s", len(lines), P-1, b.String())
	}
	for i := 1; i < P; i++ {
		want := strings.Fields(fmt.Sprintf("%d %d %g %g", i, parent[i], at[i]-L-2*o, at[i]))
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("rank %d: %q, want %q", i, got, want)
		}
	}
	fg := logp.OptimalGather(P, L, o, g, true)
	b.Reset()
	if err := WriteGatherSchedule(&b, fg); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i := 1; i < P; i++ {
		want := fmt.Sprintf("%d %g %g %g", i, fg.Enter[i], fg.Stall[i], fg.Taken[i])
		if got := strings.Join(strings.Fields(lines[i]), " "); got != want {
			t.Errorf("sender %d: %q, want %q", i, got, want)
		}
	}
}

// Each term is one indented line, its cycles in a column after the names.
func TestWriteTerms(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTerms(&b, []logp.Term{{Name: "o_s", Cycles: 10}, {Name: "L + h*Lh", Cycles: 123.45}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "  o_s ") || !strings.HasSuffix(lines[1], " 123.5 cycles") ||
		strings.Index(lines[0], "10.0") != strings.Index(lines[1], "123.5") {
		t.Errorf("terms:\n%s", b.String())
	}
}
