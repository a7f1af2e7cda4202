package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPingPongJSON(t *testing.T) {
	for _, proto := range []string{"scmp", "eager", "niu"} {
		code, out, stderr := nocsim(t, "pingpong", "--mesh", "4x4", "--from", "0", "--to", "15", "--sizes", "4,64,1024,65536", "--protocol", proto, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", proto, code, stderr)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("%s: %v\n%s", proto, err, out)
		}
		if len(rows) != 4 {
			t.Fatalf("%s: %d rows", proto, len(rows))
		}
		prev := 0.0
		for i, r := range rows {
			for _, k := range []string{"size_bytes", "protocol", "round_trip_cycles", "one_way_cycles"} {
				if _, ok := r[k]; !ok {
					t.Errorf("%s row %d lacks %s", proto, i, k)
				}
			}
			rt, ow := r["round_trip_cycles"].(float64), r["one_way_cycles"].(float64)
			if r["protocol"] != proto || ow != rt/2 || rt < prev {
				t.Errorf("%s row %d: %v (one way must be half the round trip, and time never shrink with size)", proto, i, r)
			}
			prev = rt
		}
	}
}

func TestPingPongBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--mesh", "4x4", "--to", "16"}, "--to"},
		{[]string{"--mesh", "4x4", "--to", "0"}, "--to"},
		{[]string{"--from", "-1"}, "--from"},
		{[]string{"--sizes", "1,x"}, "--sizes"},
		{[]string{"--sizes", "-4"}, "--sizes"},
		{[]string{"--reps", "0"}, "--reps"},
		{[]string{"--protocol", "tcp"}, "--protocol"},
		{[]string{"--thread-contexts", "0"}, "--thread-contexts"},
		{[]string{"--eager-bytes", "-1"}, "--eager-bytes"},
		{[]string{"--mesh", "2x2", "--procs", "5"}, "--procs"},
		{[]string{"--clock-hz", "0"}, "--clock-hz"},
		{[]string{"--preempt-threads", "sometimes"}, "--preempt-threads"},
	} {
		code, out, stderr := nocsim(t, append([]string{"pingpong"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.flag) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %s", c.args, code, out, stderr, c.flag)
		}
	}
}

// The trace is Chrome trace-event JSON: a slice per MPI call on each
// rank's track and a start/finish flow pair per message.
func TestPingPongTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.json")
	code, _, stderr := nocsim(t, "pingpong", "--mesh", "2x2", "--sizes", "8,4096", "--reps", "1", "--trace", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			Ts   float64 `json:"ts"`
			Dur  float64 `json:"dur"`
			Tid  int     `json:"tid"`
			ID   int     `json:"id"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	slices, starts, ends := 0, map[int]float64{}, map[int]float64{}
	for _, e := range tr.TraceEvents {
		switch e.Ph {
		case "X":
			slices++
			if e.Dur < 0 || !strings.HasPrefix(e.Name, "MPI_") {
				t.Errorf("bad slice %+v", e)
			}
		case "s":
			starts[e.ID] = e.Ts
		case "f":
			ends[e.ID] = e.Ts
		}
	}
	// Two sizes, a warm-up and one measured round trip each: 8 messages,
	// 8 sends and 8 receives.
	if slices != 16 || len(starts) != 8 || len(ends) != 8 {
		t.Fatalf("%d slices, %d flow starts, %d flow ends; want 16, 8, 8", slices, len(starts), len(ends))
	}
	for id, s := range starts {
		if e, ok := ends[id]; !ok || e < s {
			t.Errorf("message %d: starts at %v, ends at %v", id, s, e)
		}
	}
}
