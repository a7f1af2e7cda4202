package loggops

// queue orders events by (t, ts): due time, then insertion number.
//
// The tier's times are few and repeat: with integer parameters a 2^20-rank
// broadcast has a few dozen distinct due times, each shared by up to half
// a million events. And an event is pushed with a ts above every queued
// one's (ts counts pushes), except a wait list's entry, which keeps its
// head's older ts. So the queue keeps, per distinct due time, a bucket:
// a FIFO of its events in push order, which is ts order while pushes
// only append ts above its last. The due times with a bucket are in a
// small 4-ary heap; an event pushed with a ts below its bucket's last, or
// with a new due time while maxBuckets are open, goes to a 4-ary heap of
// events, the fallback. Popping takes the earlier of the first bucket's
// head and the fallback's top: exactly the (t, ts) order, whichever
// structure holds an event, at O(1) per event for the buckets (read in
// sequence, not sifted through a heap of a million events, which missed
// the cache at every level) and O(log d) per distinct time d.
type queue struct {
	buckets []bucket
	byTime  map[float64]int32 // due time -> its bucket
	times   timeHeap          // due times with a bucket, each bucket non-empty
	free    []int32           // closed buckets, for reuse
	last    int32             // bucket of the last push, checked before the map
	spare   *chunk            // chunks of drained FIFOs, linked, for reuse
	h       eventHeap         // the fallback

	pushes, pops uint64 // queue operations, for tests and progress
}

// maxBuckets bounds the open buckets: with times that rarely repeat (hop
// distances, sizes with a per-byte gap) the heap does better, and each
// bucket holds a chunk.
const maxBuckets = 1024

// chunkLen is the events per chunk of a bucket's FIFO: the FIFOs grow
// and shrink a chunk at a time, reused, so a bucket of half a million
// events leaves no garbage behind (a slice would double and copy).
const chunkLen = 256

type chunk struct {
	ev   [chunkLen]event
	next *chunk
}

// bucket is the events of one due time in ts order: a FIFO of chunks,
// read from head[hi], written at tail[ti].
type bucket struct {
	t          float64
	head, tail *chunk
	hi, ti     int
	lastTS     uint64 // ts of the last event pushed
}

func (q *queue) empty() bool { return len(q.h) == 0 && len(q.times) == 0 }

// bucketOf is the open bucket of due time t, opened if there is none and
// fewer than maxBuckets are; nil otherwise.
func (q *queue) bucketOf(t float64) *bucket {
	if int(q.last) < len(q.buckets) && q.buckets[q.last].t == t && q.buckets[q.last].head != nil {
		return &q.buckets[q.last]
	}
	i, ok := q.byTime[t]
	if !ok {
		if len(q.times) >= maxBuckets {
			return nil
		}
		if q.byTime == nil {
			q.byTime = map[float64]int32{}
		}
		if n := len(q.free); n > 0 {
			i = q.free[n-1]
			q.free = q.free[:n-1]
		} else {
			i = int32(len(q.buckets))
			q.buckets = append(q.buckets, bucket{})
		}
		b := &q.buckets[i]
		b.t, b.head, b.hi, b.ti = t, q.chunk(), 0, 0
		b.tail = b.head
		q.byTime[t] = i
		q.times.push(t)
	}
	q.last = i
	return &q.buckets[i]
}

// chunk is an empty chunk, a spare one if any.
func (q *queue) chunk() *chunk {
	c := q.spare
	if c == nil {
		return new(chunk)
	}
	q.spare, c.next = c.next, nil
	return c
}

func (q *queue) push(e event) {
	q.pushes++
	b := q.bucketOf(e.t)
	if b == nil || (b.hi != b.ti || b.head != b.tail) && b.lastTS > e.ts {
		q.h.push(e) // a new time past maxBuckets, or a wait list's entry behind later pushes
		return
	}
	if b.ti == chunkLen {
		c := q.chunk()
		b.tail.next, b.tail, b.ti = c, c, 0
	}
	b.tail.ev[b.ti] = e
	b.ti++
	b.lastTS = e.ts
}

func (q *queue) pop() event {
	q.pops++
	if len(q.times) > 0 {
		i := q.byTime[q.times[0]]
		b := &q.buckets[i]
		if len(q.h) == 0 || b.head.ev[b.hi].before(&q.h[0]) {
			e := b.head.ev[b.hi]
			b.hi++
			switch {
			case b.head == b.tail && b.hi == b.ti: // drained: close it
				b.head.next, q.spare = q.spare, b.head
				b.head, b.tail = nil, nil
				delete(q.byTime, b.t)
				q.times.pop()
				q.free = append(q.free, i)
			case b.hi == chunkLen:
				c := b.head
				b.head, b.hi = c.next, 0
				c.next, q.spare = q.spare, c
			}
			return e
		}
	}
	return q.h.pop()
}

// timeHeap is a 4-ary min-heap of due times.
type timeHeap []float64

func (hp *timeHeap) push(t float64) {
	*hp = append(*hp, t)
	h := *hp
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if h[p] <= t {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = t
}

func (hp *timeHeap) pop() {
	h := *hp
	n := len(h) - 1
	last := h[n]
	*hp = h[:n]
	h = *hp
	if n == 0 {
		return
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if h[k] < h[m] {
				m = k
			}
		}
		if h[m] >= last {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
}
