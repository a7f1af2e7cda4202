package router

import (
	"testing"

	"nocsim/des"
)

// consumer drains a pipe whenever it ticks and sleeps until the next
// arrival, the way routers and NIUs use their channels.
type consumer struct {
	p   *Pipe[int]
	got []received
}

type received struct {
	at des.Time
	v  int
}

func (c *consumer) Tick(now des.Time) des.Time {
	// Clear this cycle's ring slot, as a router does (see Pipe.sig).
	c.p.sig[now&(dueSlots-1)] = 0
	for c.p.Ready(now) {
		c.got = append(c.got, received{now, c.p.Recv()})
	}
	return c.p.Next()
}

type sender struct {
	p *Pipe[int]
	v []int
}

func (s *sender) Handle(now des.Time, i int64) { s.p.Send(now, s.v[i]) }

// A pipe delivers in order, exactly lat cycles after each send, wakes a
// sleeping consumer in time for every arrival, and keeps order when its
// ring grows.
func TestPipeDelaysInOrder(t *testing.T) {
	for _, lat := range []des.Time{1, 2, 7, 300} {
		eng := des.New()
		c := &consumer{}
		c.p = NewPipe[int](eng, lat, eng.Register(c))
		var sig [dueSlots + 1]uint16
		c.p.sig, c.p.bit = &sig, 4
		s := &sender{p: c.p}
		sentAt := map[int]des.Time{}
		now := des.Time(0)
		for v := 0; v < 200; v++ {
			if v%5 == 0 {
				now += des.Time(v % 11) // bursts of several per cycle, and gaps
			}
			s.v = append(s.v, v)
			sentAt[v] = now
			eng.Schedule(now, s, int64(v))
		}
		if err := eng.Run(-1); err != nil {
			t.Fatal(err)
		}
		if len(c.got) != 200 {
			t.Fatalf("lat %d: received %d of 200", lat, len(c.got))
		}
		for i, r := range c.got {
			if r.v != i {
				t.Fatalf("lat %d: item %d arrived in position %d", lat, r.v, i)
			}
			if r.at-sentAt[r.v] != lat {
				t.Fatalf("lat %d: item %d sent at %d received at %d", lat, r.v, sentAt[r.v], r.at)
			}
		}
		// A long channel leaves its bit in the in-flight mask for the
		// consumer to clear; a short one leaves no slot of the arrival
		// ring set once the consumer has ticked past every arrival.
		want := [dueSlots + 1]uint16{}
		if lat >= dueSlots {
			want[dueSlots] = 4
		}
		if sig != want || c.p.Len() != 0 || c.p.Next() != des.Never {
			t.Fatalf("lat %d: signal bits %v, %d left", lat, sig, c.p.Len())
		}
	}
}
