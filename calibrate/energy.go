package calibrate

import (
	"fmt"
	"math"

	"nocsim/logp"
)

// EnergySample is one ping-pong size at one distance, priced: the chip's
// dynamic energy (all but its leakage and clock) over Messages one-way
// messages of Bytes bytes over Hops hops.
type EnergySample struct {
	Bytes, Hops int
	Messages    int
	DynamicPJ   float64
}

// FitEnergy fits the per-message terms of the energy model to the
// samples, each segment of sizes apart (bounds: LogGP's segments'
// max_bytes, the last 0): each message's share of the dynamic energy,
//
//	E_dyn / messages = E_msg + E_hop * h + E_byte * m + E_byte_hop * m * h [+ E_copy_byte * m if copied],
//
// by least squares weighted by 1/y^2 (relative errors, so that a 8-byte
// message's energy counts as much as a 64 KiB one's), with 95% intervals.
// A term the segment's samples cannot tell apart is left out (0): the
// hop and byte-hop terms with one distance only, the copy term with no copied size.
// staticMW is the chip's static power, which the pricing gives exactly
// (its routers' leakage and clock do not depend on what runs), tiles its
// tile count.
func FitEnergy(samples []EnergySample, staticMW float64, tiles, word int, bounds []int, model string) (logp.EnergyParams, error) {
	e := logp.EnergyParams{Model: model, StaticMW: staticMW, Tiles: tiles, Samples: len(samples), Word: word}
	if len(bounds) == 0 {
		bounds = []int{0}
	}
	lo := 0
	for _, hi := range bounds {
		var in []EnergySample
		for _, s := range samples {
			if s.Bytes > lo && (hi == 0 || s.Bytes <= hi) || lo == 0 && s.Bytes == 0 {
				in = append(in, s)
			}
		}
		seg, worst, err := fitEnergySegment(in, e)
		if err != nil {
			return e, fmt.Errorf("energy fit of %d..%d bytes: %w", lo, hi, err)
		}
		seg.MaxBytes = hi
		e.Segments = append(e.Segments, seg)
		e.MaxResidual = math.Max(e.MaxResidual, worst)
		lo = hi
	}
	return e, nil
}

// fitEnergySegment fits one segment's samples (e gives the word size).
func fitEnergySegment(samples []EnergySample, e logp.EnergyParams) (logp.EnergySegment, float64, error) {
	var seg logp.EnergySegment
	if len(samples) == 0 {
		return seg, 0, fmt.Errorf("no sample in the segment")
	}
	hopTerm, copyTerm := false, false
	for _, s := range samples {
		hopTerm = hopTerm || s.Hops != samples[0].Hops
		copyTerm = copyTerm || e.Copied(s.Bytes)
	}
	// Keep a degree of freedom for the intervals (an interval of unknown
	// width has no number to write): with too few samples the copy term
	// goes first, then the byte-hop term.
	terms := func() int {
		n := 2
		if hopTerm {
			n += 2
		}
		if copyTerm {
			n++
		}
		return n
	}
	if len(samples) <= terms() {
		copyTerm = false
	}
	if len(samples) <= terms() {
		hopTerm = false
	}
	if len(samples) <= terms() {
		return seg, 0, fmt.Errorf("%d sample(s): at least 3 sizes are needed", len(samples))
	}
	var x [][]float64
	var y, w []float64
	for _, s := range samples {
		if s.Messages < 1 {
			return seg, 0, fmt.Errorf("sample of %d bytes over %d hops: %d messages", s.Bytes, s.Hops, s.Messages)
		}
		v := s.DynamicPJ / float64(s.Messages)
		row := []float64{1, float64(s.Bytes)}
		if hopTerm {
			row = append(row, float64(s.Hops), float64(s.Bytes*s.Hops))
		}
		if copyTerm {
			c := 0.0
			if e.Copied(s.Bytes) {
				c = float64(s.Bytes)
			}
			row = append(row, c)
		}
		x = append(x, row)
		y = append(y, v)
		w = append(w, 1/(v*v))
	}
	f, err := wls(x, y, w)
	if err != nil {
		return seg, 0, fmt.Errorf("%w (over %d samples: it needs sizes and two distances)", err, len(samples))
	}
	seg.MessagePJ, seg.MessageCI, seg.BytePJ, seg.ByteCI = f.beta[0], f.ci(0), f.beta[1], f.ci(1)
	j := 2
	if hopTerm {
		seg.HopPJ, seg.HopCI = f.beta[j], f.ci(j)
		seg.ByteHopPJ, seg.ByteHopCI = f.beta[j+1], f.ci(j+1)
		j += 2
	}
	if copyTerm {
		seg.CopyBytePJ, seg.CopyByteCI = f.beta[j], f.ci(j)
	}
	one := logp.EnergyParams{Word: e.Word, Segments: []logp.EnergySegment{seg}}
	worst := 0.0
	for i, s := range samples {
		worst = math.Max(worst, math.Abs(one.MessageEnergy(s.Bytes, float64(s.Hops))-y[i])/y[i])
	}
	return seg, worst, nil
}

// AddEnergy sets the energy beside each residual's time: the sample of
// the same size and distance (its dynamic energy per message) and the
// report's energy fit's per-message energy (Params.Energy, which must be
// set). A residual with no such sample is left without.
func (r *Report) AddEnergy(samples []EnergySample) {
	e := r.Params.Energy
	if e == nil {
		return
	}
	for i := range r.Segments {
		for k := range r.Segments[i].Residuals {
			res := &r.Segments[i].Residuals[k]
			for _, s := range samples {
				if s.Bytes != res.Bytes || s.Hops != res.Hops || s.Messages < 1 {
					continue
				}
				res.MeasuredEnergyPJ = s.DynamicPJ / float64(s.Messages)
				res.PredictedEnergyPJ = e.MessageEnergy(s.Bytes, float64(s.Hops))
				res.EnergyRelErr = (res.PredictedEnergyPJ - res.MeasuredEnergyPJ) / res.MeasuredEnergyPJ
				break
			}
		}
	}
}
