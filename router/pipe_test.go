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
		var mask uint16
		c.p.notify, c.p.bit = &mask, 4
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
		if mask != 4 || c.p.Len() != 0 || c.p.Next() != des.Never {
			t.Fatalf("lat %d: notify mask %b, %d left", lat, mask, c.p.Len())
		}
	}
}
