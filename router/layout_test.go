//go:build layout

// The layout tests check struct sizes, field offsets and alignments that
// the hot paths were laid out for (cache lines, allocator size classes).
// They are behind the layout build tag so that adding a field fails no
// ordinary `go test ./...`; they run with the benchmarks, which is when a
// layout change costs something: go test -tags layout ./router ./endpoint
// (docs/performance.md, "How to measure").

package router

import (
	"testing"
	"unsafe"
)

// The channels a router consumes are meant to take one cache line each
// (see Pipe and Router): a Pipe must stay 64 bytes and each router's
// channels must start on a line boundary in memory. The second depends on
// the allocator (its object header and size classes) as well as on the
// Router's fields, so it is checked on routers Build made.
func TestChannelsFillOneLineEach(t *testing.T) {
	if s := unsafe.Sizeof(Pipe[Flit]{}); s != 64 {
		t.Errorf("Pipe[Flit] is %d bytes, want 64", s)
	}
	if s := unsafe.Sizeof(Pipe[int8]{}); s != 64 {
		t.Errorf("Pipe[int8] is %d bytes, want 64", s)
	}
	b := newBench(t, 3, 3, DefaultSpec())
	for _, r := range b.net.Routers {
		if p := uintptr(unsafe.Pointer(&r.localLink)); p%64 != 0 {
			t.Errorf("%s's channels at %#x, not on a line", r.Name, p)
		}
		if p := uintptr(unsafe.Pointer(&r.localCredits)); p%64 != 0 {
			t.Errorf("%s's credit channels at %#x, not on a line", r.Name, p)
		}
	}
}

// An input VC stays 32 bytes, two to a cache line, with the class mask
// and the ordered VC a ring's dateline needs.
func TestInVCIsHalfALine(t *testing.T) {
	if s := unsafe.Sizeof(inVC{}); s != 32 {
		t.Errorf("inVC is %d bytes, want 32", s)
	}
}

// A flit stays 16 bytes: one move per copy and four to a line (see Flit).
func TestFlitIsSixteenBytes(t *testing.T) {
	if s := unsafe.Sizeof(Flit{}); s != 16 {
		t.Errorf("Flit is %d bytes, want 16", s)
	}
}

// The hot header keeps to its two lines: the fields before the channels
// take 56 + 64 bytes, so that with the allocator's 8-byte header the
// channels start on the third line (TestChannelsFillOneLineEach checks
// the alignment on real routers; this checks the budget).
func TestRouterHeaderIsTwoLines(t *testing.T) {
	var r Router
	if off := unsafe.Offsetof(r.localLink); off != 120 {
		t.Errorf("the channels start at byte %d of a Router, want 120 (56 + 64)", off)
	}
	if off := unsafe.Offsetof(r.eng); off != 56 {
		t.Errorf("the second line starts at byte %d, want 56", off)
	}
}

// An output port is two lines and each starts on one, as does each input
// port: a flit's allocation and send then touch one line of its output
// port (see outPort).
func TestPortsStartOnLines(t *testing.T) {
	if s := unsafe.Sizeof(outPort{}); s != 128 {
		t.Errorf("outPort is %d bytes, want 128", s)
	}
	if s := unsafe.Sizeof(inPort{}); s != 64 {
		t.Errorf("inPort is %d bytes, want 64", s)
	}
	var op outPort
	if off := unsafe.Offsetof(op.credits); off != 64 {
		t.Errorf("outPort's second line starts at byte %d, want 64", off)
	}
	b := newBench(t, 3, 3, DefaultSpec())
	for _, r := range b.net.Routers {
		if p := uintptr(unsafe.Pointer(&r.out[0])); p%64 != 0 {
			t.Errorf("%s's output ports at %#x, not on a line", r.Name, p)
		}
		if p := uintptr(unsafe.Pointer(&r.in[0])); p%64 != 0 {
			t.Errorf("%s's input ports at %#x, not on a line", r.Name, p)
		}
	}
}

// An NIU's injection credits are one cache line, which both the router and
// the NIU touch for each credit.
func TestInjectCreditsAreOneLine(t *testing.T) {
	if s := unsafe.Sizeof(InjectCredits{}); s > 64 {
		t.Errorf("InjectCredits is %d bytes, want at most 64", s)
	}
}
