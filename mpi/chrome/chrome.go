package chrome

import (
	"encoding/json"
	"io"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"sync"

	"nocsim/des"
)

// Recorder records one run's MPI calls and messages as Chrome trace
// events: one track per rank, each call a slice, each message a flow arrow
// from its send call to the completion of its receive. Times are kept in
// cycles and written in microseconds (the format's unit for ts and dur) as
// exact decimals: see Microseconds.
type Recorder struct {
	events []traceEvent
	sends  map[uint64]des.Time // (source rank, request id) -> send call
	flows  int
}

// NewRecorder is an empty recorder.
func NewRecorder() *Recorder { return &Recorder{sends: map[uint64]des.Time{}} }

// Call records a call of rank as a slice from start to end: name is the
// MPI call, call its description with arguments.
func (t *Recorder) Call(rank int, name, call string, start, end des.Time) {
	t.events = append(t.events, traceEvent{name: name, cat: "mpi", ph: "X", ts: start, dur: end - start, hasDur: true, tid: rank,
		args: map[string]any{"call": call, "cycles": end - start}})
}

// Send records that rank src's send id was called at at; Message draws
// the arrow from it.
func (t *Recorder) Send(src int, id uint32, at des.Time) {
	t.sends[uint64(src)<<32|uint64(id)] = at
}

// Message records send id of rank src, bytes long, completing at rank dst
// at done, as a flow arrow from its Send; a message whose Send was not
// recorded is left out.
func (t *Recorder) Message(src int, id uint32, dst int, bytes int, proto string, done des.Time) {
	key := uint64(src)<<32 | uint64(id)
	at, ok := t.sends[key]
	if !ok {
		return
	}
	delete(t.sends, key)
	t.flows++
	args := map[string]any{"bytes": bytes, "protocol": proto}
	t.events = append(t.events,
		traceEvent{name: "message", cat: "msg", ph: "s", ts: at, tid: src, id: t.flows, args: args},
		traceEvent{name: "message", cat: "msg", ph: "f", bp: "e", ts: done, tid: dst, id: t.flows, args: args})
}

// traceEvent is one event, its times in cycles.
type traceEvent struct {
	name, cat, ph string
	ts, dur       des.Time
	hasDur        bool
	tid, id       int
	bp            string
	args          map[string]any
}

// jsonEvent is an event as written. Ts and Dur are decimal numbers written
// as they are (json.Number), so no float rounding shows (12.300000000001).
type jsonEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   json.Number    `json:"ts"`
	Dur  json.Number    `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   int            `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// TraceSet gathers the Chrome traces of several runs (the points of a
// sweep) into one file: each run is a process, named, its ranks threads.
// Add may be called from parallel workers; the file lists the runs by
// their order, so it does not depend on which finished first.
type TraceSet struct {
	mu   sync.Mutex
	runs []chromeRun
}

type chromeRun struct {
	order int
	name  string
	ranks int
	evs   []jsonEvent // pid filled in by Write
}

// Add takes a finished run's events, rec (nil when the run was not
// traced: the run is listed without events), its ranks and the clock its
// cycles count. order places the run in the file; name, when not empty,
// names its process.
func (s *TraceSet) Add(order int, name string, ranks int, clockHz float64, rec *Recorder) {
	run := chromeRun{order: order, name: name, ranks: ranks}
	if rec != nil {
		d := Decimals(clockHz)
		for _, e := range rec.events {
			je := jsonEvent{Name: e.name, Cat: e.cat, Ph: e.ph, Ts: Microseconds(e.ts, clockHz, d), Tid: e.tid, ID: e.id, BP: e.bp, Args: e.args}
			if e.hasDur {
				je.Dur = Microseconds(e.dur, clockHz, d)
			}
			run.evs = append(run.evs, je)
		}
	}
	s.mu.Lock()
	s.runs = append(s.runs, run)
	s.mu.Unlock()
}

// Len is the number of runs added.
func (s *TraceSet) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs)
}

// Write writes every run as one Chrome trace JSON object: the runs in
// order as processes 0, 1, ..., each with its name and its ranks' names
// first, then its events.
func (s *TraceSet) Write(out io.Writer) error {
	s.mu.Lock()
	runs := slices.Clone(s.runs)
	s.mu.Unlock()
	slices.SortStableFunc(runs, func(a, b chromeRun) int { return a.order - b.order })
	evs := []jsonEvent{}
	for pid, r := range runs {
		if r.name != "" {
			evs = append(evs, jsonEvent{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": r.name}},
				jsonEvent{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": pid}})
		}
		for rank := range r.ranks {
			evs = append(evs, jsonEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: rank, Args: map[string]any{"name": "rank " + strconv.Itoa(rank)}})
		}
		for _, e := range r.evs {
			e.Pid = pid
			evs = append(evs, e)
		}
	}
	return json.NewEncoder(out).Encode(map[string]any{"traceEvents": evs, "displayTimeUnit": "ns"})
}

// Decimals is the number of decimals every time of a trace is written
// with, in microseconds: the fewest that write any whole number of cycles
// at clockHz exactly (a cycle at 1 GHz is 0.001 us: 3 decimals; at 250
// MHz, 0.004 us: 3), which exist when the clock divides 10^12 Hz. Other
// clocks get 6 decimals (the picosecond), rounded to the nearest.
func Decimals(clockHz float64) int {
	if clockHz != math.Trunc(clockHz) || clockHz < 1 || clockHz > 1e12 {
		return 6
	}
	h := uint64(clockHz)
	p := uint64(1_000_000)
	for d := 0; d < 6; d++ {
		if p%h == 0 {
			return d
		}
		p *= 10
	}
	return 6
}

// Microseconds writes c cycles at clockHz in microseconds with exactly d
// decimals, rounded half up: c * 10^(6+d) / clockHz computed in integers
// (exact when Decimals chose d), never through a float64 of the result.
func Microseconds(c des.Time, clockHz float64, d int) json.Number {
	if c < 0 {
		c = 0 // times never run backwards; keep the text a plain decimal
	}
	scale := uint64(math.Pow10(6 + d))
	var digits string
	if h := uint64(clockHz); float64(h) == clockHz && h > 0 {
		hi, lo := bits.Mul64(uint64(c), scale)
		if hi < h {
			q, r := bits.Div64(hi, lo, h)
			if r >= h-r { // r >= h/2 without overflow
				q++
			}
			digits = strconv.FormatUint(q, 10)
		}
	}
	if digits == "" {
		// A clock that is not a whole number of Hz, or a product past 128
		// bits: exact rational arithmetic, rounded half up.
		num := new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(int64(c)), new(big.Int).SetUint64(scale)))
		q := num.Quo(num, new(big.Rat).SetFloat64(clockHz))
		q.Add(q, big.NewRat(1, 2))
		digits = new(big.Int).Quo(q.Num(), q.Denom()).String()
	}
	if d == 0 {
		return json.Number(digits)
	}
	for len(digits) <= d {
		digits = "0" + digits
	}
	return json.Number(digits[:len(digits)-d] + "." + digits[len(digits)-d:])
}
