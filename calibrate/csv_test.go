package calibrate

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
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

// The machine columns travel with the measurements: written, they read
// back as the same machine, whichever of them the table has.
func TestTableRoundTrip(t *testing.T) {
	ms := synth(knownLogGP, []int{8, 13, 1000}, []int{1, 6}, 0.05)
	for _, tab := range []Table{
		{Machine: Machine{Word: 4, Handshake: true, Cooperative: true}, Measurements: ms},
		{Machine: Machine{Word: 8}, Measurements: ms, Absent: []string{"handshake", "cooperative"}},
		{Machine: Machine{Cooperative: true}, Measurements: ms, Absent: []string{"word_bytes"}},
		{Measurements: ms, Absent: MachineColumns},
	} {
		var buf bytes.Buffer
		if err := WriteTable(&buf, tab); err != nil {
			t.Fatal(err)
		}
		header := strings.SplitN(buf.String(), "\n", 2)[0]
		for _, c := range MachineColumns {
			if strings.Contains(header, c) == slices.Contains(tab.Absent, c) {
				t.Errorf("%+v: header %q: column %s written %v, want %v", tab.Machine, header, c, !slices.Contains(tab.Absent, c), slices.Contains(tab.Absent, c))
			}
		}
		got, err := ReadTable(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tab) {
			t.Errorf("read back machine %+v, absent %v; wrote %+v, absent %v", got.Machine, got.Absent, tab.Machine, tab.Absent)
		}
	}
}

// A file without the machine columns (a real machine's, or one written
// before they existed) reads with the documented fallbacks, Machine's zero
// value, and says which it lacks; the values read in any case and order.
func TestReadTableMachineColumns(t *testing.T) {
	tab, err := ReadTable(strings.NewReader("kind,bytes,hops,n,delay_cycles,cycles\nrtt,8,1,1,0,308\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Machine != (Machine{}) || !reflect.DeepEqual(tab.Absent, MachineColumns) {
		t.Errorf("machine %+v, absent %v: want the zero machine and every machine column absent", tab.Machine, tab.Absent)
	}
	in := "Cooperative, cycles, kind, n, delay_cycles, hops, bytes, word_bytes, HANDSHAKE\n1, 308, rtt, 1, 0, 1, 8, 4, TRUE\n1, 310, rtt, 1, 0, 1, 16, 4, true\n"
	if tab, err = ReadTable(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if want := (Machine{Word: 4, Handshake: true, Cooperative: true}); tab.Machine != want || tab.Absent != nil || len(tab.Measurements) != 2 {
		t.Errorf("machine %+v, absent %v, %d rows: want %+v, none absent, 2 rows", tab.Machine, tab.Absent, len(tab.Measurements), want)
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
	const mheader = "kind,bytes,hops,n,delay_cycles,cycles,word_bytes,handshake,cooperative\n"
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
		{"bad word", mheader + "rtt,8,1,1,0,300,four,true,true\n", 2, 7, []string{"line 2", "column 7 (word_bytes)", `"four" is not a whole number of bytes`}},
		{"negative word", mheader + "rtt,8,1,1,0,300,-4,true,true\n", 2, 7, []string{"column 7 (word_bytes)", "-4: allowed >= 0"}},
		{"bad handshake", mheader + "rtt,8,1,1,0,300,4,yes,true\n", 2, 8, []string{"column 8 (handshake)", `"yes": allowed true or false (1 or 0)`}},
		{"bad cooperative", mheader + "rtt,8,1,1,0,300,4,true,\n", 2, 9, []string{"column 9 (cooperative)", `"": allowed true or false`}},
		{"short machine row", mheader + "rtt,8,1,1,0,300,4\n", 2, 8, []string{"column 8 (handshake)", "missing: the row has 7 fields"}},
		{"two words", mheader + "rtt,8,1,1,0,300,4,true,true\nrtt,16,1,1,0,300,8,true,true\n", 3, 7, []string{"line 3", "column 7 (word_bytes)", "8, but line 2 says 4", "one machine"}},
		{"two handshakes", mheader + "# a comment\nrtt,8,1,1,0,300,4,true,true\nrtt,16,1,1,0,300,4,false,true\n", 4, 8, []string{"column 8 (handshake)", "false, but line 3 says true"}},
		{"two cooperatives", mheader + "rtt,8,1,1,0,300,4,true,1\nrtt,16,1,1,0,300,4,true,0\n", 3, 9, []string{"column 9 (cooperative)", "false, but line 2 says true"}},
		{"machine column twice", "kind,bytes,hops,n,delay_cycles,cycles,handshake,handshake\n", 1, 8, []string{"column handshake appears twice"}},
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
