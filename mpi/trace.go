package mpi

import (
	"io"

	"nocsim/des"
	"nocsim/mpi/chrome"
)

// EnableTrace starts recording a Chrome trace (package mpi/chrome); call
// it before Launch.
func (w *World) EnableTrace() { w.trace = chrome.NewRecorder() }

// TraceTo is the configuration with tracing on: a world made from it
// records a Chrome trace from the start and, when its Run succeeds, adds
// it to s as run name at order. Code that builds its own world (each
// application) is so traced without a hook of its own.
func (c Config) TraceTo(s *chrome.TraceSet, order int, name string) Config {
	c.trace = &traceTarget{set: s, order: order, name: name}
	return c
}

// traceTarget is where a traced world's events go.
type traceTarget struct {
	set   *chrome.TraceSet
	order int
	name  string
}

// traceCall records a call of rank r. Describing the call costs a string,
// so it is built only when tracing.
func (w *World) traceCall(r *Rank, name string, start, end des.Time) {
	if w.trace != nil {
		w.trace.Call(r.rank, name, r.call.String(), start, end)
	}
}

func (w *World) traceSend(src int, id uint32, at des.Time) {
	if w.trace != nil {
		w.trace.Send(src, id, at)
	}
}

func (w *World) traceMessage(src int, id uint32, dst int, bytes int, proto string, done des.Time) {
	if w.trace != nil {
		w.trace.Message(src, id, dst, bytes, proto, done)
	}
}

// addTrace adds the world's events to s as run name at order.
func (w *World) addTrace(s *chrome.TraceSet, order int, name string) {
	s.Add(order, name, len(w.Ranks), w.M.CPU.ClockHz, w.trace)
}

// WriteTrace writes the recorded events as a Chrome trace JSON object: the
// run is process 0, each rank a thread of it.
func (w *World) WriteTrace(out io.Writer) error {
	var s chrome.TraceSet
	w.addTrace(&s, 0, "")
	return s.Write(out)
}
