package endpoint

import (
	"testing"

	"nocsim/des"
)

// An NIU with nothing left to send is not woken by the credits that come
// back for its last flits: they stay in its credit channel, count as home
// (credits are conserved and the fabric is quiescent), and are collected
// when it next sends.
func TestIdleNIULeavesCreditsInChannel(t *testing.T) {
	eng, f := newTestFabric(t, 4, 4)
	src := f.NIUs[0]
	total := f.Net.Spec.VCs * f.Net.Spec.VCBuf
	conserved := func(when string) {
		t.Helper()
		sum := src.lp.InjectCredit.Len()
		for _, c := range src.credit {
			sum += c
		}
		if sum != total {
			t.Fatalf("%s: %d credits collected plus %d in the channel, want %d", when, sum-src.lp.InjectCredit.Len(), src.lp.InjectCredit.Len(), total)
		}
	}
	delivered := 0
	f.OnDeliver = func(p *Packet, now des.Time) { delivered++ }
	f.SendSynthetic(0, 15, 5, 0)
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	if delivered != 1 || f.Err() != nil {
		t.Fatalf("delivered %d packets (err %v), want 1", delivered, f.Err())
	}
	// The router passes a flit a cycle and returns each one's credit as
	// it does, so the credits for the flits after the NIU's last send
	// arrive when it has nothing to send.
	if src.lp.InjectCredit.Len() == 0 {
		t.Fatal("every credit was collected: the idle NIU was woken for them")
	}
	conserved("after the first packet")
	if err := f.CheckQuiescent(); err != nil {
		t.Fatalf("credits left in the channel of an idle NIU must count as home: %v", err)
	}
	f.SendSynthetic(0, 15, 5, eng.Now())
	if err := eng.Run(-1); err != nil {
		t.Fatal(err)
	}
	if delivered != 2 || f.Err() != nil {
		t.Fatalf("delivered %d packets (err %v), want 2", delivered, f.Err())
	}
	conserved("after the second packet")
	if err := f.CheckQuiescent(); err != nil {
		t.Fatal(err)
	}
}
