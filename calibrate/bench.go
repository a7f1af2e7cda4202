package calibrate

import (
	"fmt"
	"slices"

	"nocsim/des"
	"nocsim/mpi"
	"nocsim/mpi/datatype"
)

// NewWorld builds a fresh machine and an MPI job of procs ranks on it. The
// caller supplies it from its scenario (mesh, router, node and [mpi]
// settings); Run builds one World per message size, so that a size's
// measurements never see another size's traffic, and closes its machine.
type NewWorld func(procs int) (*mpi.World, error)

// The measurement kinds.
const (
	KindRTT   = "rtt"   // round trip: Cycles = the time from the ping's send to the pong's arrival
	KindSend  = "send"  // Cycles = time inside an Isend call whose receive is already posted
	KindRecv  = "recv"  // Cycles = time inside an Irecv call made after the message (or its announcement) arrived
	KindTrain = "train" // Cycles = N back-to-back Isends then Waitall, at the sender
	KindPRTT  = "prtt"  // Cycles = Netgauge's PRTT(N, Delay, Bytes)

	// The handshake's legs (a rendezvous whose clear-to-send runs on the
	// sender's processor; see FitHandshake):
	KindLate    = "late"    // the receiver posts after the announcement arrived: Cycles = from the Irecv call to the receive's completion
	KindCTSWait = "ctswait" // the sender Isends, computes Delay cycles, then waits; the receive was posted: Cycles = from the computation's start to the receive's completion
	KindFanout  = "fanout"  // a root Isends to N receivers at Hops, computes Delay cycles, then waits: Cycles = the mean spacing of the receives' completions
)

// Kinds lists the measurement kinds, in the order Run (then RunFanout)
// produces them.
var Kinds = []string{KindRTT, KindSend, KindRecv, KindTrain, KindPRTT, KindLate, KindCTSWait, KindFanout}

// Measurement is one microbenchmark result between two ranks Hops
// router-to-router hops apart. N is the messages involved (1 except for
// trains and PRTT), Delay the computation between them in cycles (PRTT
// only) and Cycles the time measured, in processor cycles.
type Measurement struct {
	Kind   string
	Bytes  int
	Hops   int
	N      int
	Delay  float64
	Cycles float64
}

// TrainMessages is n of the trains and of PRTT(n, ., s): long enough that
// the steady state dominates a train, short enough to keep 64 KiB cheap
// to simulate.
const TrainMessages = 8

// Tags of the benchmark's messages: each phase has its own, so a message
// can never be taken by another phase's receive.
const (
	tagSync = iota + 1
	tagPing
	tagPong
	tagSend
	tagRecv
	tagTrain
	tagPRTT
	tagPRTTReply
	tagCTS
	tagFanout
)

// Run measures every microbenchmark between ranks from and to, hops apart,
// for each message size: the round trip, the send and receive times, a
// train of TrainMessages Isends, and PRTT(1, 0, s), PRTT(n, 0, s) and
// PRTT(n, d, s) with d = RTT(s). Each phase runs reps times and reports
// its median: the simulation is deterministic, so reps > 1 only removes
// start-up effects. The job has max(from, to)+1 ranks; the others stay
// idle, so the measurements are uncontended.
func Run(nw NewWorld, from, to, hops int, sizes []int, reps int) ([]Measurement, error) {
	switch {
	case from < 0 || to < 0 || from == to:
		return nil, fmt.Errorf("calibrate: ranks %d and %d: need two different ranks >= 0", from, to)
	case hops < 0:
		return nil, fmt.Errorf("calibrate: hops = %d: allowed >= 0", hops)
	case reps < 1:
		return nil, fmt.Errorf("calibrate: reps = %d: allowed >= 1", reps)
	case len(sizes) == 0:
		return nil, fmt.Errorf("calibrate: no message size")
	}
	var out []Measurement
	for _, m := range sizes {
		if m < 0 {
			return nil, fmt.Errorf("calibrate: message size %d bytes: allowed >= 0", m)
		}
		ms, err := runSize(nw, from, to, hops, m, reps)
		if err != nil {
			return nil, fmt.Errorf("calibrate: %d bytes: %w", m, err)
		}
		out = append(out, ms...)
	}
	return out, nil
}

// result gathers one size's timings as the two ranks produce them.
type result struct {
	rtt, send, recv, train []des.Time
	late                   []des.Time
	ctsStart, ctsEnd       []des.Time // the sender's computation starts, the receive completes
	ctsDelay               des.Time
	prtt                   [3][]des.Time // (1, 0), (n, 0), (n, d)
	delay                  des.Time      // d of PRTT(n, d, s), and the receiver's head start in "recv"
	err                    error
}

func runSize(nw NewWorld, from, to, hops, m, reps int) ([]Measurement, error) {
	w, err := nw(max(from, to) + 1)
	if err != nil {
		return nil, err
	}
	defer w.M.Close()
	res := &result{}
	w.Launch(func(r *mpi.Rank) {
		var b *bench
		switch r.Rank() {
		case from:
			b = &bench{r: r, peer: to, pinger: true}
		case to:
			b = &bench{r: r, peer: from}
		default:
			return
		}
		b.c, b.m, b.res = r.CommWorld(), m, res
		b.buf = r.MustAlloc(max(m, 1))
		if err := b.run(reps); err != nil && res.err == nil {
			res.err = fmt.Errorf("rank %d: %w", r.Rank(), err)
		}
	})
	runErr := w.Run()
	if res.err != nil {
		// A rank that gave up leaves its peer blocked: its error is the cause.
		return nil, res.err
	}
	if runErr != nil {
		return nil, runErr
	}
	one := func(kind string, n int, d des.Time, ts []des.Time) Measurement {
		return Measurement{Kind: kind, Bytes: m, Hops: hops, N: n, Delay: float64(d), Cycles: median(ts)}
	}
	return []Measurement{
		one(KindRTT, 1, 0, res.rtt),
		one(KindSend, 1, 0, res.send),
		one(KindRecv, 1, 0, res.recv),
		one(KindTrain, TrainMessages, 0, res.train),
		one(KindPRTT, 1, 0, res.prtt[0]),
		one(KindPRTT, TrainMessages, 0, res.prtt[1]),
		one(KindPRTT, TrainMessages, res.delay, res.prtt[2]),
		one(KindLate, 1, 0, res.late),
		one(KindCTSWait, 1, res.ctsDelay, diffs(res.ctsStart, res.ctsEnd)),
	}, nil
}

// diffs is b[i] - a[i] for each repetition.
func diffs(a, b []des.Time) []des.Time {
	out := make([]des.Time, len(a))
	for i := range a {
		out[i] = b[i] - a[i]
	}
	return out
}

// median of the repetitions: the middle one, or the mean of the middle two.
func median(ts []des.Time) float64 {
	s := slices.Clone(ts)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return float64(s[n/2-1]+s[n/2]) / 2
}

// bench is one side of the benchmark: the pinger (rank from), which takes
// every timing except the receive's, or the ponger (rank to).
type bench struct {
	r      *mpi.Rank
	c      *mpi.Comm
	peer   int
	pinger bool
	m      int
	buf    datatype.Buffer
	res    *result
}

func (b *bench) send(tag int) error { return b.r.Send(b.buf, b.m, datatype.Byte, b.peer, tag, b.c) }

func (b *bench) recv(tag int) error {
	_, err := b.r.Recv(b.buf, b.m, datatype.Byte, b.peer, tag, b.c)
	return err
}

// ready is the ponger telling the pinger it has set up the next repetition
// (a receive posted, or its own timer started): a 0-byte message.
func (b *bench) ready() error {
	if b.pinger {
		_, err := b.r.Recv(b.buf, 0, datatype.Byte, b.peer, tagSync, b.c)
		return err
	}
	return b.r.Send(b.buf, 0, datatype.Byte, b.peer, tagSync, b.c)
}

// timed runs f and returns the cycles it took.
func (b *bench) timed(f func() error) (des.Time, error) {
	start := b.r.Now()
	err := f()
	return b.r.Now() - start, err
}

func (b *bench) run(reps int) error {
	for _, phase := range []func(int) error{b.pingPong, b.sendTime, b.recvTime, b.trainTime, b.prtt, b.ctsWait} {
		if err := phase(reps); err != nil {
			return err
		}
	}
	return nil
}

// pingPong: the round trip, after one unmeasured exchange.
func (b *bench) pingPong(reps int) error {
	for i := 0; i <= reps; i++ {
		if !b.pinger {
			if err := b.recv(tagPing); err != nil {
				return err
			}
			if err := b.send(tagPong); err != nil {
				return err
			}
			continue
		}
		t, err := b.timed(func() error {
			if err := b.send(tagPing); err != nil {
				return err
			}
			return b.recv(tagPong)
		})
		if err != nil {
			return err
		}
		if i > 0 {
			b.res.rtt = append(b.res.rtt, t)
		}
	}
	if b.pinger {
		// Later phases size their delays on the round trip: the ponger
		// reads it after the next ready message.
		b.res.delay = des.Time(median(b.res.rtt))
	}
	return nil
}

// readyRecv posts the ponger's receive, says it is ready, and waits in
// the receive: the timed side then knows its message finds it posted.
func (b *bench) readyRecv(tag int) error {
	q, err := b.r.Irecv(b.buf, b.m, datatype.Byte, b.peer, tag, b.c)
	if err != nil {
		return err
	}
	if err := b.ready(); err != nil {
		return err
	}
	_, err = b.r.Wait(q)
	return err
}

// sendTime: the ponger posts its receive and waits in it, then says it is
// ready; the pinger times the Isend call alone: the processor's cost of
// starting a send (o_s), whatever the protocol then does on the network.
func (b *bench) sendTime(reps int) error {
	for range reps {
		if !b.pinger {
			if err := b.readyRecv(tagSend); err != nil {
				return err
			}
			continue
		}
		if err := b.ready(); err != nil {
			return err
		}
		var q *mpi.Request
		t, err := b.timed(func() (err error) {
			q, err = b.r.Isend(b.buf, b.m, datatype.Byte, b.peer, tagSend, b.c)
			return err
		})
		if err != nil {
			return err
		}
		if _, err := b.r.Wait(q); err != nil {
			return err
		}
		b.res.send = append(b.res.send, t)
	}
	return nil
}

// recvTime: the pinger sends as soon as the ponger is ready; the ponger
// computes for a round trip first, so whatever can arrive without its help
// has arrived (the eager data, or a rendezvous's announcement), then times
// the Irecv call alone: matching and copying, or answering the
// announcement (o_r). The rest of the transfer is latency.
func (b *bench) recvTime(reps int) error {
	for range reps {
		if b.pinger {
			if err := b.ready(); err != nil {
				return err
			}
			if err := b.send(tagRecv); err != nil {
				return err
			}
			continue
		}
		if err := b.ready(); err != nil {
			return err
		}
		b.r.Compute(int64(b.res.delay) + 1000)
		var q *mpi.Request
		posted := b.r.Now()
		t, err := b.timed(func() (err error) {
			q, err = b.r.Irecv(b.buf, b.m, datatype.Byte, b.peer, tagRecv, b.c)
			return err
		})
		if err != nil {
			return err
		}
		if _, err := b.r.Wait(q); err != nil {
			return err
		}
		b.res.recv = append(b.res.recv, t)
		// The late receiver (KindLate): from the posting to the data,
		// the clear-to-send's and the data's legs and o_r.
		b.res.late = append(b.res.late, b.r.Now()-posted)
	}
	return nil
}

// ctsWait (KindCTSWait): the ponger posts its receive and waits; the
// pinger Isends, computes for a round trip and 1000 cycles (by then the
// clear-to-send is back), and only then waits. On a cooperative
// processor the clear-to-send's handler runs when the pinger waits, so
// the receive completes L_data + o_r + (m-1)G after the computation ends.
func (b *bench) ctsWait(reps int) error {
	d := des.Time(b.res.delay) + 1000
	for range reps {
		if !b.pinger {
			if err := b.readyRecv(tagCTS); err != nil {
				return err
			}
			b.res.ctsEnd = append(b.res.ctsEnd, b.r.Now())
			continue
		}
		if err := b.ready(); err != nil {
			return err
		}
		q, err := b.r.Isend(b.buf, b.m, datatype.Byte, b.peer, tagCTS, b.c)
		if err != nil {
			return err
		}
		b.res.ctsStart = append(b.res.ctsStart, b.r.Now())
		b.res.ctsDelay = d
		b.r.Compute(int64(d))
		if _, err := b.r.Wait(q); err != nil {
			return err
		}
	}
	return nil
}

// trainTime: TrainMessages Isends back to back and one Waitall, timed at
// the sender; the receiver takes them with blocking receives. s_n(m)/n
// estimates the gap g(m).
func (b *bench) trainTime(reps int) error {
	for range reps {
		if !b.pinger {
			if err := b.ready(); err != nil {
				return err
			}
			for range TrainMessages {
				if err := b.recv(tagTrain); err != nil {
					return err
				}
			}
			continue
		}
		if err := b.ready(); err != nil {
			return err
		}
		t, err := b.timed(func() error {
			qs := make([]*mpi.Request, TrainMessages)
			for i := range qs {
				q, err := b.r.Isend(b.buf, b.m, datatype.Byte, b.peer, tagTrain, b.c)
				if err != nil {
					return err
				}
				qs[i] = q
			}
			_, err := b.r.Waitall(qs)
			return err
		})
		if err != nil {
			return err
		}
		b.res.train = append(b.res.train, t)
	}
	return nil
}

// prtt is Netgauge's parametrised round trip PRTT(n, d, s): n blocking
// sends of s bytes with d cycles of computation between consecutive ones,
// then the receiver's s-byte reply. PRTT(n,0,s) - PRTT(1,0,s) = (n-1)g(s)
// and PRTT(n,d,s) - PRTT(1,0,s) = (n-1)(o_s(s)+d) for d > g(s).
func (b *bench) prtt(reps int) error {
	for k, nd := range []struct {
		n     int
		delay bool
	}{{1, false}, {TrainMessages, false}, {TrainMessages, true}} {
		for range reps {
			if !b.pinger {
				if err := b.ready(); err != nil {
					return err
				}
				for range nd.n {
					if err := b.recv(tagPRTT); err != nil {
						return err
					}
				}
				if err := b.send(tagPRTTReply); err != nil {
					return err
				}
				continue
			}
			if err := b.ready(); err != nil {
				return err
			}
			t, err := b.timed(func() error {
				for i := range nd.n {
					if nd.delay && i > 0 {
						b.r.Compute(int64(b.res.delay))
					}
					if err := b.send(tagPRTT); err != nil {
						return err
					}
				}
				return b.recv(tagPRTTReply)
			})
			if err != nil {
				return err
			}
			b.res.prtt[k] = append(b.res.prtt[k], t)
		}
	}
	return nil
}
