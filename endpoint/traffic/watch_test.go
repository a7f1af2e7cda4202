package traffic

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"nocsim/endpoint"
	"nocsim/mesh"
	"nocsim/router"
)

var (
	createdRE   = regexp.MustCompile(`^(\d+) \| NIU(\(\d+,\d+\)) \| packet (\d+) created: (\d+) flits to (\(\d+,\d+\)), (\d+) hops$`)
	switchedRE  = regexp.MustCompile(`^(\d+) \| R(\(\d+,\d+\)) \| packet (\d+) flit (\d+)( \(head\)| \(tail\)| \(head, tail\))?: switch (\w) -> (\w) from VC (\d+)$`)
	deliveredRE = regexp.MustCompile(`^(\d+) \| NIU(\(\d+,\d+\)) \| packet (\d+) delivered: latency (\d+) cycles \(network (\d+)\)$`)
)

// A watched packet's lines tell its whole trip, as the network made it:
// created at its source, then at each router of its XY route in turn,
// its flits granted the switch in order, each at a later cycle than the
// one before, from the port it came in by to the port its route leaves
// by, then delivered at its destination with the latency its lines span.
// Watching changes no result, and the same seed writes the same lines.
func TestWatchTellsTheTrip(t *testing.T) {
	m, _ := mesh.New(5, 4)
	p, _ := mesh.NewPattern("uniform", m, mesh.HotspotSpec{})
	rs, _ := router.Preset(router.PresetBookSim)
	s := Synthetic{Mesh: m, Router: rs, Endpoint: endpoint.DefaultSpec(), Pattern: p, Rate: 0.25,
		PacketFlits: 4, Warmup: 200, Measure: 500, DrainMax: 5000, Watchdog: 10000, Seed: 9}
	plain, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{3, 0, 150, 151, 400}
	s.WatchPackets = ids
	watched, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := s.Run()
	if !bytes.Equal(watched.Watch, again.Watch) {
		t.Fatal("two runs with one seed wrote different watch lines")
	}
	plain.WallSeconds, watched.WallSeconds = 0, 0
	watched.Watch = nil
	if fmt.Sprint(plain) != fmt.Sprint(watched) {
		t.Fatalf("watching changed the result:\n%v\n%v", plain, watched)
	}

	atoi := func(s string) int { v, _ := strconv.Atoi(s); return v }
	type trip struct {
		created, delivered, flits, hops int
		src, dst                        string
		routers                         []string         // in order of the head's grants
		grants                          map[string][]int // router -> flit positions in grant order
		in, out                         map[string]string
		last                            map[string]int // router -> cycle of its last grant
	}
	trips := map[int]*trip{}
	for _, line := range strings.Split(strings.TrimSpace(string(again.Watch)), "\n") {
		if c := createdRE.FindStringSubmatch(line); c != nil {
			trips[atoi(c[3])] = &trip{created: atoi(c[1]), src: c[2], flits: atoi(c[4]), dst: c[5], hops: atoi(c[6]),
				grants: map[string][]int{}, in: map[string]string{}, out: map[string]string{}, last: map[string]int{}}
			continue
		}
		if c := switchedRE.FindStringSubmatch(line); c != nil {
			tr := trips[atoi(c[3])]
			r, pos, cyc := c[2], atoi(c[4]), atoi(c[1])
			if pos == 0 {
				tr.routers = append(tr.routers, r)
				tr.in[r], tr.out[r] = c[6], c[7]
			} else if tr.in[r] != c[6] || tr.out[r] != c[7] {
				t.Errorf("%q: flit takes %s -> %s, its head %s -> %s", line, c[6], c[7], tr.in[r], tr.out[r])
			}
			if last, ok := tr.last[r]; ok && cyc <= last {
				t.Errorf("%q: granted at %d, not after the flit before it (%d)", line, cyc, last)
			}
			tr.last[r] = cyc
			tr.grants[r] = append(tr.grants[r], pos)
			continue
		}
		if c := deliveredRE.FindStringSubmatch(line); c != nil {
			tr := trips[atoi(c[3])]
			tr.delivered = atoi(c[1])
			if c[2] != tr.dst || atoi(c[4]) != tr.delivered-tr.created {
				t.Errorf("%q: delivered at %s, latency %s; created at %d for %s", line, c[2], c[4], tr.created, tr.dst)
			}
			continue
		}
		t.Errorf("unexpected watch line %q", line)
	}
	if len(trips) != len(ids) {
		t.Fatalf("%d packets in the lines, %d watched", len(trips), len(ids))
	}
	for id, tr := range trips {
		if tr.delivered == 0 {
			t.Errorf("packet %d: never delivered", id)
			continue
		}
		if len(tr.routers) != tr.hops+1 || tr.routers[0] != tr.src || tr.routers[len(tr.routers)-1] != tr.dst {
			t.Errorf("packet %d: routers %v for %d hops from %s to %s", id, tr.routers, tr.hops, tr.src, tr.dst)
		}
		for i, r := range tr.routers {
			if len(tr.grants[r]) != tr.flits {
				t.Errorf("packet %d at %s: flits %v granted, want 0..%d in order", id, r, tr.grants[r], tr.flits-1)
			}
			for j, pos := range tr.grants[r] {
				if pos != j {
					t.Errorf("packet %d at %s: flit %d granted %d-th", id, r, pos, j)
				}
			}
			wantIn := "L"
			if i > 0 {
				wantIn = mesh.Port(0).String()
				for _, port := range []mesh.Port{mesh.North, mesh.East, mesh.South, mesh.West} {
					if port.Opposite().String() == tr.out[tr.routers[i-1]] {
						wantIn = port.String()
					}
				}
			}
			if tr.in[r] != wantIn {
				t.Errorf("packet %d at %s: came in by %s, want %s (the previous router left by %s)", id, r, tr.in[r], wantIn, tr.out[tr.routers[max(i-1, 0)]])
			}
		}
	}
}
