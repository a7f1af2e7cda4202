package endpoint

import "fmt"

// createThread's callback (thesis table 2.2): "Creates a thread on the
// destination node dst_node calling the function at addr, passing all
// additional parameters to that function, then calling the function
// callback on the local node when done." The remote side runs addr, then
// sends a THREAD message back that starts callback here; the callback gets
// no parameters (the table passes them to addr only).

// CreateThreadCallback starts handler h on node dst with args as its
// registers and, when h has returned there, handler callback on this
// node. Both must be thread handlers (Register). It charges what
// createThread charges, for the longer message that carries the caller
// and the callback; the remote node pays for the message back.
func (t *Thread) CreateThreadCallback(dst int, h, callback HandlerID, args ...uint32) error {
	m := t.node.m
	for _, id := range []HandlerID{h, callback} {
		if fn, _ := m.handler(id); fn == nil {
			return fmt.Errorf("createThread: handler %d: allowed a thread handler (Register), 0..%d", id, len(m.handlers)-1)
		}
	}
	a := make([]uint32, 0, 3+len(args))
	a = append(a, uint32(t.node.ID), uint32(h), uint32(callback))
	return t.CreateThread(dst, handlerCallback, append(a, args...)...)
}

func (m *Machine) registerCallback() {
	m.Register("createThreadCallback", func(t *Thread, a []uint32) {
		// caller, h, callback, h's args...
		fn, _ := t.node.m.handler(HandlerID(a[1]))
		fn(t, a[3:])
		if err := t.CreateThread(int(a[0]), HandlerID(a[2])); err != nil {
			panic(err)
		}
	})
}
