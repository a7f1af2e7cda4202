package calibrate

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Columns are the CSV header's names, in the order WriteCSV writes them.
var Columns = []string{"kind", "bytes", "hops", "n", "delay_cycles", "cycles"}

// InputError is a CSV that cannot be read: bad input, which a command
// reports with exit status 2 before fitting anything. Line and Column are
// 1-based (Column counts fields, as a spreadsheet does); 0 means the
// error is not about one cell.
type InputError struct {
	Line, Column int
	Name         string // the column's header name, when known
	Msg          string
}

func (e *InputError) Error() string {
	var at []string
	if e.Line > 0 {
		at = append(at, fmt.Sprintf("line %d", e.Line))
	}
	if e.Column > 0 {
		c := fmt.Sprintf("column %d", e.Column)
		if e.Name != "" {
			c += " (" + e.Name + ")"
		}
		at = append(at, c)
	}
	if len(at) == 0 {
		return "measurements CSV: " + e.Msg
	}
	return "measurements CSV: " + strings.Join(at, ", ") + ": " + e.Msg
}

// ReadCSV reads measurements: a header naming the columns kind, bytes,
// hops, n, delay_cycles and cycles (in any order; other columns are
// ignored, so a seconds column may stay next to the cycles), then one
// measurement per row. Lines starting with # are comments. Every error is
// an *InputError naming the line and column.
//
// To measure a real machine, run between two ranks, for each size s:
//
//   - rtt: a ping-pong (MPI_Send then MPI_Recv at rank a, MPI_Recv then
//     MPI_Send at rank b), timed around the pair at rank a; n = 1.
//   - send: rank b posts MPI_Irecv, sends a 0-byte "ready" and waits;
//     rank a receives "ready", then times its MPI_Isend call alone (the
//     MPI_Wait after it is not timed); n = 1.
//   - recv: rank a sends as soon as b's "ready" arrives; rank b computes
//     (or sleeps) for about a round trip, then times its MPI_Irecv call
//     alone (then waits, untimed); n = 1.
//   - train: after "ready", rank a times n MPI_Isend and one MPI_Waitall
//     while b receives the n messages; cycles is the total.
//   - prtt: Netgauge's PRTT(n, d, s): rank a times n MPI_Send with d
//     cycles of busy work between consecutive ones, then MPI_Recv of b's
//     s-byte reply, which b sends after receiving all n. Measure
//     (n, d) = (1, 0), (n, 0) and (n, d ≥ RTT(s)).
//   - late, ctswait, fanout (the handshake's legs, for a machine whose
//     clear-to-send runs on the sender's processor): late is the recv
//     experiment's time from the MPI_Irecv call to the end of its
//     MPI_Wait; ctswait: b posts MPI_Irecv and says ready, a calls
//     MPI_Isend, computes d cycles (d ≥ RTT(s)) and waits, cycles from
//     the start of a's computation to the end of b's wait (one clock);
//     fanout: n ≥ 2 ranks at the same distance post a receive and say
//     ready, a Isends to each, computes d cycles and waits for all,
//     cycles the mean spacing of the receivers' completions.
//
// Repeat each a few times after a warm-up and write the median (Fit also
// takes several rows of a kind and size and uses their median round trip).
// Times come from MPI_Wtime or a cycle counter; convert seconds to cycles
// as seconds × clock_hz, the clock the model will be used with. hops is
// the router-to-router distance between the two ranks' nodes (0 for two
// cores of one node); measuring at two distances lets Fit separate the
// per-hop latency. Run produces the same rows on a simulated machine.
func ReadCSV(r io.Reader) ([]Measurement, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // a short row gets our message, not encoding/csv's
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &InputError{Msg: "empty: want a header " + strings.Join(Columns, ",")}
	}
	if err != nil {
		return nil, csvErr(err)
	}
	col := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if _, dup := col[name]; dup && slices.Contains(Columns, name) {
			line, _ := cr.FieldPos(i)
			return nil, &InputError{Line: line, Column: i + 1, Name: name, Msg: "column " + name + " appears twice"}
		}
		col[name] = i
	}
	for _, c := range Columns {
		if _, ok := col[c]; !ok {
			line, _ := cr.FieldPos(0)
			return nil, &InputError{Line: line, Msg: fmt.Sprintf("missing column %q: the header needs %s", c, strings.Join(Columns, ","))}
		}
	}
	var ms []Measurement
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return ms, nil
		}
		if err != nil {
			return nil, csvErr(err)
		}
		line, _ := cr.FieldPos(0)
		m, err := parseRow(rec, col, line)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
}

// parseRow reads one measurement; field errors name their cell.
func parseRow(rec []string, col map[string]int, line int) (Measurement, error) {
	cell := func(name string) (string, *InputError) {
		i := col[name]
		if i >= len(rec) {
			return "", &InputError{Line: line, Column: i + 1, Name: name, Msg: fmt.Sprintf("missing: the row has %d fields", len(rec))}
		}
		return strings.TrimSpace(rec[i]), nil
	}
	bad := func(name, msg string) *InputError {
		return &InputError{Line: line, Column: col[name] + 1, Name: name, Msg: msg}
	}
	integer := func(name string, least int) (int, error) {
		s, e := cell(name)
		if e != nil {
			return 0, e
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, bad(name, fmt.Sprintf("%q is not a whole number", s))
		}
		if v < least {
			return 0, bad(name, fmt.Sprintf("%d: allowed >= %d", v, least))
		}
		return v, nil
	}
	cycles := func(name string) (float64, error) {
		s, e := cell(name)
		if e != nil {
			return 0, e
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, bad(name, fmt.Sprintf("%q is not a number of cycles", s))
		}
		if v < 0 {
			return 0, bad(name, fmt.Sprintf("%v cycles: a time cannot be negative", v))
		}
		return v, nil
	}
	var m Measurement
	kind, e := cell("kind")
	if e != nil {
		return m, e
	}
	m.Kind = strings.ToLower(kind)
	if !slices.Contains(Kinds, m.Kind) {
		return m, bad("kind", fmt.Sprintf("unknown kind %q: allowed %s", kind, strings.Join(Kinds, ", ")))
	}
	var err error
	if m.Bytes, err = integer("bytes", 0); err != nil {
		return m, err
	}
	if m.Hops, err = integer("hops", 0); err != nil {
		return m, err
	}
	if m.N, err = integer("n", 1); err != nil {
		return m, err
	}
	if m.Delay, err = cycles("delay_cycles"); err != nil {
		return m, err
	}
	if m.Cycles, err = cycles("cycles"); err != nil {
		return m, err
	}
	// What Fit would refuse, refused here with the row's position.
	if err := m.check(); err != nil {
		return m, &InputError{Line: line, Msg: err.Error()}
	}
	return m, nil
}

// csvErr turns encoding/csv's syntax errors into InputErrors.
func csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &InputError{Line: pe.Line, Column: pe.Column, Msg: pe.Err.Error() + " (column counts bytes here)"}
	}
	return &InputError{Msg: err.Error()}
}

// WriteCSV writes measurements in the format ReadCSV reads, times with
// the shortest decimal that reads back to the same float64.
func WriteCSV(w io.Writer, ms []Measurement) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Columns); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, m := range ms {
		rec := []string{m.Kind, strconv.Itoa(m.Bytes), strconv.Itoa(m.Hops), strconv.Itoa(m.N), f(m.Delay), f(m.Cycles)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
