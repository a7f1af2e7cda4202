package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"nocsim/coll"
	"nocsim/logp"
)

// What nocsim predict prints: a model's prediction, its choice of
// algorithm, an optimal LogP schedule, as text or (asJSON) one JSON object.

// WritePrediction is one LogGP prediction: op and algorithm at procs ranks
// and size bytes, its cycles (and microseconds at clockHz) and its terms.
func WritePrediction(w io.Writer, asJSON bool, op, alg string, procs, size int, pr logp.Prediction, clockHz float64) error {
	if asJSON {
		return WriteJSON(w, map[string]any{"op": op, "algorithm": alg, "procs": procs, "size_bytes": size,
			"predicted_cycles": pr.Cycles, "predicted_seconds": pr.Cycles / clockHz, "terms": pr.Terms})
	}
	fmt.Fprintf(w, "%s %s, P=%d, %d bytes: %.1f cycles (%.3f us)\n", op, alg, procs, size, pr.Cycles, pr.Cycles/clockHz*1e6)
	return WriteTerms(w, pr.Terms)
}

// WriteSelection is the model's fastest algorithm for op per P and size,
// then where the choice changes; source names the parameters.
func WriteSelection(w io.Writer, op, source, objective string, s logp.Selection) error {
	what := "fastest algorithm"
	switch objective {
	case logp.ObjectiveEnergy:
		what = "least-energy algorithm (the fitted energy model)"
	case logp.ObjectiveEDP:
		what = "least energy-delay-product algorithm (the fitted energy model)"
	}
	fmt.Fprintf(w, "%s: the LogGP model's %s (%s)\n", op, what, source)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "P \\ bytes\t")
	for _, n := range s.Sizes {
		fmt.Fprintf(tw, "%d\t", n)
	}
	fmt.Fprintln(tw)
	for i, P := range s.Procs {
		fmt.Fprintf(tw, "%d\t", P)
		for _, a := range s.Choice[i] {
			fmt.Fprintf(tw, "%s\t", a)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range s.Crossovers {
		fmt.Fprintf(w, "crossover at P=%d: %s up to %d bytes, %s from %d\n", x.P, x.Below, x.Last, x.Above, x.Last+1)
	}
	return nil
}

// WriteOptimalSum is Karp et al.'s optimal summation in T cycles: n
// operands on the tree's processors, the tree to three levels.
func WriteOptimalSum(w io.Writer, asJSON bool, L, o, g, T float64, n int, tree *logp.SumTree) error {
	if asJSON {
		// The root and the partials it receives: the whole tree can
		// have 2^T processors (identical subtrees are shared in memory).
		var kids []map[string]any
		for _, k := range tree.Children {
			kids = append(kids, map[string]any{"done_cycles": k.Done, "operands": k.Operands, "procs": k.Procs})
		}
		return WriteJSON(w, map[string]any{"optimal": "sum", "L": L, "o": o, "g": g, "time_cycles": math.Floor(T),
			"operands": n, "procs": tree.Procs, "root_local_operands": tree.Local, "children": kids})
	}
	fmt.Fprintf(w, "optimal summation (LogP L=%g o=%g g=%g): %d operands on %d processors in %g cycles\n", L, o, g, n, tree.Procs, math.Floor(T))
	writeSumTree(w, tree, 0, 3)
	return nil
}

// writeSumTree prints the summation tree to depth levels, one subtree a
// line, children indented under the processor that receives their
// partial sums (the whole tree can have 2^T processors).
func writeSumTree(w io.Writer, t *logp.SumTree, depth, levels int) {
	fmt.Fprintf(w, "%sdone at %d: %d operands (%d local) on %d processors\n", strings.Repeat("  ", depth), t.Done, t.Operands, t.Local, t.Procs)
	if depth+1 >= levels {
		return
	}
	for _, k := range t.Children {
		writeSumTree(w, k, depth+1, levels)
	}
}

// WriteOptimalBroadcast is Karp et al.'s optimal broadcast to P ranks:
// its time, LogP's capacity against the schedule's and the schedule.
func WriteOptimalBroadcast(w io.Writer, asJSON bool, L, o, g float64, P int) error {
	finish, parent, at := coll.OptimalBroadcast(P, L, o, g)
	fromMax, _ := logp.MaxInTransit(logp.BroadcastTransits(parent, at, L, o))
	if asJSON {
		return WriteJSON(w, map[string]any{"optimal": "bcast", "L": L, "o": o, "g": g, "procs": P,
			"finish_cycles": finish, "parent": parent, "at_cycles": at, "capacity": logp.Capacity(L, g), "max_in_transit_from_one": fromMax})
	}
	fmt.Fprintf(w, "optimal broadcast (LogP L=%g o=%g g=%g), P=%d: %g cycles\n", L, o, g, P, finish)
	fmt.Fprintf(w, "capacity ceil(L/g) = %s messages in transit per processor; this schedule has at most %d from one sender\n", capacityText(L, g), fromMax)
	return WriteBroadcastSchedule(w, parent, at, L, o)
}

// WriteOptimalGather is the flat gather to one root of P ranks: every
// other rank sends the root one item at time 0, and LogP's capacity makes
// all but ceil(L/g) of them stall until the root takes a message off the
// network.
func WriteOptimalGather(w io.Writer, asJSON bool, L, o, g float64, P int) error {
	fg := logp.OptimalGather(P, L, o, g, true)
	_, inTransit := logp.MaxInTransit(fg.Transits())
	stalled, most := 0, 0.0
	for _, s := range fg.Stall {
		if s > 0 {
			stalled++
			most = max(most, s)
		}
	}
	if asJSON {
		return WriteJSON(w, map[string]any{"optimal": "gather", "L": L, "o": o, "g": g, "procs": P, "finish_cycles": fg.Finish,
			"capacity": fg.Capacity, "max_in_transit_to_root": inTransit, "enter_cycles": fg.Enter, "stall_cycles": fg.Stall, "taken_cycles": fg.Taken})
	}
	fmt.Fprintf(w, "flat gather (LogP L=%g o=%g g=%g), P=%d: %g cycles at the root\n", L, o, g, P, fg.Finish)
	fmt.Fprintf(w, "capacity ceil(L/g) = %s messages in transit to the root: %d of %d senders stall, the longest %g cycles (the root is not delayed)\n",
		capacityText(L, g), stalled, max(P-1, 0), most)
	return WriteGatherSchedule(w, fg)
}

// capacityText is ceil(L/g), or "unbounded" when g = 0.
func capacityText(L, g float64) string {
	if c := logp.Capacity(L, g); c > 0 {
		return fmt.Sprint(c)
	}
	return "unbounded"
}

// HockneyPrediction is `nocsim predict --model hockney`'s answer: the fit
// (t_s, t_e and the one-way times it came from) and an op (p2p or
// pingpong) of Size bytes.
type HockneyPrediction struct {
	Op      string
	Size    int // bytes
	Fit     logp.Hockney
	Source  string    // what the times came from
	Sizes   []int     // bytes
	Times   []float64 // one-way cycles at Sizes
	ClockHz float64   // 0: unknown (measurements), no seconds shown
}

// WriteHockney prints the prediction: a round trip is twice a one-way
// message.
func WriteHockney(w io.Writer, asJSON bool, h HockneyPrediction) error {
	k := 1.0
	if h.Op == "pingpong" {
		k = 2
	}
	terms := []logp.Term{{Name: fmt.Sprintf("%gx t_s", k), Cycles: k * h.Fit.Ts}, {Name: fmt.Sprintf("%gx m*t_e", k), Cycles: k * float64(h.Size) * h.Fit.Te}}
	cycles := k * h.Fit.Time(h.Size)
	if asJSON {
		out := map[string]any{"model": "hockney", "op": h.Op, "size_bytes": h.Size, "t_s_cycles": h.Fit.Ts, "t_e_cycles_per_byte": h.Fit.Te,
			"fit_source": h.Source, "fit_sizes_bytes": h.Sizes, "fit_one_way_cycles": h.Times, "predicted_cycles": cycles, "terms": terms}
		if h.ClockHz > 0 {
			out["predicted_seconds"] = cycles / h.ClockHz
		}
		return WriteJSON(w, out)
	}
	us := ""
	if h.ClockHz > 0 {
		us = fmt.Sprintf(" (%.3f us)", cycles/h.ClockHz*1e6)
	}
	fmt.Fprintf(w, "%s Hockney, %d bytes: %.1f cycles%s\n", h.Op, h.Size, cycles, us)
	WriteTerms(w, terms)
	fmt.Fprintf(w, "fit: t_s = %.2f cycles, t_e = %.4f cycles/byte, least squares on %d one-way times from %s\n", h.Fit.Ts, h.Fit.Te, len(h.Sizes), h.Source)
	return nil
}
