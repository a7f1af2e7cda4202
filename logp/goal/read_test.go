package goal

import (
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

const example = `// a two-rank exchange
num_ranks 3
/* rank 0 sends,
   then waits */
rank 0 {
s1: send 8b to 1 tag 7 cpu 1 nic 2
r1: recv 0b from -1 tag -1
c1: calc 100 cpu 3
calc 5
r1 requires s1
c1 irequires r1
c1 requires s1
}
rank 1 {  l: recv 8b from 0 tag 7
	x:send 4bto2
}
rank 2 {
}
`

func TestReadExample(t *testing.T) {
	s, err := Parse([]byte(example))
	if err != nil {
		t.Fatal(err)
	}
	if s.NumRanks() != 3 || s.NumOps() != 6 {
		t.Fatalf("%d ranks, %d ops, want 3 and 6", s.NumRanks(), s.NumOps())
	}
	want := [][]Op{
		{
			{Kind: Send, Bytes: 8, Peer: 1, Tag: 7, CPU: 1, NIC: 2},
			{Kind: Recv, Bytes: 0, Peer: AnySource, Tag: AnyTag},
			{Kind: Calc, Time: 100, CPU: 3},
			{Kind: Calc, Time: 5},
		},
		{
			{Kind: Recv, Bytes: 8, Peer: 0, Tag: 7},
			{Kind: Send, Bytes: 4, Peer: 2},
		},
		nil,
	}
	for r, ops := range want {
		if s.Len(r) != len(ops) {
			t.Fatalf("rank %d: %d ops, want %d", r, s.Len(r), len(ops))
		}
		for i, w := range ops {
			if got := s.Op(r, i); got != w {
				t.Errorf("rank %d op %d = %+v, want %+v", r, i, got, w)
			}
		}
	}
	labels := []string{s.Label(0, 0), s.Label(0, 1), s.Label(0, 2), s.Label(0, 3), s.Label(1, 0), s.Label(1, 1)}
	if !slices.Equal(labels, []string{"s1", "r1", "c1", "", "l", "x"}) {
		t.Errorf("labels %q", labels)
	}
	for _, c := range []struct {
		got, want []int32
		what      string
	}{
		{s.Requires(0, 1), []int32{0}, "r1 requires"},
		{s.IRequires(0, 1), nil, "r1 irequires"},
		{s.Requires(0, 2), []int32{0}, "c1 requires"},
		{s.IRequires(0, 2), []int32{1}, "c1 irequires"},
		{s.Requires(0, 0), nil, "s1 requires"},
		{s.Requires(1, 1), nil, "x requires"},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

func TestReadCRLFAndNoFinalNewline(t *testing.T) {
	s, err := Parse([]byte("num_ranks 1\r\nrank 0 {\r\na: calc 3\r\nb: calc 4\r\nb requires a\r\n}"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Requires(0, 1); !slices.Equal(got, []int32{0}) {
		t.Errorf("requires %v", got)
	}
	if _, err := Parse([]byte("num_ranks 1\nrank 0 {\na: calc 3\n}")); err != nil {
		t.Errorf("no final newline: %v", err)
	}
	if _, err := Parse([]byte("num_ranks 1\nrank 0 {\na: calc 3")); err == nil || !strings.Contains(err.Error(), "expected '}'") {
		t.Errorf("unclosed rank: %v", err)
	}
}

// Every error names the line and column of the fault and what was
// expected or allowed.
func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "num_ranks missing"},
		{"rank 0 {\n}\n", "1:1: rank before num_ranks"},
		{"num_ranks 0\n", "1:11: num_ranks 0: allowed 1.."},
		{"num_ranks 2\nnum_ranks 2\n", "2:1: num_ranks given twice"},
		{"num_ranks x\n", "1:11: expected the number of ranks after 'num_ranks', found \"x\""},
		{"num_ranks 2\nrank 0 {\n}\n", "4:1: end of input after 1 of 2 ranks"},
		{"num_ranks 1000000000\nrank 0 {\n}\n", "1:1: num_ranks 1000000000, but the 12 bytes that follow cannot hold that many rank blocks"},
		{"num_ranks 2\nrank 1 {\n}\n", "2:6: rank 1: expected rank 0"},
		{"num_ranks 2\nrank 2 {\n}\n", "2:6: rank 2: allowed 0..1"},
		{"num_ranks 1\nrank 0 {\n}\nrank 0 {\n}\n", "4:6: rank 0: expected rank 1"},
		{"num_ranks 1\nrank 0\n{\n}\n", "2:7: expected '{' after the rank number, found end of line"},
		{"num_ranks 1\nrank 0 {\nrank 0 {\n", "3:1: 'rank' inside rank 0's block"},
		{"num_ranks 1\n}\n", "2:1: '}' outside a rank block"},
		{"num_ranks 2\nsend 1b to 1\n", "2:1: send outside a rank block"},
		{"num_ranks 2\nrank 0 {\nl1: send 1 to 1\n}\n", "3:12: expected 'b' after the byte count, found \"to\""},
		{"num_ranks 2\nrank 0 {\nl1: send 1b from 1\n}\n", "3:13: expected 'to' after the size"},
		{"num_ranks 2\nrank 0 {\nl1: recv 1b to 1\n}\n", "3:13: expected 'from' after the size"},
		{"num_ranks 2\nrank 0 {\nl1: send 1b to -1\n}\n", "3:16: expected the peer rank after 'to', found '-'"},
		{"num_ranks 2\nrank 0 {\nl1: send 1b to 2\n}\n", "3:16: peer rank 2: allowed 0..1"},
		{"num_ranks 2\nrank 0 {\nl1: recv 1b from 1 cpu 1 tag 3\n}\n", "3:26: expected 'tag', 'cpu', 'nic' (in that order) or end of line, found \"tag\""},
		{"num_ranks 2\nrank 0 {\nl1: recv 1b from 1 cpu 256\n}\n", "3:24: the cpu index after 'cpu' 256: allowed 0..255"},
		{"num_ranks 2\nrank 0 {\nl1: recv 1b from 1 tag 2147483648\n}\n", "allowed 0..2147483647"},
		{"num_ranks 2\nrank 0 {\nl1: recv 1b from 1 tag 18446744073709551614\n}\n", "3:24: the tag after 'tag' 18446744073709551614: allowed 0..2147483647, or -1 or 18446744073709551615 for any tag"},
		{"num_ranks 2\nrank 0 {\nl1: recv 1b from 1 tag 18446744073709551616\n}\n", "3:24: the tag after 'tag' 18446744073709551616: allowed 0..18446744073709551615"},
		{"num_ranks 2\nrank 0 {\nl1: send 99999999999999999999b to 1\n}\n", "3:10: the byte count after 'send' 99999999999999999999: allowed"},
		{"num_ranks 1\nrank 0 {\nl1: calc 5 nic 1\n}\n", "3:12: expected 'cpu' or end of line, found \"nic\""},
		{"num_ranks 1\nrank 0 {\nl1: calc 5 // why\n}\n", "3:12: expected 'cpu' or end of line, found '/'"},
		{"num_ranks 1\nrank 0 {\nl1: wait 5\n}\n", "3:5: expected 'send', 'recv' or 'calc' after the label"},
		{"num_ranks 1\nrank 0 {\nl1 calc 5\n}\n", "3:4: expected ':', 'requires' or 'irequires' after \"l1\""},
		{"num_ranks 1\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n", "4:1: label \"l1\" already names op 0 of rank 0 (line 3)"},
		{"num_ranks 1\nrank 0 {\nl1: calc 5\nl1 requires l2\n}\n", "4:13: label \"l2\" is not defined in rank 0"},
		{"num_ranks 1\nrank 0 {\nl1: calc 5\nl2 requires l1\n}\n", "4:1: label \"l2\" is not defined"},
		{"num_ranks 1\nrank 0 {\nl1: calc 5\nl1 requires l1 l1\n}\n", "4:16: expected end of line after the dependency"},
		{"num_ranks 2\nrank 0 {\nl1: calc 5\n}\nrank 1 {\nl2: calc 1\nl2 requires l1\n}\n", "7:13: label \"l1\" is not defined in rank 1"},
		{"num_ranks 1\nrank 0 {\n/* open\n\n", "3:1: unterminated comment"},
		{"num_ranks 1\nrank 0 {\n#\n}\n", "3:1: expected 'rank', 'num_ranks', 'send', 'recv', 'calc', a label, '}', a comment or end of line, found '#'"},
		{"num_ranks 1\nrank 0 {\n}\nx\n", "4:1: \"x\" outside a rank block"},
	} {
		_, err := Parse([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "goal: ") {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.text, err, c.want)
			continue
		}
		// Read, a byte at a time from a reader of unknown size, fails
		// the same way.
		if _, err2 := Read(iotest.OneByteReader(strings.NewReader(c.text))); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("Read(%q) = %v, Parse %v", c.text, err2, err)
		}
	}
}

// A tag of all ones (2^64-1), Schedgen's trace converter's "any tag", is
// read as -1: on a receive it matches a send of any tag, and the
// schedule is written back with -1.
func TestReadAllOnesTagIsAnyTag(t *testing.T) {
	s, err := Parse([]byte("num_ranks 2\nrank 0 {\nsend 8b to 1 tag 18446744073709551615\n}\nrank 1 {\nrecv 8b from 0 tag 18446744073709551615\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := s.Op(0, 0).Tag, s.Op(1, 0).Tag; a != AnyTag || b != AnyTag {
		t.Errorf("tags %d and %d, want %d (any)", a, b, AnyTag)
	}
	var out strings.Builder
	if err := Write(&out, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "18446744073709551615") || strings.Count(out.String(), "tag -1") != 2 {
		t.Errorf("written back as\n%s\nwant both tags as -1", out.String())
	}
}

// An error names a token of any length by at most MaxEcho bytes of it
// (a 1 MB label or number is not repeated).
func TestErrorsClipTokens(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	digits := strings.Repeat("9", 1<<20)
	for _, text := range []string{
		"num_ranks 1\nrank 0 {\n}\n" + long + "\n",                                 // label outside a rank block
		"num_ranks 1\nrank 0 {\n" + long + ": calc 1\n" + long + ": calc 2\n}\n",   // label defined twice
		"num_ranks 1\nrank 0 {\n" + long + " calc 1\n}\n",                          // label without ':'
		"num_ranks 1\nrank 0 {\nl: calc 1\nl requires " + long + "\n}\n",           // undefined label
		"num_ranks 1\nrank 0 {\nl: calc " + digits + "\n}\n",                       // number too large
		"num_ranks 2\nrank 0 {\nl: send 1b to 1 tag 1 " + digits + "\n}\nrank 1{}", // unexpected number
		"num_ranks " + digits + "\n",
	} {
		_, err := Parse([]byte(text))
		if err == nil {
			t.Fatalf("%.40q...: no error", text)
		}
		if msg := err.Error(); len(msg) > 250 || !strings.Contains(msg, "(1048576 bytes)") {
			t.Errorf("%.40q...: %d-byte message %.300q, want the token clipped to %d bytes naming its length", text, len(msg), msg, MaxEcho)
		}
	}
	if c := Clip(long); len(c) != MaxEcho || !strings.HasPrefix(c, "xxx") {
		t.Errorf("Clip of 1 MB: %d bytes %q, want %d", len(c), c, MaxEcho)
	}
	if c := Clip("abc"); c != "abc" {
		t.Errorf("Clip(abc) = %q", c)
	}
}
