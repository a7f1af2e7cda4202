package loggops

import (
	"fmt"
	"strings"

	"nocsim/logp/goal"
)

// Stuck is what one rank of a schedule that cannot finish waits for: its
// first operation (in schedule order) that never completed, or a message
// that arrived and was never received.
type Stuck struct {
	Rank  int
	Op    int    // index in the rank; -1 for an unreceived message
	Label string // the op's label, "" if it has none (the sending op's for a message)
	Kind  goal.Kind
	Peer  int32 // destination of a send, source of a recv (-1 any), sender of an unreceived message
	Tag   int32
	Why   string
}

func (s Stuck) String() string {
	if s.Op < 0 {
		return fmt.Sprintf("rank %d message from %d tag %d: %s", s.Rank, s.Peer, s.Tag, s.Why)
	}
	name := fmt.Sprintf("op %d", s.Op)
	if s.Label != "" {
		name += " (" + goal.Clip(s.Label) + ")"
	}
	what := s.Kind.String()
	switch s.Kind {
	case goal.Send:
		what += fmt.Sprintf(" to %d tag %d", s.Peer, s.Tag)
	case goal.Recv:
		what += fmt.Sprintf(" from %d tag %d", s.Peer, s.Tag)
	}
	return fmt.Sprintf("rank %d %s %s: %s", s.Rank, name, what, s.Why)
}

// StuckError reports a schedule that cannot finish (unmatched receives or
// sends, dependency cycles), one entry per stuck rank.
type StuckError struct{ Stuck []Stuck }

// Error lists the first few stuck ranks on one line.
func (e *StuckError) Error() string {
	const show = 4
	var b strings.Builder
	fmt.Fprintf(&b, "loggops: schedule cannot finish, %d rank(s) stuck: ", len(e.Stuck))
	for i, s := range e.Stuck {
		if i == show {
			fmt.Fprintf(&b, "; and %d more", len(e.Stuck)-show)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s.String())
	}
	return b.String()
}

// stuck inspects the state left when no event remains.
func (m *sim) stuck() error {
	var out []Stuck
	for r := range m.s.NumRanks() {
		base := m.first[r]
		rs := int32(r)
		// A message nobody received is the more telling fault: report it.
		if k := m.match.head(rs, uq); k >= 0 {
			e := m.match.pool[k]
			q := m.rankOf(e.op)
			i := int(e.op - m.first[q])
			out = append(out, Stuck{Rank: r, Op: -1, Label: m.s.Label(int(q), i), Kind: goal.Send, Peer: q, Tag: e.tag,
				Why: fmt.Sprintf("sent by rank %d's op %d, arrived, and no receive matches it", q, i)})
			continue
		}
		for i := range m.s.Len(r) {
			k := base + int32(i)
			if m.st[k].pend&fDone != 0 {
				continue
			}
			op := m.op(k)
			st := Stuck{Rank: r, Op: i, Label: m.s.Label(r, i), Kind: op.Kind, Peer: op.Peer, Tag: op.Tag}
			switch {
			case m.st[k].pend&fStarted != 0 && op.Kind == goal.Recv:
				st.Why = "posted, no matching message arrives"
			case m.st[k].pend&fStarted != 0 && m.hs.on && m.hs.recvOf[k] >= 0:
				// Cannot happen (a clear-to-send always runs once its rank
				// blocks), but a send waiting for it is named if it does.
				st.Why = fmt.Sprintf("handshake send (%d bytes), matched; waits for its clear-to-send to run on this rank", op.Size)
			case m.st[k].pend&fStarted != 0:
				st.Why = fmt.Sprintf("rendezvous send (%d bytes > S = %d), no matching receive is posted", op.Size, m.p.S)
			default:
				st.Why = m.waitsFor(rs, i)
			}
			out = append(out, st)
			break
		}
	}
	if out == nil {
		return nil
	}
	return &StuckError{out}
}

// waitsFor names the dependencies of op i of rank r that never came.
func (m *sim) waitsFor(r int32, i int) string {
	var miss []string
	base := m.first[r]
	name := func(j int32) string {
		if l := m.s.Label(int(r), int(j)); l != "" {
			return goal.Clip(l)
		}
		return fmt.Sprintf("op %d", j)
	}
	for _, j := range m.s.Requires(int(r), i) {
		if m.st[base+j].pend&fDone == 0 {
			miss = append(miss, name(j)+" to complete")
		}
	}
	for _, j := range m.s.IRequires(int(r), i) {
		if m.st[base+j].pend&fStarted == 0 {
			miss = append(miss, name(j)+" to start")
		}
	}
	if len(miss) > 3 {
		miss = append(miss[:3], fmt.Sprintf("%d more", len(miss)-3))
	}
	return "waits for " + strings.Join(miss, ", ") + " (a dependency cycle or a stuck predecessor)"
}
