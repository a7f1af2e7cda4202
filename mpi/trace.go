package mpi

import (
	"encoding/json"
	"io"

	"nocsim/des"
)

// Tracing records MPI calls and messages as Chrome trace events (the JSON
// format Perfetto and chrome://tracing open): one track per rank, each call
// a slice, each message a flow arrow from its send call to the completion
// of its receive.
type tracer struct {
	events []traceEvent
	sends  map[uint64]des.Time // (source rank, request id) -> send call
	flows  int
}

type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   int            `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// EnableTrace starts recording; call it before Launch.
func (w *World) EnableTrace() { w.trace = &tracer{sends: map[uint64]des.Time{}} }

func (w *World) us(c des.Time) float64 { return w.Seconds(c) * 1e6 }

func (w *World) traceCall(r *Rank, name string, start, end des.Time) {
	if w.trace == nil {
		return
	}
	d := w.us(end - start)
	w.trace.events = append(w.trace.events, traceEvent{Name: name, Cat: "mpi", Ph: "X", Ts: w.us(start), Dur: &d, Tid: r.rank,
		Args: map[string]any{"call": r.call.String(), "cycles": end - start}})
}

func (w *World) traceSend(src int, id uint32, at des.Time) {
	if w.trace != nil {
		w.trace.sends[uint64(src)<<32|uint64(id)] = at
	}
}

func (w *World) traceMessage(src int, id uint32, dst int, bytes int, proto string, done des.Time) {
	if w.trace == nil {
		return
	}
	key := uint64(src)<<32 | uint64(id)
	at, ok := w.trace.sends[key]
	if !ok {
		return
	}
	delete(w.trace.sends, key)
	w.trace.flows++
	args := map[string]any{"bytes": bytes, "protocol": proto}
	w.trace.events = append(w.trace.events,
		traceEvent{Name: "message", Cat: "msg", Ph: "s", Ts: w.us(at), Tid: src, ID: w.trace.flows, Args: args},
		traceEvent{Name: "message", Cat: "msg", Ph: "f", BP: "e", Ts: w.us(done), Tid: dst, ID: w.trace.flows, Args: args})
}

// WriteTrace writes the recorded events as a Chrome trace JSON object.
func (w *World) WriteTrace(out io.Writer) error {
	var ev []traceEvent
	if w.trace != nil {
		ev = w.trace.events
	}
	meta := make([]traceEvent, 0, len(w.Ranks))
	for _, r := range w.Ranks {
		meta = append(meta, traceEvent{Name: "thread_name", Ph: "M", Tid: r.rank, Args: map[string]any{"name": "rank " + itoa(r.rank)}})
	}
	enc := json.NewEncoder(out)
	return enc.Encode(map[string]any{"traceEvents": append(meta, ev...), "displayTimeUnit": "ns"})
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
