package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"nocsim/des"
)

// CollRow is one (operation, algorithm, P, size) run of a collective.
// Times are cycles from the common start (every rank calls the operation
// at cycle 0) to each rank's return.
type CollRow struct {
	Op         string     `json:"op"`
	Algorithm  string     `json:"algorithm"`
	Chosen     string     `json:"chosen_algorithm"` // the algorithm that ran: auto resolved by the library (or model: by the LogGP model)
	Procs      int        `json:"procs"`
	SizeBytes  int        `json:"size_bytes"`
	Root       int        `json:"root"`
	Cycles     des.Time   `json:"cycles"` // the last rank out
	Seconds    float64    `json:"seconds"`
	RankCycles []des.Time `json:"rank_cycles"`
	Correct    bool       `json:"correct"`
	Error      string     `json:"error,omitempty"`
	Predicted  float64    `json:"predicted_cycles,omitempty"` // LogGP, when parameters are given
	RelError   float64    `json:"relative_error,omitempty"`   // (predicted - simulated) / simulated
	// Energy is the run's energy (the whole chip, the call's first cycle
	// to its last; absent with energy_model = none).
	Energy *Energy `json:"energy,omitempty"`
	// The fitted energy model's prediction, when the parameters have one
	// (pJ), and its error against Energy: (predicted - simulated) / simulated.
	PredictedEnergyPJ float64 `json:"predicted_energy_pj,omitempty"`
	EnergyRelError    float64 `json:"energy_relative_error,omitempty"`
	// The energy-delay products, energy x cycles (pJ x cycles): the run's,
	// and the model's (its energy x its time), the quantity an algorithm
	// chosen by --objective edp minimises.
	EDP          float64 `json:"edp_pj_cycles,omitempty"`
	PredictedEDP float64 `json:"predicted_edp_pj_cycles,omitempty"`
}

// edpCell is an energy-delay product's cell in nJ x cycles, "-" for none.
func edpCell(pjCycles float64) string {
	if pjCycles <= 0 {
		return "-\t"
	}
	return fmt.Sprintf("%.4g\t", pjCycles/1e3)
}

func WriteCollTable(out io.Writer, rows []CollRow) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	model := len(rows) > 0 && rows[0].Predicted > 0
	energy := slices.ContainsFunc(rows, func(r CollRow) bool { return r.Energy != nil })
	head, units := "op\talgorithm\tchosen\tprocs\tsize\tcycles\ttime\tcorrect\t", "\t\t(that ran)\t\t(bytes)\t(last rank)\t(us)\t\t"
	if model {
		head, units = head+"LogGP\terror\t", units+"(cycles)\t\t"
	}
	if energy {
		head, units = head+"energy\tpower\tEDP\t", units+"(nJ)\t(mW)\t(nJ*cycles)\t"
	}
	emodel := slices.ContainsFunc(rows, func(r CollRow) bool { return r.PredictedEnergyPJ > 0 })
	if emodel {
		head, units = head+"E model\terror\tEDP model\t", units+"(nJ)\t\t(nJ*cycles)\t"
	}
	fmt.Fprintln(tw, head)
	fmt.Fprintln(tw, units)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%.3f\t%v\t", r.Op, r.Algorithm, r.Chosen, r.Procs, r.SizeBytes, r.Cycles, r.Seconds*1e6, r.Correct)
		if model {
			fmt.Fprintf(tw, "%.0f\t%+.1f%%\t", r.Predicted, 100*r.RelError)
		}
		if energy {
			fmt.Fprint(tw, energyCells(r.Energy), edpCell(r.EDP))
		}
		if emodel && r.PredictedEnergyPJ > 0 {
			fmt.Fprintf(tw, "%.2f\t%+.1f%%\t%s", r.PredictedEnergyPJ/1e3, 100*r.EnergyRelError, edpCell(r.PredictedEDP))
		} else if emodel {
			fmt.Fprint(tw, "-\t-\t-\t")
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// WriteModelReport summarises how the LogGP prediction fares: the mean and
// largest relative error per algorithm, and, for every P and size where
// several algorithms ran, whether the model's fastest is the simulation's.
func WriteModelReport(out io.Writer, rows []CollRow) error {
	type agg struct {
		n        int
		sum, top float64
	}
	var order []string
	errs := map[string]*agg{}
	for _, r := range rows {
		a := errs[r.Algorithm]
		if a == nil {
			a = &agg{}
			errs[r.Algorithm] = a
			order = append(order, r.Algorithm)
		}
		e := math.Abs(r.RelError)
		a.n++
		a.sum += e
		a.top = math.Max(a.top, e)
	}
	fmt.Fprintln(out, "\nLogGP against the simulation (|predicted - simulated| / simulated):")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "algorithm\tmean error\tmax error\t")
	for _, a := range order {
		fmt.Fprintf(tw, "%s\t%.1f%%\t%.1f%%\t\n", a, 100*errs[a].sum/float64(errs[a].n), 100*errs[a].top)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	type key struct{ procs, size int }
	groups := map[key][]CollRow{}
	var keys []key
	for _, r := range rows {
		if strings.HasPrefix(r.Algorithm, "model:") || r.Algorithm == "auto" {
			continue
		}
		k := key{r.Procs, r.SizeBytes}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	header := false
	for _, k := range keys {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		if !header {
			fmt.Fprintln(out, "\nthe model's choice against the simulation's fastest:")
			header = true
		}
		best, pick := g[0], g[0]
		for _, r := range g {
			if r.Cycles < best.Cycles {
				best = r
			}
			if r.Predicted < pick.Predicted {
				pick = r
			}
		}
		excess := float64(pick.Cycles-best.Cycles) / float64(best.Cycles)
		verdict := "agrees"
		if pick.Algorithm != best.Algorithm {
			verdict = fmt.Sprintf("picks %s, %.0f%% slower than %s", pick.Algorithm, 100*excess, best.Algorithm)
		}
		fmt.Fprintf(out, "  P=%d, %d bytes: model %s, simulation %s: %s\n", k.procs, k.size, pick.Algorithm, best.Algorithm, verdict)
	}
	return nil
}
