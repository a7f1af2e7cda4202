package endpoint

import (
	"math"

	"nocsim/config"
	"nocsim/des"
)

// CPUSpec is the processor's configuration: thread contexts and the cost,
// in cycles, of everything software does. Library code charges these; a
// program charges its own computation.
type CPUSpec struct {
	ThreadContexts int     `toml:"thread_contexts"`
	PreemptThreads bool    `toml:"preempt_threads"`
	ClockHz        float64 `toml:"clock_hz"`
	CallCycles     int64   `toml:"call_cycles"`
	// NativeCallCycles is a native SCMP library call (createThread,
	// sendDataIntValue, sendDataBlockNB): native programs make them, and
	// so does the MPI library for its own messages. It defaults to
	// call_cycles's default; a machine may price the two apart (the
	// thesis's native code called thin wrappers around SEND instructions,
	// its MPI library full C functions).
	NativeCallCycles     int64 `toml:"native_call_cycles"`
	ThreadCreateCycles   int64 `toml:"thread_create_cycles"`
	ThreadDispatchCycles int64 `toml:"thread_dispatch_cycles"`
	CopyCyclesPerWord    int64 `toml:"copy_cycles_per_word"`
	SendFlitsPerCycle    int   `toml:"send_flits_per_cycle"`
	PollCycles           int64 `toml:"poll_cycles"`
	// The processor cost model by operation class (thesis section 5 and
	// issue 15): a kernel counts what its loops do (Ops) and Charge turns
	// the counts into cycles. Costs are average cycles per operation, so
	// they may be fractions (a dual-issue core's 0.5 cycles a flop; a
	// fitted machine's 2.37); a charge is rounded to whole cycles. The
	// three beside flop_cycles default to 0, so a kernel charging its
	// flops through Charge costs exactly what Flops charged before.
	FlopCycles       float64 `toml:"flop_cycles"`
	MemCycles        float64 `toml:"mem_cycles"`
	LoopCycles       float64 `toml:"loop_cycles"`
	KernelCallCycles float64 `toml:"kernel_call_cycles"`
}

// Ops counts a kernel's work by operation class, as its code does it.
type Ops struct {
	Flops int64 // floating-point operations
	Mem   int64 // 32-bit words loaded or stored (a double is two)
	Iters int64 // loop iterations (the increment, compare and branch)
	Calls int64 // calls the kernel makes to its own functions
}

// Add returns the sum of two counts.
func (o Ops) Add(p Ops) Ops {
	return Ops{o.Flops + p.Flops, o.Mem + p.Mem, o.Iters + p.Iters, o.Calls + p.Calls}
}

// Cycles is what the counts cost on this processor, to the nearest cycle.
func (s CPUSpec) Cycles(o Ops) int64 {
	return int64(math.Round(float64(o.Flops)*s.FlopCycles + float64(o.Mem)*s.MemCycles +
		float64(o.Iters)*s.LoopCycles + float64(o.Calls)*s.KernelCallCycles))
}

// Charge occupies the processor for what the counts cost (one Compute).
func (t *Thread) Charge(o Ops) {
	t.node.Ops = t.node.Ops.Add(o)
	t.Compute(t.node.cpu.Cycles(o))
}

// DefaultCPUSpec is a simple in-order core at 1 GHz with SCMP's eight
// thread contexts and two-flit-per-cycle send instructions.
func DefaultCPUSpec() CPUSpec {
	return CPUSpec{
		ThreadContexts: 8, ClockHz: 1e9,
		CallCycles: 20, NativeCallCycles: 20, ThreadCreateCycles: 4, ThreadDispatchCycles: 10,
		CopyCyclesPerWord: 1, SendFlitsPerCycle: 2, PollCycles: 4, FlopCycles: 1,
	}
}

// CPUKeys documents the [node] keys.
var CPUKeys = []config.Key{
	config.Range("thread_contexts", "threads", "8", 1, 1024, "contexts for threads created by THREAD messages (the main thread has its own); when all are busy, THREAD messages wait in the NIU and back-pressure the network"),
	{Name: "preempt_threads", Unit: "bool", Default: "false", Allowed: "true, false", Doc: "THREAD messages preempt the main thread's computation (the thesis's proposed redesign) instead of waiting for it to yield"},
	config.Range("clock_hz", "Hz", "1e9", 1e6, 1e12, "processor and network clock; converts cycles to seconds (MPI_Wtime) at the edges"),
	config.Range("call_cycles", "cycles", "20", 0, 1e6, "overhead of each MPI library call (and of each call the thesis library makes inside one)"),
	config.Range("native_call_cycles", "cycles", "20", 0, 1e6, "overhead of each native SCMP library call (createThread, sendDataIntValue, sendDataBlockNB), by native programs and by the MPI library for its own messages"),
	config.Range("thread_create_cycles", "cycles", "4", 0, 1e6, "from a THREAD message's tail to its thread being ready to run"),
	config.Range("thread_dispatch_cycles", "cycles", "10", 0, 1e6, "processor time to switch to another thread"),
	config.Range("copy_cycles_per_word", "cycles/word", "1", 0, 1e6, "copying or packing memory by the processor"),
	config.Range("send_flits_per_cycle", "flits/cycle", "2", 1, 16, "send instructions (SEND2) building a message flit by flit"),
	config.Range("poll_cycles", "cycles", "4", 0, 1e6, "one turn of a wait loop (suspendThread and a flag check)"),
	config.Fractions("flop_cycles", "cycles/flop", "1", 0, 1e6, "a floating-point operation charged by Flops (average cycles; a charge is rounded to whole cycles)"),
	config.Fractions("mem_cycles", "cycles/word", "0", 0, 1e6, "a 32-bit word a kernel loads or stores (a double is two), charged by the application kernels' operation counts"),
	config.Fractions("loop_cycles", "cycles/iteration", "0", 0, 1e6, "a loop iteration of an application kernel (its increment, compare and branch)"),
	config.Fractions("kernel_call_cycles", "cycles/call", "0", 0, 1e6, "a call an application kernel makes to its own functions (library calls cost call_cycles)"),
}

// Validate checks every field against CPUKeys.
func (s CPUSpec) Validate() error { return config.CheckStruct(s, CPUKeys) }

// Seconds converts cycles to seconds at the configured clock.
func (s CPUSpec) Seconds(c des.Time) float64 { return float64(c) / s.ClockHz }

// SendCycles is the processor time to build a message of flits flits with
// send instructions.
func (s CPUSpec) SendCycles(flits int) int64 {
	return int64((flits + s.SendFlitsPerCycle - 1) / s.SendFlitsPerCycle)
}
