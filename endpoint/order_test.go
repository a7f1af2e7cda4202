package endpoint

import (
	"testing"

	"nocsim/des"
	"nocsim/mesh"
	"nocsim/router"
)

// A tile's messages leave in the order the program issued them, DMA or
// processor-built alike: a DMA message issued while a built message waits
// for room in the NIU queue queues behind it, and (messages between
// processors being ordered) is delivered after it.
func TestMessagesLeaveInIssueOrder(t *testing.T) {
	m, _ := mesh.New(3, 3)
	es := DefaultSpec()
	es.MemoryWords = 1 << 16
	es.QueueFlits = 8
	eng := des.New()
	mc := NewMachine(eng, m, router.DefaultSpec(), es, DefaultCPUSpec())
	defer mc.Close()
	const src, dst = 0, 8
	var sent, delivered []int32
	mc.OnSent = func(p *Packet, _ des.Time) { sent = append(sent, p.ID) }
	mc.OnDeliver = func(p *Packet, _ des.Time) { delivered = append(delivered, p.ID) }
	var issued []int32
	// First built message fills the 8-flit queue, so the second must wait
	// in the source queue for the first to leave.
	for _, words := range [][]uint32{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10}} {
		p, err := mc.SendWords(src, dst, KindData, 100+uint32(len(issued))*10, 1, words, 0)
		if err != nil {
			t.Fatal(err)
		}
		issued = append(issued, p.ID)
	}
	if mc.NIUs[src].back.n != 1 {
		t.Fatalf("second built message not waiting for room: source queue holds %d", mc.NIUs[src].back.n)
	}
	p, err := mc.SendBlock(src, dst, KindData, 500, 1, 0, 1, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	issued = append(issued, p.ID)
	if err := mc.Run(-1); err != nil {
		t.Fatal(err)
	}
	if mc.Err() != nil {
		t.Fatal(mc.Err())
	}
	if !equalIDs(sent, issued) || !equalIDs(delivered, issued) {
		t.Fatalf("issued %v, sent %v, delivered %v", issued, sent, delivered)
	}
	if err := mc.CheckQuiescent(); err != nil {
		t.Fatal(err)
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
