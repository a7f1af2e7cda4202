package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func netraceFile(name string) string {
	return filepath.Join("..", "..", "endpoint", "traffic", "netrace", "testdata", name)
}

// dropWall removes what the wall clock sets: the speed line of the table
// and wall_seconds of JSON.
func dropWall(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "simulated ") && !strings.Contains(l, `"wall_seconds"`) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// noc --trace replays every packet of a trace and reports its slowdown,
// per region too; the same command prints the same bytes twice.
func TestNocTraceReplay(t *testing.T) {
	args := []string{"noc", "--mesh", "8x8", "--trace", netraceFile("example.tra.bz2"), "--json", "--quiet"}
	code, out, stderr := nocsim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var row struct {
		Packets   int     `json:"packets"`
		Delivered int     `json:"delivered_packets"`
		Flits     int     `json:"flits"`
		Recorded  int64   `json:"recorded_cycles"`
		Runtime   int64   `json:"runtime_cycles"`
		Slowdown  float64 `json:"slowdown_ratio"`
		LastDel   int64   `json:"last_delivery_at_cycles"`
		Control   int     `json:"control_packets"`
		Data      int     `json:"data_packets"`
		Regions   []struct {
			Packets int `json:"packets"`
		} `json:"regions"`
		Energy *struct {
			TotalPJ float64 `json:"energy_pj"`
		} `json:"energy"`
	}
	if err := json.Unmarshal([]byte(out), &row); err != nil {
		t.Fatal(err)
	}
	// example: 175 packets over 6820 cycles in one region (the header's
	// counts, and the reader's tests' independent count).
	if row.Packets != 175 || row.Delivered != 175 || row.Recorded != 6820 || len(row.Regions) != 1 || row.Regions[0].Packets != 175 {
		t.Errorf("packets %d delivered %d recorded %d regions %v", row.Packets, row.Delivered, row.Recorded, row.Regions)
	}
	if row.Flits != 2*row.Control+18*row.Data || row.Control+row.Data != 175 {
		t.Errorf("%d flits for %d control and %d data packets at 32-bit flits", row.Flits, row.Control, row.Data)
	}
	if row.Runtime != max(row.LastDel, row.Recorded) || row.Slowdown != float64(row.Runtime)/float64(row.Recorded) || row.Slowdown < 1 {
		t.Errorf("runtime %d (last delivery %d), slowdown %g", row.Runtime, row.LastDel, row.Slowdown)
	}
	if row.Energy == nil || row.Energy.TotalPJ <= 0 {
		t.Error("no energy with the default model")
	}
	_, again, _ := nocsim(t, args...)
	if dropWall(out) != dropWall(again) {
		t.Error("two replays print different results")
	}
	table := []string{"noc", "--mesh", "8x8", "--trace", netraceFile("shrtex.tra.bz2"), "--quiet"}
	_, t1, _ := nocsim(t, table...)
	_, t2, _ := nocsim(t, table...)
	if dropWall(t1) != dropWall(t2) || !strings.Contains(t1, "region 1") {
		t.Errorf("table not repeatable or without its region:\n%s", t1)
	}
}

// Ignoring dependencies never makes the replay slower here, and a time
// scale below 1 loads the network more: the offered rate grows by its
// inverse.
func TestNocTraceOptions(t *testing.T) {
	get := func(extra ...string) map[string]any {
		args := append([]string{"noc", "--mesh", "8x8", "--trace", netraceFile("example.tra.bz2"), "--json", "--quiet"}, extra...)
		code, out, stderr := nocsim(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	deps, free, fast := get(), get("--trace-deps=false"), get("--trace-scale", "0.5")
	if free["avg_dependency_wait_cycles"].(float64) != 0 || deps["avg_dependency_wait_cycles"].(float64) <= 0 {
		t.Errorf("dependency wait: %v with, %v without dependencies", deps["avg_dependency_wait_cycles"], free["avg_dependency_wait_cycles"])
	}
	if fast["recorded_cycles"].(float64) != 3410 {
		t.Errorf("scale 0.5: recorded %v cycles, want 3410", fast["recorded_cycles"])
	}
	lim := get("--trace-packets", "50")
	if lim["packets"].(float64) != 50 || lim["trace_complete"].(bool) {
		t.Errorf("--trace-packets 50: %v packets, complete %v", lim["packets"], lim["trace_complete"])
	}
}

// Bad input is one line naming the flag (or the trace's byte and what was
// expected there), exit 2, before anything runs.
func TestNocTraceBadInput(t *testing.T) {
	notBz := filepath.Join(t.TempDir(), "plain.tra")
	if err := os.WriteFile(notBz, []byte("not a trace"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := netraceFile("shrtex.tra.bz2")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", netraceFile("badtype.tra.bz2")}, "badtype.tra.bz2: byte 197 of the decompressed trace: expected a packet type"},
		{[]string{"--trace", notBz}, "byte 0 of the decompressed trace: expected bzip2-compressed data"},
		{[]string{"--trace", trace, "--rates", "0.1"}, "--rates with --trace"},
		{[]string{"--trace", trace, "--plot", "x.png"}, "--plot with --trace"},
		{[]string{"--trace", trace, "--trace-scale", "0"}, "--trace-scale = 0: allowed above 0"},
		{[]string{"--trace", trace, "--trace-region", "2"}, "region 2 asked: the trace has 1"},
		{[]string{"--trace", trace, "--mesh", "4x4"}, "at least the trace's 64 nodes"},
		{[]string{"--trace", trace, "--energy-model", "none", "--flit-bits", "8"}, "a 72-byte data packet (72 flits) fits niu_queue_flits = 64"},
		{[]string{"--trace-deps=false"}, "--trace-deps without --trace"},
	} {
		code, out, stderr := nocsim(t, append([]string{"noc"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out, stderr, c.want)
		}
	}
}
