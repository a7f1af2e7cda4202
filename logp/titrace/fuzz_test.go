package titrace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nocsim/logp/goal"
)

// FuzzRead: any text is read or refused with a SyntaxError, never a
// panic; a trace read is converted or refused; a converted one's
// schedule carries exactly the trace's point-to-point messages.
func FuzzRead(f *testing.F) {
	for _, n := range []string{"ring", "cg", "collmix"} {
		b, err := os.ReadFile(filepath.Join("testdata", n+".ti"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("0 irecv 1 5 10 6\n0 wait 1 0 5\n1 send 0 5 10 6\n")
	f.Add("0 reduce 4 0 1 0\n1 reduce 4 0 1 0\n")
	f.Fuzz(func(t *testing.T, text string) {
		var rd Reader
		if err := rd.Read("f.ti", strings.NewReader(text)); err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("%T %v: want a SyntaxError", err, err)
			}
			return
		}
		tr := rd.Trace()
		if len(tr.Ranks) > 64 {
			return // collectives' expansion on many ranks is slow, not wrong
		}
		s, counts, err := ToGoal(tr, Options{FlopsPerCycle: 1})
		if err != nil {
			return
		}
		for r := range s.NumRanks() {
			var sent int
			var bytes uint64
			for _, op := range s.Ops(r) {
				if op.Kind == goal.Send && op.Tag < collTagBase {
					sent++
					bytes += op.Bytes
				}
			}
			if sent != counts[r].SentMsgs || bytes != counts[r].SentBytes {
				t.Fatalf("rank %d: schedule %d sends %d B, trace %d sends %d B", r, sent, bytes, counts[r].SentMsgs, counts[r].SentBytes)
			}
		}
	})
}
