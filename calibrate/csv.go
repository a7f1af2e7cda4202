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

// Columns are the measurement columns of the CSV header, which every
// file has, in the order WriteTable writes them.
var Columns = []string{"kind", "bytes", "hops", "n", "delay_cycles", "cycles"}

// MachineColumns describe the machine measured (Machine: word_bytes,
// handshake, cooperative), in the order WriteTable writes them after
// Columns. They hold one value for the whole file, repeated on every row
// so that a spreadsheet keeps them; a file may lack any of them (a real
// machine's, or one written before they existed), and the fit then takes
// the fallback, Machine's zero value: word_bytes 0 (every size moves
// alike, no O), handshake and cooperative false.
var MachineColumns = []string{"word_bytes", "handshake", "cooperative"}

// Table is a measurements CSV: the measurements and the machine they were
// measured on. Absent lists the MachineColumns the file lacks, whose
// fallbacks Machine holds.
type Table struct {
	Machine      Machine
	Measurements []Measurement
	Absent       []string
}

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

// FitTable fits a table's measurements on the machine it describes; opt
// gives the rest (provenance, split tuning), its Machine is replaced. A
// simulator calibration and the CSV it saves both go through it, so that
// the fit from the file is the fit on the chip.
func FitTable(t Table, opt Options) (Report, error) {
	opt.Machine = t.Machine
	return Fit(t.Measurements, opt)
}

// ReadCSV reads a measurements CSV (see ReadTable) and returns its
// measurements only.
func ReadCSV(r io.Reader) ([]Measurement, error) {
	t, err := ReadTable(r)
	return t.Measurements, err
}

// ReadTable reads measurements: a header naming the columns kind, bytes,
// hops, n, delay_cycles and cycles, and optionally word_bytes, handshake
// and cooperative (MachineColumns; in any order; other columns are
// ignored, so a seconds column may stay next to the cycles), then one
// measurement per row. Lines starting with # are comments. Every error is
// an *InputError naming the line and column.
//
// The machine columns say what the measurements cannot: word_bytes, the
// size in bytes the machine moves without its processor (a whole number
// >= 0; Machine.Word); handshake, true when its rendezvous clear-to-send
// runs on the sender's processor, so that the late, ctswait and fanout
// rows are fitted as the handshake's legs; cooperative, true when its
// protocol handlers run only while the program waits (true or false, 1
// or 0). Each has one value for the file: a row that says otherwise is
// an error.
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
func ReadTable(r io.Reader) (Table, error) {
	var t Table
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // a short row gets our message, not encoding/csv's
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err == io.EOF {
		return t, &InputError{Msg: "empty: want a header " + strings.Join(Columns, ",")}
	}
	if err != nil {
		return t, csvErr(err)
	}
	col := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if _, dup := col[name]; dup && (slices.Contains(Columns, name) || slices.Contains(MachineColumns, name)) {
			line, _ := cr.FieldPos(i)
			return t, &InputError{Line: line, Column: i + 1, Name: name, Msg: "column " + name + " appears twice"}
		}
		col[name] = i
	}
	for _, c := range Columns {
		if _, ok := col[c]; !ok {
			line, _ := cr.FieldPos(0)
			return t, &InputError{Line: line, Msg: fmt.Sprintf("missing column %q: the header needs %s", c, strings.Join(Columns, ","))}
		}
	}
	for _, c := range MachineColumns {
		if _, ok := col[c]; !ok {
			t.Absent = append(t.Absent, c)
		}
	}
	first := 0 // the line of the first row, whose machine columns every row repeats
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return Table{}, csvErr(err)
		}
		line, _ := cr.FieldPos(0)
		m, err := parseRow(rec, col, line)
		if err != nil {
			return Table{}, err
		}
		mach, err := parseMachine(rec, col, line)
		if err != nil {
			return Table{}, err
		}
		if first == 0 {
			first, t.Machine = line, mach
		} else if err := sameMachine(t.Machine, mach, first, line, col); err != nil {
			return Table{}, err
		}
		t.Measurements = append(t.Measurements, m)
	}
}

// parseMachine reads a row's machine columns, those the header has; the
// others keep Machine's zero value, their fallback.
func parseMachine(rec []string, col map[string]int, line int) (Machine, error) {
	var mach Machine
	for _, name := range MachineColumns {
		i, ok := col[name]
		if !ok {
			continue
		}
		if i >= len(rec) {
			return mach, &InputError{Line: line, Column: i + 1, Name: name, Msg: fmt.Sprintf("missing: the row has %d fields", len(rec))}
		}
		s := strings.TrimSpace(rec[i])
		bad := func(msg string) error { return &InputError{Line: line, Column: i + 1, Name: name, Msg: msg} }
		if name == "word_bytes" {
			v, err := strconv.Atoi(s)
			if err != nil {
				return mach, bad(fmt.Sprintf("%q is not a whole number of bytes", s))
			}
			if v < 0 {
				return mach, bad(fmt.Sprintf("%d: allowed >= 0 (0: no size moves without the processor)", v))
			}
			mach.Word = v
			continue
		}
		var b bool
		switch strings.ToLower(s) {
		case "true", "1":
			b = true
		case "false", "0":
		default:
			return mach, bad(fmt.Sprintf("%q: allowed true or false (1 or 0)", s))
		}
		if name == "handshake" {
			mach.Handshake = b
		} else {
			mach.Cooperative = b
		}
	}
	return mach, nil
}

// sameMachine refuses a row whose machine columns differ from the first
// row's: a file holds one machine's measurements.
func sameMachine(want, got Machine, first, line int, col map[string]int) error {
	for _, c := range []struct {
		name      string
		want, got any
	}{{"word_bytes", want.Word, got.Word}, {"handshake", want.Handshake, got.Handshake}, {"cooperative", want.Cooperative, got.Cooperative}} {
		if c.want != c.got {
			return &InputError{Line: line, Column: col[c.name] + 1, Name: c.name,
				Msg: fmt.Sprintf("%v, but line %d says %v: a file holds one machine's measurements, the same %s on every row", c.got, first, c.want, c.name)}
		}
	}
	return nil
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

// WriteCSV writes measurements in the format ReadTable reads, without
// the machine columns: a machine the fit knows nothing about.
func WriteCSV(w io.Writer, ms []Measurement) error {
	return WriteTable(w, Table{Measurements: ms, Absent: slices.Clone(MachineColumns)})
}

// WriteTable writes a table in the format ReadTable reads: Columns, then
// the MachineColumns that are not Absent, repeated on every row; times
// with the shortest decimal that reads back to the same float64.
func WriteTable(w io.Writer, t Table) error {
	cw := csv.NewWriter(w)
	header := slices.Clone(Columns)
	for _, c := range MachineColumns {
		if !slices.Contains(t.Absent, c) {
			header = append(header, c)
		}
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	mach := map[string]string{"word_bytes": strconv.Itoa(t.Machine.Word),
		"handshake": strconv.FormatBool(t.Machine.Handshake), "cooperative": strconv.FormatBool(t.Machine.Cooperative)}
	for _, m := range t.Measurements {
		rec := []string{m.Kind, strconv.Itoa(m.Bytes), strconv.Itoa(m.Hops), strconv.Itoa(m.N), f(m.Delay), f(m.Cycles)}
		for _, c := range header[len(Columns):] {
			rec = append(rec, mach[c])
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Fallbacks names the values the Absent machine columns are fitted with
// (Machine's zero value), for a warning.
func (t Table) Fallbacks() string {
	var s []string
	for _, c := range t.Absent {
		switch c {
		case "word_bytes":
			s = append(s, "word_bytes = 0 (every size moves alike: no O)")
		case "handshake":
			s = append(s, "handshake = false (late, ctswait and fanout rows not fitted)")
		case "cooperative":
			s = append(s, "cooperative = false")
		}
	}
	return strings.Join(s, ", ")
}
