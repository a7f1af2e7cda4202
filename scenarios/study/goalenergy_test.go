package study

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"nocsim/logp"
	"nocsim/logp/goal"
	"nocsim/mpi/trace"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
)

// goalEnergyParams are fitted parameters on a 2x2 mesh with an energy
// model of round figures, two segments (the first up to 64 bytes) and
// 4-byte words, so that every term of a message can be counted by hand.
func goalEnergyParams() logp.Params {
	return logp.Params{P: 4, Mesh: "2x2", AvgHops: 1.5, Protocol: "scmp", Source: logp.SourceSimulator, ClockHz: 1e9, Word: 4,
		Segments: []logp.Segment{{MaxBytes: 64, L: 10, Lh: 1, Os: 2, Or: 4, Gap: 3}, {L: 12, Lh: 1, Os: 2, Or: 4, Gap: 3, G: 0.25}},
		Energy: &logp.EnergyParams{Model: "hand", StaticMW: 100, Tiles: 4, Word: 4, Segments: []logp.EnergySegment{
			{MaxBytes: 64, MessagePJ: 1000, BytePJ: 10, ByteHopPJ: 2, CopyBytePJ: 5},
			{MaxBytes: 0, MessagePJ: 2000, BytePJ: 20, ByteHopPJ: 1, CopyBytePJ: 3}}}}
}

func runTierGoal(t *testing.T, text string, p logp.Params) *report.GoalResult {
	t.Helper()
	s, err := goal.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	q, err := GoalTierParams(p, s.NumRanks(), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunGoalTier(s, q, &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// On the LogGOPS tier a hand-written schedule's energy is the static power
// over the tier's time plus each message's terms, counted here by hand:
// on the fitted 2x2 mesh (rank r on tile r, row-major) 0 -> 3 is 2 hops,
// 0 -> 1 one, 1 -> 2 two; at 1 GHz 100 mW is 100 pJ a cycle.
func TestGoalTierEnergyByHand(t *testing.T) {
	const text = `num_ranks 4
rank 0 {
a: send 100b to 3
b: send 8b to 1
b requires a
}
rank 1 {
r: recv 8b from 0
s: send 13b to 2
s requires r
}
rank 2 {
recv 13b from 1
}
rank 3 {
recv 100b from 0
c: calc 50
}
`
	res := runTierGoal(t, text, goalEnergyParams())
	msgs := (2000 + 20*100 + 1*100*2.0) + // 100 B, 2 hops: the second segment, whole words
		(1000 + 10*8 + 2*8*1.0) + // 8 B, 1 hop
		(1000 + 10*13 + 2*13*2.0 + 5*13) // 13 B, 2 hops, not whole words: copied
	want := 100*res.MaxFinish + msgs
	if res.MaxFinish <= 0 || math.Abs(res.PredictedEnergyPJ-want) > 1e-9*want {
		t.Errorf("energy %v pJ over %v cycles, want 100 pJ/cycle x time + %v = %v", res.PredictedEnergyPJ, res.MaxFinish, msgs, want)
	}
	var b strings.Builder
	if err := report.WriteGoalTable(&b, res); err != nil {
		t.Fatal(err)
	}
	if line := fmt.Sprintf("energy %.1f nJ", want/1e3); !strings.Contains(b.String(), line) {
		t.Errorf("table lacks %q:\n%s", line, b.String())
	}
}

// A schedule of more ranks than the fitted chip's tiles runs at the fit's
// average distance, and its static power grows with the tiles it needs:
// six ranks on a 4-tile fit leak 6/4 of the chip's.
func TestGoalTierEnergyBeyondTheFit(t *testing.T) {
	const text = `num_ranks 6
rank 0 {
}
rank 1 {
}
rank 2 {
}
rank 3 {
}
rank 4 {
send 8b to 5
}
rank 5 {
recv 8b from 4
}
`
	res := runTierGoal(t, text, goalEnergyParams())
	want := 100*res.MaxFinish*6/4 + (1000 + 10*8 + 2*8*1.5)
	if res.MaxFinish <= 0 || math.Abs(res.PredictedEnergyPJ-want) > 1e-9*want {
		t.Errorf("energy %v pJ over %v cycles, want %v", res.PredictedEnergyPJ, res.MaxFinish, want)
	}
}

// Parameters without an energy fit price nothing: no key in the JSON, no
// energy line in the table, and no error.
func TestGoalTierNoEnergyFit(t *testing.T) {
	p := goalEnergyParams()
	p.Energy = nil
	res := runTierGoal(t, "num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\n}\n", p)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var tb strings.Builder
	if err := report.WriteGoalTable(&tb, res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "energy") || strings.Contains(tb.String(), "energy") {
		t.Errorf("energy reported without an energy fit:\n%s\n%s", b, tb.String())
	}
}

// A collective recorded on the chip and replayed from its GOAL schedule
// costs what the collective did, component by component: the replay sends
// the same messages at the same cycles and its calcs are the recorded busy
// cycles, which the processor is charged by. (A reduction's flops are the
// exception, priced as operations in the call and as cycles in the
// replay: docs/energy.md.)
func TestGoalReplayEnergyEqualsColl(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "4x4"
	for _, c := range []struct {
		op, alg string
		size    int
	}{{"bcast", "binomial", 1024}, {"alltoall", "pairwise", 256}, {"gather", "binomial", 100}} {
		var tr *trace.Trace
		sweep := CollSweep{Op: c.op, Algs: []string{c.alg}, Procs: []int{16}, Sizes: []int{c.size}}
		rows, err := sweep.Run(&sc, scenarios.RunOptions{Record: func(_ string, t *trace.Trace) { tr = t }})
		if err != nil || len(rows) != 1 || rows[0].Energy == nil || tr == nil {
			t.Fatalf("%s %s: rows %v, trace %v: %v", c.op, c.alg, rows, tr != nil, err)
		}
		got := replayGoal(t, &sc, tr)
		if got.Energy == nil {
			t.Fatalf("%s %s: the replay has no energy", c.op, c.alg)
		}
		want := rows[0].Energy
		if got.Energy.TotalPJ != want.TotalPJ || len(got.Energy.Components) != len(want.Components) {
			t.Fatalf("%s %s: replay %v pJ, the call %v pJ", c.op, c.alg, got.Energy.TotalPJ, want.TotalPJ)
		}
		for i, g := range got.Energy.Components {
			if g != want.Components[i] {
				t.Errorf("%s %s: %s: replay %+v, the call %+v", c.op, c.alg, g.Name, g, want.Components[i])
			}
		}
	}
}

// goal compare prices both sides: the chip's energy is the replay's, the
// tier's the fitted model's over the tier's time, and the error is theirs.
func TestCompareScheduleEnergy(t *testing.T) {
	sc := scenarios.Defaults()
	sc.Network.Mesh = "2x2"
	const text = "num_ranks 4\nrank 0 {\nsend 100b to 3\n}\nrank 1 {\n}\nrank 2 {\n}\nrank 3 {\nrecv 100b from 0\n}\n"
	s, err := goal.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	p := goalEnergyParams()
	cmp, err := CompareSchedule(&sc, s, p)
	if err != nil {
		t.Fatal(err)
	}
	flit, err := RunGoalFlit(&sc, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := 100*cmp.Predicted + 2000 + 20*100 + 1*100*2.0
	switch {
	case cmp.Energy == nil || cmp.Energy.TotalPJ != flit.Energy.TotalPJ:
		t.Errorf("simulated energy %+v, goal run's %v pJ", cmp.Energy, flit.Energy.TotalPJ)
	case math.Abs(cmp.PredictedEnergyPJ-want) > 1e-9*want:
		t.Errorf("predicted %v pJ, want %v", cmp.PredictedEnergyPJ, want)
	case cmp.EnergyErrorPct == nil || math.Abs(*cmp.EnergyErrorPct-100*(want-flit.Energy.TotalPJ)/flit.Energy.TotalPJ) > 1e-9:
		t.Errorf("energy error %v %%", cmp.EnergyErrorPct)
	}
	p.Energy = nil
	if cmp, err = CompareSchedule(&sc, s, p); err != nil || cmp.PredictedEnergyPJ != 0 || cmp.EnergyErrorPct != nil || cmp.Energy == nil {
		t.Errorf("without an energy fit: predicted %v, error %v, simulated %v (%v)", cmp.PredictedEnergyPJ, cmp.EnergyErrorPct, cmp.Energy, err)
	}
}
