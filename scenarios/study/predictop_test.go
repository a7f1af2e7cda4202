package study

import (
	"reflect"
	"testing"

	"nocsim/logp"
)

// PredictOp names point-to-point predictions LogGP and gives the model's
// one-way and round-trip times over the hops asked; a collective is its
// algorithm's prediction, exscan predicted as the registry's scan.
func TestPredictOp(t *testing.T) {
	p := logp.Params{P: 16, Mesh: "4x4", AvgHops: 2, Source: logp.SourceSimulator, Segments: []logp.Segment{{L: 10, Lh: 1, Os: 2, Or: 4, Gap: 3, G: 0.5}}}
	for _, c := range []struct {
		op   string
		want logp.Prediction
	}{{"p2p", p.OneWay(64, 5)}, {"pingpong", p.PingPong(64, 5)}} {
		alg, pr, err := PredictOp(p, c.op, "ignored", 16, 64, 5)
		if err != nil || alg != "LogGP" || !reflect.DeepEqual(pr, c.want) {
			t.Errorf("PredictOp(%s) = %q, %+v, %v; want LogGP, %+v", c.op, alg, pr, err, c.want)
		}
	}
	scan := AlgorithmsFor("scan")[0]
	want, err := p.Predict("scan", scan, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	alg, pr, err := PredictOp(p, "exscan", scan, 16, 64, 5)
	if err != nil || alg != scan || !reflect.DeepEqual(pr, want) {
		t.Errorf("PredictOp(exscan, %s) = %q, %+v, %v; want scan's %+v", scan, alg, pr, err, want)
	}
	if _, _, err := PredictOp(p, "bcast", "no-such-algorithm", 16, 64, 5); err == nil {
		t.Errorf("PredictOp(bcast, no-such-algorithm): no error")
	}
}
