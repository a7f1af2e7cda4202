package calibrate

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// WriteText prints the report for people: per segment the parameters with
// their 95% intervals, R², the worst residual, and every warning. Fitted
// values are printed as they are, negative ones included, next to the
// warning that says why they cannot be a machine's.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	p := r.Params
	procs := "unknown"
	if p.P > 0 {
		procs = fmt.Sprint(p.P)
	}
	fmt.Fprintf(&b, "LogGP fit: source %s, mesh %s, protocol %s, P = %s, sizes %v (bytes), %d segment(s), breakpoints %v (bytes)\n",
		orDash(p.Source), orDash(p.Mesh), orDash(p.Protocol), procs, p.Sizes, len(r.Segments), r.Breakpoints)
	for i, s := range r.Segments {
		bound := "unbounded"
		if s.Seg.MaxBytes > 0 {
			bound = fmt.Sprintf("max_bytes = %d", s.Seg.MaxBytes)
		}
		fmt.Fprintf(&b, "segment %d: measured %d..%d B, %s, R² = %.5f, worst one-way error %.2f%%\n", i, s.MinBytes, s.MaxBytes, bound, s.R2, 100*s.WorstRelErr())
		for _, e := range []struct {
			name, unit string
			e          Estimate
		}{{"L", "cycles", s.L}, {"L_per_hop", "cycles", s.Lh}, {"o_s", "cycles", s.Os}, {"o_r", "cycles", s.Or}, {"g", "cycles", s.Gap}, {"G", "cycles/byte", s.G}, {"O", "cycles/byte", s.O}} {
			fmt.Fprintf(&b, "  %-9s = %12.5g ± %-10s %s\n", e.name, e.e.Value, ci(e.e.CI95), e.unit)
		}
		if h := s.Handshake; h != nil {
			b.WriteString("  handshake (the rendezvous's clear-to-send on the sender's processor):\n")
			for _, e := range []struct {
				name string
				e    Estimate
			}{{"L_post", h.Lpost}, {"L_cts", h.Lcts}, {"L_cts_per_hop", h.LctsH}, {"L_data", h.Ldata}, {"L_data_per_hop", h.LdataH}, {"o_cts", h.Octs}, {"g_data", h.GapData}} {
				fmt.Fprintf(&b, "  %-14s = %12.5g ± %-10s cycles\n", e.name, e.e.Value, ci(e.e.CI95))
			}
			for _, c := range h.Checks {
				what := fmt.Sprintf("train of %d, sender's time", c.N)
				if c.Kind == KindFanout {
					what = fmt.Sprintf("fan-out to %d, spacing", c.N)
				}
				fmt.Fprintf(&b, "  check %-28s %6d B, %d hops: measured %9.1f, tier %9.1f cycles (%+.2f%%)\n", what, c.Bytes, c.Hops, c.Measured, c.Predicted, 100*c.RelErr)
			}
		}
	}
	if e := p.Energy; e != nil {
		fmt.Fprintf(&b, "energy fit (%s, %d ping-pong sizes and distances, worst message error %.2f%%): static power %.4g mW\n",
			e.Model, e.Samples, 100*e.MaxResidual, e.StaticMW)
		for i, s := range e.Segments {
			bound := "unbounded"
			if s.MaxBytes > 0 {
				bound = fmt.Sprintf("max_bytes = %d", s.MaxBytes)
			}
			fmt.Fprintf(&b, " energy segment %d: %s\n", i, bound)
			for _, x := range []struct {
				name, unit string
				v, ci      float64
			}{{"E_msg", "pJ/message", s.MessagePJ, s.MessageCI}, {"E_hop", "pJ/(message*hop)", s.HopPJ, s.HopCI}, {"E_byte", "pJ/byte", s.BytePJ, s.ByteCI}, {"E_byte_hop", "pJ/(byte*hop)", s.ByteHopPJ, s.ByteHopCI},
				{"E_copy_byte", "pJ/byte (sizes not whole words)", s.CopyBytePJ, s.CopyByteCI}} {
				fmt.Fprintf(&b, "  %-11s = %12.5g ± %-10s %s\n", x.name, x.v, ci(x.ci), x.unit)
			}
		}
		r.writeEnergyResiduals(&b)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WorstRelErr is the largest |RelErr| among the segment's residuals.
func (s SegmentFit) WorstRelErr() float64 {
	worst := 0.0
	for _, r := range s.Residuals {
		worst = math.Max(worst, math.Abs(r.RelErr))
	}
	return worst
}

func ci(x float64) string {
	if math.IsNaN(x) {
		return "unknown"
	}
	return fmt.Sprintf("%.3g", x)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeEnergyResiduals prints each measured size and distance's energy per
// message (the ping-pong's dynamic energy over its one-way messages) beside
// the fit's, when Report.AddEnergy has set them.
func (r Report) writeEnergyResiduals(b *strings.Builder) {
	head := false
	for _, s := range r.Segments {
		for _, x := range s.Residuals {
			if x.MeasuredEnergyPJ == 0 {
				continue
			}
			if !head {
				b.WriteString(" energy per message (the ping-pongs' dynamic energy per one-way message; static power apart):\n")
				fmt.Fprintf(b, "  %8s  %4s  %14s  %14s  %8s\n", "bytes", "hops", "measured (pJ)", "model (pJ)", "error")
				head = true
			}
			fmt.Fprintf(b, "  %8d  %4d  %14.1f  %14.1f  %+7.2f%%\n", x.Bytes, x.Hops, x.MeasuredEnergyPJ, x.PredictedEnergyPJ, 100*x.EnergyRelErr)
		}
	}
}
