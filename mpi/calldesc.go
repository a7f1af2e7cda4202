package mpi

import "fmt"

// callDesc is the MPI call a rank is in, for deadlock reports and traces.
// The point-to-point and collective calls keep its parts and format them
// only when a report asks: formatting on every call would cost more than
// the simulation of a short message.
type callDesc struct {
	kind callKind
	text string // callText: the whole description
	name string // the MPI function
	a, b int    // send: dest, tag; receive: source, tag; Sendrecv: dest, source
	comm *Comm
	key  string // collective: its arguments ("" for none)
}

type callKind uint8

const (
	callText callKind = iota
	callSend
	callRecv
	callSendrecv
	callColl
)

// textCall is a description given whole.
func textCall(s string) callDesc { return callDesc{kind: callText, text: s} }

func (c callDesc) String() string {
	switch c.kind {
	case callSend:
		return fmt.Sprintf("%s(dest=%d, tag=%d, comm %s)", c.name, c.a, c.b, commName(c.comm))
	case callRecv:
		src, tg := "MPI_ANY_SOURCE", "MPI_ANY_TAG"
		if c.a != AnySource {
			src = fmt.Sprint(c.a)
		}
		if c.b != AnyTag {
			tg = fmt.Sprint(c.b)
		}
		return fmt.Sprintf("%s(source=%s, tag=%s, comm %s)", c.name, src, tg, commName(c.comm))
	case callSendrecv:
		return fmt.Sprintf("MPI_Sendrecv(dest=%d, source=%d, comm %s)", c.a, c.b, c.comm.name)
	case callColl:
		if c.key == "" {
			return fmt.Sprintf("%s(comm %s)", c.name, c.comm.name)
		}
		return fmt.Sprintf("%s(%s, comm %s)", c.name, c.key, c.comm.name)
	}
	return c.text
}

// rankCall is a rank seen as the description of the call it is in, which
// a blocked thread hands to the machine's reports without formatting it.
type rankCall Rank

func (c *rankCall) String() string { return c.call.String() }
