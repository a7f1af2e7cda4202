package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nocsim/calibrate"
)

// Round trips on an exact line t = 2 (120 + 0.75 m) give back t_s = 120,
// t_e = 0.75 through the CLI, and the prediction is t_s + m t_e (twice
// for a ping-pong).
func TestPredictHockneyFromCSV(t *testing.T) {
	var ms []calibrate.Measurement
	for _, m := range []int{8, 64, 512, 4096} {
		ms = append(ms, calibrate.Measurement{Kind: calibrate.KindRTT, Bytes: m, Hops: 1, N: 1, Cycles: 2 * (120 + 0.75*float64(m))})
	}
	var b bytes.Buffer
	if err := calibrate.WriteCSV(&b, ms); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		op   string
		k    float64
		hops string
	}{{"p2p", 1, ""}, {"pingpong", 2, "1"}} {
		args := []string{"predict", "--model", "hockney", "--csv", path, "--op", c.op, "--size", "1000", "--json"}
		if c.hops != "" {
			args = append(args, "--hops", c.hops)
		}
		code, out, stderr := nocsim(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var r struct {
			Ts     float64 `json:"t_s_cycles"`
			Te     float64 `json:"t_e_cycles_per_byte"`
			Cycles float64 `json:"predicted_cycles"`
			Sizes  []int   `json:"fit_sizes_bytes"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Ts-120) > 1e-6 || math.Abs(r.Te-0.75) > 1e-9 || math.Abs(r.Cycles-c.k*(120+750)) > 1e-6 || len(r.Sizes) != 4 {
			t.Errorf("%s: %+v, want t_s 120, t_e 0.75, %v cycles from 4 sizes", c.op, r, c.k*870)
		}
	}
}

func TestPredictHockneyBadInput(t *testing.T) {
	_, _, params := fuzzFixture(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--model", "logp", "--params", params}, []string{"--model", "logp", "loggp, hockney"}},
		{[]string{"--model", "hockney"}, []string{"--model", "--csv", "--params"}},
		{[]string{"--model", "hockney", "--params", params, "--op", "bcast"}, []string{"--op", "bcast", "p2p, pingpong"}},
		{[]string{"--model", "hockney", "--params", params, "--csv", params}, []string{"--csv", "--params", "one of them"}},
		{[]string{"--model", "hockney", "--csv", params, "--hops", "2.5"}, []string{"--hops", "2.5", "whole number"}},
		{[]string{"--model", "hockney", "--params", params, "--size", "-1"}, []string{"--size", "-1", "allowed"}},
		{[]string{"--model", "hockney", "--optimal", "bcast"}, []string{"--model", "--optimal"}},
		{[]string{"--params", params, "--csv", params}, []string{"--csv", "--model hockney"}},
	} {
		code, out, stderr := nocsim(t, append([]string{"predict"}, c.args...)...)
		ok := code == 2 && out == "" && strings.Count(strings.TrimSpace(stderr), "\n") == 0
		for _, w := range c.want {
			ok = ok && strings.Contains(stderr, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, one line naming %q", c.args, code, out, stderr, c.want)
		}
	}
}
