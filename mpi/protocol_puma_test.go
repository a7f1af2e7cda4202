package mpi

import (
	"testing"

	"nocsim/config"
	"nocsim/des"
	"nocsim/endpoint"
	"nocsim/mpi/datatype"
)

// pumaMsg is one message a puma_long job sent.
type pumaMsg struct {
	src, dst int
	what     string // "put", "ack", "pull", "block", "flag" or "other"
	at       des.Time
}

// pumaJob runs a two-rank exchange of n bytes from rank 0 to rank 1 under
// puma_long; posted says whether the receive is posted before the send.
// It returns the messages, the data received and the times the sender's
// Wait returned and the receive was posted.
func pumaJob(t *testing.T, n int, posted bool) (msgs []pumaMsg, sent, got []byte, sendDone, recvPosted des.Time) {
	t.Helper()
	cfg := cfgFor("puma_long")
	cfg.Procs = 2
	w := job(t, 2, 1, cfg, nil)
	w.M.OnSent = func(p *endpoint.Packet, at des.Time) {
		m := pumaMsg{src: int(p.Src), dst: int(p.Dst), what: "other", at: at}
		switch {
		case p.Kind == endpoint.KindThread && endpoint.HandlerID(p.DstAddr) == w.h.pumaPut:
			m.what = "put"
		case p.Kind == endpoint.KindThread && endpoint.HandlerID(p.DstAddr) == w.h.requestData:
			m.what = "pull"
		case p.Kind == endpoint.KindData && p.Len == 3 && p.Dst == 0:
			m.what = "ack"
		case p.Kind == endpoint.KindData && p.Len == 3 && p.Dst == 1 && p.SrcAddr == 0:
			m.what = "flag"
		case p.Kind == endpoint.KindData:
			m.what = "block"
		}
		msgs = append(msgs, m)
	}
	sent = make([]byte, n)
	for i := range sent {
		sent[i] = byte(7*i + 3)
	}
	w.Launch(func(r *Rank) {
		c := r.CommWorld()
		buf := r.MustAlloc(max(n, 1))
		switch r.Rank() {
		case 0:
			copy(buf.Bytes, sent)
			if posted {
				r.Compute(20000) // the receive is posted long before
			}
			q, err := r.Isend(buf, n, datatype.Byte, 1, 5, c)
			if err != nil {
				t.Error(err)
				return
			}
			r.Wait(q)
			sendDone = r.Now()
		case 1:
			if posted {
				r.Recv(buf, n, datatype.Byte, 0, 5, c)
			} else {
				// Handlers run when the main thread yields: the probe
				// lets the put's handler find no receive posted.
				if _, err := r.Probe(0, 5, c); err != nil {
					t.Error(err)
				}
				r.Compute(5000)
				recvPosted = r.Now()
				r.Recv(buf, n, datatype.Byte, 0, 5, c)
			}
			got = append([]byte(nil), buf.Bytes[:n]...)
		}
	})
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if err := w.CheckQuiet(); err != nil {
		t.Fatal(err)
	}
	return msgs, sent, got, sendDone, recvPosted
}

func countPuma(msgs []pumaMsg, src int, what string) int {
	k := 0
	for _, m := range msgs {
		if m.src == src && m.what == what {
			k++
		}
	}
	return k
}

// Sizes around a put message's capacity (chunk words) and a word's end.
func pumaSizes(chunk int) []int {
	return []int{0, 1, 3, 4, 5, 4*chunk - 1, 4 * chunk, 4*chunk + 1, 4*chunk + 4, 3*4*chunk + 2}
}

// A posted receive takes the put directly: no handshake, exactly the put
// messages (one when the data fits one), then one acknowledgement.
func TestPumaLongPosted(t *testing.T) {
	chunk := endpoint.DefaultSpec().QueueFlits - 2 - pumaHeader
	for _, n := range pumaSizes(chunk) {
		msgs, sent, got, _, _ := pumaJob(t, n, true)
		puts := max((n+3)/4+chunk-1, chunk) / chunk
		if p := countPuma(msgs, 0, "put"); p != puts {
			t.Errorf("%d bytes: %d put messages, want %d", n, p, puts)
		}
		if a := countPuma(msgs, 1, "ack"); a != 1 {
			t.Errorf("%d bytes: %d acknowledgements, want 1", n, a)
		}
		if p := countPuma(msgs, 1, "pull"); p != 0 {
			t.Errorf("%d bytes: %d pulls into a posted receive, want 0", n, p)
		}
		if b := countPuma(msgs, 0, "block") + countPuma(msgs, 0, "flag"); b != 0 {
			t.Errorf("%d bytes: %d DMA messages besides the puts, want 0", n, b)
		}
		for i := range sent {
			if got[i] != sent[i] {
				t.Fatalf("%d bytes: byte %d is %d, want %d", n, i, got[i], sent[i])
			}
		}
	}
}

// Without a posted receive the data is dropped, the header kept, and the
// receive pulls the data when it is posted; the send completes only after.
func TestPumaLongPull(t *testing.T) {
	chunk := endpoint.DefaultSpec().QueueFlits - 2 - pumaHeader
	for _, n := range pumaSizes(chunk) {
		msgs, sent, got, sendDone, recvPosted := pumaJob(t, n, false)
		if a := countPuma(msgs, 1, "ack"); a != 1 {
			t.Errorf("%d bytes: %d acknowledgements, want 1 (header only)", n, a)
		}
		if p := countPuma(msgs, 1, "pull"); p != 1 {
			t.Errorf("%d bytes: %d pulls, want 1", n, p)
		}
		// The pulled block goes in DMA messages of up to MaxBlockWords,
		// then the receiver's flag.
		if b := countPuma(msgs, 0, "block") + countPuma(msgs, 0, "flag"); b != 2 {
			t.Errorf("%d bytes: %d pulled block and flag messages, want 2", n, b)
		}
		for _, m := range msgs {
			if m.what == "pull" && m.at < recvPosted {
				t.Errorf("%d bytes: pull sent at %d, before the receive was posted at %d", n, m.at, recvPosted)
			}
		}
		if sendDone < recvPosted {
			t.Errorf("%d bytes: the sender's Wait returned at %d, before the receive was posted at %d", n, sendDone, recvPosted)
		}
		for i := range sent {
			if got[i] != sent[i] {
				t.Fatalf("%d bytes: byte %d is %d, want %d", n, i, got[i], sent[i])
			}
		}
	}
}

// A put message needs room for its header and a word of data in the NIU
// queue; a machine whose queue is smaller refuses puma_long, naming the key.
func TestPumaLongNeedsQueue(t *testing.T) {
	cfg := cfgFor("puma_long")
	cfg.EagerBytes = 0
	for _, q := range []int{pumaHeader + 2, pumaHeader + 3} {
		err := cfg.Validate(4, q)
		if fits := q-2-pumaHeader >= 1; fits != (err == nil) {
			t.Errorf("queue of %d flits: %v", q, err)
		}
		if ke, ok := err.(*config.KeyError); err != nil && (!ok || ke.Key != "protocol") {
			t.Errorf("queue of %d flits: %v, want an error naming protocol", q, err)
		}
	}
}

// Into posted receives, puma_long saves the rendezvous's handshake: a short
// message's one-way time is below scmp's.
func TestPumaLongBeatsRendezvousWhenPosted(t *testing.T) {
	for _, n := range []int{4, 64} {
		p, s := oneWay(t, cfgFor("puma_long"), nil, 15, n), oneWay(t, cfgFor("scmp"), nil, 15, n)
		if p >= s {
			t.Errorf("%d bytes: puma_long one-way %d cycles, scmp %d: want puma_long faster", n, p, s)
		}
	}
}
