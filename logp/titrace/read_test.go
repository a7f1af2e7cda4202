package titrace

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"nocsim/logp/goal"
)

func readFile(t *testing.T, path string) *Trace {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rd Reader
	if err := rd.Read(path, f); err != nil {
		t.Fatal(err)
	}
	return rd.Trace()
}

// replayed are one rank's figures as SimGrid's own replay of the trace
// logged them (smpirun -replay with smpi_replay at verbose: one line per
// action it executed, "RANK ACTION ARGS... DURATION").
type replayed struct {
	sent, recvd           int
	sentBytes, recvdBytes uint64
	colls                 int
}

// simgridSizes are the datatype sizes, written out here from SimGrid's
// smpi_datatype.cpp (ids 0 double, 1 int, 2 char, 3 short, 4 long,
// 5 float, 6 byte) rather than taken from the reader's table.
var simgridSizes = map[string]uint64{"0": 8, "1": 4, "2": 1, "3": 2, "4": 8, "5": 4, "6": 1}

func readReplayLog(t *testing.T, path string) map[int]*replayed {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int]*replayed{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) < 2 {
			continue
		}
		r, err := strconv.Atoi(w[0])
		if err != nil {
			continue // SimGrid's own messages
		}
		if out[r] == nil {
			out[r] = &replayed{}
		}
		x := out[r]
		switch w[1] {
		case "send", "isend", "recv", "irecv":
			n, _ := strconv.ParseUint(w[4], 10, 64)
			b := n * simgridSizes[w[5]]
			if w[1] == "send" || w[1] == "isend" {
				x.sent++
				x.sentBytes += b
			} else {
				x.recvd++
				x.recvdBytes += b
			}
		case "barrier", "bcast", "reduce", "allreduce", "alltoall", "gather", "scatter", "allgather":
			x.colls++
		}
	}
	return out
}

// The schedules of the recorded traces carry, per rank, the messages and
// bytes SimGrid's replay of the same traces executed (the trace's own
// point-to-point messages: tags below the collectives'), and every rank
// makes the collective calls SimGrid's replay made.
func TestRecordedTracesMatchSimGridReplay(t *testing.T) {
	matchReplay(t, "testdata")
}

// The same for the traces CI records with SimGrid (.ci/run sets
// NOCSIM_SIMGRID_TRACES to their directory).
func TestSimGridCITracesMatchReplay(t *testing.T) {
	dir := os.Getenv("NOCSIM_SIMGRID_TRACES")
	if dir == "" {
		t.Skip("NOCSIM_SIMGRID_TRACES is not set: no traces recorded by SimGrid on this machine (.ci/run records them when libsimgrid-dev installs)")
	}
	matchReplay(t, dir)
}

func matchReplay(t *testing.T, dir string) {
	for _, name := range []string{"ring", "cg", "collmix"} {
		t.Run(name, func(t *testing.T) {
			tr := readFile(t, filepath.Join(dir, name+".ti"))
			want := readReplayLog(t, filepath.Join(dir, name+".replay.log"))
			s, counts, err := ToGoal(tr, Options{FlopsPerCycle: 1})
			if err != nil {
				t.Fatal(err)
			}
			if s.NumRanks() != len(want) {
				t.Fatalf("%d ranks, SimGrid replayed %d", s.NumRanks(), len(want))
			}
			for r := range s.NumRanks() {
				var got replayed
				for _, op := range s.Ops(r) {
					if op.Tag >= collTagBase {
						continue
					}
					switch op.Kind {
					case goal.Send:
						got.sent++
						got.sentBytes += op.Bytes
					case goal.Recv:
						got.recvd++
						got.recvdBytes += op.Bytes
					}
				}
				got.colls = counts[r].Collectives
				if got != *want[r] {
					t.Errorf("rank %d: schedule %+v, SimGrid's replay %+v", r, got, *want[r])
				}
				if got.sent == 0 && name != "collmix" {
					t.Errorf("rank %d sends nothing: the test checks nothing", r)
				}
			}
		})
	}
}

// Converting twice gives the same GOAL text.
func TestToGoalDeterministic(t *testing.T) {
	tr := readFile(t, filepath.Join("testdata", "collmix.ti"))
	var a, b bytes.Buffer
	for _, out := range []*bytes.Buffer{&a, &b} {
		s, _, err := ToGoal(tr, Options{FlopsPerCycle: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := goal.Write(out, s); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) || a.Len() == 0 {
		t.Fatal("two conversions differ")
	}
}

func parse(text string) (*Trace, error) {
	var rd Reader
	err := rd.Read("t.ti", strings.NewReader(text))
	return rd.Trace(), err
}

// A hand-made trace: the dependencies its blocking calls and waits make.
func TestToGoalDependencies(t *testing.T) {
	tr, err := parse(`0 init
1 init
0 irecv 1 5 10 6
0 compute 100
0 isend 1 6 3 1
0 wait 1 0 5
0 send 1 7 2 0
1 recv 0 6 3 1
1 isend 0 5 10 6
1 recv 0 7 2
1 waitall 1
1 compute 7
`)
	if err != nil {
		t.Fatal(err)
	}
	s, counts, err := ToGoal(tr, Options{FlopsPerCycle: 10})
	if err != nil {
		t.Fatal(err)
	}
	// Rank 0: irecv(0), calc 10 cycles(1), isend 12 B(2) after the calc,
	// send 16 B(3) after the calc and the waited irecv, not the isend.
	if s.Len(0) != 4 || s.Len(1) != 4 {
		t.Fatalf("ops %d, %d: want 4, 4", s.Len(0), s.Len(1))
	}
	if op := s.Op(0, 1); op.Kind != goal.Calc || op.Time != 10 {
		t.Errorf("rank 0 op 1 = %+v, want calc 10", op)
	}
	if op := s.Op(0, 2); op.Kind != goal.Send || op.Bytes != 12 || op.Tag != 6 {
		t.Errorf("rank 0 op 2 = %+v, want send 12 B tag 6", op)
	}
	if got := s.Requires(0, 2); len(got) != 1 || got[0] != 1 {
		t.Errorf("isend requires %v, want [1]", got)
	}
	if got := s.Requires(0, 3); len(got) != 2 || got[0] != 1 && got[1] != 1 || got[0] != 0 && got[1] != 0 {
		t.Errorf("send after the wait requires %v, want [1 0]", got)
	}
	// Rank 1's recv of 2 elements without a datatype: MPI_BYTE, 2 B.
	if op := s.Op(1, 2); op.Kind != goal.Recv || op.Bytes != 2 {
		t.Errorf("rank 1 op 2 = %+v, want recv 2 B", op)
	}
	if counts[0].SentBytes != 28 || counts[1].RecvBytes != 14 || counts[0].ComputeCycles != 10 || counts[1].ComputeCycles != 1 {
		t.Errorf("counts %+v", counts)
	}
}

// Every malformed line is refused with its file, line and what was
// expected.
func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"x init\n", "t.ti:1: rank \"x\": allowed an integer 0..1048575 first on the line"},
		{"0 init\n0\n", "t.ti:2: missing the action after rank 0"},
		{"0 sendx 1 2 3\n", "t.ti:1: action \"sendx\": allowed init,"},
		{"0 send 1 2\n", "t.ti:1: send: missing the count"},
		{"0 send 1 2 3.5\n", "t.ti:1: send: the count \"3.5\": allowed a whole number"},
		{"0 send 1 2 3 99\n", "t.ti:1: send: datatype \"99\": allowed an integer 0..15"},
		{"0 send 1 2 3 0 x\n", "t.ti:1: send: unexpected \"x\" after its arguments"},
		{"0 send 1 1073741824 3\n", "t.ti:1: send: the tag \"1073741824\": allowed an integer 0..1073741823"},
		{"0 compute -1\n", "t.ti:1: compute: the flops \"-1\": allowed a number 0..1e18"},
		{"0 compute NaN\n", "t.ti:1: compute: the flops \"NaN\""},
		{"2 wait 0 1 3\n", "t.ti:1: wait 0 1: allowed a request of rank 2"},
		{"0 alltoall 8 4 0 0\n", "t.ti:1: alltoall: send 8 x 8 bytes, receive 4 x 8 bytes: allowed equal block sizes"},
		{"\n\n0 gather 1 1\n", "t.ti:3: gather: missing the root"},
	} {
		_, err := parse(c.text)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s...", c.text, err, c.want)
		}
	}
}

// What ToGoal refuses: a trace that cannot run, named by its line.
func TestToGoalErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "the trace has no actions"},
		{"1 init\n", "rank 0 has no actions"},
		{"0 send 2 0 1\n1 init\n", "t.ti:1: send: peer 2: allowed another rank of 0..1"},
		{"0 send 0 0 1\n", "t.ti:1: send: peer 0: allowed another rank of 0..0"},
		{"0 bcast 8 0\n1 bcast 16 0\n", "t.ti:2: collective call 1 is bcast of 16 bytes root 0, rank 0's (t.ti:1) bcast of 8 bytes"},
		{"0 barrier\n1 init\n", "t.ti:2: rank 1 makes 0 collective calls, rank 0 1"},
		{"0 bcast 8 3\n1 bcast 8 3\n", "t.ti:1: bcast: root 3: allowed 0..1"},
		{"0 wait 0 1 4\n1 init\n", "t.ti:1: wait: no pending isend to 1 tag 4 on rank 0"},
	} {
		tr, err := parse(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		_, _, err = ToGoal(tr, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s...", c.text, err, c.want)
		}
	}
}

// SimGrid's index file is told from a trace by its first line.
func TestIsIndex(t *testing.T) {
	if !IsIndex([]byte("\nring.txt_files/1_rank-1.txt\nring.txt_files/1_rank-2.txt\n")) {
		t.Error("an index not recognised")
	}
	if IsIndex([]byte("0 init\n")) || IsIndex([]byte("")) {
		t.Error("a trace taken for an index")
	}
	if got := IndexFiles([]byte(" a \n\nb\n")); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("IndexFiles = %q", got)
	}
}
