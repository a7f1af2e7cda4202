package logp

import (
	"fmt"

	"nocsim/logp/loggops"
)

// Tier maps fitted LogGP parameters (calibrate's output) to the
// tier's, for ranks placed on the tiles place[r] of m:
//
//   - each fitted segment becomes a tier segment of the same size range
//     with the same L, L_per_hop, o_s, o_r, g, G and O; the fit's
//     word_bytes becomes the tier's Word, so O is charged only to sizes
//     that are not a whole number of words, as calibrate fitted it;
//
//   - a message's latency is L + L_per_hop·h with h the hop count between
//     the two ranks' tiles on m (XY routing on a mesh), the distance the
//     fit measured;
//
//   - S is the protocol's eager threshold: messages above it complete
//     at the sender only when the receiver has matched them (the tier's
//     rendezvous). The caller gives it (scenarios' RendezvousThreshold).
//
//   - a segment fitted with the handshake (calibrate does it on a
//     cooperative machine, under scmp) keeps it: its rendezvous run as
//     request to send, clear-to-send on the sender's CPU (L_cts, o_cts)
//     and data (L_data, g_data), and Cooperative comes from the file's
//     cooperative key (the machine it was fitted on: preempt_threads
//     false). For such a segment g_data, the NIC's gap per message that
//     the fan-out benchmark shows, replaces g, the one-to-one train's
//     rate, which the legs now produce themselves.
//
// With these, the tier's one-way time of an isolated s-byte message over
// h hops is o_s + L + h·L_per_hop + (s-1)G + o_r, exactly the fitted
// one-way time that calibrate's residuals check, handshake or not.
func (p Params) Tier(m loggops.Topology, place []int, S uint64) (loggops.Params, error) {
	if err := p.Validate(); err != nil {
		return loggops.Params{}, err
	}
	for r, t := range place {
		if t < 0 || t >= m.Nodes() {
			return loggops.Params{}, fmt.Errorf("rank %d on tile %d: allowed 0..%d (%s)", r, t, m.Nodes()-1, m.Name())
		}
	}
	q := loggops.Params{S: S, Cooperative: p.Cooperative}
	for _, s := range p.Segments {
		q.Segments = append(q.Segments, tierSegment(s, -1))
	}
	q.Word = uint64(p.Word)
	// The scalar fields describe the first segment, for readers that show
	// one parameter set; the simulation uses the segments.
	f := q.Segments[0]
	q.L, q.Os, q.Or, q.Gap, q.G = f.L, f.Os, f.Or, f.Gap, f.G
	place = append([]int(nil), place...)
	q.Hops = func(a, b int) int { return m.Hops(place[a], place[b]) }
	return q, nil
}

// TierAvgHops maps fitted parameters with no placement: every
// message crosses the fit's average distance (L + avg_hops·L_per_hop, and
// the handshake's legs alike), for more ranks than the fitted mesh holds
// or parameters from a CSV with no mesh.
func (p Params) TierAvgHops(S uint64) (loggops.Params, error) {
	if err := p.Validate(); err != nil {
		return loggops.Params{}, err
	}
	q := loggops.Params{S: S, Cooperative: p.Cooperative}
	for _, s := range p.Segments {
		q.Segments = append(q.Segments, tierSegment(s, p.AvgHops))
	}
	q.Word = uint64(p.Word)
	f := q.Segments[0]
	q.L, q.Os, q.Or, q.Gap, q.G = f.L, f.Os, f.Or, f.Gap, f.G
	return q, nil
}

// tierSegment is fitted segment s as a tier segment: with per-hop terms
// for a hop function (folded < 0), or with every latency taken at the
// average distance folded (L + folded·L_per_hop, and the handshake's
// legs alike, so that they keep their share of it).
func tierSegment(s Segment, folded float64) loggops.Segment {
	q := loggops.Segment{MaxBytes: uint64(s.MaxBytes), L: s.L, Lh: s.Lh, Os: s.Os, Or: s.Or, Gap: s.Gap, G: s.G, O: s.O}
	if s.Handshake {
		q.Handshake, q.Lpost, q.Octs, q.GapData = true, s.Lpost, s.Octs, s.GapData
		q.Lcts, q.LctsH, q.Ldata, q.LdataH = s.Lcts, s.LctsH, s.Ldata, s.LdataH
	}
	if folded >= 0 {
		q.L, q.Lcts, q.Ldata = s.L+folded*s.Lh, q.Lcts+folded*q.LctsH, q.Ldata+folded*q.LdataH
		q.Lh, q.LctsH, q.LdataH = 0, 0, 0
	}
	return q
}
