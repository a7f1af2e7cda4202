package titrace

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Kind is a TI action.
type Kind uint8

// The actions Read accepts. Init, Finalize and CommSize carry no
// communication and are kept only for the counts.
const (
	Init Kind = iota
	Finalize
	CommSize
	Compute
	Send
	Isend
	Recv
	Irecv
	Wait
	WaitAll
	Barrier
	Bcast
	Reduce
	AllReduce
	AllToAll
	Gather
	Scatter
	AllGather
)

var kindNames = [...]string{"init", "finalize", "comm_size", "compute", "send", "isend", "recv", "irecv", "wait", "waitall",
	"barrier", "bcast", "reduce", "allreduce", "alltoall", "gather", "scatter", "allgather"}

func (k Kind) String() string { return kindNames[k] }

// Collective reports whether k is a collective action.
func (k Kind) Collective() bool { return k >= Barrier }

// Action is one line of a trace. Bytes is the count times the datatype's
// size: the message of a point-to-point action; a collective's per-rank
// size as collgen takes it (bcast: the buffer; reduce and allreduce: the
// vector; alltoall: the block to each rank; gather, scatter and
// allgather: each rank's block).
type Action struct {
	Kind  Kind
	Peer  int     // send, isend: destination; recv, irecv: source; wait: the request's other end
	Tag   int     // point-to-point tag; wait: the request's tag
	Bytes uint64  // see above
	Elem  int     // the datatype's size in bytes (reductions combine elements of it)
	Root  int     // rooted collectives
	Flops float64 // compute; reduce and allreduce: the combining flops recorded
	// WaitSend: wait's request is a send (the waiting rank is its source).
	WaitSend bool
	File     string // where the action was read
	Line     int
}

// Trace is a whole run: each rank's actions in order.
type Trace struct {
	Ranks [][]Action
}

// NumActions counts the actions of every rank.
func (t *Trace) NumActions() int {
	n := 0
	for _, r := range t.Ranks {
		n += len(r)
	}
	return n
}

// SyntaxError is a malformed line: file, line and what was expected.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// MaxRanks bounds the rank ids a trace may name.
const MaxRanks = 1 << 20

// maxTag keeps the trace's tags below the collectives' (see ToGoal).
const maxTag = 1<<30 - 1

// datatypes are SimGrid 3.32's encoded predefined datatypes (the number
// Datatype::encode writes: MPI_DOUBLE 0, MPI_INT 1, MPI_CHAR 2,
// MPI_SHORT 3, MPI_LONG 4, MPI_FLOAT 5, MPI_BYTE 6, MPI_LONG_LONG 7,
// MPI_SIGNED_CHAR 8, MPI_UNSIGNED_CHAR 9, MPI_UNSIGNED_SHORT 10,
// MPI_UNSIGNED 11, MPI_UNSIGNED_LONG 12, MPI_UNSIGNED_LONG_LONG 13,
// MPI_LONG_DOUBLE 14, MPI_WCHAR 15) and their sizes on x86-64.
var datatypes = []int{8, 4, 1, 2, 8, 4, 1, 8, 1, 1, 2, 4, 8, 8, 16, 4}

// defaultType is the size SimGrid's replay assumes when a line names no
// datatype: MPI_BYTE.
const defaultType = 1

// Reader accumulates the actions of one or more files into a Trace.
type Reader struct {
	t Trace
}

// Read parses one file's text (name is for errors). A line is "RANK
// ACTION ARGS..."; blank lines are skipped. The first error ends the
// read.
func (rd *Reader) Read(name string, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		a, rank, err := parseLine(f)
		if err != nil {
			return &SyntaxError{File: name, Line: line, Msg: err.Error()}
		}
		a.File, a.Line = name, line
		for len(rd.t.Ranks) <= rank {
			rd.t.Ranks = append(rd.t.Ranks, nil)
		}
		rd.t.Ranks[rank] = append(rd.t.Ranks[rank], a)
	}
	if err := sc.Err(); err != nil {
		return &SyntaxError{File: name, Line: line + 1, Msg: err.Error()}
	}
	return nil
}

// Trace returns what was read.
func (rd *Reader) Trace() *Trace { return &rd.t }

// IsIndex reports whether text is SimGrid's index file (the -trace-ti
// output without ti-one-file: one per-rank file name per line) rather
// than actions: its first non-blank line is one word that is not a rank.
func IsIndex(text []byte) bool {
	for _, l := range strings.Split(string(text), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		_, err := strconv.Atoi(f[0])
		return len(f) == 1 && err != nil
	}
	return false
}

// IndexFiles lists the file names of an index file, in order.
func IndexFiles(text []byte) []string {
	var out []string
	for _, l := range strings.Split(string(text), "\n") {
		if s := strings.TrimSpace(l); s != "" {
			out = append(out, s)
		}
	}
	return out
}

type args struct {
	f []string
	i int
}

func (a *args) more() bool { return a.i < len(a.f) }

func (a *args) int(what string, lo, hi int) (int, error) {
	if !a.more() {
		return 0, fmt.Errorf("%s: missing %s", a.f[1], what)
	}
	s := a.f[a.i]
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("%s: %s %q: allowed an integer %d..%d", a.f[1], what, s, lo, hi)
	}
	a.i++
	return v, nil
}

func (a *args) count(what string) (uint64, error) {
	if !a.more() {
		return 0, fmt.Errorf("%s: missing %s", a.f[1], what)
	}
	s := a.f[a.i]
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1<<40 || v != math.Trunc(v) {
		return 0, fmt.Errorf("%s: %s %q: allowed a whole number 0..%d", a.f[1], what, s, int64(1)<<40)
	}
	a.i++
	return uint64(v), nil
}

func (a *args) flops(what string) (float64, error) {
	if !a.more() {
		return 0, fmt.Errorf("%s: missing %s", a.f[1], what)
	}
	s := a.f[a.i]
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0 && v <= 1e18) {
		return 0, fmt.Errorf("%s: %s %q: allowed a number 0..1e18", a.f[1], what, s)
	}
	a.i++
	return v, nil
}

// dtype reads an optional datatype (MPI_BYTE when absent).
func (a *args) dtype() (int, error) {
	if !a.more() {
		return defaultType, nil
	}
	v, err := a.int("datatype", 0, len(datatypes)-1)
	if err != nil {
		return 0, fmt.Errorf("%w (SimGrid's predefined datatypes MPI_DOUBLE..MPI_WCHAR)", err)
	}
	return datatypes[v], nil
}

func (a *args) end() error {
	if a.more() {
		return fmt.Errorf("%s: unexpected %q after its arguments", a.f[1], a.f[a.i])
	}
	return nil
}

func parseLine(f []string) (Action, int, error) {
	rank, err := strconv.Atoi(f[0])
	if err != nil || rank < 0 || rank >= MaxRanks {
		return Action{}, 0, fmt.Errorf("rank %q: allowed an integer 0..%d first on the line", f[0], MaxRanks-1)
	}
	if len(f) < 2 {
		return Action{}, 0, fmt.Errorf("missing the action after rank %d", rank)
	}
	k := slices.Index(kindNames[:], f[1])
	if k < 0 {
		return Action{}, 0, fmt.Errorf("action %q: allowed %s", f[1], strings.Join(kindNames[:], ", "))
	}
	a := Action{Kind: Kind(k), Elem: defaultType}
	p := &args{f: f, i: 2}
	var n uint64
	switch a.Kind {
	case Init, Finalize, Barrier:
	case CommSize:
		if _, err = p.int("the communicator size", 1, MaxRanks); err != nil {
			return a, 0, err
		}
	case Compute:
		a.Flops, err = p.flops("the flops")
	case Send, Isend, Recv, Irecv:
		peer := "the destination"
		if a.Kind == Recv || a.Kind == Irecv {
			peer = "the source"
		}
		if a.Peer, err = p.int(peer, 0, MaxRanks-1); err != nil {
			return a, 0, err
		}
		if a.Tag, err = p.int("the tag", 0, maxTag); err != nil {
			return a, 0, err
		}
		if n, err = p.count("the count"); err != nil {
			return a, 0, err
		}
		if a.Elem, err = p.dtype(); err != nil {
			return a, 0, err
		}
		a.Bytes = n * uint64(a.Elem)
	case Wait:
		// "wait SRC DST TAG": the request's ends; the waiting rank is
		// one of them.
		var src, dst int
		if src, err = p.int("the request's source", 0, MaxRanks-1); err != nil {
			return a, 0, err
		}
		if dst, err = p.int("the request's destination", 0, MaxRanks-1); err != nil {
			return a, 0, err
		}
		if a.Tag, err = p.int("the request's tag", 0, maxTag); err != nil {
			return a, 0, err
		}
		switch rank {
		case src:
			a.WaitSend, a.Peer = true, dst
		case dst:
			a.Peer = src
		default:
			return a, 0, fmt.Errorf("wait %d %d: allowed a request of rank %d (its source or destination)", src, dst, rank)
		}
	case WaitAll:
		_, err = p.int("the request count", 0, math.MaxInt32)
	case Bcast:
		if n, err = p.count("the count"); err != nil {
			return a, 0, err
		}
		if p.more() {
			if a.Root, err = p.int("the root", 0, MaxRanks-1); err != nil {
				return a, 0, err
			}
		}
		a.Elem, err = p.dtype()
		a.Bytes = n * uint64(a.Elem)
	case Reduce, AllReduce:
		if n, err = p.count("the count"); err != nil {
			return a, 0, err
		}
		if a.Flops, err = p.flops("the computation size"); err != nil {
			return a, 0, err
		}
		if a.Kind == Reduce && p.more() {
			if a.Root, err = p.int("the root", 0, MaxRanks-1); err != nil {
				return a, 0, err
			}
		}
		a.Elem, err = p.dtype()
		a.Bytes = n * uint64(a.Elem)
	case AllToAll, Gather, Scatter, AllGather:
		var rn uint64
		if n, err = p.count("the send count"); err != nil {
			return a, 0, err
		}
		if rn, err = p.count("the receive count"); err != nil {
			return a, 0, err
		}
		if a.Kind == Gather || a.Kind == Scatter {
			if a.Root, err = p.int("the root", 0, MaxRanks-1); err != nil {
				return a, 0, err
			}
		}
		se, re := defaultType, defaultType
		if se, err = p.dtype(); err != nil {
			return a, 0, err
		}
		if re, err = p.dtype(); err != nil {
			return a, 0, err
		}
		// Gather's block is what each rank sends, scatter's what each
		// receives (the other count matters only at the root); alltoall
		// and allgather send and receive equal blocks.
		a.Elem, a.Bytes = se, n*uint64(se)
		switch a.Kind {
		case Scatter:
			a.Elem, a.Bytes = re, rn*uint64(re)
		case AllToAll, AllGather:
			if n*uint64(se) != rn*uint64(re) {
				return a, 0, fmt.Errorf("%s: send %d x %d bytes, receive %d x %d bytes: allowed equal block sizes", f[1], n, se, rn, re)
			}
		}
	}
	if err != nil {
		return a, 0, err
	}
	return a, rank, p.end()
}
