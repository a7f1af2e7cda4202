package calibrate

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCSVRoundTrip(t *testing.T) {
	ms := synth(knownLogGP, []int{0, 8, 1000, 65536}, []int{1, 6}, 0.05)
	ms = append(ms, Measurement{Kind: KindRecv, Bytes: 3, Hops: 2, N: 1, Cycles: 1.0 / 3})
	var buf bytes.Buffer
	if err := WriteCSV(&buf, ms); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "kind,bytes,hops,n,delay_cycles,cycles\n") {
		t.Errorf("header: %q", strings.SplitN(buf.String(), "\n", 2)[0])
	}
	got, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, ms) {
		t.Errorf("read back %d measurements differing from the %d written", len(got), len(ms))
	}
}

func TestReadCSVFlexibleHeader(t *testing.T) {
	in := "# measured on host x\ncycles, kind, n, delay_cycles, hops, bytes, seconds\n308, RTT, 1, 0, 1, 8, 3.08e-7\n"
	ms, err := ReadCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Measurement{{Kind: KindRTT, Bytes: 8, Hops: 1, N: 1, Cycles: 308}}
	if !reflect.DeepEqual(ms, want) {
		t.Errorf("got %+v, want %+v", ms, want)
	}
}

func TestReadCSVErrors(t *testing.T) {
	const header = "kind,bytes,hops,n,delay_cycles,cycles\n"
	for _, c := range []struct {
		name, in     string
		line, column int
		words        []string
	}{
		{"missing column", "kind,bytes,hops,n,cycles\nrtt,8,1,1,300\n", 1, 0, []string{"line 1", `missing column "delay_cycles"`}},
		{"negative time", header + "rtt,8,1,1,0,300\nsend,8,1,1,0,-4\n", 3, 6, []string{"line 3", "column 6 (cycles)", "negative"}},
		{"unknown kind", header + "rtt,8,1,1,0,300\npingpong,8,1,1,0,300\n", 3, 1, []string{"line 3", "column 1 (kind)", `unknown kind "pingpong"`}},
		{"bad number", header + "rtt,8,1,1,0,3x0\n", 2, 6, []string{"line 2", "column 6 (cycles)", `"3x0"`}},
		{"bad size", header + "rtt,eight,1,1,0,300\n", 2, 2, []string{"line 2", "column 2 (bytes)", "whole number"}},
		{"negative hops", header + "rtt,8,-1,1,0,300\n", 2, 3, []string{"column 3 (hops)", "allowed >= 0"}},
		{"short row", header + "rtt,8,1\n", 2, 4, []string{"line 2", "column 4 (n)", "missing"}},
		{"empty", "", 0, 0, []string{"empty"}},
		{"bad quoting", header + "rtt,\"8,1,1,0,300\n", 2, 0, []string{"line 2"}},
		{"delay on rtt", header + "rtt,8,1,1,5,300\n", 2, 0, []string{"line 2", "only prtt, ctswait and fanout have a delay"}},
	} {
		_, err := ReadCSV(strings.NewReader(c.in))
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: error %v, want an *InputError", c.name, err)
			continue
		}
		if ie.Line != c.line || c.column > 0 && ie.Column != c.column {
			t.Errorf("%s: line %d column %d, want line %d column %d (%v)", c.name, ie.Line, ie.Column, c.line, c.column, err)
		}
		for _, w := range c.words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
}
