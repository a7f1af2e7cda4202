package goal

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
)

// Read parses GOAL text as LogGOPSim's txt2bin accepts it (see the package
// documentation for the grammar). Errors name the line and column. The
// text is read in pieces, each parsed straight into the schedule's
// arrays: memory holds the schedule, not the text.
func Read(r io.Reader) (*Schedule, error) {
	size := int64(-1)
	switch f := r.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	case interface{ Len() int }:
		size = int64(f.Len())
	}
	p := &parser{src: r, size: size, buf: make([]byte, 0, readChunk), line: 1, rank: -1}
	return p.parse()
}

// Parse is Read on text already in memory.
func Parse(data []byte) (*Schedule, error) {
	p := &parser{buf: data, data: data, fill: len(data), eof: true, size: int64(len(data)), line: 1, rank: -1}
	return p.parse()
}

// readChunk is how much text Read asks for at a time.
const readChunk = 1 << 20

func (p *parser) parse() (*Schedule, error) {
	if err := p.run(); err != nil {
		return nil, err
	}
	if p.rerr != nil {
		return nil, fmt.Errorf("goal: reading: %w", p.rerr)
	}
	if p.b == nil {
		return nil, p.errf(p.pos, "num_ranks missing: a schedule starts with 'num_ranks N'")
	}
	return p.b.Schedule()
}

type parser struct {
	// The text: buf[:fill] is what has been read and kept, data its
	// complete lines (up to and including the last newline, or all of it
	// at the end of the input). Tokens never span lines, so the parser
	// works on data and asks for more (more) only at a line's start or
	// inside a block comment.
	src       io.Reader
	rerr      error
	eof       bool
	size      int64 // bytes of the whole input, -1 if unknown
	dropped   int64 // bytes consumed and dropped from buf's front
	buf, data []byte
	fill      int
	pos       int
	line      int
	lineStart int // offset of the current line's first byte

	b        *Builder
	n        int
	rank     int // rank whose block is open, -1 outside
	rankLine int
	next     int // next rank expected
	// Labels by their interned index (Builder.intern): the op of the open
	// rank each names and the line it was defined on, valid where
	// defRank is the open rank + 1.
	defOp, defRank, defLine []int32
	labelLine               int32 // line of the label being defined
}

// more reads further text into data; it reports whether there is any
// past the cursor. The current line's start is kept, for columns.
func (p *parser) more() bool {
	for p.pos >= len(p.data) && p.read(1) {
	}
	return p.pos < len(p.data)
}

// read reads at least want bytes past fill (fewer at the end of the
// input), keeping the text from the current line on; it reports false
// when nothing came.
func (p *parser) read(want int) bool {
	if p.eof {
		if len(p.data) < p.fill {
			p.data = p.buf[:p.fill]
			return true
		}
		return false
	}
	if k := p.lineStart; k > 0 {
		copy(p.buf, p.buf[k:p.fill])
		p.fill -= k
		p.pos -= k
		p.lineStart = 0
		p.dropped += int64(k)
	}
	got := 0
	for got < want && !p.eof {
		if p.fill == cap(p.buf) {
			p.buf = slices.Grow(p.buf[:p.fill], max(readChunk, p.fill))
		}
		n, err := p.src.Read(p.buf[p.fill:cap(p.buf)])
		p.fill += n
		got += n
		switch {
		case err == io.EOF:
			p.eof = true
		case err != nil:
			p.eof, p.rerr = true, err
		}
	}
	p.buf = p.buf[:p.fill]
	end := p.fill
	if !p.eof {
		end = bytes.LastIndexByte(p.buf, '\n') + 1
	}
	grew := end > len(p.data)
	p.data = p.buf[:end]
	return grew || got > 0
}

// rest is the number of bytes after the cursor, read or not, or at least
// need of them when the input's size is unknown.
func (p *parser) rest(need int64) int64 {
	if p.size >= 0 {
		return p.size - p.dropped - int64(p.pos)
	}
	for int64(p.fill-p.pos) < need && p.read(int(min(need-int64(p.fill-p.pos), 1<<30))) {
	}
	return int64(p.fill - p.pos)
}

// syntaxError is a parse error at a line and column (1-based, bytes).
type syntaxError struct {
	line, col int
	msg       string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("goal: %d:%d: %s", e.line, e.col, e.msg) }

// errf reports an error at byte offset at, which lies on the current line.
func (p *parser) errf(at int, format string, args ...any) error {
	return &syntaxError{p.line, at - p.lineStart + 1, fmt.Sprintf(format, args...)}
}

// expected reports that the text at the cursor is not what was expected.
func (p *parser) expected(what string) error {
	return p.errf(p.pos, "expected %s, found %s", what, p.found())
}

func (p *parser) found() string {
	if p.pos >= len(p.data) {
		return "end of input"
	}
	c := p.data[p.pos]
	switch {
	case c == '\n' || c == '\r' && p.pos+1 < len(p.data) && p.data[p.pos+1] == '\n':
		return "end of line"
	case isIdentStart(c):
		e := p.pos
		for e < len(p.data) && isIdentChar(p.data[e]) && e-p.pos < 20 {
			e++
		}
		return fmt.Sprintf("%q", p.data[p.pos:e])
	case c >= '0' && c <= '9':
		return fmt.Sprintf("number %q", Clip(string(p.data[p.pos:p.digitsEnd()])))
	}
	return fmt.Sprintf("%q", rune(c))
}

func isIdentStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' || c == '_' }

func (p *parser) skipWS() {
	for p.pos < len(p.data) && (p.data[p.pos] == ' ' || p.data[p.pos] == '\t') {
		p.pos++
	}
}

// atEOL reports whether the cursor is at a line end ("\n", "\r\n") or at
// the end of the input, which txt2bin treats as a final newline.
func (p *parser) atEOL() bool {
	d := p.data[p.pos:]
	return len(d) == 0 || d[0] == '\n' || len(d) > 1 && d[0] == '\r' && d[1] == '\n'
}

// newline consumes a line end at the cursor (if any) and starts a new line.
func (p *parser) newline() {
	if p.pos < len(p.data) && p.data[p.pos] == '\r' {
		p.pos++
	}
	if p.pos < len(p.data) {
		p.pos++
		p.line++
		p.lineStart = p.pos
	}
}

// lit consumes the literal s if the text at the cursor starts with it
// (txt2bin's keywords need no word boundary after them, except where a
// label could start).
func (p *parser) lit(s string) bool {
	if len(p.data)-p.pos >= len(s) && string(p.data[p.pos:p.pos+len(s)]) == s {
		p.pos += len(s)
		return true
	}
	return false
}

// ident is the identifier at the cursor, a slice of the text valid until
// the line ends.
func (p *parser) ident() []byte {
	s := p.pos
	for p.pos < len(p.data) && isIdentChar(p.data[p.pos]) {
		p.pos++
	}
	return p.data[s:p.pos]
}

func (p *parser) digitsEnd() int {
	e := p.pos
	for e < len(p.data) && p.data[e] >= '0' && p.data[e] <= '9' {
		e++
	}
	return e
}

// number reads an unsigned decimal of at most max, after optional blanks;
// what names it in errors.
func (p *parser) number(what string, max uint64) (uint64, error) {
	p.skipWS()
	e := p.digitsEnd()
	if e == p.pos {
		return 0, p.expected(what)
	}
	var v uint64
	for _, c := range p.data[p.pos:e] {
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, p.errf(p.pos, "%s %s: allowed 0..%d", what, Clip(string(p.data[p.pos:e])), max)
		}
		v = v*10 + d
	}
	if v > max {
		return 0, p.errf(p.pos, "%s %d: allowed 0..%d", what, v, max)
	}
	p.pos = e
	return v, nil
}

// signed reads -1 (the wildcard, when any allows it) or a number.
func (p *parser) signed(what string, max uint64, any bool) (int32, error) {
	p.skipWS()
	if any && p.lit("-1") {
		return -1, nil
	}
	v, err := p.number(what, max)
	return int32(v), err
}

// anyTag64 is the tag Schedgen's trace converter writes for "any tag"
// (an MPI_ANY_TAG of -1 stored in an unsigned 64-bit field).
const anyTag64 = math.MaxUint64

// tag reads a tag: 0..2^31-1, or AnyTag written -1 or 18446744073709551615.
func (p *parser) tag() (int32, error) {
	const what = "the tag after 'tag'"
	p.skipWS()
	if p.lit("-1") {
		return AnyTag, nil
	}
	at := p.pos
	v, err := p.number(what, anyTag64)
	switch {
	case err != nil:
		return 0, err
	case v == anyTag64:
		return AnyTag, nil
	case v > math.MaxInt32:
		return 0, p.errf(at, "%s %d: allowed 0..%d, or -1 or %d for any tag", what, v, math.MaxInt32, uint64(anyTag64))
	}
	return int32(v), nil
}

// endItem requires the end of the line after an item; what lists the
// words that could still have come.
func (p *parser) endItem(what string) error {
	p.skipWS()
	if !p.atEOL() {
		return p.expected(what)
	}
	p.newline()
	return nil
}

func (p *parser) run() error {
	for {
		p.skipWS()
		if p.pos >= len(p.data) {
			if p.more() {
				continue
			}
			if p.rank >= 0 {
				return p.errf(p.pos, "end of input inside rank %d's block (line %d): expected '}'", p.rank, p.rankLine)
			}
			if p.b != nil && p.next < p.n {
				return p.errf(p.pos, "end of input after %d of %d ranks: every rank 0..%d needs a block, in order", p.next, p.n, p.n-1)
			}
			return nil
		}
		c := p.data[p.pos]
		switch {
		case p.atEOL():
			p.newline()
		case p.lit("//"):
			for !p.atEOL() {
				p.pos++
			}
		case p.lit("/*"):
			if err := p.blockComment(); err != nil {
				return err
			}
		case c == '}':
			if p.rank < 0 {
				return p.errf(p.pos, "'}' outside a rank block")
			}
			p.pos++
			if err := p.b.layout(nil); err != nil {
				return err
			}
			p.rank = -1
			p.next++
		case isIdentStart(c):
			at := p.pos
			word := p.ident()
			var err error
			switch string(word) {
			case "num_ranks":
				err = p.numRanks(at)
			case "rank":
				err = p.rankHeader(at)
			case "send", "recv", "calc":
				k := Send
				if string(word) == "recv" {
					k = Recv
				} else if string(word) == "calc" {
					k = Calc
				}
				err = p.op(at, k, nil)
			default:
				err = p.labelled(at, word)
			}
			if err != nil {
				return err
			}
		default:
			return p.expected("'rank', 'num_ranks', 'send', 'recv', 'calc', a label, '}', a comment or end of line")
		}
	}
}

func (p *parser) blockComment() error {
	line, col := p.line, p.pos-2-p.lineStart+1
	for {
		if p.pos >= len(p.data) && !p.more() {
			return &syntaxError{line, col, "unterminated comment: expected '*/'"}
		}
		if p.lit("*/") {
			return nil
		}
		if p.data[p.pos] == '\n' {
			p.newline()
		} else {
			p.pos++
		}
	}
}

func (p *parser) numRanks(at int) error {
	if p.b != nil {
		return p.errf(at, "num_ranks given twice: allowed once, before the first rank")
	}
	n, err := p.number("the number of ranks after 'num_ranks'", math.MaxInt32)
	if err != nil {
		return err
	}
	if n < 1 {
		return p.errf(p.pos-1, "num_ranks 0: allowed 1..%d", math.MaxInt32)
	}
	// Every rank needs a block of at least 8 bytes ("rank 0{}"): refuse a
	// count the text cannot hold before allocating per-rank state for it.
	rest := p.rest(8 * int64(n-1))
	if room := rest/8 + 1; n > uint64(room) {
		return p.errf(at, "num_ranks %d, but the %d bytes that follow cannot hold that many rank blocks", n, rest)
	}
	p.n = int(n)
	ops, deps := p.hints(rest)
	p.b = NewBuilder(p.n, ops)
	p.b.deps = make([]int32, 0, deps)
	return nil
}

// hints guess the number of operations and dependencies in the rest
// bytes that follow from the keywords in the text read so far, a little
// high: the arrays are then allocated once (not doubled and copied as
// they fill), and the part never written costs no memory.
func (p *parser) hints(rest int64) (ops, deps int) {
	sample := p.buf[p.pos:p.fill]
	if len(sample) > 4<<20 {
		sample = sample[:4<<20]
	}
	if len(sample) < 1<<10 {
		return 0, 0
	}
	scale := float64(rest) / float64(len(sample)) * 1.1
	ops = bytes.Count(sample, []byte("send ")) + bytes.Count(sample, []byte("recv ")) + bytes.Count(sample, []byte("calc "))
	deps = bytes.Count(sample, []byte("requires "))
	return int(float64(ops)*scale) + 1024, int(float64(deps)*scale) + 1024
}

func (p *parser) rankHeader(at int) error {
	if p.rank >= 0 {
		return p.errf(at, "'rank' inside rank %d's block (line %d): expected '}' first", p.rank, p.rankLine)
	}
	if p.b == nil {
		return p.errf(at, "rank before num_ranks: a schedule starts with 'num_ranks N'")
	}
	p.skipWS()
	numAt := p.pos
	r, err := p.number("the rank number after 'rank'", math.MaxInt32)
	if err != nil {
		return err
	}
	switch {
	case int(r) >= p.n:
		return p.errf(numAt, "rank %d: allowed 0..%d (num_ranks %d)", r, p.n-1, p.n)
	case int(r) != p.next:
		return p.errf(numAt, "rank %d: expected rank %d (every rank 0..%d once, in order)", r, p.next, p.n-1)
	}
	p.skipWS()
	if !p.lit("{") {
		return p.expected("'{' after the rank number")
	}
	p.rank, p.rankLine = int(r), p.line
	return nil
}

// labelled parses what follows a label: ": op" or "requires"/"irequires".
func (p *parser) labelled(at int, label []byte) error {
	if p.rank < 0 {
		return p.errf(at, "%q outside a rank block: expected 'rank', 'num_ranks' or '}'", Clip(string(label)))
	}
	p.skipWS()
	switch {
	case p.lit(":"):
		if id, ok := p.defined(label); ok {
			return p.errf(at, "label %q already names op %d of rank %d (line %d): labels must be unique within a rank", Clip(string(label)), p.defOp[id], p.rank, p.defLine[id])
		}
		p.labelLine = int32(p.line)
		p.skipWS()
		opAt := p.pos
		switch {
		case p.lit("send"):
			return p.op(opAt, Send, label)
		case p.lit("recv"):
			return p.op(opAt, Recv, label)
		case p.lit("calc"):
			return p.op(opAt, Calc, label)
		}
		return p.expected("'send', 'recv' or 'calc' after the label")
	case p.lit("requires"):
		return p.dependency(at, label, false)
	case p.lit("irequires"):
		return p.dependency(at, label, true)
	}
	return p.expected("':', 'requires' or 'irequires' after " + fmt.Sprintf("%q", Clip(string(label))))
}

// defined is the interned index of label if it names an op of the open
// rank.
func (p *parser) defined(label []byte) (int32, bool) {
	id, ok := p.b.ids[string(label)]
	return id, ok && p.defRank[id] == int32(p.rank)+1
}

func (p *parser) dependency(at int, a []byte, start bool) error {
	p.skipWS()
	if p.pos >= len(p.data) || !isIdentStart(p.data[p.pos]) {
		return p.expected("a label after 'requires'")
	}
	bAt := p.pos
	b := p.ident()
	da, ok := p.defined(a)
	if !ok {
		return p.errf(at, "label %q is not defined in rank %d before this line", Clip(string(a)), p.rank)
	}
	db, ok := p.defined(b)
	if !ok {
		return p.errf(bAt, "label %q is not defined in rank %d before this line", Clip(string(b)), p.rank)
	}
	if err := p.endItem("end of line after the dependency"); err != nil {
		return err
	}
	if start {
		p.b.IRequire(p.rank, p.defOp[da], p.defOp[db])
	} else {
		p.b.Require(p.rank, p.defOp[da], p.defOp[db])
	}
	return nil
}

// What a number names in errors, by the op's kind: constants, so that
// parsing an op builds no string.
var (
	sizeWhat = [...]string{Send: "the byte count after 'send'", Recv: "the byte count after 'recv'"}
	peerWhat = [...]string{Send: "the peer rank after 'to'", Recv: "the peer rank after 'from'"}
)

// op parses an operation after its keyword; at is the keyword's offset.
func (p *parser) op(at int, k Kind, label []byte) error {
	if p.rank < 0 {
		return p.errf(at, "%s outside a rank block", k)
	}
	op := Op{Kind: k}
	var err error
	if k == Calc {
		if op.Time, err = p.number("the cycle count after 'calc'", math.MaxUint64); err != nil {
			return err
		}
		p.skipWS()
		if p.lit("cpu") {
			if err = p.cpuNIC(&op.CPU, "cpu"); err != nil {
				return err
			}
			err = p.endItem("end of line after the cpu")
		} else {
			err = p.endItem("'cpu' or end of line")
		}
		if err != nil {
			return err
		}
		return p.add(op, label)
	}
	if op.Bytes, err = p.number(sizeWhat[k], math.MaxUint64); err != nil {
		return err
	}
	p.skipWS()
	if !p.lit("b") {
		return p.expected("'b' after the byte count")
	}
	p.skipWS()
	word := "to"
	if k == Recv {
		word = "from"
	}
	if !p.lit(word) {
		return p.expected(fmt.Sprintf("'%s' after the size", word))
	}
	p.skipWS()
	peerAt := p.pos
	peer, err := p.signed(peerWhat[k], math.MaxInt32, k == Recv)
	if err != nil {
		return err
	}
	if int(peer) >= p.n {
		return p.errf(peerAt, "peer rank %d: allowed 0..%d (num_ranks %d)", peer, p.n-1, p.n)
	}
	op.Peer = peer
	p.skipWS()
	if p.lit("tag") {
		if op.Tag, err = p.tag(); err != nil {
			return err
		}
		p.skipWS()
	}
	if p.lit("cpu") {
		if err = p.cpuNIC(&op.CPU, "cpu"); err != nil {
			return err
		}
		p.skipWS()
	}
	if p.lit("nic") {
		if err = p.cpuNIC(&op.NIC, "nic"); err != nil {
			return err
		}
	}
	if err = p.endItem("'tag', 'cpu', 'nic' (in that order) or end of line"); err != nil {
		return err
	}
	return p.add(op, label)
}

func (p *parser) cpuNIC(dst *uint8, what string) error {
	idx := "the nic index after 'nic'"
	if what == "cpu" {
		idx = "the cpu index after 'cpu'"
	}
	v, err := p.number(idx, math.MaxUint8)
	*dst = uint8(v)
	return err
}

// add appends the op to the open rank and records its label (checked
// unique by labelled): as a flag when it is the canonical "l" and its
// index, else in the schedule's label table.
func (p *parser) add(op Op, label []byte) error {
	i := p.b.Add(p.rank, op)
	if i < 0 {
		return p.b.Err()
	}
	if label == nil {
		return nil
	}
	id := p.b.intern(label)
	if int(id) >= len(p.defOp) {
		p.defOp = append(p.defOp, make([]int32, int(id)+1-len(p.defOp))...)
		p.defRank = append(p.defRank, make([]int32, int(id)+1-len(p.defRank))...)
		p.defLine = append(p.defLine, make([]int32, int(id)+1-len(p.defLine))...)
	}
	p.defOp[id], p.defRank[id], p.defLine[id] = i, int32(p.rank)+1, p.labelLine
	k := int32(len(p.b.ops) - 1)
	if isCanon(label, i) {
		p.b.ops[k].flags |= pCanon
	} else {
		p.b.labOp = append(p.b.labOp, k)
		p.b.labID = append(p.b.labID, id)
	}
	return nil
}
