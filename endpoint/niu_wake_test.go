package endpoint

import (
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// An NIU with nothing left to send is not woken by the credits that come
// back for its last flits: the router counts them in place while the NIU
// sleeps (router.LocalPort.Bind), or leaves them in its credit channel;
// either way they count as home (credits are conserved and the fabric is
// quiescent) and the NIU uses them when it next sends.
func TestIdleNIUIsNotWokenForCredits(t *testing.T) {
	eng, f := newTestFabric(t, 4, 4)
	src := f.NIUs[0]
	total := f.Net.Spec.VCs * f.Net.Spec.VCBuf
	conserved := func(when string) {
		t.Helper()
		sum := src.lp.InjectCredit.Len()
		for _, c := range src.credit {
			sum += int(c)
		}
		if sum != total {
			t.Fatalf("%s: %d credits held plus %d in the channel, want %d", when, sum-src.lp.InjectCredit.Len(), src.lp.InjectCredit.Len(), total)
		}
	}
	// The cycle the source's router passes the tail from its NIU: its
	// credit goes back after the NIU's last send.
	var tailOut des.Time = -1
	f.Net.SetTrace(func(node int, in, out mesh.Port, fl router.Flit) {
		if node == 0 && in == mesh.Local && fl.Tail {
			tailOut = eng.Now()
		}
	})
	delivered := 0
	f.OnDeliver = func(p *Packet, now des.Time) { delivered++ }
	for round := 1; round <= 2; round++ {
		f.SendSynthetic(0, 15, 5, eng.Now())
		if err := eng.Run(-1); err != nil {
			t.Fatal(err)
		}
		if delivered != round || f.Err() != nil {
			t.Fatalf("delivered %d packets (err %v), want %d", delivered, f.Err(), round)
		}
		// The router passes a flit a cycle and returns each one's
		// credit as it does, so the credits for the flits after the
		// NIU's last send arrive when it has nothing to send.
		if last := src.ic.TickedAt; last >= tailOut {
			t.Fatalf("round %d: the idle NIU ticked at %d, after its tail left its router at %d: woken for a credit", round, last, tailOut)
		}
		if n := src.lp.InjectCredit.Len(); n != 0 {
			t.Fatalf("round %d: %d credits in the channel: the router did not count them in place for the sleeping NIU", round, n)
		}
		conserved("after the packet")
		if err := f.CheckQuiescent(); err != nil {
			t.Fatal(err)
		}
	}
}
