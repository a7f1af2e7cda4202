package router

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"nocsim/des"
	"nocsim/mesh"
)

// switched is one flit through one router's switch, as the trace sees it.
type switched struct {
	at      des.Time
	node    int
	in, out mesh.Port
	f       Flit
}

// runTraced runs traffic on a 4x4 bench and returns every switch
// traversal in order, what each NI received, and the routers' counters.
// general forces switch allocation onto its general path everywhere.
func runTraced(t *testing.T, spec Spec, general, byID bool, traffic func(b *bench)) ([]switched, [][]arrival, Stats) {
	t.Helper()
	b := newBench(t, 4, 4, spec)
	if byID {
		b.eng.TickByID()
	}
	for _, r := range b.net.Routers {
		r.general = general
		if general {
			// Injected flits on the channel, as when the router does
			// not allow direct injection (LocalPort.InjectSlot).
			r.inj.on = false
		}
	}
	var trace []switched
	b.net.SetTrace(func(node int, in, out mesh.Port, f Flit) {
		trace = append(trace, switched{b.eng.Now(), node, in, out, f})
	})
	traffic(b)
	b.run(t)
	// Routers tick in an order that depends on when each last slept, and
	// the paths compared sleep differently (creditEarly), so the trace
	// is compared cycle by cycle and router by router, each router's
	// traversals in the order it made them.
	slices.SortStableFunc(trace, func(a, b switched) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.node, b.node)
	})
	got := make([][]arrival, len(b.nis))
	for i, ni := range b.nis {
		got[i] = ni.got
	}
	return trace, got, b.net.Totals()
}

// The fast paths of switch allocation are optimisations only: the lone-VC
// path (a router with one VC asking for the switch skips the request
// lists) and the one-request path (every input port puts at most one
// request, so a mask per output replaces the lists). With them and
// without them, every flit crosses every switch in the same cycle, every
// NI receives the same flits at the same cycles, and the stall counters
// agree, for light traffic (where the lone-VC path takes nearly every
// grant) and congested traffic (where the others do), on links one to
// four flits wide, with one to four VCs and narrow and wide local ports.
// The early credits are checked with them: credits counted at once for
// an upstream router asleep or already ticked in this cycle (in the
// default order and by id), ejection credits likewise (with NIs that
// return them slowly), injection credits counted into the NIs' counts
// in place (LocalPort.Bind), and at the end of a tick (creditEarly). So
// is direct injection (LocalPort.InjectSlot), up to its widest local port,
// against the channel the general path's NIs send on.
func TestSwitchFastPathsChangeNothing(t *testing.T) {
	light := func(b *bench) {
		rng := rand.New(rand.NewPCG(3, 9))
		for range 6 {
			src, dst := rng.IntN(16), rng.IntN(16)
			b.send(src, dst, 1+rng.IntN(12), int8(rng.IntN(b.net.Spec.VCs)), KindSynth)
		}
	}
	congested := func(b *bench) { randomTraffic(b, 5, 12, 9) }
	// NIs that return ejection credits slowly, so that the routers'
	// counts of them, and when each credit is counted, decide when
	// flits leave.
	slowSink := func(b *bench) {
		for _, ni := range b.nis {
			ni.slow = 3
		}
		randomTraffic(b, 5, 12, 9)
	}
	for _, width := range []int{1, 2, 4} {
		for _, vcs := range []int{1, 2, 4} {
			for _, local := range []int{1, 2, 4} {
				for _, credit := range []des.Time{1, 2} {
					spec := DefaultSpec()
					spec.LinkWidth, spec.VCs, spec.InjectWidth, spec.EjectWidth = width, vcs, local, local
					spec.CreditDelay = credit
					for name, traffic := range map[string]func(*bench){"light": light, "congested": congested, "slow-sink": slowSink} {
						for _, byID := range []bool{false, true} {
							t.Run(fmt.Sprintf("link=%d/vcs=%d/local=%d/credit=%d/%s/byid=%v", width, vcs, local, credit, name, byID), func(t *testing.T) {
								fastTrace, fastGot, fastStats := runTraced(t, spec, false, byID, traffic)
								genTrace, genGot, genStats := runTraced(t, spec, true, false, traffic)
								if len(fastTrace) == 0 {
									t.Fatal("no flit crossed a switch")
								}
								if !reflect.DeepEqual(fastTrace, genTrace) {
									for i := range min(len(fastTrace), len(genTrace)) {
										if fastTrace[i] != genTrace[i] {
											t.Fatalf("traversal %d differs: %+v with the fast path, %+v without (of %d and %d)", i, fastTrace[i], genTrace[i], len(fastTrace), len(genTrace))
										}
									}
									t.Fatalf("%d traversals with the fast path, %d without", len(fastTrace), len(genTrace))
								}
								if !reflect.DeepEqual(fastGot, genGot) {
									t.Error("the NIs received different flits or at different cycles")
								}
								if fastStats != genStats {
									t.Errorf("counters %+v with the fast path, %+v without", fastStats, genStats)
								}
							})
						}
					}
				}
			}
		}
	}
}

// Direct injection (LocalPort.InjectSlot) is taken exactly when its ring
// can hold a cycle's flits and the router's pointer is there: a credit
// delay of one cycle, an injection delay below linkSlots and at most
// maxDirectInject flits a cycle. Every other spec keeps the channel, whose
// flits the router counts as in flight like the ring's.
func TestDirectInjectionWhenTheSpecAllows(t *testing.T) {
	for _, c := range []struct {
		credit, latency des.Time
		width           int
		direct          bool
	}{
		{1, 1, 2, true}, {1, 3, 4, true}, {2, 1, 2, false}, {1, linkSlots, 2, false}, {1, 1, maxDirectInject + 1, false},
	} {
		spec := DefaultSpec()
		spec.CreditDelay, spec.InjectLatency, spec.InjectWidth = c.credit, c.latency, c.width
		b := newBench(t, 2, 2, spec)
		for _, r := range b.net.Routers {
			if r.inj.on != c.direct {
				t.Errorf("credit delay %d, injection delay %d, width %d: direct injection %v, want %v", c.credit, c.latency, c.width, r.inj.on, c.direct)
			}
		}
		b.send(0, 3, 6, 0, KindSynth)
		if err := b.eng.Run(0); err != nil { // cycle 0: the NI sends its first flits
			t.Fatal(err)
		}
		if got := b.net.Buffered(); got != min(6, c.width) {
			t.Errorf("credit delay %d, injection delay %d, width %d: %d flits in the network after cycle 0, want %d", c.credit, c.latency, c.width, got, min(6, c.width))
		}
		if b.net.CheckQuiescent() == nil {
			t.Errorf("credit delay %d, injection delay %d, width %d: a network with flits on their way in is quiescent", c.credit, c.latency, c.width)
		}
		b.run(t)
		if n := len(b.nis[3].got); n != 6 {
			t.Errorf("credit delay %d, injection delay %d, width %d: %d of 6 flits delivered", c.credit, c.latency, c.width, n)
		}
	}
}
