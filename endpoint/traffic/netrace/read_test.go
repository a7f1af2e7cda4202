package netrace

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shipped are Netrace's four test traces with their counts as a separate
// Python script (struct.unpack over the decompressed bytes) found them:
// packets and cycles of the whole trace, packets per region.
var shipped = []struct {
	file      string
	benchmark string
	packets   int
	cycles    uint64
	regions   []uint64
}{
	{"shrtex.tra.bz2", "short example trace", 12, 221, []uint64{12}},
	{"example.tra.bz2", "read-resp-delay-test", 175, 6820, []uint64{175}},
	{"multiregion.tra.bz2", "multiregion-test", 22968, 324247, []uint64{9173, 5156, 5800, 0, 2839}},
	{"lngrex.tra.bz2", "blackscholes-short-test", 81749, 2325306, []uint64{81749}},
}

func path(file string) string { return filepath.Join("testdata", file) }

// Every packet of every shipped trace is read: as many as the header and
// the independent count say, in each region as many as its entry says,
// every one of a valid type and size, with dependencies pointing forward
// to packets of the trace.
func TestReadShippedTraces(t *testing.T) {
	for _, s := range shipped {
		t.Run(s.file, func(t *testing.T) {
			tr, err := ReadFile(path(s.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !tr.Complete || len(tr.Packets) != s.packets || tr.Header.Packets != uint64(s.packets) {
				t.Fatalf("read %d packets (complete %v), header %d, counted %d", len(tr.Packets), tr.Complete, tr.Header.Packets, s.packets)
			}
			if tr.Benchmark != s.benchmark || tr.Nodes != 64 || tr.Cycles != s.cycles {
				t.Errorf("header %q, %d nodes, %d cycles; want %q, 64, %d", tr.Benchmark, tr.Nodes, tr.Cycles, s.benchmark, s.cycles)
			}
			if len(tr.Regions) != len(s.regions) {
				t.Fatalf("%d regions, want %d", len(tr.Regions), len(s.regions))
			}
			per := make([]uint64, len(tr.Regions))
			ids := map[uint32]bool{}
			for _, p := range tr.Packets {
				per[p.Region]++
				ids[p.ID] = true
				if b := p.Bytes(); b != ControlBytes && b != DataBytes {
					t.Fatalf("packet %d: %d bytes", p.ID, b)
				}
			}
			for r, n := range per {
				if n != s.regions[r] || tr.Regions[r].Packets != s.regions[r] {
					t.Errorf("region %d: %d packets read, header %d, counted %d", r+1, n, tr.Regions[r].Packets, s.regions[r])
				}
			}
			for i, p := range tr.Packets {
				for _, d := range tr.Deps(i) {
					if d <= p.ID || !ids[d] {
						t.Fatalf("packet %d: dependent %d not a later packet of the trace", p.ID, d)
					}
				}
			}
			// The last packet's cycle is the recorded runtime in all four.
			if last := tr.Packets[len(tr.Packets)-1].Cycle; last != s.cycles {
				t.Errorf("last packet at cycle %d, header's runtime %d", last, s.cycles)
			}
		})
	}
}

// The first packets of shrtex, as the Python dump printed them.
func TestReadShrtexPackets(t *testing.T) {
	tr, err := ReadFile(path("shrtex.tra.bz2"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		cycle         uint64
		id, addr      uint32
		typ, src, dst uint8
		nodeTypes     uint8
		deps          []uint32
	}{
		{0, 0, 0x1d02abc0, 13, 4, 42, 0x02, []uint32{1, 3}},
		{24, 1, 0x1d02abc0, 13, 42, 16, 0x23, []uint32{2}},
		{174, 2, 0x1d02abc0, 14, 16, 42, 0x32, []uint32{3}},
	}
	for i, w := range want {
		p := tr.Packets[i]
		if p.Cycle != w.cycle || p.ID != w.id || p.Addr != w.addr || p.Type != w.typ || p.Src != w.src || p.Dst != w.dst || p.NodeTypes != w.nodeTypes {
			t.Errorf("packet %d = %+v, want %+v", i, p, w)
		}
		if got := tr.Deps(i); !equal(got, w.deps) {
			t.Errorf("packet %d deps %v, want %v", i, got, w.deps)
		}
	}
	if TypeName(13) != "UpgradeReq" || TypeName(14) != "UpgradeResp" || TypeName(7) != "InvalidCmd" {
		t.Error("type names")
	}
}

func equal(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A region read alone holds that region's packets and no other; a packet
// limit stops the reader and says so.
func TestReadRegionAndLimit(t *testing.T) {
	all, err := ReadFile(path("multiregion.tra.bz2"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r <= 5; r++ {
		tr, err := ReadFile(path("multiregion.tra.bz2"), Options{Region: r})
		if err != nil {
			t.Fatalf("region %d: %v", r, err)
		}
		var want []Packet
		for _, p := range all.Packets {
			if p.Region == r-1 {
				want = append(want, p)
			}
		}
		if len(tr.Packets) != len(want) || uint64(len(want)) != all.Regions[r-1].Packets {
			t.Fatalf("region %d: %d packets, want %d", r, len(tr.Packets), len(want))
		}
		for i := range want {
			if tr.Packets[i].ID != want[i].ID || tr.Packets[i].Region != r-1 {
				t.Fatalf("region %d packet %d: id %d, want %d", r, i, tr.Packets[i].ID, want[i].ID)
			}
		}
	}
	// The regions follow one another in time: each one's packets lie
	// within its span.
	for _, p := range all.Packets {
		rg := all.Regions[p.Region]
		if p.Cycle < rg.Start || p.Cycle > rg.Start+rg.Cycles {
			t.Fatalf("packet %d at cycle %d outside region %d's [%d, %d]", p.ID, p.Cycle, p.Region+1, rg.Start, rg.Start+rg.Cycles)
		}
	}
	tr, err := ReadFile(path("multiregion.tra.bz2"), Options{MaxPackets: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Packets) != 100 || tr.Complete {
		t.Errorf("limit 100: %d packets, complete %v", len(tr.Packets), tr.Complete)
	}
	if _, err := ReadFile(path("shrtex.tra.bz2"), Options{Region: 2}); err == nil {
		t.Error("region 2 of a one-region trace read")
	}
}

// raw is a shipped trace decompressed.
func raw(t testing.TB, file string) []byte {
	f, err := os.Open(path(file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(bzip2.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Each way of breaking shrtex is refused with the byte it breaks at and
// what was expected there.
func TestReadMalformed(t *testing.T) {
	good := raw(t, "shrtex.tra.bz2")
	// shrtex: 72-byte header, 31 bytes of notes, one region (24 bytes):
	// the first packet at byte 127, with 2 dependencies (29 bytes).
	const first = 72 + 31 + 24
	put32 := func(b []byte, at int, v uint32) { binary.LittleEndian.PutUint32(b[at:], v) }
	cases := []struct {
		name   string
		edit   func(b []byte) []byte
		offset int64
		want   string
	}{
		{"magic", func(b []byte) []byte { put32(b, 0, 1); return b }, 0, "magic"},
		{"version", func(b []byte) []byte { put32(b, 4, 0x40000000); return b }, 4, "version 1.0"},
		{"nodes", func(b []byte) []byte { b[38] = 0; return b }, 38, "node count"},
		{"notes", func(b []byte) []byte { put32(b, 56, 9000); return b }, 56, "notes length"},
		{"regions", func(b []byte) []byte { put32(b, 60, 101); return b }, 60, "at most 100 regions"},
		{"short header", func(b []byte) []byte { return b[:50] }, 50, "72-byte Netrace header"},
		{"short packet", func(b []byte) []byte { return b[:first+10] }, first + 10, "21-byte packet record"},
		{"short deps", func(b []byte) []byte { return b[:first+23] }, first + 23, "dependency 1 of 2"},
		{"type", func(b []byte) []byte { b[first+16] = 7; return b }, first + 16, "packet type"},
		{"source", func(b []byte) []byte { b[first+17] = 64; return b }, first + 17, "source node"},
		{"destination", func(b []byte) []byte { b[first+18] = 200; return b }, first + 18, "destination node"},
		{"dependency backwards", func(b []byte) []byte { put32(b, first+21, 0); return b }, first + 21, "dependent packet id above"},
		// Packet 1 starts at first+29 (cycle 24, one dependency), packet 2 at
		// first+54.
		{"id backwards", func(b []byte) []byte { put32(b, first+29+8, 0); return b }, first + 29 + 8, "packet id above the previous packet's 0"},
		{"cycle backwards", func(b []byte) []byte { put32(b, first+54, 23); return b }, first + 54, "cycle at or after the previous packet's 24"},
		{"count", func(b []byte) []byte { put32(b, 48, 13); put32(b, first-8, 13); return b }, int64(len(good)), "13 packets"},
		{"region sum", func(b []byte) []byte { put32(b, first-8, 11); return b }, 60, "sum to the header's 12"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.edit(bytes.Clone(good))
			_, err := ReadRaw(bytes.NewReader(b), Options{})
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a FormatError", err)
			}
			if fe.Offset != c.offset || !strings.Contains(fe.Error(), c.want) {
				t.Errorf("error %q at byte %d, want byte %d and %q", fe, fe.Offset, c.offset, c.want)
			}
		})
	}
}

// A corrupt bzip2 stream is an error naming the output byte, not a panic.
func TestReadCorruptBzip2(t *testing.T) {
	b, err := os.ReadFile(path("example.tra.bz2"))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	_, err = Read(bytes.NewReader(b), Options{})
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "bzip2") {
		t.Fatalf("error %v, want a FormatError about bzip2", err)
	}
}

// Malformed input never panics: it reads, consistently with its header,
// or fails with an error at a byte within the input.
func FuzzReadRaw(f *testing.F) {
	f.Add(raw(f, "shrtex.tra.bz2"))
	f.Add(raw(f, "example.tra.bz2"))
	f.Add(raw(f, "shrtex.tra.bz2")[:100])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, opt := range []Options{{}, {Region: 1}, {MaxPackets: 3}} {
			tr, err := ReadRaw(bytes.NewReader(b), opt)
			if err != nil {
				var fe *FormatError
				if errors.As(err, &fe) {
					if fe.Offset < 0 || fe.Offset > int64(len(b)) || fe.Want == "" {
						t.Fatalf("error %q at byte %d of %d", fe, fe.Offset, len(b))
					}
				} else if !strings.HasPrefix(err.Error(), "region ") {
					t.Fatalf("unexplained error %v", err)
				}
				continue
			}
			if opt == (Options{}) && uint64(len(tr.Packets)) != tr.Header.Packets {
				t.Fatalf("read %d packets, header says %d", len(tr.Packets), tr.Header.Packets)
			}
			for i := range tr.Packets {
				_ = tr.Deps(i)
			}
		}
	})
}
