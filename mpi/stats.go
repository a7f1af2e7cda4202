package mpi

import "nocsim/des"

type op int

const (
	opSend op = iota
	opSsend
	opRsend
	opBsend
	opIsend
	opIssend
	opIrsend
	opIbsend
	opRecv
	opIrecv
	opWait
	opWaitall
	opWaitany
	opTest
	opTestall
	opProbe
	opIprobe
	opSendrecv
	opCommDup
	opCommSplit
	opCommCreate
	opStart
	opWaitsome
	opTestsome
	opTestany
	opWinCreate
	opWinFree
	opPut
	opGet
	opAccumulate
	opWinFence
	opWinPost
	opWinStart
	opWinComplete
	opWinWait
	numOps
)

var opNames = [numOps]string{"MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Bsend", "MPI_Isend", "MPI_Issend", "MPI_Irsend",
	"MPI_Ibsend", "MPI_Recv", "MPI_Irecv", "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Test", "MPI_Testall",
	"MPI_Probe", "MPI_Iprobe", "MPI_Sendrecv", "MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_create",
	"MPI_Start", "MPI_Waitsome", "MPI_Testsome", "MPI_Testany",
	"MPI_Win_create", "MPI_Win_free", "MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Win_fence", "MPI_Win_post",
	"MPI_Win_start", "MPI_Win_complete", "MPI_Win_wait"}

// OpStats counts one MPI operation on one rank. Times are in cycles.
type OpStats struct {
	Count   int
	Bytes   int
	Total   des.Time
	Max     des.Time
	Blocked des.Time // spent waiting in a wait loop
}

func (s *OpStats) add(d des.Time, bytes int, blocked des.Time) {
	s.Count++
	s.Bytes += bytes
	s.Total += d
	s.Max = max(s.Max, d)
	s.Blocked += blocked
}

// OpStat is one row of a rank's statistics.
type OpStat struct {
	Op string
	OpStats
}

// Stats returns the rank's per-operation statistics, operations it never
// called left out, in a fixed order.
func (r *Rank) Stats() []OpStat {
	var out []OpStat
	for i, s := range r.stats {
		if s.Count > 0 {
			out = append(out, OpStat{opNames[i], s})
		}
	}
	return out
}

// Message records one point-to-point message as its receiver saw it. Times
// are cycles: the send call, the handshake's end (the receiver asked for
// the data, or the eager data arrived), the data in place.
type Message struct {
	Source, Dest, Tag int
	Bytes             int
	Protocol          string
	Posted            des.Time
	Handshake         des.Time
	Done              des.Time
}

// Messages returns the messages this rank received, in completion order,
// if World.LogMessages was called before the run (nil otherwise).
func (r *Rank) Messages() []Message { return r.log }

// Received counts the point-to-point messages this rank received (a
// collective's included), logged or not.
func (r *Rank) Received() int { return r.received }

// LogMessages makes every rank keep the list Messages returns. A run
// without it keeps no per-message record, so its memory does not grow with
// its length.
func (w *World) LogMessages() { w.logMsgs = true }
