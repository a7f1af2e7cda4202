package mpi

// Semantics tests: what an MPI program may rely on, checked end to end
// through the simulated network under every protocol. Every expected value
// is computed here, from the MPI rules, never read back from the library.

import (
	"errors"
	"testing"

	"nocsim/mpi/datatype"
	"nocsim/mpi/mpierr"
)

// semEagerBytes restates DefaultConfig's eager threshold: messages up to it
// travel inside the THREAD message under the eager protocol.
const semEagerBytes = 128

// semByte is byte i of message seq from rank src: distinct per (src, seq).
func semByte(src, seq, i int) byte {
	return byte((src*131 + seq*29 + i*7 + 1) ^ (i >> 8))
}

func semFill(b datatype.Buffer, n, src, seq int) {
	for i := 0; i < n; i++ {
		b.Bytes[i] = semByte(src, seq, i)
	}
}

// semBad is the first of b's n bytes that is not message (src, seq), or -1.
func semBad(b []byte, n, src, seq int) int {
	if len(b) < n {
		return len(b)
	}
	for i := 0; i < n; i++ {
		if b[i] != semByte(src, seq, i) {
			return i
		}
	}
	return -1
}

func semSet(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// semClass is the MPI error class of err, or 0 if err is not an *Error.
func semClass(err error) mpierr.Class {
	var e *mpierr.Error
	if errors.As(err, &e) {
		return e.Class
	}
	return 0
}

func semProcs(cfg Config, p int) Config {
	cfg.Procs = p
	return cfg
}

// semSize is the size of message seq in the ordering tests: below, at and
// above the eager threshold, odd and word-sized, and empty.
func semSize(seq int) int {
	sizes := []int{4, 64, semEagerBytes, semEagerBytes + 1, 200, 1000, 7, 500, 12, 130, 0, 96}
	return sizes[seq%len(sizes)]
}

func semRun(t *testing.T, w *World) {
	t.Helper()
	if err := w.Run(); err != nil {
		t.Fatalf("run: %v", err)
	}
}
