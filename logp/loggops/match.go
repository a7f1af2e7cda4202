package loggops

// entry is a posted receive (in a rank's receive queue) or an unexpected
// message (in its unexpected queue); entries live in one pool, linked per
// queue in posting order, and are recycled through a free list.
type entry struct {
	next int32 // next entry of the same queue, -1 at the tail
	op   int32 // recv op (receive queue) or send op (unexpected queue), global index
	src  int32 // source rank (-1 = any for a receive)
	tag  int32 // tag (-1 = any)
}

// The two queues of a rank, as offsets into queues.ends[r].
const (
	rq = 0 // posted receives
	uq = 2 // unexpected messages
)

// queues are every rank's receive and unexpected queues over one pool;
// ends[r] holds rank r's heads and tails side by side (one cache line).
type queues struct {
	pool []entry
	free int32
	ends [][4]int32 // rq head, rq tail, uq head, uq tail; -1 when empty
}

// newQueues makes the queues of n ranks, with room in the pool for hint
// entries.
func newQueues(n, hint int) queues {
	q := queues{free: -1, ends: make([][4]int32, n), pool: make([]entry, 0, hint)}
	for i := range q.ends {
		q.ends[i] = [4]int32{-1, -1, -1, -1}
	}
	return q
}

func (q *queues) head(r int32, which int) int32 { return q.ends[r][which] }

func (q *queues) add(r int32, which int, e entry) {
	e.next = -1
	var k int32
	if q.free >= 0 {
		k = q.free
		q.free = q.pool[k].next
		q.pool[k] = e
	} else {
		k = int32(len(q.pool))
		q.pool = append(q.pool, e)
	}
	end := &q.ends[r]
	if end[which+1] >= 0 {
		q.pool[end[which+1]].next = k
	} else {
		end[which] = k
	}
	end[which+1] = k
}

// matches is LogGOPSim's rule: a wildcard on either side matches.
func matches(a, b *entry) bool {
	return (a.src == -1 || b.src == -1 || a.src == b.src) && (a.tag == -1 || b.tag == -1 || a.tag == b.tag)
}

// take removes and returns the first entry of rank r's queue which that
// matches want, in posting order.
func (q *queues) take(r int32, which int, want *entry) (entry, bool) {
	end := &q.ends[r]
	prev := int32(-1)
	for k := end[which]; k >= 0; k = q.pool[k].next {
		if matches(&q.pool[k], want) {
			e := q.pool[k]
			if prev >= 0 {
				q.pool[prev].next = e.next
			} else {
				end[which] = e.next
			}
			if end[which+1] == k {
				end[which+1] = prev
			}
			q.pool[k].next = q.free
			q.free = k
			return e, true
		}
		prev = k
	}
	return entry{}, false
}
