package main

import (
	"encoding/json"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// Every command that takes the router's keys as flags takes the network
// rate too: the flag comes from the key table, as --vc-buf does.
func TestLinkRateFlagOnEveryMachineCommand(t *testing.T) {
	var walk func(cmds []*cli.Command, path string)
	seen := 0
	walk = func(cmds []*cli.Command, path string) {
		for _, c := range cmds {
			var names []string
			for _, f := range c.Flags {
				names = append(names, f.Names()...)
			}
			if slices.Contains(names, "vc-buf") {
				seen++
				if !slices.Contains(names, "link-flits-per-cycle") {
					t.Errorf("%s %s takes --vc-buf but not --link-flits-per-cycle", path, c.Name)
				}
			}
			walk(c.Subcommands, path+" "+c.Name)
		}
	}
	walk(newApp(io.Discard, io.Discard).Commands, "nocsim")
	if seen < 5 {
		t.Errorf("only %d commands take machine flags: the walk missed them", seen)
	}
}

// --link-flits-per-cycle 2 halves a large ping-pong's one-way time: the
// message streams at two flits per cycle instead of one.
func TestLinkRateFlagDoublesPingPongBandwidth(t *testing.T) {
	oneWay := map[string]float64{}
	for _, rate := range []string{"1", "2"} {
		code, out, stderr := nocsim(t, "pingpong", "--mesh", "4x4", "--sizes", "262144", "--reps", "1", "--json", "--link-flits-per-cycle", rate)
		if code != 0 {
			t.Fatalf("rate %s: exit %d: %s", rate, code, stderr)
		}
		rows := decodeJSON(t, out)
		if len(rows) != 1 {
			t.Fatalf("rate %s: %d rows", rate, len(rows))
		}
		v, err := rows[0]["one_way_cycles"].(json.Number).Float64()
		if err != nil {
			t.Fatalf("rate %s: one_way_cycles %v: %v", rate, rows[0]["one_way_cycles"], err)
		}
		oneWay[rate] = v
	}
	if r := oneWay["1"] / oneWay["2"]; math.Abs(r-2) > 0.05*2 {
		t.Errorf("256 KiB one way: %v cycles at rate 1, %v at rate 2: ratio %.3f, want 2 within 5%%", oneWay["1"], oneWay["2"], r)
	}
}

// A bad rate is a one-line usage error naming the flag or the file entry.
func TestLinkRateBadValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pingpong", "--link-flits-per-cycle", "0"}, "--link-flits-per-cycle = 0: allowed 1..16"},
		{[]string{"pingpong", "--link-flits-per-cycle", "17"}, "--link-flits-per-cycle = 17: allowed 1..16"},
		{nocArgs("--link-flits-per-cycle", "two"), "--link-flits-per-cycle"},
	} {
		code, out, stderr := nocsim(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out, stderr, c.want)
		}
	}
}
