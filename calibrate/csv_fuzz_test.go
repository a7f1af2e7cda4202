package calibrate

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadCSV feeds arbitrary text to the measurements reader, which
// reads files users bring from real machines. Whatever the input, it
// must not panic; an error must be an *InputError (so the command can
// report it with exit status 2); and what it accepts must be what Fit
// accepts (every row passes check, the machine's word is >= 0) and
// survive WriteTable and ReadTable unchanged, machine columns (present
// or absent) included.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"kind,bytes,hops,n,delay_cycles,cycles\nrtt,8,1,1,0,308\n",
		"# host x\ncycles, kind, n, delay_cycles, hops, bytes, seconds\n308, RTT, 1, 0, 1, 8, 3.08e-7\n",
		"kind,bytes,hops,n,delay_cycles,cycles\nprtt,8,1,4,400,1500\ntrain,0,2,8,0,900.5\n",
		"kind,bytes,hops,n,delay_cycles,cycles\nsend,8,1\n",
		"kind,bytes,hops,n,delay_cycles,cycles,word_bytes,handshake,cooperative\nrtt,8,1,1,0,408,4,true,true\nfanout,8,3,4,500,54,4,true,true\n",
		"cooperative,word_bytes,kind,bytes,hops,n,delay_cycles,cycles\n0,8,rtt,13,2,1,0,300\n0,8,late,13,2,1,0,90\n",
		"kind,bytes,hops,n,delay_cycles,cycles,handshake\nrtt,8,1,1,0,408,TRUE\nrtt,16,1,1,0,410,false\n",
		"kind,bytes,hops,n,delay_cycles,cycles,word_bytes\nrtt,8,1,1,0,408,-1\n",
		"kind,bytes,hops,n,delay_cycles,cycles,word_bytes,word_bytes\n",
		"kind,kind,bytes\n",
		"kind,bytes,hops,n,delay_cycles,cycles\nrtt,-1,1,1,0,NaN\n",
		"\"unterminated\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tab, err := ReadTable(strings.NewReader(s))
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an *InputError", err, err)
			}
			return
		}
		for i, m := range tab.Measurements {
			if err := m.check(); err != nil {
				t.Fatalf("row %d accepted but Fit would refuse it: %v", i, err)
			}
		}
		if tab.Machine.Word < 0 {
			t.Fatalf("word_bytes %d accepted", tab.Machine.Word)
		}
		var buf bytes.Buffer
		if err := WriteTable(&buf, tab); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTable(&buf)
		if err != nil {
			t.Fatalf("written back, the measurements do not read: %v\n%s", err, buf.String())
		}
		if len(tab.Measurements) == 0 && len(back.Measurements) == 0 {
			back.Measurements = tab.Measurements // nil and empty alike
		}
		if !reflect.DeepEqual(back, tab) {
			t.Fatalf("read back %+v, wrote %+v", back, tab)
		}
	})
}
