package netrace

import (
	"bufio"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Header is a trace's header: what the traced system was and ran.
type Header struct {
	Benchmark string
	Nodes     int    // network nodes of the traced system (64 for Netrace's CMP)
	Cycles    uint64 // cycles the traced program ran
	Packets   uint64 // packets in the trace
	Notes     string
	Regions   []Region
}

// Region is one region of interest of a trace, in file order; regions
// follow one another in time and in the file.
type Region struct {
	Offset  uint64 // of its first packet, in bytes from the end of the region table
	Cycles  uint64 // cycles it spans
	Packets uint64 // packets it holds
	// Start is the cycle it begins at: the cycles of the regions before it.
	Start uint64
}

// Packet is one packet of a trace. Its dependencies (the later packets
// that wait for its delivery) are Trace.Deps of its index.
type Packet struct {
	Cycle     uint64 // earliest cycle it can be injected, on the trace's clock
	ID        uint32
	Addr      uint32
	Type      uint8
	Src, Dst  uint8
	NodeTypes uint8 // source's type in the high nibble, destination's in the low
	Region    int   // index into Header.Regions; -1 in a trace without regions
	Offset    int64 // byte of its record in the decompressed trace
	deps      uint32
	ndeps     uint8
}

// Bytes is the packet's size in bytes: ControlBytes or DataBytes.
func (p *Packet) Bytes() int { return TypeBytes(p.Type) }

// Trace is a trace's header and the packets read from it, in file order
// (cycles non-decreasing, ids increasing).
type Trace struct {
	Header
	Packets []Packet
	// Complete is whether every packet of the part read (the whole trace,
	// or one region) was read; false when Options.MaxPackets stopped the
	// reader first.
	Complete bool
	deps     []uint32
}

// Deps is the ids of the packets that wait for packet i's delivery.
func (t *Trace) Deps(i int) []uint32 {
	p := &t.Packets[i]
	return t.deps[p.deps : p.deps+uint32(p.ndeps)]
}

// Options says which part of a trace to read.
type Options struct {
	// Region, when 1 or more, reads only that region (counted from 1);
	// the packets before it are parsed (and checked), not kept.
	Region int
	// MaxPackets, when above 0, stops after that many packets are kept.
	MaxPackets int
}

// FormatError is a trace breaking the format: at byte Offset of the
// decompressed stream, Want was expected and Got found.
type FormatError struct {
	Offset int64
	Want   string
	Got    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("byte %d: expected %s, got %s", e.Offset, e.Want, e.Got)
}

// ReadFile reads the trace in the bzip2-compressed file path. Errors name
// the file.
func ReadFile(path string, opt Options) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Read(f, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Read reads a bzip2-compressed trace from r.
func Read(r io.Reader, opt Options) (*Trace, error) {
	return ReadRaw(bzip2.NewReader(r), opt)
}

// reader reads the decompressed stream and counts its bytes.
type reader struct {
	r   *bufio.Reader
	off int64
	buf [headerBytes]byte
}

// full reads n bytes for what (the error's Want when the stream ends
// first); a bzip2 stream broken there is reported as such.
func (rd *reader) full(n int, what string) ([]byte, error) {
	b := rd.buf[:n]
	k, err := io.ReadFull(rd.r, b)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &FormatError{Offset: rd.off + int64(k), Want: what, Got: fmt.Sprintf("the end of the data after %d of its %d bytes (a truncated file?)", k, n)}
		}
		return nil, bzipError(rd.off+int64(k), err)
	}
	rd.off += int64(n)
	return b, nil
}

// bzipError is a decompression failure at byte off of the output.
func bzipError(off int64, err error) error {
	var se bzip2.StructuralError
	if errors.As(err, &se) {
		return &FormatError{Offset: off, Want: "bzip2-compressed data", Got: "corrupt data (" + string(se) + ")"}
	}
	return err
}

// ReadRaw reads a trace that is already decompressed.
func ReadRaw(r io.Reader, opt Options) (*Trace, error) {
	rd := &reader{r: bufio.NewReaderSize(r, 1<<16)}
	t := &Trace{}
	if err := rd.header(&t.Header); err != nil {
		return nil, err
	}
	if opt.Region > len(t.Regions) {
		return nil, fmt.Errorf("region %d asked: the trace has %d", opt.Region, len(t.Regions))
	}
	return t, rd.packets(t, opt)
}

var le = binary.LittleEndian

// header reads the header, the notes and the region table into h.
func (rd *reader) header(h *Header) error {
	b, err := rd.full(headerBytes, "a 72-byte Netrace header")
	if err != nil {
		return err
	}
	if m := le.Uint32(b[0:]); m != Magic {
		return &FormatError{0, fmt.Sprintf("the Netrace magic number 0x%08X", Magic), fmt.Sprintf("0x%08X (not a Netrace trace, or not bzip2-compressed)", m)}
	}
	if v := math.Float32frombits(le.Uint32(b[4:])); v != 1.0 {
		return &FormatError{4, "format version 1.0", fmt.Sprint(v)}
	}
	name := b[8 : 8+nameBytes]
	end := strings.IndexByte(string(name), 0)
	if end < 0 {
		return &FormatError{8, "a benchmark name ending in a NUL byte within 30 bytes", "no NUL"}
	}
	h.Benchmark = string(name[:end])
	if h.Nodes = int(b[38]); h.Nodes == 0 {
		return &FormatError{38, "a node count of 1 to 255", "0"}
	}
	h.Cycles, h.Packets = le.Uint64(b[40:]), le.Uint64(b[48:])
	notes, regions := le.Uint32(b[56:]), le.Uint32(b[60:])
	if notes >= maxNotes {
		return &FormatError{56, fmt.Sprintf("a notes length below %d bytes", maxNotes), fmt.Sprint(notes)}
	}
	if regions > maxRegions {
		return &FormatError{60, fmt.Sprintf("at most %d regions", maxRegions), fmt.Sprint(regions)}
	}
	if notes > 0 {
		// Notes can be longer than the buffer: read them whole.
		nb := make([]byte, notes)
		k, err := io.ReadFull(rd.r, nb)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return &FormatError{rd.off + int64(k), fmt.Sprintf("%d bytes of notes", notes), "the end of the trace"}
			}
			return bzipError(rd.off+int64(k), err)
		}
		if nb[notes-1] != 0 {
			return &FormatError{rd.off + int64(notes) - 1, "the notes' final NUL byte", fmt.Sprintf("0x%02x", nb[notes-1])}
		}
		rd.off += int64(notes)
		h.Notes = strings.TrimRight(string(nb), "\x00")
	}
	var cyc, pk uint64
	for i := range int(regions) {
		at := rd.off
		b, err := rd.full(regionBytes, fmt.Sprintf("region %d's 24-byte entry", i+1))
		if err != nil {
			return err
		}
		r := Region{Offset: le.Uint64(b[0:]), Cycles: le.Uint64(b[8:]), Packets: le.Uint64(b[16:]), Start: cyc}
		if i > 0 && r.Offset < h.Regions[i-1].Offset {
			return &FormatError{at, fmt.Sprintf("region %d's offset at or after region %d's, %d", i+1, i, h.Regions[i-1].Offset), fmt.Sprint(r.Offset)}
		}
		if i == 0 && r.Offset != 0 {
			return &FormatError{at, "region 1 at offset 0, the first packet", fmt.Sprint(r.Offset)}
		}
		cyc += r.Cycles
		pk += r.Packets
		h.Regions = append(h.Regions, r)
	}
	if regions > 0 && pk != h.Packets {
		return &FormatError{60, fmt.Sprintf("regions whose packets sum to the header's %d", h.Packets), fmt.Sprint(pk)}
	}
	return nil
}

// packets reads the packet records to the end of the stream (or of the
// region asked, or to MaxPackets), checking each.
func (rd *reader) packets(t *Trace, opt Options) error {
	base := rd.off // region offsets count from here
	// The header's count sizes the table, within reason: a damaged count
	// must not allocate gigabytes before the first packet is read.
	t.Packets = make([]Packet, 0, min(t.Header.Packets, 1<<14))
	region, next := -1, uint64(math.MaxUint64) // current region, offset of the next one
	if len(t.Regions) > 0 {
		region = 0
		next = nextRegion(t.Regions, 0)
	}
	counts := make([]uint64, len(t.Regions))
	var read uint64
	var prev *Packet
	var last Packet
	for {
		pos := uint64(rd.off - base)
		for region >= 0 && pos >= next {
			if pos > next {
				return &FormatError{rd.off, fmt.Sprintf("a packet record to start at region %d's offset %d (byte %d)", region+2, next, int64(next)+base), "a record across it"}
			}
			region++
			next = nextRegion(t.Regions, region)
		}
		if opt.Region > 0 && region > opt.Region-1 {
			break // past the region asked: the rest is not read
		}
		if opt.MaxPackets > 0 && len(t.Packets) == opt.MaxPackets {
			return nil
		}
		at := rd.off
		b, err := rd.r.Peek(1)
		if len(b) == 0 {
			if err == io.EOF {
				break
			}
			return bzipError(rd.off, err)
		}
		b, err = rd.full(packetBytes, "a 21-byte packet record")
		if err != nil {
			return err
		}
		p := Packet{Cycle: le.Uint64(b[0:]), ID: le.Uint32(b[8:]), Addr: le.Uint32(b[12:]), Type: b[16],
			Src: b[17], Dst: b[18], NodeTypes: b[19], ndeps: b[20], Region: region, Offset: at}
		if err := check(&p, prev, t.Nodes); err != nil {
			return err
		}
		keep := opt.Region <= 0 || region == opt.Region-1
		if keep {
			p.deps = uint32(len(t.deps))
		}
		for k := range int(p.ndeps) {
			db, err := rd.full(4, fmt.Sprintf("dependency %d of %d of packet %d", k+1, p.ndeps, p.ID))
			if err != nil {
				return err
			}
			d := le.Uint32(db)
			if d <= p.ID {
				return &FormatError{rd.off - 4, fmt.Sprintf("a dependent packet id above the packet's own %d", p.ID), fmt.Sprint(d)}
			}
			if keep {
				t.deps = append(t.deps, d)
			}
		}
		read++
		if region >= 0 {
			counts[region]++
		}
		last = p
		prev = &last
		if keep {
			t.Packets = append(t.Packets, p)
		}
	}
	t.Complete = true
	end := rd.off
	if opt.Region > 0 {
		r := opt.Region - 1
		if counts[r] != t.Regions[r].Packets {
			return &FormatError{end, fmt.Sprintf("region %d to hold %d packets, the header's count", r+1, t.Regions[r].Packets), fmt.Sprint(counts[r])}
		}
		return nil
	}
	if read != t.Header.Packets {
		return &FormatError{end, fmt.Sprintf("%d packets, the header's count", t.Header.Packets), fmt.Sprintf("the end of the trace after %d", read)}
	}
	for r, n := range counts {
		if n != t.Regions[r].Packets {
			return &FormatError{end, fmt.Sprintf("region %d to hold %d packets, the header's count", r+1, t.Regions[r].Packets), fmt.Sprint(n)}
		}
	}
	return nil
}

// nextRegion is the offset at which region i+1 begins (none: the largest
// offset).
func nextRegion(rs []Region, i int) uint64 {
	if i+1 < len(rs) {
		return rs[i+1].Offset
	}
	return math.MaxUint64
}

// check refuses a packet record the format does not allow: an unknown
// type, a node outside the header's, time or ids going back.
func check(p, prev *Packet, nodes int) error {
	switch {
	case TypeBytes(p.Type) == 0:
		return &FormatError{p.Offset + 16, "a packet type (1-6, 13-16, 25 or 27-30)", fmt.Sprint(p.Type)}
	case int(p.Src) >= nodes:
		return &FormatError{p.Offset + 17, fmt.Sprintf("a source node below the header's %d nodes", nodes), fmt.Sprint(p.Src)}
	case int(p.Dst) >= nodes:
		return &FormatError{p.Offset + 18, fmt.Sprintf("a destination node below the header's %d nodes", nodes), fmt.Sprint(p.Dst)}
	case prev != nil && p.Cycle < prev.Cycle:
		return &FormatError{p.Offset, fmt.Sprintf("a cycle at or after the previous packet's %d", prev.Cycle), fmt.Sprint(p.Cycle)}
	case prev != nil && p.ID <= prev.ID:
		return &FormatError{p.Offset + 8, fmt.Sprintf("a packet id above the previous packet's %d", prev.ID), fmt.Sprint(p.ID)}
	}
	return nil
}
