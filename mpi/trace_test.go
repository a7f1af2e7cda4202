package mpi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi/chrome"
	"nocsim/mpi/datatype"
)

// A traced run's file holds every slice's duration exactly as its cycle
// count at the clock (dur x clock / 10^6 = args.cycles), every time with
// the same number of decimals, and tracks for every rank.
func TestTraceFileTimesMatchCycles(t *testing.T) {
	for _, hz := range []float64{1e9, 3e8} {
		w := job(t, 2, 2, cfgFor("scmp"), func(cs *endpoint.CPUSpec) { cs.ClockHz = hz })
		w.EnableTrace()
		w.Launch(func(r *Rank) {
			c := r.CommWorld()
			buf := r.MustAlloc(64)
			if err := r.Bcast(buf, 8, datatype.Float64, 0, c); err != nil {
				t.Error(err)
			}
		})
		if err := w.Run(); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := w.WriteTrace(&b); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(&b)
		dec.UseNumber()
		var tr struct {
			TraceEvents []struct {
				Ph   string
				Ts   json.Number
				Dur  json.Number
				Tid  int
				Args map[string]any
			} `json:"traceEvents"`
		}
		if err := dec.Decode(&tr); err != nil {
			t.Fatal(err)
		}
		d := chrome.Decimals(hz)
		ranks := map[int]bool{}
		for _, e := range tr.TraceEvents {
			if e.Ph == "M" {
				continue
			}
			ranks[e.Tid] = true
			for _, n := range []json.Number{e.Ts, e.Dur} {
				if s := string(n); s != "" && (strings.Contains(s, "e") || len(s)-strings.Index(s, ".")-1 != d) {
					t.Errorf("%g Hz: time %s is not written with %d decimals", hz, s, d)
				}
			}
			if e.Ph != "X" {
				continue
			}
			cyc, err := strconv.ParseInt(string(e.Args["cycles"].(json.Number)), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if want := string(chrome.Microseconds(des.Time(cyc), hz, d)); string(e.Dur) != want {
				t.Errorf("%g Hz: a %d-cycle call has dur %s us, want %s", hz, cyc, e.Dur, want)
			}
		}
		if len(ranks) != 4 {
			t.Errorf("%g Hz: events on %d ranks' tracks, want 4", hz, len(ranks))
		}
	}
}
