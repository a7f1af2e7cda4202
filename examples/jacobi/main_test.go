package main

import (
	"bytes"
	"strings"
	"testing"
)

// The example's answer is checked against the serial relaxation inside
// run (exit 1 on any difference), for every protocol and a rank count that
// does not divide the points.
func TestJacobiMatchesSerial(t *testing.T) {
	for _, proto := range []string{"scmp", "eager", "niu"} {
		var out, errb bytes.Buffer
		code := run([]string{"--mesh", "3x3", "--points", "100", "--sweeps", "6", "--protocol", proto}, &out, &errb)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", proto, code, out.String(), errb.String())
		}
		if !strings.Contains(out.String(), "on 9 ranks") {
			t.Errorf("%s: output does not name the ranks:\n%s", proto, out.String())
		}
	}
}

func TestJacobiBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--mesh", "0x4"},
		{"--procs", "17"},
		{"--points", "3"},
		{"--sweeps", "0"},
		{"--protocol", "rdma"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if msg := strings.TrimSpace(errb.String()); strings.Count(msg, "\n") != 0 || !strings.Contains(msg, args[0]) {
			t.Errorf("%v: want one line naming the flag, got %q", args, msg)
		}
	}
}
