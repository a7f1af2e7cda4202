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
// accepts (every row passes check) and survive WriteCSV and ReadCSV
// unchanged.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"kind,bytes,hops,n,delay_cycles,cycles\nrtt,8,1,1,0,308\n",
		"# host x\ncycles, kind, n, delay_cycles, hops, bytes, seconds\n308, RTT, 1, 0, 1, 8, 3.08e-7\n",
		"kind,bytes,hops,n,delay_cycles,cycles\nprtt,8,1,4,400,1500\ntrain,0,2,8,0,900.5\n",
		"kind,bytes,hops,n,delay_cycles,cycles\nsend,8,1\n",
		"kind,kind,bytes\n",
		"kind,bytes,hops,n,delay_cycles,cycles\nrtt,-1,1,1,0,NaN\n",
		"\"unterminated\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ReadCSV(strings.NewReader(s))
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an *InputError", err, err)
			}
			return
		}
		for i, m := range ms {
			if err := m.check(); err != nil {
				t.Fatalf("row %d accepted but Fit would refuse it: %v", i, err)
			}
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, ms); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSV(&buf)
		if err != nil {
			t.Fatalf("written back, the measurements do not read: %v\n%s", err, buf.String())
		}
		if len(ms) == 0 && len(back) == 0 {
			return
		}
		if !reflect.DeepEqual(back, ms) {
			t.Fatalf("read back %+v, wrote %+v", back, ms)
		}
	})
}
