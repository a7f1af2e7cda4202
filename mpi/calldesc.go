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
	key  collArgs // collective: its arguments (zero for none)
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
		if c.key == (collArgs{}) {
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

// collArgs are a collective call's arguments that every rank must agree
// on, kept as parts: the mismatch check compares them as a value, and they
// are formatted only for a report or an error.
type collArgs struct {
	format string // with up to two %d verbs, then %s for s when hasS
	a, b   int
	s      string
	n      uint8 // how many of a, b the format uses
	hasS   bool
}

// argsI are arguments described by format with the ints given (0 to 2).
func argsI(format string, v ...int) collArgs {
	k := collArgs{format: format, n: uint8(len(v))}
	if len(v) > 0 {
		k.a = v[0]
	}
	if len(v) > 1 {
		k.b = v[1]
	}
	return k
}

// argsIS is argsI with a final string argument.
func argsIS(format, s string, v ...int) collArgs {
	k := argsI(format, v...)
	k.s, k.hasS = s, true
	return k
}

func (k collArgs) String() string {
	var v []any
	if k.n > 0 {
		v = append(v, k.a)
	}
	if k.n > 1 {
		v = append(v, k.b)
	}
	if k.hasS {
		v = append(v, k.s)
	}
	return fmt.Sprintf(k.format, v...)
}
