package goal

import (
	"fmt"
	"io"
	"math"
)

// Read parses GOAL text as LogGOPSim's txt2bin accepts it (see the package
// documentation for the grammar). Errors name the line and column.
func Read(r io.Reader) (*Schedule, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("goal: reading: %w", err)
	}
	return Parse(data)
}

// Parse is Read on text already in memory.
func Parse(data []byte) (*Schedule, error) {
	p := &parser{data: data, line: 1, lineStart: 0, rank: -1}
	if err := p.run(); err != nil {
		return nil, err
	}
	if p.b == nil {
		return nil, p.errf(p.pos, "num_ranks missing: a schedule starts with 'num_ranks N'")
	}
	return p.b.Schedule()
}

type labelDef struct{ op, line int32 }

type parser struct {
	data      []byte
	pos       int
	line      int
	lineStart int // offset of the current line's first byte

	b         *Builder
	n         int
	rank      int // rank whose block is open, -1 outside
	rankLine  int
	next      int // next rank expected
	labels    map[string]labelDef
	labelLine int32 // line of the label being defined
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

func (p *parser) ident() string {
	s := p.pos
	for p.pos < len(p.data) && isIdentChar(p.data[p.pos]) {
		p.pos++
	}
	return string(p.data[s:p.pos])
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
			p.rank = -1
			p.next++
		case isIdentStart(c):
			at := p.pos
			word := p.ident()
			var err error
			switch word {
			case "num_ranks":
				err = p.numRanks(at)
			case "rank":
				err = p.rankHeader(at)
			case "send", "recv", "calc":
				k := Send
				if word == "recv" {
					k = Recv
				} else if word == "calc" {
					k = Calc
				}
				err = p.op(at, k, "")
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
		if p.pos >= len(p.data) {
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
	if room := (len(p.data)-p.pos)/8 + 1; n > uint64(room) {
		return p.errf(at, "num_ranks %d, but the %d bytes that follow cannot hold that many rank blocks", n, len(p.data)-p.pos)
	}
	p.n = int(n)
	p.b = NewBuilder(p.n, len(p.data)/24)
	p.b.trusted = true
	p.labels = map[string]labelDef{}
	return nil
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
	clear(p.labels)
	return nil
}

// labelled parses what follows a label: ": op" or "requires"/"irequires".
func (p *parser) labelled(at int, label string) error {
	if p.rank < 0 {
		return p.errf(at, "%q outside a rank block: expected 'rank', 'num_ranks' or '}'", Clip(label))
	}
	p.skipWS()
	switch {
	case p.lit(":"):
		if d, dup := p.labels[label]; dup {
			return p.errf(at, "label %q already names op %d of rank %d (line %d): labels must be unique within a rank", Clip(label), d.op, p.rank, d.line)
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
	return p.expected("':', 'requires' or 'irequires' after " + fmt.Sprintf("%q", Clip(label)))
}

func (p *parser) dependency(at int, a string, start bool) error {
	p.skipWS()
	if p.pos >= len(p.data) || !isIdentStart(p.data[p.pos]) {
		return p.expected("a label after 'requires'")
	}
	bAt := p.pos
	b := p.ident()
	da, ok := p.labels[a]
	if !ok {
		return p.errf(at, "label %q is not defined in rank %d before this line", Clip(a), p.rank)
	}
	db, ok := p.labels[b]
	if !ok {
		return p.errf(bAt, "label %q is not defined in rank %d before this line", Clip(b), p.rank)
	}
	if err := p.endItem("end of line after the dependency"); err != nil {
		return err
	}
	if start {
		p.b.IRequire(p.rank, da.op, db.op)
	} else {
		p.b.Require(p.rank, da.op, db.op)
	}
	return nil
}

// op parses an operation after its keyword; at is the keyword's offset.
func (p *parser) op(at int, k Kind, label string) error {
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
	if op.Bytes, err = p.number("the byte count after '"+k.String()+"'", math.MaxUint64); err != nil {
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
	peer, err := p.signed("the peer rank after '"+word+"'", math.MaxInt32, k == Recv)
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
	v, err := p.number("the "+what+" index after '"+what+"'", math.MaxUint8)
	*dst = uint8(v)
	return err
}

// add appends the op to the open rank (its label checked unique by
// labelled).
func (p *parser) add(op Op, label string) error {
	i := p.b.Add(p.rank, op)
	if i < 0 {
		return p.b.Err()
	}
	if label == "" {
		return nil
	}
	p.labels[label] = labelDef{i, p.labelLine}
	p.b.SetLabel(p.rank, i, label)
	return nil
}
