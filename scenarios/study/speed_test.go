package study

import (
	"errors"
	"testing"

	"nocsim/config"
	"nocsim/scenarios"
)

// A meter counts the work of the runs after its start, and some CPU time.
func TestSpeedMeterCountsRunsAfterStart(t *testing.T) {
	m := scenarios.StartSpeed()
	sc := scenarios.Defaults()
	sc.Network.Mesh = "2x2"
	pp := &PingPong{From: 0, To: 3, Sizes: []int{8}, Reps: 1}
	if _, _, err := pp.Run(&sc); err != nil {
		t.Fatal(err)
	}
	sp, ok := m.Speed(0)
	if !ok {
		t.Skip("no process CPU time on this platform")
	}
	if sp.SimCycles == 0 || sp.Events == 0 || sp.CPUSeconds <= 0 {
		t.Fatalf("speed %+v after a ping-pong: nothing counted", sp)
	}
}

// A ping-pong needs two ranks: one echoing itself is refused, naming "to".
func TestPingPongToIsNotFrom(t *testing.T) {
	sc := scenarios.Defaults()
	var ke *config.KeyError
	if err := (&PingPong{From: 0, To: 0, Sizes: []int{8}, Reps: 1}).Check(&sc, nil); !errors.As(err, &ke) || ke.Key != "to" {
		t.Errorf("to == from: %v", err)
	}
}
