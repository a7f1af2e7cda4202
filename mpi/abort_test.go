package mpi

import (
	"errors"
	"strings"
	"testing"

	"nocsim/mpi/mpierr"
)

// An MPI error a program does not handle (here MustAlloc past the heap)
// ends the run with a one-line error naming the rank and the MPI error
// class, not a Go stack: it is about the configuration, not a bug.
func TestUnhandledMPIErrorIsOneLine(t *testing.T) {
	w := job(t, 2, 2, DefaultConfig(), nil)
	w.Launch(func(r *Rank) {
		if r.Rank() == 1 {
			r.MustAlloc(1 << 30)
		}
		r.Barrier(r.CommWorld())
	})
	err := w.Run()
	var me *mpierr.Error
	if err == nil || !errors.As(err, &me) || me.Class != mpierr.ErrBuffer {
		t.Fatalf("Run = %v, want an MPI_ERR_BUFFER error", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine") || !strings.HasPrefix(msg, "rank 1: ") {
		t.Errorf("error %q: want one line starting with the rank", msg)
	}
}

// A panic that is not an MPI error is a bug: it keeps its stack.
func TestBugPanicKeepsStack(t *testing.T) {
	w := job(t, 2, 2, DefaultConfig(), nil)
	w.Launch(func(r *Rank) {
		if r.Rank() == 1 {
			var m map[int]int
			m[0] = 1
		}
	})
	err := w.Run()
	if err == nil || !strings.Contains(err.Error(), "goroutine") {
		t.Fatalf("Run = %v, want the panic with its stack", err)
	}
}
